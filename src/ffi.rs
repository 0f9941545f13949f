//! The C ABI: `extern "C"` functions over caller-owned storage, declared in
//! the generated header `include/xpbd.h`.
//!
//! Conventions (the same for every C function in this crate):
//!
//! - Every function returns an [`XpbdStatus`]: `XPBD_STATUS_OK` (0) when the
//!   work was done, `XPBD_STATUS_SKIPPED` (1) when there was nothing to do,
//!   a negative code on error. [`xpbd_status_str`] describes any code.
//! - Every pointer is checked for null first (`XPBD_STATUS_NULL_POINTER`).
//! - Inputs are read by value, validated, and the outputs are written only
//!   on success: on any error the caller's memory is unchanged.
//! - No Rust reference is ever formed from a caller pointer, so aliased
//!   pointers (legal in C) are never undefined behaviour: the values are
//!   copied in, solved, and copied out.
//! - Codes coming from C are plain integers (`int32_t`), never Rust enums.

use core::ffi::c_char;
use core::ptr;

use crate::distance::{accept, checked, FAST_PATH};
use crate::real::Real;
use crate::Error;

pub use crate::version::xpbd_version;

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
    /// A collider has a non-finite value, a zero normal or a negative
    /// radius; nothing changed.
    InvalidCollider = -18,
}

/// Every status, in code order (0, 1, then −1, −2, …).
const ALL_STATUSES: [XpbdStatus; 20] = [
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
            XpbdStatus::InvalidCollider => c"invalid collider: a plane or sphere is not finite or degenerate",
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

/// One 1D distance constraint in f64: the accumulated multiplier λ (kg·m) of
/// one link for the current substep.
///
/// Zero-initialise it or call `xpbd_distance_begin_substep`; keep one per
/// link and pass the same one to every iteration of a substep.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct XpbdDistanceConstraint {
    /// Accumulated multiplier λ (kg·m). Reset only by
    /// `xpbd_distance_begin_substep`.
    pub lambda: f64,
}

/// One 1D distance constraint in f32: the accumulated multiplier λ (kg·m).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct XpbdDistanceConstraintF32 {
    /// Accumulated multiplier λ (kg·m). Reset only by
    /// `xpbd_distance_begin_substep_f32`.
    pub lambda: f32,
}

/// Reads `*p` if `p` is not null (the single null-check helper of the ABI).
///
/// # Safety
/// `p` is null or valid for reads and aligned.
#[inline]
unsafe fn read_nonnull<T: Copy>(p: *const T) -> Option<T> {
    if p.is_null() {
        None
    } else {
        // SAFETY: `p` is non-null, and valid and aligned by the caller's contract.
        Some(unsafe { ptr::read(p) })
    }
}

/// λ ← 0 through a possibly-null pointer.
///
/// # Safety
/// `lambda` is null or valid for writes and aligned.
#[inline]
unsafe fn begin_substep_raw<T: Real>(lambda: *mut T) -> XpbdStatus {
    if lambda.is_null() {
        return XpbdStatus::NullPointer;
    }
    // SAFETY: non-null, and valid for writes and aligned by the caller's contract.
    unsafe { ptr::write(lambda, T::ZERO) };
    XpbdStatus::Ok
}

/// The 1D solve over raw pointers: copy in, solve, copy out on success only.
///
/// # Safety
/// Each pointer is null or valid for reads and writes of one aligned `T`.
/// The pointers may alias each other.
#[allow(clippy::too_many_arguments)]
#[inline]
unsafe fn solve_raw<T: Real>(
    lambda: *mut T,
    a: *mut T,
    b: *mut T,
    wa: T,
    wb: T,
    rest: T,
    compliance: T,
    dt: T,
) -> XpbdStatus {
    if FAST_PATH {
        // SAFETY: each pointer is null (checked by the helper) or valid and aligned.
        let read = unsafe { (read_nonnull(lambda), read_nonnull(a), read_nonnull(b)) };
        if let (Some(l0), Some(a0), Some(b0)) = read {
            // The common case stays in registers; everything else is decided
            // out of line by `solve_checked` (a tail call: no stack frame).
            if let Some(next) = accept(a0, b0, wa, wb, rest, compliance, dt, l0) {
                // SAFETY: as in `solve_checked`: non-null, valid for writes,
                // and `a == b` is never accepted (it needs `b − a > 0`).
                unsafe {
                    ptr::write(a, next.a);
                    ptr::write(b, next.b);
                    ptr::write(lambda, next.lambda);
                }
                return XpbdStatus::Ok;
            }
        }
    }
    // SAFETY: the same pointers, under the same contract.
    unsafe { solve_checked(lambda, a, b, wa, wb, rest, compliance, dt) }
}

/// The 1D solve with every check in the documented order
/// ([`crate::distance`]'s `checked`): what `solve_raw` falls back to.
///
/// # Safety
/// As for `solve_raw`.
#[allow(clippy::too_many_arguments)]
#[cfg_attr(not(target_os = "none"), inline(never))]
#[cfg_attr(target_os = "none", inline)]
unsafe fn solve_checked<T: Real>(
    lambda: *mut T,
    a: *mut T,
    b: *mut T,
    wa: T,
    wb: T,
    rest: T,
    compliance: T,
    dt: T,
) -> XpbdStatus {
    // SAFETY: each pointer is null (checked by the helper) or valid and aligned.
    let read = unsafe { (read_nonnull(lambda), read_nonnull(a), read_nonnull(b)) };
    let (Some(l0), Some(a0), Some(b0)) = read else {
        return XpbdStatus::NullPointer;
    };
    match checked(a0, b0, wa, wb, rest, compliance, dt, l0) {
        Err(e) => XpbdStatus::from(e),
        Ok(None) => XpbdStatus::Skipped,
        Ok(Some(next)) => {
            // SAFETY: all three pointers were checked non-null above and are
            // valid for writes by the caller's contract. Writing through raw
            // pointers (no `&mut`) keeps aliased pointers defined: `a == b`
            // never gets here, because equal endpoints fail `b > a`.
            unsafe {
                ptr::write(a, next.a);
                ptr::write(b, next.b);
                ptr::write(lambda, next.lambda);
            }
            XpbdStatus::Ok
        }
    }
}

/// Starts a substep for one f64 constraint: `c->lambda = 0`.
///
/// Call it at each substep entry, and nowhere else: λ must survive every
/// solver iteration of the substep.
///
/// Returns `XPBD_STATUS_OK`, or `XPBD_STATUS_NULL_POINTER` if `c` is NULL.
///
/// # Safety
/// `c` is NULL or points to a valid, aligned `XpbdDistanceConstraint`.
#[no_mangle]
pub unsafe extern "C" fn xpbd_distance_begin_substep(c: *mut XpbdDistanceConstraint) -> XpbdStatus {
    if c.is_null() {
        return XpbdStatus::NullPointer;
    }
    // SAFETY: `c` is non-null and valid by contract; `addr_of_mut!` forms no reference.
    unsafe { begin_substep_raw(ptr::addr_of_mut!((*c).lambda)) }
}

/// One XPBD iteration of a 1D distance constraint in f64.
///
/// With `C = *b - *a - rest` and `α̃ = compliance / (dt * dt)`:
/// `Δλ = (-C - α̃ λ) / (wa + wb + α̃)`, then `*a -= wa Δλ`, `*b += wb Δλ`,
/// `λ += Δλ`.
///
/// Units: positions and `rest` in m, `wa`/`wb` in 1/kg, `compliance` in m/N
/// (s²/kg), `dt` the real substep length in s (never the frame time).
///
/// Returns `XPBD_STATUS_OK` (applied), `XPBD_STATUS_SKIPPED` (`wa = wb = 0`,
/// nothing changed) or a negative code, checked in this order:
/// `NULL_POINTER`, `NON_FINITE_POSITION`, `INVALID_INVERSE_MASS`,
/// `INVALID_REST_LENGTH`, `INVALID_COMPLIANCE`, `INVALID_TIME_STEP`,
/// `ENDPOINTS_NOT_ORDERED` (also when `a == b`), `UNREPRESENTABLE_SCALE`,
/// `INVALID_RESULT`. On any error `*c`, `*a` and `*b` are unchanged.
///
/// # Safety
/// Each pointer is NULL or points to a valid, aligned value; they may alias.
#[no_mangle]
pub unsafe extern "C" fn xpbd_distance_solve(
    c: *mut XpbdDistanceConstraint,
    a: *mut f64,
    b: *mut f64,
    wa: f64,
    wb: f64,
    rest: f64,
    compliance: f64,
    dt: f64,
) -> XpbdStatus {
    if c.is_null() {
        return XpbdStatus::NullPointer;
    }
    // SAFETY: `c` is non-null and valid by contract; `addr_of_mut!` forms no
    // reference, and `solve_raw` null-checks `a` and `b`.
    unsafe {
        solve_raw(
            ptr::addr_of_mut!((*c).lambda),
            a,
            b,
            wa,
            wb,
            rest,
            compliance,
            dt,
        )
    }
}

/// Starts a substep for one f32 constraint: `c->lambda = 0`.
///
/// Returns `XPBD_STATUS_OK`, or `XPBD_STATUS_NULL_POINTER` if `c` is NULL.
///
/// # Safety
/// `c` is NULL or points to a valid, aligned `XpbdDistanceConstraintF32`.
#[no_mangle]
pub unsafe extern "C" fn xpbd_distance_begin_substep_f32(
    c: *mut XpbdDistanceConstraintF32,
) -> XpbdStatus {
    if c.is_null() {
        return XpbdStatus::NullPointer;
    }
    // SAFETY: `c` is non-null and valid by contract; `addr_of_mut!` forms no reference.
    unsafe { begin_substep_raw(ptr::addr_of_mut!((*c).lambda)) }
}

/// One XPBD iteration of a 1D distance constraint in f32: the same equation,
/// units, checks and status codes as `xpbd_distance_solve`.
///
/// With `C = *b - *a - rest` and `α̃ = compliance / (dt * dt)`:
/// `Δλ = (-C - α̃ λ) / (wa + wb + α̃)`, then `*a -= wa Δλ`, `*b += wb Δλ`,
/// `λ += Δλ` (m, 1/kg, m/N, s; λ in kg·m).
///
/// # Safety
/// Each pointer is NULL or points to a valid, aligned value; they may alias.
#[no_mangle]
pub unsafe extern "C" fn xpbd_distance_solve_f32(
    c: *mut XpbdDistanceConstraintF32,
    a: *mut f32,
    b: *mut f32,
    wa: f32,
    wb: f32,
    rest: f32,
    compliance: f32,
    dt: f32,
) -> XpbdStatus {
    if c.is_null() {
        return XpbdStatus::NullPointer;
    }
    // SAFETY: `c` is non-null and valid by contract; `addr_of_mut!` forms no
    // reference, and `solve_raw` null-checks `a` and `b`.
    unsafe {
        solve_raw(
            ptr::addr_of_mut!((*c).lambda),
            a,
            b,
            wa,
            wb,
            rest,
            compliance,
            dt,
        )
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

#[cfg(all(feature = "c-lib-panic-handler", not(test)))]
#[panic_handler]
fn panic(_info: &core::panic::PanicInfo<'_>) -> ! {
    // Only the C archive built by `cargo c-lib` has this handler. No exported
    // function can reach a panic (clippy restriction lints deny every panic
    // source in the library); should one ever happen, spin rather than unwind
    // across the C boundary.
    loop {
        core::hint::spin_loop();
    }
}
