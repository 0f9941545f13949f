//! The C ABI of stepping (3D, f64 and f32): the generic functions behind
//! `xpbd_world3_step[_f32]`, `xpbd_world3_step_groups[_f32]` and
//! `xpbd_step_config3_default[_f32]` (the wrappers are in `generated.rs`).
//! A caller-owned world struct names the caller's buffers; buffers must not
//! overlap each other, the world, the configuration, the constraint groups'
//! arrays and struct, or the output (`XPBD_STATUS_ALIASED_BUFFERS`); on any
//! error the positions and velocities are unchanged and `error_index`
//! names the particle, link (or group constraint, counted after the links),
//! collider or contact concerned.

use core::ffi::c_void;
use core::ptr;

use super::check::{check_buffers, read, slice, slice_mut, write_opt, Buf};
use super::colored_groups::{color_buffers, color_slices};
use super::constraints;
use super::status::{status_of, XpbdStatus};
use super::types::{
    policy_of, ConstraintsC, StepConfigC, WorldC, XpbdGroupColors, XpbdJobSystem,
    XPBD_CONTACT_OVERFLOW_KEEP_FIRST, XPBD_CONTACT_OVERFLOW_REJECT, XPBD_ZERO_LENGTH_REJECT,
};
use crate::real::Real;
use crate::solver::Constraints;
use crate::step::{self, ContactOverflow, Jobs, SelfCollision, StepConfig, StepStats, World};
use crate::StepError;

/// The contact overflow policy of a C code, `None` for an unknown code.
fn overflow_of(code: i32) -> Option<ContactOverflow> {
    match code {
        XPBD_CONTACT_OVERFLOW_REJECT => Some(ContactOverflow::Reject),
        XPBD_CONTACT_OVERFLOW_KEEP_FIRST => Some(ContactOverflow::KeepFirst),
        _ => None,
    }
}

/// The Rust configuration of a C one (`None` for an unknown policy code).
fn config_of<T: Real>(c: &StepConfigC<T>) -> Option<StepConfig<T, 3>> {
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
        contact_overflow: overflow_of(c.contact_overflow)?,
    })
}

/// `xpbd_step_config3_default[_f32]`: gravity (0, −9.81, 0) m/s², 1
/// substep, 1 iteration, no tolerance, no damping, radius 0, rigid
/// frictionless contacts, `XPBD_ZERO_LENGTH_REJECT`,
/// `XPBD_CONTACT_OVERFLOW_REJECT`.
pub(crate) fn default_config<T: Real>() -> StepConfigC<T> {
    StepConfigC {
        gravity: [T::ZERO, T::from_f64(-9.81), T::ZERO],
        substeps: crate::step::DEFAULT_SUBSTEPS,
        iterations: crate::step::DEFAULT_ITERATIONS,
        tolerance: T::ZERO,
        damping: T::ZERO,
        particle_radius: T::ZERO,
        contact_compliance: T::ZERO,
        static_friction: T::ZERO,
        dynamic_friction: T::ZERO,
        zero_length_policy: XPBD_ZERO_LENGTH_REJECT,
        contact_overflow: XPBD_CONTACT_OVERFLOW_REJECT,
    }
}

/// `xpbd_world3_step[_f32]`.
///
/// # Safety
/// See `xpbd_world3_step`.
pub(crate) unsafe fn step_raw<T: Real>(
    world: *mut WorldC<T>,
    dt: T,
    config: *const StepConfigC<T>,
    out: *mut StepStats<T>,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract.
    unsafe {
        step_any(world, None, &[], dt, config, out, |w, _, dt, c| {
            step::step(w, dt, c)
        })
    }
}

/// `xpbd_world3_step_groups[_f32]`.
///
/// # Safety
/// See `xpbd_world3_step_groups`.
pub(crate) unsafe fn step_groups_raw<T: Real>(
    world: *mut WorldC<T>,
    groups: *const ConstraintsC<T>,
    dt: T,
    config: *const StepConfigC<T>,
    out: *mut StepStats<T>,
) -> XpbdStatus {
    if groups.is_null() {
        return XpbdStatus::NullPointer;
    }
    // SAFETY: forwarded caller contract.
    unsafe { step_any(world, Some(groups), &[], dt, config, out, step::step_with) }
}

/// `xpbd_world3_step_colored[_f32]`.
///
/// # Safety
/// See `xpbd_world3_step_colored`.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn step_colored_raw<T: Real>(
    world: *mut WorldC<T>,
    groups: *const ConstraintsC<T>,
    colors: *const XpbdGroupColors,
    stamp: *mut u32,
    stamp_count: usize,
    dt: T,
    config: *const StepConfigC<T>,
    jobs: *const XpbdJobSystem,
    out: *mut StepStats<T>,
) -> XpbdStatus {
    if groups.is_null() {
        return XpbdStatus::NullPointer;
    }
    // SAFETY: forwarded caller contract (NULL-checked by the helper).
    let Ok(c) = (unsafe { read(colors) }) else {
        return XpbdStatus::NullPointer;
    };
    // SAFETY: NULL (one thread) or valid by the caller's contract.
    let job_system = unsafe { read(jobs) }.ok();
    let [a, b, cc, d, e] = color_buffers(&c, colors);
    let extra = [a, b, cc, d, e, Buf::of(stamp, stamp_count), Buf::out(jobs)];
    // SAFETY: forwarded caller contract; the colors' arrays, the stamp and
    // the job system are in the overlap check (`extra`), the arrays only
    // read, the stamp written only by the coloring check.
    unsafe {
        step_any(
            world,
            Some(groups),
            &extra,
            dt,
            config,
            out,
            |w, g, dt, cfg| {
                let colors = color_slices(&c);
                let stamp = slice_mut(stamp, stamp_count);
                let jobs = CJobs(job_system);
                step::step_colored(w, g, &colors, stamp, dt, cfg, &jobs)
            },
        )
    }
}

/// A C job system as [`Jobs`] (`None`: the calling thread).
struct CJobs(Option<XpbdJobSystem>);

impl Jobs for CJobs {
    fn split(&self) -> usize {
        self.0
            .map_or(1, |j| usize::try_from(j.split).unwrap_or(step::MAX_JOBS))
    }

    fn run(&self, count: usize, task: &(dyn Fn(usize) + Sync)) {
        let (Some(run), Ok(count)) = (self.0.and_then(|j| j.run), u32::try_from(count)) else {
            (0..count).for_each(task);
            return;
        };
        let user = self.0.map_or(ptr::null_mut(), |j| j.user);
        let context: *const &(dyn Fn(usize) + Sync) = &task;
        // SAFETY: the engine's `run` is valid by the caller's contract; it
        // calls `run_task` with this context, which lives until `run`
        // returns, and returns only after every task has.
        unsafe { run(user, count, run_task, context.cast_mut().cast()) }
    }
}

/// The [`XpbdTaskFn`] the library hands to `XpbdJobSystem::run`.
///
/// # Safety
/// `context` is the one `run` was given, and `run` has not returned.
unsafe extern "C" fn run_task(context: *mut c_void, task: u32) {
    let context: *const &(dyn Fn(usize) + Sync) = context.cast_const().cast();
    // SAFETY: the caller's contract: `context` points at the task closure
    // `CJobs::run` lent for the duration of the engine's `run`.
    let task_fn = unsafe { *context };
    if let Ok(i) = usize::try_from(task) {
        task_fn(i);
    }
}

/// The one body of every step: the world (and the groups, when given, and
/// the `extra` buffers) checked against each other, the configuration and
/// the output in one overlap check, then `run` ([`step::step`],
/// [`step::step_with`] or [`step::step_colored`]: each entry point
/// carries only its own).
///
/// # Safety
/// See `xpbd_world3_step`, `xpbd_world3_step_groups` and
/// `xpbd_world3_step_colored`; every buffer of `extra` is valid for its
/// count.
unsafe fn step_any<T: Real, F>(
    world: *mut WorldC<T>,
    groups: Option<*const ConstraintsC<T>>,
    extra: &[Buf],
    dt: T,
    config: *const StepConfigC<T>,
    out: *mut StepStats<T>,
    run: F,
) -> XpbdStatus
where
    F: FnOnce(
        &mut World<'_, T, 3>,
        &mut Constraints<'_, T>,
        T,
        &StepConfig<T, 3>,
    ) -> Result<StepStats<T>, StepError>,
{
    // SAFETY: forwarded caller contract (NULL-checked by the helper).
    let (w, c) = match unsafe { (read(world), read(config)) } {
        (Ok(w), Ok(c)) => (w, c),
        _ => return XpbdStatus::NullPointer,
    };
    let Some(step_config) = config_of(&c) else {
        return XpbdStatus::InvalidArgument;
    };
    let n = w.particle_count;
    let max_forces = if w.link_max_force.is_null() {
        0
    } else {
        w.link_count
    };
    let rest = if w.rest_positions.is_null() { 0 } else { n };
    let bufs = [
        Buf::of(w.positions, n),
        Buf::of(w.velocities, n),
        Buf::of(w.inverse_masses, n),
        Buf::of(w.links, w.link_count),
        Buf::of(w.planes, w.plane_count),
        Buf::of(w.spheres, w.sphere_count),
        Buf::of(w.contacts, w.contact_capacity),
        Buf::of(w.scratch, w.scratch_count),
        Buf::of(w.link_max_force, max_forces),
        Buf::of(w.torn, w.torn_capacity),
        Buf::of(w.capsules, w.capsule_count),
        Buf::of(w.boxes, w.box_count),
        Buf::of(w.engine_contacts, w.engine_contact_count),
        Buf::of(w.particle_contacts, w.particle_contact_capacity),
        Buf::of(w.hash_table, w.hash_table_count),
        Buf::of(w.hash_ids, w.hash_id_count),
        Buf::of(w.adjacency, w.adjacency_count),
        Buf::of(w.rest_positions, rest),
        Buf::of(world, 1),
        Buf::of(config, 1),
        Buf::out(out),
    ];
    let constraints = match groups {
        None => check_buffers(&bufs).map(|()| Constraints::default()),
        // SAFETY: forwarded caller contract; `bufs` is every other buffer.
        Some(g) => unsafe { constraints::view(g, [&bufs, extra]) },
    };
    let mut constraints = match constraints {
        Ok(c) => c,
        Err(e) => return e,
    };
    // SAFETY: every buffer is non-null (or empty), aligned, bounded, valid
    // for its count by the caller's contract, and no two overlap each other,
    // the world struct, the config, the groups or the output (checked above).
    let mut world_view = unsafe {
        World {
            positions: slice_mut(w.positions, n),
            velocities: slice_mut(w.velocities, n),
            inverse_masses: slice(w.inverse_masses, n),
            links: slice_mut(w.links, w.link_count),
            planes: slice(w.planes, w.plane_count),
            spheres: slice(w.spheres, w.sphere_count),
            contacts: slice_mut(w.contacts, w.contact_capacity),
            scratch: slice_mut(w.scratch, w.scratch_count),
            link_max_force: slice(w.link_max_force, max_forces),
            torn: slice_mut(w.torn, w.torn_capacity),
            capsules: slice(w.capsules, w.capsule_count),
            boxes: slice(w.boxes, w.box_count),
            engine_contacts: slice_mut(w.engine_contacts, w.engine_contact_count),
            self_collision: SelfCollision {
                pairs: slice_mut(w.particle_contacts, w.particle_contact_capacity),
                table: slice_mut(w.hash_table, w.hash_table_count),
                ids: slice_mut(w.hash_ids, w.hash_id_count),
                adjacency: slice_mut(w.adjacency, w.adjacency_count),
                rest: slice(w.rest_positions, rest),
            },
        }
    };
    let result = run(&mut world_view, &mut constraints, dt, &step_config);
    match result {
        Ok(stats) => {
            // SAFETY: `out` is NULL or valid and disjoint from every buffer.
            unsafe { write_opt(out, stats) };
            XpbdStatus::Ok
        }
        Err(e) => {
            let (status, index) = status_of(e);
            // SAFETY: `world` is non-null (read above) and valid; the field
            // is disjoint from every buffer.
            unsafe { ptr::write(ptr::addr_of_mut!((*world).error_index), index) };
            status
        }
    }
}

/// `xpbd_world3_precision[_f32]`.
///
/// # Safety
/// See `xpbd_world3_precision`.
pub(crate) unsafe fn precision_raw<T: Real>(
    world: *const WorldC<T>,
    config: *const StepConfigC<T>,
    out_ratio: *mut T,
    out_particle: *mut usize,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract (NULL-checked by the helper).
    let (w, c) = match unsafe { (read(world), read(config)) } {
        (Ok(w), Ok(c)) => (w, c),
        _ => return XpbdStatus::NullPointer,
    };
    if out_ratio.is_null() || out_particle.is_null() {
        return XpbdStatus::NullPointer;
    }
    let n = w.particle_count;
    if let Err(e) = check_buffers(&[
        Buf::of(w.positions, n),
        Buf::of(w.links, w.link_count),
        Buf::of(world, 1),
        Buf::of(config, 1),
        Buf::of(out_ratio, 1),
        Buf::of(out_particle, 1),
    ]) {
        return e;
    }
    // SAFETY: checked non-null (or empty), aligned, bounded, disjoint;
    // valid for their counts by the caller's contract; only read.
    let (x, links) = unsafe { (slice(w.positions, n), slice(w.links, w.link_count)) };
    if x.iter().any(|p| !p.iter().all(|v| v.is_finite())) {
        return XpbdStatus::NonFinitePosition;
    }
    let Some(length) = step::shortest_length(links, c.particle_radius) else {
        return XpbdStatus::Skipped;
    };
    match step::precision(x, length) {
        Some(p) => {
            // SAFETY: non-null, valid, disjoint from every buffer (checked).
            unsafe {
                ptr::write(out_ratio, p.ratio);
                ptr::write(out_particle, p.particle);
            }
            XpbdStatus::Ok
        }
        None => XpbdStatus::Skipped,
    }
}

/// Scratch entries `xpbd_world3_step` needs for `particle_count` particles
/// (3 · particle_count, saturating).
#[no_mangle]
pub extern "C" fn xpbd_step_scratch_len(particle_count: usize) -> usize {
    step::scratch_len(particle_count)
}

/// Entries of `XpbdWorld3::hash_table` self-collision needs for
/// `particle_count` particles (2 · particle_count + 2, saturating); the
/// other scratch: `hash_ids` one per particle, `adjacency`
/// `xpbd_self_collision_adjacency_len`.
#[no_mangle]
pub extern "C" fn xpbd_self_collision_table_len(particle_count: usize) -> usize {
    step::self_collision_table_len(particle_count)
}

/// Entries of `XpbdWorld3::adjacency` self-collision needs for
/// `particle_count` particles and `link_count` links
/// (particle_count + 1 + 2 · link_count, saturating).
#[no_mangle]
pub extern "C" fn xpbd_self_collision_adjacency_len(
    particle_count: usize,
    link_count: usize,
) -> usize {
    step::self_collision_adjacency_len(particle_count, link_count)
}
