//! The error types: [`Error`] for the 1D seed solve, [`SystemError`] for
//! systems (naming the particle or link), [`StepError`] for stepping.
//! Every error leaves the caller's state bit-identical (see each function).

use core::fmt;

/// Why a [`DistanceConstraint::solve`](crate::DistanceConstraint::solve) was
/// rejected. On every error the positions and λ are left bit-identical.
///
/// The variants are listed in the order the checks run (the order of
/// `docs/spec.md`); when several inputs are bad at once, the first failing check
/// is the one reported.
///
/// # Examples
///
/// ```
/// use xpbd::{DistanceConstraint, Error};
/// let mut c = DistanceConstraint::<f64>::new();
/// let (mut a, mut b) = (0.0, 2.0);
/// // A negative inverse mass *and* a zero dt: the inverse mass is checked first.
/// let r = c.solve(&mut a, &mut b, -1.0, 1.0, 1.0, 0.01, 0.0);
/// assert_eq!(r, Err(Error::InvalidInverseMass));
/// assert_eq!((a, b, c.lambda()), (0.0, 2.0, 0.0));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Error {
    /// Check 1: an endpoint position `a` or `b` is NaN or infinite.
    NonFinitePosition,
    /// Check 2: an inverse mass `wa` or `wb` is NaN, infinite or negative.
    InvalidInverseMass,
    /// Check 3: the rest length is NaN, infinite, negative or zero.
    InvalidRestLength,
    /// Check 4: the compliance α is NaN, infinite or negative.
    InvalidCompliance,
    /// Check 5: the substep length h is NaN, infinite, zero or negative.
    InvalidTimeStep,
    /// Check 6: `b > a` does not hold (coincident or swapped endpoints).
    EndpointsNotOrdered,
    /// α̃ = α/h² or the denominator `wa + wb + α̃` is not a finite positive
    /// number (for example `h = 1e-200`, whose square underflows to zero).
    UnrepresentableScale,
    /// The candidate `a'`, `b'` or `λ'` is not finite, or `b' < a'`
    /// (for example `a = -1e308, b = 1e308`, whose gap overflows).
    InvalidResult,
}

impl Error {
    /// A static English description of the error (no allocation).
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Error::NonFinitePosition => "an endpoint position is NaN or infinite",
            Error::InvalidInverseMass => "an inverse mass is NaN, infinite or negative",
            Error::InvalidRestLength => "the rest length is NaN, infinite, negative or zero",
            Error::InvalidCompliance => "the compliance is NaN, infinite or negative",
            Error::InvalidTimeStep => "the substep length is NaN, infinite, zero or negative",
            Error::EndpointsNotOrdered => "the endpoints are not strictly ordered (b > a fails)",
            Error::UnrepresentableScale => {
                "the scaled compliance or the denominator is not a finite positive number"
            }
            Error::InvalidResult => {
                "the corrected positions or multiplier would not be finite or ordered"
            }
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl core::error::Error for Error {}

/// Why a system call was rejected. Every variant that concerns one particle
/// or link names its index (position in the caller's slice).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SystemError {
    /// The substep length h is NaN, infinite, zero or negative.
    InvalidTimeStep,
    /// `positions` and `inverse_masses` have different lengths.
    ParticleCountMismatch,
    /// More particles than `u32` indices can address.
    TooManyParticles,
    /// This particle's position has a NaN or infinite coordinate.
    NonFinitePosition {
        /// Index of the particle.
        particle: usize,
    },
    /// This particle's inverse mass is NaN, infinite or negative.
    InvalidInverseMass {
        /// Index of the particle.
        particle: usize,
    },
    /// This link names a particle index ≥ the particle count.
    IndexOutOfRange {
        /// Index of the link.
        constraint: usize,
    },
    /// This link joins a particle to itself (`i == j`).
    SameParticle {
        /// Index of the link.
        constraint: usize,
    },
    /// This link's rest length is NaN, infinite, negative or zero.
    InvalidRestLength {
        /// Index of the link.
        constraint: usize,
    },
    /// This link's compliance is NaN, infinite or negative.
    InvalidCompliance {
        /// Index of the link.
        constraint: usize,
    },
    /// `α/h²` or `w_i + w_j + α/h²` is not a finite positive number for this link.
    UnrepresentableScale {
        /// Index of the link.
        constraint: usize,
    },
    /// This link's particles coincide and the policy is [`ZeroLength::Reject`](crate::ZeroLength::Reject).
    ZeroLength {
        /// Index of the link.
        constraint: usize,
    },
    /// This link has flag bits other than [`Link::TENSION_ONLY`](crate::Link::TENSION_ONLY)
    /// and [`Link::DISABLED`](crate::Link::DISABLED).
    InvalidFlags {
        /// Index of the link.
        constraint: usize,
    },
    /// Correcting this link would give a non-finite position or λ.
    InvalidResult {
        /// Index of the link.
        constraint: usize,
    },
    /// The convergence tolerance is NaN, infinite or negative.
    InvalidTolerance,
    /// A grid or rope has too few particles or a particle count that does not
    /// match its dimensions.
    InvalidShape,
    /// An output or scratch slice (a builder's links, bends, tets,
    /// positions or triangles; a mesh group's scratch) is too short.
    CapacityTooSmall {
        /// How many entries are needed.
        needed: usize,
    },
    /// This constraint's rest value is out of range: a bend's rest angle
    /// (finite, `|φ₀| ≤ π`), a tet's rest volume (finite, ≠ 0), a tether's
    /// maximum distance (finite, ≥ 0), a mesh's rest volume or pressure
    /// factor (finite, > 0) or its triangle range, an attachment's
    /// `previous` or `target` point (finite).
    InvalidRestValue {
        /// Index of the constraint (groups counted after the links: see
        /// [`Constraints`](crate::Constraints)).
        constraint: usize,
    },
    /// This constraint's geometry is degenerate (a bend's triangle or a
    /// tet with no area or volume, a mesh with no volume gradient) and the
    /// policy is [`ZeroLength::Reject`](crate::ZeroLength::Reject).
    Degenerate {
        /// Index of the constraint (as for `InvalidRestValue`).
        constraint: usize,
    },
    /// The call would do more work than one call may (see
    /// [`MAX_ITERATIONS`](crate::MAX_ITERATIONS) and
    /// [`MAX_WORK`](crate::MAX_WORK)).
    WorkLimit,
}

impl SystemError {
    /// The particle or link index this error names, if any.
    #[must_use]
    #[inline(never)] // one copy for the C layer's many error paths
    pub fn index(&self) -> Option<usize> {
        match *self {
            SystemError::NonFinitePosition { particle }
            | SystemError::InvalidInverseMass { particle } => Some(particle),
            SystemError::IndexOutOfRange { constraint }
            | SystemError::SameParticle { constraint }
            | SystemError::InvalidRestLength { constraint }
            | SystemError::InvalidCompliance { constraint }
            | SystemError::UnrepresentableScale { constraint }
            | SystemError::ZeroLength { constraint }
            | SystemError::InvalidFlags { constraint }
            | SystemError::InvalidRestValue { constraint }
            | SystemError::Degenerate { constraint }
            | SystemError::InvalidResult { constraint } => Some(constraint),
            SystemError::CapacityTooSmall { needed } => Some(needed),
            SystemError::InvalidTimeStep
            | SystemError::ParticleCountMismatch
            | SystemError::TooManyParticles
            | SystemError::InvalidTolerance
            | SystemError::InvalidShape
            | SystemError::WorkLimit => None,
        }
    }
}

impl fmt::Display for SystemError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            SystemError::InvalidTimeStep => {
                f.write_str("the substep length is NaN, infinite, zero or negative")
            }
            SystemError::ParticleCountMismatch => {
                f.write_str("positions and inverse masses have different lengths")
            }
            SystemError::TooManyParticles => {
                f.write_str("more particles than u32 indices can address")
            }
            SystemError::NonFinitePosition { particle } => {
                write!(f, "particle {particle}: position is NaN or infinite")
            }
            SystemError::InvalidInverseMass { particle } => {
                write!(
                    f,
                    "particle {particle}: inverse mass is NaN, infinite or negative"
                )
            }
            SystemError::IndexOutOfRange { constraint } => {
                write!(f, "link {constraint}: particle index out of range")
            }
            SystemError::SameParticle { constraint } => write!(f, "link {constraint}: i == j"),
            SystemError::InvalidRestLength { constraint } => {
                write!(
                    f,
                    "link {constraint}: rest length is NaN, infinite, negative or zero"
                )
            }
            SystemError::InvalidCompliance { constraint } => {
                write!(
                    f,
                    "link {constraint}: compliance is NaN, infinite or negative"
                )
            }
            SystemError::UnrepresentableScale { constraint } => {
                write!(f, "link {constraint}: scaled compliance or denominator is not finite and positive")
            }
            SystemError::ZeroLength { constraint } => {
                write!(f, "link {constraint}: particles coincide (zero length)")
            }
            SystemError::InvalidFlags { constraint } => {
                write!(f, "link {constraint}: unknown flag bits")
            }
            SystemError::InvalidResult { constraint } => {
                write!(f, "link {constraint}: correction would not be finite")
            }
            SystemError::InvalidRestValue { constraint } => {
                write!(f, "constraint {constraint}: rest value out of range")
            }
            SystemError::Degenerate { constraint } => {
                write!(
                    f,
                    "constraint {constraint}: degenerate geometry (no area or volume)"
                )
            }
            SystemError::InvalidTolerance => f.write_str("tolerance is NaN, infinite or negative"),
            SystemError::InvalidShape => {
                f.write_str("particle count does not fit the requested shape")
            }
            SystemError::CapacityTooSmall { needed } => {
                write!(
                    f,
                    "output or scratch slice too short: {needed} entries needed"
                )
            }
            SystemError::WorkLimit => f.write_str("more work than one call may do"),
        }
    }
}

impl core::error::Error for SystemError {}

/// Why a step was rejected. On every error positions and velocities are as
/// they were before the step (λ and contacts may hold the failed substep's
/// values: they are per-substep state).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum StepError {
    /// The frame time is NaN, infinite, zero or negative.
    InvalidFrameTime,
    /// A configuration value is out of its domain: `substeps` or
    /// `iterations` 0, or gravity, tolerance, damping, radius, contact
    /// compliance or friction NaN, infinite or negative.
    InvalidConfig {
        /// The value concerned.
        field: Field,
    },
    /// `velocities` has a different length from `positions`.
    VelocityCountMismatch,
    /// This particle's velocity is NaN or infinite.
    NonFiniteVelocity {
        /// Index of the particle.
        particle: usize,
    },
    /// This collider (planes, then spheres, capsules, boxes, heightfields,
    /// signed distance fields, then engine contacts) has a non-finite
    /// value, a zero normal, a negative radius, extent or friction, axes
    /// not orthonormal, too few grid nodes, a spacing ≤ 0, a sample range
    /// outside the samples or a non-finite sample, or a particle out of
    /// range.
    InvalidCollider {
        /// Index of the collider.
        collider: usize,
    },
    /// `scratch` is shorter than [`scratch_len`](crate::step::scratch_len).
    ScratchTooSmall {
        /// Entries needed.
        needed: usize,
    },
    /// A substep found more contacts against colliders than
    /// `World::contacts` holds (under
    /// [`ContactOverflow::Reject`](crate::step::ContactOverflow::Reject));
    /// positions and velocities rolled back.
    ContactCapacity {
        /// Contacts that substep found: a `contacts` of this length holds them.
        needed: usize,
    },
    /// A substep found more particle–particle pairs than
    /// [`SelfCollision::pairs`](crate::step::SelfCollision::pairs) holds
    /// (under [`ContactOverflow::Reject`](crate::step::ContactOverflow::Reject));
    /// positions and velocities rolled back.
    PairCapacity {
        /// Pairs that substep found: a `pairs` of this length holds them.
        needed: usize,
    },
    /// Correcting this contact (index in `contacts`) would not be finite.
    InvalidContactResult {
        /// Index of the contact.
        contact: usize,
    },
    /// A position or velocity would not be finite at the end of a substep,
    /// or the frame's force (`impulse / dt`) of an attachment or engine
    /// contact on this particle would not be (a very heavy particle pushed
    /// or held far in a short frame; attachments first, then engine
    /// contacts, each in slice order).
    InvalidResult {
        /// Index of the particle.
        particle: usize,
    },
    /// The constraint system rejected the substep or a sweep.
    System(SystemError),
    /// `link_max_force` is neither empty nor one entry per link.
    MaxForceCountMismatch,
    /// This link's maximum force is NaN, zero or negative.
    InvalidMaxForce {
        /// Index of the link.
        link: usize,
    },
    /// Self-collision is on (`World::self_collision` is `Some`) but the
    /// particle radius is 0 ([`Field::ParticleRadius`]), a scratch buffer
    /// is shorter than it must be ([`Field::HashTable`]:
    /// [`self_collision_table_len`](crate::step::self_collision_table_len),
    /// [`Field::HashIds`]: one per particle, [`Field::Adjacency`]:
    /// [`self_collision_adjacency_len`](crate::step::self_collision_adjacency_len)),
    /// or `rest` is neither empty nor one finite position per particle
    /// ([`Field::RestPositions`]).
    InvalidSelfCollision {
        /// What is wrong.
        field: Field,
    },
    /// A world holds constraint groups ([`World::groups`](crate::step::World::groups)),
    /// a wind block ([`World::wind`](crate::step::World::wind)) or a
    /// local-space block ([`World::local_space`](crate::step::World::local_space))
    /// but is not 3D: they act in 3D.
    GroupsNeed3D,
    /// The wind block ([`Wind`](crate::step::Wind)) has a bad value:
    /// [`Field::WindVelocity`] (not finite), [`Field::FluidDensity`]
    /// (negative or not finite), [`Field::ParticleWind`] (`index`: the
    /// first non-finite entry, or the slice's length when it is neither
    /// empty nor one entry per particle), [`Field::AeroTriangles`]
    /// (`index`: the triangle, with an index out of range, two equal
    /// indices, or a coefficient negative or not finite).
    InvalidWind {
        /// The value concerned.
        field: Field,
        /// The entry concerned (0 for a single value).
        index: usize,
    },
    /// The local-space block ([`LocalSpace`](crate::step::LocalSpace)) has
    /// a bad value: [`Field::RootTransform`] (a rotation or translation not
    /// finite, or a rotation whose norm is not within 1e-3 of 1),
    /// [`Field::InertiaScale`] (outside [0, 1] or NaN),
    /// [`Field::FrameVelocityLimit`] or [`Field::FrameAccelerationLimit`]
    /// (negative or NaN), [`Field::FrameVelocity`] (not finite).
    InvalidLocalSpace {
        /// The value concerned.
        field: Field,
    },
    /// `substeps` is over [`MAX_SUBSTEPS`](crate::MAX_SUBSTEPS),
    /// `iterations` over [`MAX_ITERATIONS`](crate::MAX_ITERATIONS), or the
    /// frame's work over [`MAX_WORK`](crate::MAX_WORK): before anything is
    /// written when its sweeps (substeps × iterations × (links + contact
    /// capacity + engine contacts + pair capacity + group constraints))
    /// and its particle work (substeps × particles × (1 + planes +
    /// spheres + capsules + boxes)) are over; during a substep, positions
    /// and velocities rolled back, when the self-collision pair searches
    /// would go over what is left (every candidate, each entry of the
    /// hash buckets around a particle, and every linked neighbour
    /// compared counts one visit).
    WorkLimit,
    /// The job system given to [`step_colored`](crate::step::step_colored)
    /// returned from [`Jobs::run`](crate::step::Jobs::run) without running
    /// every task of a phase.
    JobContract,
}

/// The value or buffer an error names ([`StepError::InvalidConfig`],
/// [`StepError::InvalidSelfCollision`]); in C the `XPBD_FIELD_*` code
/// written to the world's `error_field` beside the status.
#[repr(i32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Field {
    /// No particular field.
    None = 0,
    /// `StepConfig::substeps` (0).
    Substeps = 1,
    /// `StepConfig::iterations` (0).
    Iterations = 2,
    /// `StepConfig::gravity` (not finite).
    Gravity = 3,
    /// `StepConfig::tolerance`.
    Tolerance = 4,
    /// `StepConfig::damping`.
    Damping = 5,
    /// `StepConfig::particle_radius` (negative, not finite, or 0 with
    /// self-collision).
    ParticleRadius = 6,
    /// `StepConfig::contact_compliance`.
    ContactCompliance = 7,
    /// `StepConfig::static_friction`.
    StaticFriction = 8,
    /// `StepConfig::dynamic_friction`.
    DynamicFriction = 9,
    /// The zero-length policy code (C).
    ZeroLengthPolicy = 10,
    /// The contact overflow policy code (C).
    ContactOverflow = 11,
    /// The self-collision hash table.
    HashTable = 12,
    /// The self-collision particle ids.
    HashIds = 13,
    /// The self-collision adjacency.
    Adjacency = 14,
    /// The self-collision rest positions.
    RestPositions = 15,
    /// The contact buffer (its length needed in the error's index).
    Contacts = 16,
    /// The particle pair buffer (its length needed in the error's index).
    Pairs = 17,
    /// The step scratch (its length needed in the error's index).
    Scratch = 18,
    /// The world's memory (C: its size in bytes needed in the error's index).
    Memory = 19,
    /// A block of the world (C: its position in the chain in the error's
    /// index): an unknown kind, a size this library does not know, or a
    /// kind given twice.
    Block = 20,
    /// The frame time.
    FrameTime = 21,
    /// `StepConfig::max_distance_scale` (negative or not finite).
    MaxDistanceScale = 22,
    /// `Wind::velocity` (not finite).
    WindVelocity = 23,
    /// `Wind::density` (negative or not finite).
    FluidDensity = 24,
    /// `Wind::particle_velocities` (a length neither 0 nor the particle
    /// count, or an entry not finite).
    ParticleWind = 25,
    /// `Wind::triangles` (an index out of range, two equal indices, a
    /// coefficient negative or not finite).
    AeroTriangles = 26,
    /// `LocalSpace::previous` or `target` (not finite, a rotation not of
    /// unit norm, or a motion between them whose velocity is not finite).
    RootTransform = 27,
    /// `LocalSpace::linear_inertia` or `angular_inertia` (outside [0, 1]).
    InertiaScale = 28,
    /// `LocalSpace::max_linear_velocity` or `max_angular_velocity`
    /// (negative or NaN).
    FrameVelocityLimit = 29,
    /// `LocalSpace::max_linear_acceleration` or `max_angular_acceleration`
    /// (negative or NaN).
    FrameAccelerationLimit = 30,
    /// `LocalSpace::linear_velocity` or `angular_velocity` (not finite).
    FrameVelocity = 31,
}

impl Field {
    /// Every field, in code order.
    pub const ALL: [Field; 32] = [
        Field::None,
        Field::Substeps,
        Field::Iterations,
        Field::Gravity,
        Field::Tolerance,
        Field::Damping,
        Field::ParticleRadius,
        Field::ContactCompliance,
        Field::StaticFriction,
        Field::DynamicFriction,
        Field::ZeroLengthPolicy,
        Field::ContactOverflow,
        Field::HashTable,
        Field::HashIds,
        Field::Adjacency,
        Field::RestPositions,
        Field::Contacts,
        Field::Pairs,
        Field::Scratch,
        Field::Memory,
        Field::Block,
        Field::FrameTime,
        Field::MaxDistanceScale,
        Field::WindVelocity,
        Field::FluidDensity,
        Field::ParticleWind,
        Field::AeroTriangles,
        Field::RootTransform,
        Field::InertiaScale,
        Field::FrameVelocityLimit,
        Field::FrameAccelerationLimit,
        Field::FrameVelocity,
    ];

    /// The C code (`XPBD_FIELD_*`).
    #[must_use]
    #[allow(clippy::as_conversions)] // a fieldless `repr(i32)` enum to its own repr: exact
    pub const fn code(self) -> i32 {
        self as i32
    }

    /// The field's name as the Rust and C APIs spell it.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Field::None => "none",
            Field::Substeps => "substeps",
            Field::Iterations => "iterations",
            Field::Gravity => "gravity",
            Field::Tolerance => "tolerance",
            Field::Damping => "damping",
            Field::ParticleRadius => "particle_radius",
            Field::ContactCompliance => "contact_compliance",
            Field::StaticFriction => "static_friction",
            Field::DynamicFriction => "dynamic_friction",
            Field::ZeroLengthPolicy => "zero_length_policy",
            Field::ContactOverflow => "contact_overflow",
            Field::HashTable => "hash_table",
            Field::HashIds => "hash_ids",
            Field::Adjacency => "adjacency",
            Field::RestPositions => "rest_positions",
            Field::Contacts => "contacts",
            Field::Pairs => "pairs",
            Field::Scratch => "scratch",
            Field::Memory => "memory",
            Field::Block => "block",
            Field::FrameTime => "frame_time",
            Field::MaxDistanceScale => "max_distance_scale",
            Field::WindVelocity => "wind_velocity",
            Field::FluidDensity => "fluid_density",
            Field::ParticleWind => "particle_wind",
            Field::AeroTriangles => "aero_triangles",
            Field::RootTransform => "root_transform",
            Field::InertiaScale => "inertia_scale",
            Field::FrameVelocityLimit => "frame_velocity_limit",
            Field::FrameAccelerationLimit => "frame_acceleration_limit",
            Field::FrameVelocity => "frame_velocity",
        }
    }
}

impl From<SystemError> for StepError {
    fn from(e: SystemError) -> Self {
        StepError::System(e)
    }
}

impl fmt::Display for StepError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            StepError::InvalidFrameTime => {
                f.write_str("frame time is NaN, infinite, zero or negative")
            }
            StepError::InvalidConfig { field } => {
                write!(
                    f,
                    "step configuration: {} is out of its domain",
                    field.name()
                )
            }
            StepError::VelocityCountMismatch => {
                f.write_str("velocities and positions have different lengths")
            }
            StepError::NonFiniteVelocity { particle } => {
                write!(f, "particle {particle}: velocity is NaN or infinite")
            }
            StepError::InvalidCollider { collider } => {
                write!(f, "collider {collider}: invalid shape")
            }
            StepError::ScratchTooSmall { needed } => {
                write!(f, "scratch too short: {needed} entries needed")
            }
            StepError::ContactCapacity { needed } => {
                write!(
                    f,
                    "more contacts than the contact buffer holds: {needed} needed"
                )
            }
            StepError::PairCapacity { needed } => {
                write!(
                    f,
                    "more particle pairs than the pair buffer holds: {needed} needed"
                )
            }
            StepError::GroupsNeed3D => {
                f.write_str("constraint groups, wind and local space need a 3D world")
            }
            StepError::InvalidWind { field, index } => {
                write!(f, "wind: {} (entry {index}) is invalid", field.name())
            }
            StepError::InvalidLocalSpace { field } => {
                write!(f, "local space: {} is invalid", field.name())
            }
            StepError::InvalidContactResult { contact } => {
                write!(f, "contact {contact}: correction would not be finite")
            }
            StepError::InvalidResult { particle } => {
                write!(f, "particle {particle}: state would not be finite")
            }
            StepError::System(e) => write!(f, "{e}"),
            StepError::MaxForceCountMismatch => {
                f.write_str("link_max_force is neither empty nor one entry per link")
            }
            StepError::InvalidMaxForce { link } => {
                write!(f, "link {link}: maximum force is NaN, zero or negative")
            }
            StepError::WorkLimit => f.write_str("more work than one step may do"),
            StepError::JobContract => f.write_str("the job system skipped a task of a phase"),
            StepError::InvalidSelfCollision { field } => {
                write!(
                    f,
                    "self-collision: {} is invalid or too short",
                    field.name()
                )
            }
        }
    }
}

impl core::error::Error for StepError {}
