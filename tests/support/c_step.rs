//! The C step of one precision (`xpbd_world3_step[_f32]`, the world's
//! blocks, its memory and the default configuration) behind one trait,
//! for the hostile world tests.
#![allow(dead_code)]

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
    /// `xpbd_world3_step_colored[_f32]`.
    ///
    /// # Safety
    /// As `xpbd_world3_step_colored`.
    unsafe fn step_colored(
        world: *mut WorldC<Self>,
        colors: *const XpbdGroupColors,
        dt: Self,
        config: *const StepConfigC<Self>,
        jobs: *const XpbdJobSystem,
        out: *mut StepStats<Self>,
    ) -> XpbdStatus;
    /// `xpbd_world3_add[_f32]`.
    ///
    /// # Safety
    /// As `xpbd_world3_add`.
    unsafe fn add_block(world: *mut WorldC<Self>, block: *mut XpbdBlock) -> XpbdStatus;
    /// `xpbd_world3_requirements[_f32]`.
    ///
    /// # Safety
    /// As `xpbd_world3_requirements`.
    unsafe fn requirements(world: *mut WorldC<Self>, out: *mut XpbdRequirements) -> XpbdStatus;
    /// `xpbd_step_config3_default[_f32]`.
    fn default_config() -> StepConfigC<Self>;
    /// `xpbd_world3_default[_f32]`.
    fn default_world() -> WorldC<Self>;
    /// `xpbd_colliders3_default[_f32]`.
    fn default_colliders() -> CollidersC<Self>;
    /// `xpbd_self_collision3_default[_f32]`.
    fn default_self_collision() -> SelfCollisionC<Self>;
    /// `xpbd_tearing3_default[_f32]`.
    fn default_tearing() -> TearingC<Self>;
    /// `xpbd_engine_contacts3_default[_f32]`.
    fn default_engine_contacts() -> EngineContactsC<Self>;
    /// `xpbd_groups3_default[_f32]`.
    fn default_groups() -> GroupsC<Self>;
    /// The bit pattern.
    fn bits(self) -> u64;
}

macro_rules! prec {
    ($T:ty, $step:ident, $colored:ident, $add:ident, $req:ident, $config:ident, $world:ident,
     $colliders:ident, $sc:ident, $tearing:ident, $engine:ident, $groups:ident) => {
        impl Prec for $T {
            unsafe fn step(
                world: *mut WorldC<$T>,
                dt: $T,
                config: *const StepConfigC<$T>,
                out: *mut StepStats<$T>,
            ) -> XpbdStatus {
                // SAFETY: forwarded.
                unsafe { $step(world, dt, config, out) }
            }
            unsafe fn step_colored(
                world: *mut WorldC<$T>,
                colors: *const XpbdGroupColors,
                dt: $T,
                config: *const StepConfigC<$T>,
                jobs: *const XpbdJobSystem,
                out: *mut StepStats<$T>,
            ) -> XpbdStatus {
                // SAFETY: forwarded.
                unsafe { $colored(world, colors, dt, config, jobs, out) }
            }
            unsafe fn add_block(world: *mut WorldC<$T>, block: *mut XpbdBlock) -> XpbdStatus {
                // SAFETY: forwarded.
                unsafe { $add(world, block) }
            }
            unsafe fn requirements(
                world: *mut WorldC<$T>,
                out: *mut XpbdRequirements,
            ) -> XpbdStatus {
                // SAFETY: forwarded.
                unsafe { $req(world, out) }
            }
            fn default_config() -> StepConfigC<$T> {
                $config()
            }
            fn default_world() -> WorldC<$T> {
                $world()
            }
            fn default_colliders() -> CollidersC<$T> {
                $colliders()
            }
            fn default_self_collision() -> SelfCollisionC<$T> {
                $sc()
            }
            fn default_tearing() -> TearingC<$T> {
                $tearing()
            }
            fn default_engine_contacts() -> EngineContactsC<$T> {
                $engine()
            }
            fn default_groups() -> GroupsC<$T> {
                $groups()
            }
            #[allow(clippy::useless_conversion)] // u32 or u64
            fn bits(self) -> u64 {
                u64::from(self.to_bits())
            }
        }
    };
}

prec!(
    f64,
    xpbd_world3_step,
    xpbd_world3_step_colored,
    xpbd_world3_add,
    xpbd_world3_requirements,
    xpbd_step_config3_default,
    xpbd_world3_default,
    xpbd_colliders3_default,
    xpbd_self_collision3_default,
    xpbd_tearing3_default,
    xpbd_engine_contacts3_default,
    xpbd_groups3_default
);
prec!(
    f32,
    xpbd_world3_step_f32,
    xpbd_world3_step_colored_f32,
    xpbd_world3_add_f32,
    xpbd_world3_requirements_f32,
    xpbd_step_config3_default_f32,
    xpbd_world3_default_f32,
    xpbd_colliders3_default_f32,
    xpbd_self_collision3_default_f32,
    xpbd_tearing3_default_f32,
    xpbd_engine_contacts3_default_f32,
    xpbd_groups3_default_f32
);

pub fn f<T: Real>(v: f64) -> T {
    T::from_f64(v)
}

/// The bytes `xpbd_world3_requirements` asks of the world `w` points to.
///
/// # Safety
/// `w` is valid, its blocks too.
pub unsafe fn memory_size<T: Prec>(w: *mut WorldC<T>) -> usize {
    let mut r = XpbdRequirements::default();
    // SAFETY: forwarded.
    assert_eq!(unsafe { T::requirements(w, &mut r) }, XpbdStatus::Ok);
    r.memory_size
}

/// The world's memory: as many bytes as `xpbd_world3_requirements` asks,
/// 8-aligned (`u64`s), set as the world's `memory` and `memory_size`.
/// Keep the vector alive while the world is stepped.
///
/// # Safety
/// `w` is valid, its blocks too.
pub unsafe fn give_memory<T: Prec>(w: *mut WorldC<T>) -> Vec<u64> {
    // SAFETY: forwarded.
    let size = unsafe { memory_size(w) };
    let mut m = vec![0u64; size.div_ceil(8)];
    // SAFETY: `w` is valid.
    unsafe {
        (*w).memory = m.as_mut_ptr().cast();
        (*w).memory_size = size;
    }
    m
}
