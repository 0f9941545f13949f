//! [`Scalar`]: what the scenarios need on top of [`xpbd::Real`]: the bit
//! pattern and the matching C entry points (so the scenarios exercise the
//! exported `extern "C"` functions, not only the Rust API).

use xpbd::ffi::{
    xpbd_distance_begin_substep, xpbd_distance_begin_substep_f32, xpbd_distance_solve,
    xpbd_distance_solve_f32, XpbdDistanceConstraint, XpbdDistanceConstraintF32, XpbdStatus,
};
use xpbd::ffi::{
    xpbd_simd_links3_begin_substep, xpbd_simd_links3_begin_substep_f32, xpbd_simd_links3_solve_job,
    xpbd_simd_links3_solve_job_f32, XpbdSimdLinks3, XpbdSimdLinks3F32,
};
use xpbd::Real;

/// The buffers of a colored C system (array-of-structures positions), for
/// [`Scalar::c_colored`].
#[derive(Debug, Clone, Copy)]
pub struct ColoredBuffers<T> {
    /// `[x, y, z]` per particle (m).
    pub positions: *mut [T; 3],
    /// Inverse masses (1/kg).
    pub inverse_masses: *const T,
    /// Particles.
    pub particle_count: usize,
    /// First particle of each link (colored order).
    pub i: *const u32,
    /// Second particle of each link.
    pub j: *const u32,
    /// Rest lengths (m).
    pub rest: *const T,
    /// Compliances (m/N).
    pub compliance: *const T,
    /// λ per link.
    pub lambda: *mut T,
    /// Scratch α̃ per link.
    pub alpha: *mut T,
    /// Scratch 1/(w_i + w_j + α̃) per link.
    pub inv_denominator: *mut T,
    /// Links.
    pub link_count: usize,
    /// Color boundaries (`color_count + 1` entries).
    pub color_starts: *const usize,
    /// Colors.
    pub color_count: usize,
    /// Scratch stamps per particle.
    pub stamp: *mut u32,
}

/// `f32` or `f64`, with its C constraint type and C entry points.
pub trait Scalar: Real {
    /// The C constraint struct (`XpbdDistanceConstraint` or `…F32`).
    type CLink: Copy + Default;
    /// The colored C system struct (`XpbdSimdLinks3` or `…F32`).
    type CColored;
    /// A colored C system over `b` (zero-length links rejected, no substep).
    fn c_colored(b: ColoredBuffers<Self>) -> Self::CColored;
    /// `xpbd_simd_links3_begin_substep(_f32)`.
    ///
    /// # Safety
    /// As the C function: `s` is null or valid, with valid buffers.
    unsafe fn c_colored_begin(s: *mut Self::CColored, h: Self) -> XpbdStatus;
    /// `xpbd_simd_links3_solve_job(_f32)` without outputs.
    ///
    /// # Safety
    /// As the C function.
    unsafe fn c_colored_job(
        s: *const Self::CColored,
        color: usize,
        job: usize,
        job_count: usize,
    ) -> XpbdStatus;
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
    type CColored = XpbdSimdLinks3;
    fn c_colored(b: ColoredBuffers<Self>) -> Self::CColored {
        XpbdSimdLinks3 {
            positions: b.positions,
            x: core::ptr::null_mut(),
            y: core::ptr::null_mut(),
            z: core::ptr::null_mut(),
            inverse_masses: b.inverse_masses,
            particle_count: b.particle_count,
            i: b.i,
            j: b.j,
            rest: b.rest,
            compliance: b.compliance,
            lambda: b.lambda,
            alpha: b.alpha,
            inv_denominator: b.inv_denominator,
            link_count: b.link_count,
            color_starts: b.color_starts,
            color_count: b.color_count,
            stamp: b.stamp,
            zero_length_policy: 0,
            substep_active: 0,
            h: 0.0,
            error_index: 0,
            simd: 0,
        }
    }
    unsafe fn c_colored_begin(s: *mut Self::CColored, h: Self) -> XpbdStatus {
        // SAFETY: forwarded contract.
        unsafe { xpbd_simd_links3_begin_substep(s, h) }
    }
    unsafe fn c_colored_job(
        s: *const Self::CColored,
        color: usize,
        job: usize,
        job_count: usize,
    ) -> XpbdStatus {
        // SAFETY: forwarded contract; NULL outputs are allowed.
        unsafe {
            xpbd_simd_links3_solve_job(
                s,
                color,
                job,
                job_count,
                core::ptr::null_mut(),
                core::ptr::null_mut(),
            )
        }
    }

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
    type CColored = XpbdSimdLinks3F32;
    fn c_colored(b: ColoredBuffers<Self>) -> Self::CColored {
        XpbdSimdLinks3F32 {
            positions: b.positions,
            x: core::ptr::null_mut(),
            y: core::ptr::null_mut(),
            z: core::ptr::null_mut(),
            inverse_masses: b.inverse_masses,
            particle_count: b.particle_count,
            i: b.i,
            j: b.j,
            rest: b.rest,
            compliance: b.compliance,
            lambda: b.lambda,
            alpha: b.alpha,
            inv_denominator: b.inv_denominator,
            link_count: b.link_count,
            color_starts: b.color_starts,
            color_count: b.color_count,
            stamp: b.stamp,
            zero_length_policy: 0,
            substep_active: 0,
            h: 0.0,
            error_index: 0,
            simd: 0,
        }
    }
    unsafe fn c_colored_begin(s: *mut Self::CColored, h: Self) -> XpbdStatus {
        // SAFETY: forwarded contract.
        unsafe { xpbd_simd_links3_begin_substep_f32(s, h) }
    }
    unsafe fn c_colored_job(
        s: *const Self::CColored,
        color: usize,
        job: usize,
        job_count: usize,
    ) -> XpbdStatus {
        // SAFETY: forwarded contract; NULL outputs are allowed.
        unsafe {
            xpbd_simd_links3_solve_job_f32(
                s,
                color,
                job,
                job_count,
                core::ptr::null_mut(),
                core::ptr::null_mut(),
            )
        }
    }

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
