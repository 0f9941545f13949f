//! [`Scalar`]: what the scenarios need on top of [`xpbd::Real`]: the bit
//! pattern and the matching C entry points (so the scenarios exercise the
//! exported `extern "C"` functions, not only the Rust API).

use xpbd::ffi::{
    xpbd_distance_begin_substep, xpbd_distance_begin_substep_f32, xpbd_distance_solve,
    xpbd_distance_solve_f32, XpbdDistanceConstraint, XpbdDistanceConstraintF32, XpbdStatus,
};
use xpbd::Real;

/// `f32` or `f64`, with its C constraint type and C entry points.
pub trait Scalar: Real {
    /// The C constraint struct (`XpbdDistanceConstraint` or `…F32`).
    type CLink: Copy + Default;
    /// The type's name, for reports.
    const NAME: &'static str;
    /// Report group of checks through the Rust API.
    const RUST: &'static str;
    /// Report group of checks through the C entry points.
    const C_ABI: &'static str;
    /// The bit pattern, widened to 64 bits.
    fn bits(self) -> u64;
    /// The value with this bit pattern (f32: the low 32 bits).
    fn from_raw(bits: u64) -> Self;
    /// The λ stored in a C constraint.
    fn lambda_of(c: &Self::CLink) -> Self;
    /// A C constraint holding `lambda`.
    fn link_with(lambda: Self) -> Self::CLink;
    /// `xpbd_distance_begin_substep(_f32)`.
    ///
    /// # Safety
    /// As the C function: `c` is null or valid.
    unsafe fn c_begin(c: *mut Self::CLink) -> XpbdStatus;
    /// `xpbd_distance_solve(_f32)`.
    ///
    /// # Safety
    /// As the C function: each pointer is null or valid; they may alias.
    #[allow(clippy::too_many_arguments)]
    unsafe fn c_solve(
        c: *mut Self::CLink,
        a: *mut Self,
        b: *mut Self,
        wa: Self,
        wb: Self,
        rest: Self,
        compliance: Self,
        dt: Self,
    ) -> XpbdStatus;
}

impl Scalar for f64 {
    type CLink = XpbdDistanceConstraint;
    const NAME: &'static str = "f64";
    const RUST: &'static str = "f64 rust";
    const C_ABI: &'static str = "f64 c-abi";
    fn bits(self) -> u64 {
        self.to_bits()
    }
    fn from_raw(bits: u64) -> Self {
        f64::from_bits(bits)
    }
    fn lambda_of(c: &Self::CLink) -> Self {
        c.lambda
    }
    fn link_with(lambda: Self) -> Self::CLink {
        XpbdDistanceConstraint { lambda }
    }
    unsafe fn c_begin(c: *mut Self::CLink) -> XpbdStatus {
        // SAFETY: forwarded contract.
        unsafe { xpbd_distance_begin_substep(c) }
    }
    unsafe fn c_solve(
        c: *mut Self::CLink,
        a: *mut Self,
        b: *mut Self,
        wa: Self,
        wb: Self,
        rest: Self,
        compliance: Self,
        dt: Self,
    ) -> XpbdStatus {
        // SAFETY: forwarded contract.
        unsafe { xpbd_distance_solve(c, a, b, wa, wb, rest, compliance, dt) }
    }
}

impl Scalar for f32 {
    type CLink = XpbdDistanceConstraintF32;
    const NAME: &'static str = "f32";
    const RUST: &'static str = "f32 rust";
    const C_ABI: &'static str = "f32 c-abi";
    fn bits(self) -> u64 {
        u64::from(self.to_bits())
    }
    #[allow(clippy::cast_possible_truncation)] // the low 32 bits are the intent
    fn from_raw(bits: u64) -> Self {
        f32::from_bits(bits as u32)
    }
    fn lambda_of(c: &Self::CLink) -> Self {
        c.lambda
    }
    fn link_with(lambda: Self) -> Self::CLink {
        XpbdDistanceConstraintF32 { lambda }
    }
    unsafe fn c_begin(c: *mut Self::CLink) -> XpbdStatus {
        // SAFETY: forwarded contract.
        unsafe { xpbd_distance_begin_substep_f32(c) }
    }
    unsafe fn c_solve(
        c: *mut Self::CLink,
        a: *mut Self,
        b: *mut Self,
        wa: Self,
        wb: Self,
        rest: Self,
        compliance: Self,
        dt: Self,
    ) -> XpbdStatus {
        // SAFETY: forwarded contract.
        unsafe { xpbd_distance_solve_f32(c, a, b, wa, wb, rest, compliance, dt) }
    }
}
