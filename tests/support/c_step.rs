//! The C step of one precision (`xpbd_world3_step[_f32]` and its default
//! configuration) behind one trait, for the hostile world tests.

use core::fmt::Debug;
use xpbd::ffi::*;
use xpbd::step::StepStats;
use xpbd::Real;

/// One precision of the C step.
pub trait Prec: Real + Debug {
    /// `xpbd_world3_step[_f32]`.
    ///
    /// # Safety
    /// As `xpbd_world3_step`.
    unsafe fn step(
        world: *mut WorldC<Self>,
        dt: Self,
        config: *const StepConfigC<Self>,
        out: *mut StepStats<Self>,
    ) -> XpbdStatus;
    /// `xpbd_step_config3_default[_f32]`.
    fn default_config() -> StepConfigC<Self>;
    /// The bit pattern.
    fn bits(self) -> u64;
}

impl Prec for f64 {
    unsafe fn step(
        world: *mut XpbdWorld3,
        dt: f64,
        config: *const XpbdStepConfig3,
        out: *mut XpbdStepStats,
    ) -> XpbdStatus {
        // SAFETY: forwarded.
        unsafe { xpbd_world3_step(world, dt, config, out) }
    }
    fn default_config() -> XpbdStepConfig3 {
        xpbd_step_config3_default()
    }
    fn bits(self) -> u64 {
        self.to_bits()
    }
}

impl Prec for f32 {
    unsafe fn step(
        world: *mut XpbdWorld3F32,
        dt: f32,
        config: *const XpbdStepConfig3F32,
        out: *mut XpbdStepStatsF32,
    ) -> XpbdStatus {
        // SAFETY: forwarded.
        unsafe { xpbd_world3_step_f32(world, dt, config, out) }
    }
    fn default_config() -> XpbdStepConfig3F32 {
        xpbd_step_config3_default_f32()
    }
    fn bits(self) -> u64 {
        u64::from(self.to_bits())
    }
}

pub fn f<T: Real>(v: f64) -> T {
    T::from_f64(v)
}
