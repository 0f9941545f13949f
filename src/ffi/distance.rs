//! The C ABI of the 1D seed solver (`xpbd_distance_*`): the SPEC-exact
//! solve of [`crate::constraint::seed`] over caller pointers. The three
//! pointers may alias each other (legal in C): values are copied in,
//! solved, and copied out on success only.

use core::ptr;

use super::check::read;
use super::status::XpbdStatus;
use super::types::DistanceConstraintC;
use crate::constraint::seed::{accept, checked, FAST_PATH};
use crate::real::Real;

/// λ ← 0 through a possibly-null pointer.
///
/// # Safety
/// `lambda` is null or valid for writes and aligned.
#[inline]
pub(crate) unsafe fn distance_begin_raw<T: Real>(lambda: *mut T) -> XpbdStatus {
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
pub(crate) unsafe fn distance_solve_raw<T: Real>(
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
        let values = unsafe { (read(lambda), read(a), read(b)) };
        if let (Ok(l0), Ok(a0), Ok(b0)) = values {
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
/// ([`crate::constraint::seed`]'s `checked`): what `distance_solve_raw` falls back to.
///
/// # Safety
/// As for `distance_solve_raw`.
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
    let values = unsafe { (read(lambda), read(a), read(b)) };
    let (Ok(l0), Ok(a0), Ok(b0)) = values else {
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

/// `xpbd_distance_begin_substep[_f32]`: `c->lambda = 0`.
///
/// # Safety
/// `c` is NULL or points to a valid, aligned constraint.
#[inline]
pub(crate) unsafe fn distance_begin<T: Real>(c: *mut DistanceConstraintC<T>) -> XpbdStatus {
    if c.is_null() {
        return XpbdStatus::NullPointer;
    }
    // SAFETY: `c` is non-null and valid by contract; `addr_of_mut!` forms no reference.
    unsafe { distance_begin_raw(ptr::addr_of_mut!((*c).lambda)) }
}

/// `xpbd_distance_solve[_f32]`: one iteration of the 1D constraint.
///
/// # Safety
/// Each pointer is NULL or points to a valid, aligned value; they may alias.
#[allow(clippy::too_many_arguments)]
#[inline]
pub(crate) unsafe fn distance_solve<T: Real>(
    c: *mut DistanceConstraintC<T>,
    a: *mut T,
    b: *mut T,
    wa: T,
    wb: T,
    rest: T,
    compliance: T,
    dt: T,
) -> XpbdStatus {
    if c.is_null() {
        return XpbdStatus::NullPointer;
    }
    // SAFETY: `c` is non-null and valid by contract; `addr_of_mut!` forms no
    // reference, and `distance_solve_raw` null-checks `a` and `b`.
    unsafe {
        distance_solve_raw(
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
