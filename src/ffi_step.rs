//! The C ABI of stepping (3D, f64 and f32): `xpbd_world3_step` and its
//! `#[repr(C)]` types. Same conventions as [`crate::ffi_system`]: a
//! caller-owned world struct names the caller's buffers; buffers must not
//! overlap (`XPBD_STATUS_ALIASED_BUFFERS`); on any error the positions and
//! velocities are unchanged and `error_index` names the particle, link,
//! collider or contact concerned.

use core::mem::size_of;
use core::ptr;

use crate::ffi::XpbdStatus;
use crate::ffi_system::{
    check_buffers, policy_of, read_system, slice, slice_mut, write_opt, Buf, XpbdLink, XpbdLinkF32,
    XpbdSweepStats, XpbdSweepStatsF32,
};
use crate::real::Real;
use crate::step::{self, Contact, Plane, Sphere, StepConfig, StepError, StepStats, World};
use crate::system::Link;

/// A static half-space (f64): points with `n̂·x ≥ offset` are free.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct XpbdPlane3 {
    /// Outward normal (any finite non-zero length; normalised internally).
    pub normal: [f64; 3],
    /// Offset along the unit normal (m).
    pub offset: f64,
}

/// A static half-space (f32): see `XpbdPlane3`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct XpbdPlane3F32 {
    /// Outward normal (any finite non-zero length; normalised internally).
    pub normal: [f32; 3],
    /// Offset along the unit normal (m).
    pub offset: f32,
}

/// A static sphere (f64): points with `|x − center| ≥ radius` are free.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct XpbdSphere3 {
    /// Centre (m).
    pub center: [f64; 3],
    /// Radius (m), ≥ 0.
    pub radius: f64,
}

/// A static sphere (f32): see `XpbdSphere3`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct XpbdSphere3F32 {
    /// Centre (m).
    pub center: [f32; 3],
    /// Radius (m), ≥ 0.
    pub radius: f32,
}

/// A contact of the current substep (f64): particle, collider (planes
/// first, then spheres) and its accumulated λ ≥ 0 (kg·m).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct XpbdContact {
    /// Index of the particle.
    pub particle: u32,
    /// Index of the collider (planes, then spheres).
    pub collider: u32,
    /// Accumulated multiplier λ (kg·m), ≥ 0.
    pub lambda: f64,
}

/// A contact of the current substep (f32): see `XpbdContact`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct XpbdContactF32 {
    /// Index of the particle.
    pub particle: u32,
    /// Index of the collider (planes, then spheres).
    pub collider: u32,
    /// Accumulated multiplier λ (kg·m), ≥ 0.
    pub lambda: f32,
}

/// How to advance one frame (f64). Start from `xpbd_step_config3_default()`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct XpbdStepConfig3 {
    /// Gravity as an acceleration (m/s²).
    pub gravity: [f64; 3],
    /// Substeps per frame (≥ 1): h = dt / substeps.
    pub substeps: u32,
    /// Solver iterations per substep (≥ 1; the budget when tolerance > 0).
    pub iterations: u32,
    /// 0: exactly `iterations` sweeps; > 0: stop a substep when max |C + α̃λ| ≤ tolerance (m).
    pub tolerance: f64,
    /// Velocity damping c (1/s): v ← v·max(0, 1 − c h) per substep. Not physical.
    pub damping: f64,
    /// Particle radius for contacts (m).
    pub particle_radius: f64,
    /// Contact compliance (m/N); 0 = rigid.
    pub contact_compliance: f64,
    /// Static friction coefficient μ_s.
    pub static_friction: f64,
    /// Dynamic friction coefficient μ_k.
    pub dynamic_friction: f64,
    /// `XPBD_ZERO_LENGTH_REJECT` or `XPBD_ZERO_LENGTH_SKIP`.
    pub zero_length_policy: i32,
}

/// How to advance one frame (f32): see `XpbdStepConfig3`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct XpbdStepConfig3F32 {
    /// Gravity as an acceleration (m/s²).
    pub gravity: [f32; 3],
    /// Substeps per frame (≥ 1).
    pub substeps: u32,
    /// Solver iterations per substep (≥ 1).
    pub iterations: u32,
    /// 0: exactly `iterations` sweeps; > 0: early stop tolerance (m).
    pub tolerance: f32,
    /// Velocity damping c (1/s): v ← v·max(0, 1 − c h) per substep. In
    /// float, short substeps defeat it: v = Δx/h comes in quanta of
    /// ulp(x)/h, and below about 0.5/(c h) quanta the damping's change to
    /// x + h v is lost to rounding. Prefer fewer, longer substeps.
    pub damping: f32,
    /// Particle radius for contacts (m).
    pub particle_radius: f32,
    /// Contact compliance (m/N).
    pub contact_compliance: f32,
    /// Static friction coefficient μ_s.
    pub static_friction: f32,
    /// Dynamic friction coefficient μ_k.
    pub dynamic_friction: f32,
    /// `XPBD_ZERO_LENGTH_REJECT` or `XPBD_ZERO_LENGTH_SKIP`.
    pub zero_length_policy: i32,
}

/// What a step did (f64).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct XpbdStepStats {
    /// Substeps run.
    pub substeps: u32,
    /// Link sweeps run in all substeps.
    pub iterations: u32,
    /// Substeps that met the tolerance early.
    pub converged_substeps: u32,
    /// Most contacts found in one substep.
    pub max_contacts: usize,
    /// Diagnostics of the last link sweep.
    pub last: XpbdSweepStats,
}

/// What a step did (f32): see `XpbdStepStats`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct XpbdStepStatsF32 {
    /// Substeps run.
    pub substeps: u32,
    /// Link sweeps run in all substeps.
    pub iterations: u32,
    /// Substeps that met the tolerance early.
    pub converged_substeps: u32,
    /// Most contacts found in one substep.
    pub max_contacts: usize,
    /// Diagnostics of the last link sweep.
    pub last: XpbdSweepStatsF32,
}

/// A 3D world over caller-owned buffers (f64). Zero-initialise and fill in
/// every buffer field (NULL only with a zero count); `scratch` needs
/// `xpbd_step_scratch_len(particle_count)` entries. The library writes only
/// the buffers' contents and `error_index`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct XpbdWorld3 {
    /// Positions (m), `particle_count` entries.
    pub positions: *mut [f64; 3],
    /// Velocities (m/s), `particle_count` entries.
    pub velocities: *mut [f64; 3],
    /// Inverse masses (1/kg), `particle_count` entries; 0 = never moves.
    pub inverse_masses: *const f64,
    /// Number of particles.
    pub particle_count: usize,
    /// Links, `link_count` entries (λ written).
    pub links: *mut XpbdLink,
    /// Number of links.
    pub link_count: usize,
    /// Static planes, `plane_count` entries.
    pub planes: *const XpbdPlane3,
    /// Number of planes.
    pub plane_count: usize,
    /// Static spheres, `sphere_count` entries.
    pub spheres: *const XpbdSphere3,
    /// Number of spheres.
    pub sphere_count: usize,
    /// Contact storage for one substep, `contact_capacity` entries.
    pub contacts: *mut XpbdContact,
    /// Capacity of `contacts`.
    pub contact_capacity: usize,
    /// Scratch, `scratch_count` entries (≥ 3 · particle_count).
    pub scratch: *mut [f64; 3],
    /// Number of scratch entries.
    pub scratch_count: usize,
    /// Written by the library on error: the index the error names (else 0).
    pub error_index: usize,
}

/// A 3D world over caller-owned buffers (f32): see `XpbdWorld3`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct XpbdWorld3F32 {
    /// Positions (m), `particle_count` entries.
    pub positions: *mut [f32; 3],
    /// Velocities (m/s), `particle_count` entries.
    pub velocities: *mut [f32; 3],
    /// Inverse masses (1/kg), `particle_count` entries; 0 = never moves.
    pub inverse_masses: *const f32,
    /// Number of particles.
    pub particle_count: usize,
    /// Links, `link_count` entries (λ written).
    pub links: *mut XpbdLinkF32,
    /// Number of links.
    pub link_count: usize,
    /// Static planes, `plane_count` entries.
    pub planes: *const XpbdPlane3F32,
    /// Number of planes.
    pub plane_count: usize,
    /// Static spheres, `sphere_count` entries.
    pub spheres: *const XpbdSphere3F32,
    /// Number of spheres.
    pub sphere_count: usize,
    /// Contact storage for one substep, `contact_capacity` entries.
    pub contacts: *mut XpbdContactF32,
    /// Capacity of `contacts`.
    pub contact_capacity: usize,
    /// Scratch, `scratch_count` entries (≥ 3 · particle_count).
    pub scratch: *mut [f32; 3],
    /// Number of scratch entries.
    pub scratch_count: usize,
    /// Written by the library on error: the index the error names (else 0).
    pub error_index: usize,
}

// The C structs are layout-identical to the generic Rust ones.
const _: () = {
    assert!(size_of::<XpbdPlane3>() == size_of::<Plane<f64, 3>>());
    assert!(size_of::<XpbdPlane3F32>() == size_of::<Plane<f32, 3>>());
    assert!(size_of::<XpbdSphere3>() == size_of::<Sphere<f64, 3>>());
    assert!(size_of::<XpbdSphere3F32>() == size_of::<Sphere<f32, 3>>());
    assert!(size_of::<XpbdContact>() == size_of::<Contact<f64>>());
    assert!(size_of::<XpbdContactF32>() == size_of::<Contact<f32>>());
    assert!(size_of::<XpbdStepStats>() == size_of::<StepStats<f64>>());
    assert!(size_of::<XpbdStepStatsF32>() == size_of::<StepStats<f32>>());
};

/// Field access shared by the two world structs and configs.
pub(crate) trait RawWorld<T>: Copy {
    type Config: Copy;
    #[allow(clippy::type_complexity)]
    fn parts(
        &self,
    ) -> (
        *mut [T; 3],
        *mut [T; 3],
        *const T,
        usize,
        *mut Link<T>,
        usize,
        *const Plane<T, 3>,
        usize,
        *const Sphere<T, 3>,
        usize,
        *mut Contact<T>,
        usize,
        *mut [T; 3],
        usize,
    );
    fn config(c: &Self::Config) -> Option<StepConfig<T, 3>>;
    /// # Safety
    /// `p` is non-null and valid.
    unsafe fn error_index(p: *mut Self) -> *mut usize;
}

macro_rules! impl_raw_world {
    ($world:ident, $config:ident, $t:ty) => {
        impl RawWorld<$t> for $world {
            type Config = $config;
            fn parts(
                &self,
            ) -> (
                *mut [$t; 3],
                *mut [$t; 3],
                *const $t,
                usize,
                *mut Link<$t>,
                usize,
                *const Plane<$t, 3>,
                usize,
                *const Sphere<$t, 3>,
                usize,
                *mut Contact<$t>,
                usize,
                *mut [$t; 3],
                usize,
            ) {
                (
                    self.positions,
                    self.velocities,
                    self.inverse_masses,
                    self.particle_count,
                    self.links.cast(),
                    self.link_count,
                    self.planes.cast(),
                    self.plane_count,
                    self.spheres.cast(),
                    self.sphere_count,
                    self.contacts.cast(),
                    self.contact_capacity,
                    self.scratch,
                    self.scratch_count,
                )
            }
            fn config(c: &$config) -> Option<StepConfig<$t, 3>> {
                Some(StepConfig {
                    gravity: c.gravity,
                    substeps: c.substeps,
                    iterations: c.iterations,
                    tolerance: c.tolerance,
                    damping: c.damping,
                    particle_radius: c.particle_radius,
                    contact_compliance: c.contact_compliance,
                    static_friction: c.static_friction,
                    dynamic_friction: c.dynamic_friction,
                    zero_length: policy_of(c.zero_length_policy)?,
                })
            }
            unsafe fn error_index(p: *mut Self) -> *mut usize {
                // SAFETY: `p` is non-null and valid (caller's contract);
                // `addr_of_mut!` forms no reference.
                unsafe { ptr::addr_of_mut!((*p).error_index) }
            }
        }
    };
}

impl_raw_world!(XpbdWorld3, XpbdStepConfig3, f64);
impl_raw_world!(XpbdWorld3F32, XpbdStepConfig3F32, f32);

fn status_of(e: StepError) -> (XpbdStatus, usize) {
    match e {
        StepError::InvalidFrameTime => (XpbdStatus::InvalidTimeStep, 0),
        StepError::InvalidBudget | StepError::InvalidConfig | StepError::VelocityCountMismatch => {
            (XpbdStatus::InvalidArgument, 0)
        }
        StepError::NonFiniteVelocity { particle } => (XpbdStatus::NonFiniteVelocity, particle),
        StepError::InvalidCollider { collider } => (XpbdStatus::InvalidCollider, collider),
        StepError::ScratchTooSmall { needed } => (XpbdStatus::CapacityTooSmall, needed),
        StepError::ContactCapacity => (XpbdStatus::CapacityTooSmall, 0),
        StepError::InvalidContactResult { contact } => (XpbdStatus::InvalidResult, contact),
        StepError::InvalidResult { particle } => (XpbdStatus::InvalidResult, particle),
        StepError::System(s) => (XpbdStatus::from(s), s.index().unwrap_or(0)),
    }
}

/// # Safety
/// See `xpbd_world3_step`.
pub(crate) unsafe fn step_raw<T: Real, W: RawWorld<T>>(
    world: *mut W,
    dt: T,
    config: *const W::Config,
    out: *mut StepStats<T>,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract (NULL-checked by the helper).
    let (w, c) = match unsafe { (read_system(world), read_system(config)) } {
        (Ok(w), Ok(c)) => (w, c),
        _ => return XpbdStatus::NullPointer,
    };
    let Some(step_config) = W::config(&c) else {
        return XpbdStatus::InvalidArgument;
    };
    let (x, v, m, n, l, nl, pl, np, sp, ns, ct, nc, sc, nsc) = w.parts();
    if let Err(e) = check_buffers(&[
        Buf::of(x, n),
        Buf::of(v, n),
        Buf::of(m, n),
        Buf::of(l, nl),
        Buf::of(pl, np),
        Buf::of(sp, ns),
        Buf::of(ct, nc),
        Buf::of(sc, nsc),
        Buf::of(world, 1),
        Buf::of(config, 1),
        Buf::of(out, usize::from(!out.is_null())),
    ]) {
        return e;
    }
    // SAFETY: every buffer is non-null (or empty), aligned, bounded, valid
    // for its count by the caller's contract, and no two overlap each other,
    // the world struct, the config or the output (checked above).
    let mut world_view = unsafe {
        World {
            positions: slice_mut(x, n),
            velocities: slice_mut(v, n),
            inverse_masses: slice(m, n),
            links: slice_mut(l, nl),
            planes: slice(pl, np),
            spheres: slice(sp, ns),
            contacts: slice_mut(ct, nc),
            scratch: slice_mut(sc, nsc),
        }
    };
    match step::step(&mut world_view, dt, &step_config) {
        Ok(stats) => {
            // SAFETY: `out` is NULL or valid and disjoint from every buffer.
            unsafe { write_opt(out, stats) };
            XpbdStatus::Ok
        }
        Err(e) => {
            let (status, index) = status_of(e);
            // SAFETY: `world` is non-null (read above) and valid; the field
            // is disjoint from every buffer.
            unsafe { ptr::write(W::error_index(world), index) };
            status
        }
    }
}

/// The default step configuration (f64): gravity (0, −9.81, 0) m/s²,
/// 1 substep, 1 iteration, no tolerance, no damping, radius 0, rigid
/// frictionless contacts, `XPBD_ZERO_LENGTH_REJECT`.
#[no_mangle]
pub extern "C" fn xpbd_step_config3_default() -> XpbdStepConfig3 {
    XpbdStepConfig3 {
        gravity: [0.0, -9.81, 0.0],
        substeps: 1,
        iterations: 1,
        tolerance: 0.0,
        damping: 0.0,
        particle_radius: 0.0,
        contact_compliance: 0.0,
        static_friction: 0.0,
        dynamic_friction: 0.0,
        zero_length_policy: crate::ffi_system::XPBD_ZERO_LENGTH_REJECT,
    }
}

/// The default step configuration (f32): see `xpbd_step_config3_default`.
#[no_mangle]
pub extern "C" fn xpbd_step_config3_default_f32() -> XpbdStepConfig3F32 {
    XpbdStepConfig3F32 {
        gravity: [0.0, -9.81, 0.0],
        substeps: 1,
        iterations: 1,
        tolerance: 0.0,
        damping: 0.0,
        particle_radius: 0.0,
        contact_compliance: 0.0,
        static_friction: 0.0,
        dynamic_friction: 0.0,
        zero_length_policy: crate::ffi_system::XPBD_ZERO_LENGTH_REJECT,
    }
}

/// Scratch entries `xpbd_world3_step` needs for `particle_count` particles
/// (3 · particle_count, saturating).
#[no_mangle]
pub extern "C" fn xpbd_step_scratch_len(particle_count: usize) -> usize {
    step::scratch_len(particle_count)
}

/// Advances a 3D f64 world by one frame of `dt` seconds: `config->substeps`
/// substeps of h = dt / substeps, each predicting x ← x + h v + h² g,
/// finding contacts, resetting every λ, running `config->iterations` sweeps
/// (links, then contacts), and updating v = (x − x_prev)/h with friction and
/// damping. `out_stats` may be NULL (written on success only).
///
/// Errors: `NULL_POINTER`, `INVALID_TIME_STEP` (dt), `INVALID_ARGUMENT`
/// (config), `NON_FINITE_VELOCITY`, `INVALID_COLLIDER`, `CAPACITY_TOO_SMALL`
/// (scratch or contacts), `ALIASED_BUFFERS`, every system error, and
/// `INVALID_RESULT`. On every error positions and velocities are as before
/// the call, and `world->error_index` names the item concerned.
///
/// # Safety
/// `world` and `config` are NULL or valid; the world's buffers are NULL (with
/// count 0) or valid for their counts; `out_stats` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn xpbd_world3_step(
    world: *mut XpbdWorld3,
    dt: f64,
    config: *const XpbdStepConfig3,
    out_stats: *mut XpbdStepStats,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract (see the function's Safety section).
    unsafe { step_raw::<f64, XpbdWorld3>(world, dt, config, out_stats.cast()) }
}

/// Advances a 3D f32 world by one frame: see `xpbd_world3_step`.
///
/// # Safety
/// As `xpbd_world3_step`.
#[no_mangle]
pub unsafe extern "C" fn xpbd_world3_step_f32(
    world: *mut XpbdWorld3F32,
    dt: f32,
    config: *const XpbdStepConfig3F32,
    out_stats: *mut XpbdStepStatsF32,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract (see the function's Safety section).
    unsafe { step_raw::<f32, XpbdWorld3F32>(world, dt, config, out_stats.cast()) }
}
