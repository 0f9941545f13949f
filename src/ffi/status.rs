//! Statuses: the one result type of every C function, its codes, texts and
//! the conversions from the Rust errors.

use core::ffi::c_char;

use crate::error::Field;
use crate::version::VERSION_NUMBER;
use crate::{Error, StepError, SystemError};

/// Status of a C call: 0 or 1 on success, a negative code on error.
///
/// In C the type is `int32_t`, and the values are `XPBD_STATUS_*` constants.
/// Pass any of them to `xpbd_status_str` for an English description.
#[repr(i32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum XpbdStatus {
    /// The correction was applied.
    Ok = 0,
    /// Nothing to do (both endpoints static, `wa = wb = 0`); nothing changed.
    Skipped = 1,
    /// A required pointer argument was NULL; nothing changed.
    NullPointer = -1,
    /// An endpoint position is NaN or infinite; nothing changed.
    NonFinitePosition = -2,
    /// An inverse mass is NaN, infinite or negative; nothing changed.
    InvalidInverseMass = -3,
    /// The rest length is NaN, infinite, negative or zero; nothing changed.
    InvalidRestLength = -4,
    /// The compliance is NaN, infinite or negative; nothing changed.
    InvalidCompliance = -5,
    /// The substep length is NaN, infinite, zero or negative; nothing changed.
    InvalidTimeStep = -6,
    /// `*b > *a` does not hold (also when `a` and `b` point at the same
    /// value); nothing changed.
    EndpointsNotOrdered = -7,
    /// `compliance / (dt * dt)` or `wa + wb + compliance / (dt * dt)` is not a
    /// finite positive number; nothing changed.
    UnrepresentableScale = -8,
    /// The corrected positions or multiplier would not be finite or ordered;
    /// nothing changed.
    InvalidResult = -9,
    /// A link names a particle index ≥ the particle count; nothing changed.
    IndexOutOfRange = -10,
    /// A link joins a particle to itself (`i == j`); nothing changed.
    SameParticle = -11,
    /// A link's particles coincide under `XPBD_ZERO_LENGTH_REJECT`.
    ZeroLength = -12,
    /// Buffers passed to one call overlap each other or the system struct;
    /// nothing changed.
    AliasedBuffers = -13,
    /// `iterate` was called without a successful `begin_substep`.
    NoSubstep = -14,
    /// An argument is out of its domain (unknown policy code, bad
    /// tolerance, grid shape, misaligned or oversized buffer); nothing changed.
    InvalidArgument = -15,
    /// The output buffer is too small; nothing changed.
    CapacityTooSmall = -16,
    /// A particle velocity is NaN or infinite; nothing changed.
    NonFiniteVelocity = -17,
    /// A collider (plane, sphere, capsule, box or engine contact) has a
    /// non-finite value, a zero normal, a negative radius, extent or
    /// friction, axes not orthonormal or a particle out of range; nothing
    /// changed.
    InvalidCollider = -18,
    /// A flag bit this machine or version does not support: a SIMD bit
    /// the CPU or OS lacks, or an undefined one
    /// (`xpbd_simd_links3_set_simd`); nothing changed. (Until 0.1 also a link
    /// flag the colored path did not solve; it honours
    /// `XPBD_LINK_TENSION_ONLY` since.)
    UnsupportedFlag = -19,
    /// The call would do more work than one call may (`XPBD_MAX_SUBSTEPS`,
    /// `XPBD_MAX_ITERATIONS`, `XPBD_MAX_WORK`); nothing changed.
    WorkLimit = -20,
    /// A colored job broke the job contract: its job count differs from
    /// the one the color was started with (detected when cheap; see
    /// `docs/c-api.md`); this job did nothing.
    JobContract = -21,
    /// A constraint's rest value is out of range (a bend's rest angle, a
    /// tet's rest volume, a tether's maximum distance, a mesh's rest
    /// volume, pressure factor or triangle range, an attachment's
    /// `previous` or `target` point that is not finite); nothing changed.
    /// A call with an `error_index` names the constraint there.
    InvalidRestValue = -22,
    /// A constraint's geometry is degenerate (a bend's triangle or a tet
    /// without area or volume, a mesh without volume gradient) under
    /// `XPBD_ZERO_LENGTH_REJECT`; nothing changed for it.
    Degenerate = -23,
    /// A step configuration value is out of its domain; the world's
    /// `error_field` names it (`XPBD_FIELD_SUBSTEPS`, `_ITERATIONS`,
    /// `_GRAVITY`, `_TOLERANCE`, `_DAMPING`, `_PARTICLE_RADIUS`,
    /// `_CONTACT_COMPLIANCE`, `_STATIC_FRICTION`, `_DYNAMIC_FRICTION`,
    /// `_ZERO_LENGTH_POLICY`, `_CONTACT_OVERFLOW`); nothing changed.
    InvalidConfig = -24,
    /// Self-collision cannot run: the particle radius is 0
    /// (`XPBD_FIELD_PARTICLE_RADIUS`) or its rest positions are not
    /// finite (`XPBD_FIELD_REST_POSITIONS`; also a hash table, id or
    /// adjacency buffer too short, in the Rust API); `error_field` names
    /// it; nothing changed.
    InvalidSelfCollision = -25,
    /// A link's maximum force (tearing) is NaN, zero or negative;
    /// `error_index` names the link; nothing changed.
    InvalidMaxForce = -26,
    /// A block of the world's chain is not one this library knows for
    /// this precision (kind or size), appears twice, or the chain is
    /// longer than `XPBD_MAX_BLOCKS` (a cycle); `error_index` is its
    /// position in the chain; nothing changed.
    InvalidBlock = -27,
    /// The wind block has a bad value; `error_field` names it
    /// (`XPBD_FIELD_WIND_VELOCITY`, `_FLUID_DENSITY`, `_PARTICLE_WIND`,
    /// `_AERO_TRIANGLES`) and `error_index` the entry (a particle or a
    /// triangle); nothing changed.
    InvalidWind = -28,
    /// The local-space block has a bad value; `error_field` names it
    /// (`XPBD_FIELD_ROOT_TRANSFORM`, `_INERTIA_SCALE`,
    /// `_FRAME_VELOCITY_LIMIT`); nothing changed.
    InvalidLocalSpace = -29,
}

/// Every status, in code order (0, 1, then −1, −2, …).
const ALL_STATUSES: [XpbdStatus; 31] = [
    XpbdStatus::Ok,
    XpbdStatus::Skipped,
    XpbdStatus::NullPointer,
    XpbdStatus::NonFinitePosition,
    XpbdStatus::InvalidInverseMass,
    XpbdStatus::InvalidRestLength,
    XpbdStatus::InvalidCompliance,
    XpbdStatus::InvalidTimeStep,
    XpbdStatus::EndpointsNotOrdered,
    XpbdStatus::UnrepresentableScale,
    XpbdStatus::InvalidResult,
    XpbdStatus::IndexOutOfRange,
    XpbdStatus::SameParticle,
    XpbdStatus::ZeroLength,
    XpbdStatus::AliasedBuffers,
    XpbdStatus::NoSubstep,
    XpbdStatus::InvalidArgument,
    XpbdStatus::CapacityTooSmall,
    XpbdStatus::NonFiniteVelocity,
    XpbdStatus::InvalidCollider,
    XpbdStatus::UnsupportedFlag,
    XpbdStatus::WorkLimit,
    XpbdStatus::JobContract,
    XpbdStatus::InvalidRestValue,
    XpbdStatus::Degenerate,
    XpbdStatus::InvalidConfig,
    XpbdStatus::InvalidSelfCollision,
    XpbdStatus::InvalidMaxForce,
    XpbdStatus::InvalidBlock,
    XpbdStatus::InvalidWind,
    XpbdStatus::InvalidLocalSpace,
];

impl XpbdStatus {
    /// The status with this integer code, if there is one.
    #[must_use]
    pub fn from_code(code: i32) -> Option<XpbdStatus> {
        ALL_STATUSES.into_iter().find(|s| s.code() == code)
    }

    /// The integer code C sees (`XPBD_STATUS_*`).
    #[must_use]
    #[allow(clippy::as_conversions)] // a fieldless `repr(i32)` enum to its own repr: exact
    pub const fn code(self) -> i32 {
        self as i32
    }

    /// A static English description (what `xpbd_status_str` returns).
    #[must_use]
    pub const fn description(self) -> &'static core::ffi::CStr {
        match self {
            XpbdStatus::Ok => c"ok: the work was done",
            XpbdStatus::Skipped => c"skipped: nothing to do (both endpoints static), nothing changed",
            XpbdStatus::NullPointer => c"null pointer: a required pointer argument was NULL",
            XpbdStatus::NonFinitePosition => c"non-finite position: an endpoint position is NaN or infinite",
            XpbdStatus::InvalidInverseMass => c"invalid inverse mass: an inverse mass is NaN, infinite or negative",
            XpbdStatus::InvalidRestLength => {
                c"invalid rest length: the rest length is NaN, infinite, negative or zero"
            }
            XpbdStatus::InvalidCompliance => c"invalid compliance: the compliance is NaN, infinite or negative",
            XpbdStatus::InvalidTimeStep => {
                c"invalid time step: the substep length is NaN, infinite, zero or negative"
            }
            XpbdStatus::EndpointsNotOrdered => c"endpoints not ordered: b > a does not hold",
            XpbdStatus::UnrepresentableScale => {
                c"unrepresentable scale: compliance/(dt*dt) or the denominator is not finite and positive"
            }
            XpbdStatus::InvalidResult => {
                c"invalid result: the corrected values would not be finite or ordered"
            }
            XpbdStatus::IndexOutOfRange => c"index out of range: a link names a particle that does not exist",
            XpbdStatus::SameParticle => c"same particle: a link joins a particle to itself",
            XpbdStatus::ZeroLength => c"zero length: a link's particles coincide, its direction is undefined",
            XpbdStatus::AliasedBuffers => c"aliased buffers: buffers of one call overlap",
            XpbdStatus::NoSubstep => c"no substep: iterate was called without a successful begin_substep",
            XpbdStatus::InvalidArgument => c"invalid argument: an argument is outside its domain",
            XpbdStatus::CapacityTooSmall => c"capacity too small: the output buffer cannot hold the result",
            XpbdStatus::NonFiniteVelocity => c"non-finite velocity: a particle velocity is NaN or infinite",
            XpbdStatus::InvalidCollider => c"invalid collider: a plane, sphere, capsule, box, heightfield, SDF or engine contact is not finite, degenerate or out of range",
            XpbdStatus::UnsupportedFlag => {
                c"unsupported flag: a SIMD bit this CPU lacks or this version does not define"
            }
            XpbdStatus::WorkLimit => c"work limit: the call would do more work than one call may",
            XpbdStatus::JobContract => {
                c"job contract: a colored job's job count differs from the one its color started with"
            }
            XpbdStatus::InvalidRestValue => {
                c"invalid rest value: a rest angle, rest volume, maximum distance, pressure factor or attachment point is out of range (not finite)"
            }
            XpbdStatus::Degenerate => {
                c"degenerate: a constraint's triangle, tet or mesh has no area or volume"
            }
            XpbdStatus::InvalidConfig => {
                c"invalid config: a step configuration value is out of its domain (error_field names it)"
            }
            XpbdStatus::InvalidSelfCollision => {
                c"invalid self-collision: radius 0 or bad rest positions (error_field names it)"
            }
            XpbdStatus::InvalidMaxForce => {
                c"invalid max force: a link's maximum force is NaN, zero or negative"
            }
            XpbdStatus::InvalidBlock => {
                c"invalid block: a world block of an unknown kind or size, given twice, or a cycle"
            }
            XpbdStatus::InvalidLocalSpace => {
                c"invalid local space: a root transform, inertia scale or frame velocity limit is out of its domain (error_field names it)"
            }
            XpbdStatus::InvalidWind => {
                c"invalid wind: a wind velocity, fluid density, particle wind or aerodynamic triangle is out of its domain (error_field and error_index name it)"
            }
        }
    }
}

impl From<Error> for XpbdStatus {
    fn from(e: Error) -> Self {
        match e {
            Error::NonFinitePosition => XpbdStatus::NonFinitePosition,
            Error::InvalidInverseMass => XpbdStatus::InvalidInverseMass,
            Error::InvalidRestLength => XpbdStatus::InvalidRestLength,
            Error::InvalidCompliance => XpbdStatus::InvalidCompliance,
            Error::InvalidTimeStep => XpbdStatus::InvalidTimeStep,
            Error::EndpointsNotOrdered => XpbdStatus::EndpointsNotOrdered,
            Error::UnrepresentableScale => XpbdStatus::UnrepresentableScale,
            Error::InvalidResult => XpbdStatus::InvalidResult,
        }
    }
}

impl From<SystemError> for XpbdStatus {
    // One copy for every C entry point (it is a table lookup's worth of
    // code, and inlined it was repeated in each of them).
    #[inline(never)]
    fn from(e: SystemError) -> Self {
        match e {
            SystemError::InvalidTimeStep => XpbdStatus::InvalidTimeStep,
            SystemError::NonFinitePosition { .. } => XpbdStatus::NonFinitePosition,
            SystemError::InvalidInverseMass { .. } => XpbdStatus::InvalidInverseMass,
            SystemError::IndexOutOfRange { .. } => XpbdStatus::IndexOutOfRange,
            SystemError::SameParticle { .. } => XpbdStatus::SameParticle,
            SystemError::InvalidRestLength { .. } => XpbdStatus::InvalidRestLength,
            SystemError::InvalidCompliance { .. } => XpbdStatus::InvalidCompliance,
            SystemError::UnrepresentableScale { .. } => XpbdStatus::UnrepresentableScale,
            SystemError::ZeroLength { .. } => XpbdStatus::ZeroLength,
            SystemError::InvalidResult { .. } => XpbdStatus::InvalidResult,
            SystemError::CapacityTooSmall { .. } => XpbdStatus::CapacityTooSmall,
            SystemError::InvalidFlags { .. } => XpbdStatus::InvalidArgument,
            SystemError::WorkLimit => XpbdStatus::WorkLimit,
            SystemError::InvalidRestValue { .. } => XpbdStatus::InvalidRestValue,
            SystemError::Degenerate { .. } => XpbdStatus::Degenerate,
            SystemError::ParticleCountMismatch
            | SystemError::TooManyParticles
            | SystemError::InvalidTolerance
            | SystemError::InvalidShape => XpbdStatus::InvalidArgument,
        }
    }
}

/// The status, the index (particle, link, collider, contact or a length
/// needed; 0 when none) and the field of a step error.
pub(crate) fn status_of(e: StepError) -> (XpbdStatus, usize, Field) {
    match e {
        StepError::InvalidFrameTime => (XpbdStatus::InvalidTimeStep, 0, Field::FrameTime),
        StepError::WorkLimit => (XpbdStatus::WorkLimit, 0, Field::None),
        StepError::JobContract => (XpbdStatus::JobContract, 0, Field::None),
        StepError::InvalidSelfCollision { field } => (XpbdStatus::InvalidSelfCollision, 0, field),
        StepError::InvalidConfig { field } => (XpbdStatus::InvalidConfig, 0, field),
        StepError::InvalidWind { field, index } => (XpbdStatus::InvalidWind, index, field),
        StepError::InvalidLocalSpace { field } => (XpbdStatus::InvalidLocalSpace, 0, field),
        StepError::NonFiniteVelocity { particle } => {
            (XpbdStatus::NonFiniteVelocity, particle, Field::None)
        }
        StepError::InvalidCollider { collider } => {
            (XpbdStatus::InvalidCollider, collider, Field::None)
        }
        StepError::ScratchTooSmall { needed } => {
            (XpbdStatus::CapacityTooSmall, needed, Field::Scratch)
        }
        StepError::ContactCapacity { needed } => {
            (XpbdStatus::CapacityTooSmall, needed, Field::Contacts)
        }
        StepError::PairCapacity { needed } => (XpbdStatus::CapacityTooSmall, needed, Field::Pairs),
        StepError::InvalidMaxForce { link } => (XpbdStatus::InvalidMaxForce, link, Field::None),
        StepError::InvalidContactResult { contact } => {
            (XpbdStatus::InvalidResult, contact, Field::None)
        }
        StepError::InvalidResult { particle } => (XpbdStatus::InvalidResult, particle, Field::None),
        StepError::System(s) => (XpbdStatus::from(s), s.index().unwrap_or(0), Field::None),
        // Not reachable from C (one count per buffer, 3D only); kept
        // distinct in Rust.
        StepError::MaxForceCountMismatch
        | StepError::VelocityCountMismatch
        | StepError::GroupsNeed3D => (XpbdStatus::InvalidArgument, 0, Field::None),
    }
}

/// A static, NUL-terminated English description of a status code.
///
/// Takes any integer: codes this library does not define give
/// `"unknown xpbd status code"`. The returned pointer is never NULL and must
/// not be freed.
#[no_mangle]
pub extern "C" fn xpbd_status_str(status: i32) -> *const c_char {
    match XpbdStatus::from_code(status) {
        Some(s) => s.description().as_ptr(),
        None => c"unknown xpbd status code".as_ptr(),
    }
}

/// The version of the linked library as `major * 10000 + minor * 100 + patch`
/// (0.1.0 is `100`).
///
/// Compare it with the header's `XPBD_VERSION_NUMBER` at start-up to catch a
/// header and a library from different releases; `xpbd_version() / 10000` is
/// the major version. Never fails, takes no pointer.
#[no_mangle]
pub extern "C" fn xpbd_version() -> u32 {
    VERSION_NUMBER
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_function_returns_the_version_number() {
        assert_eq!(xpbd_version(), VERSION_NUMBER);
    }

    #[test]
    fn every_status_round_trips_and_has_a_text() {
        for s in ALL_STATUSES {
            assert_eq!(XpbdStatus::from_code(s.code()), Some(s));
            assert!(!s.description().to_bytes().is_empty());
        }
        assert_eq!(XpbdStatus::from_code(12345), None);
    }
}
