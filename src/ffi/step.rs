//! The C ABI of stepping (3D, f64 and f32): the generic functions behind
//! `xpbd_world3_step[_f32]`, `xpbd_world3_step_colored[_f32]`,
//! `xpbd_world3_requirements[_f32]`, the `_default` functions and
//! `xpbd_world3_add[_f32]` (the wrappers are in `generated.rs`).
//! A caller-owned world struct names the caller's buffers and a chain of
//! feature blocks; buffers must not overlap each other, the world, the
//! blocks, the configuration or the output (`XPBD_STATUS_ALIASED_BUFFERS`);
//! on any error the positions and velocities are unchanged and
//! `error_index` / `error_field` name what is concerned.

use core::ffi::c_void;
use core::ptr;

use super::check::{check_buffers, check_groups, read, slice, slice_mut, write_opt, Buf};
use super::colored_groups::{color_buffers, color_slices};
use super::constraints;
use super::status::{status_of, XpbdStatus};
use super::types::{
    policy_of, StepConfigC, XpbdGroupColors, XpbdJobSystem, XPBD_CONTACT_OVERFLOW_KEEP_FIRST,
    XPBD_CONTACT_OVERFLOW_REJECT, XPBD_ZERO_LENGTH_REJECT,
};
use super::world::{
    CollidersC, EngineContactsC, GroupsC, LocalSpaceC, SelfCollisionC, TearingC, WindC, WorldC,
    XpbdBlock, XpbdRequirements, XPBD_BLOCK_COLLIDERS, XPBD_BLOCK_ENGINE_CONTACTS, XPBD_BLOCK_F32,
    XPBD_BLOCK_GROUPS, XPBD_BLOCK_LOCAL_SPACE, XPBD_BLOCK_SELF_COLLISION, XPBD_BLOCK_TEARING,
    XPBD_BLOCK_WIND, XPBD_MAX_BLOCKS, XPBD_MEMORY_ALIGN,
};
use crate::constraint::contact::Contact;
use crate::constraint::particle_contact::ParticleContact;
use crate::error::Field;
use crate::real::Real;
use crate::step::{
    self, Colliders, ContactOverflow, Jobs, LocalSpace, Requirements, SelfCollision, StepConfig,
    StepStats, Tearing, Transform, Wind, World,
};
use crate::StepError;

/// The contact overflow policy of a C code, `None` for an unknown code.
fn overflow_of(code: i32) -> Option<ContactOverflow> {
    match code {
        XPBD_CONTACT_OVERFLOW_REJECT => Some(ContactOverflow::Reject),
        XPBD_CONTACT_OVERFLOW_KEEP_FIRST => Some(ContactOverflow::KeepFirst),
        _ => None,
    }
}

/// The Rust configuration of a C one (an unknown policy code names its
/// field).
fn config_of<T: Real>(c: &StepConfigC<T>) -> Result<StepConfig<T, 3>, Field> {
    Ok(StepConfig {
        gravity: c.gravity,
        substeps: c.substeps,
        iterations: c.iterations,
        tolerance: c.tolerance,
        damping: c.damping,
        particle_radius: c.particle_radius,
        contact_compliance: c.contact_compliance,
        static_friction: c.static_friction,
        dynamic_friction: c.dynamic_friction,
        zero_length: policy_of(c.zero_length_policy).ok_or(Field::ZeroLengthPolicy)?,
        contact_overflow: overflow_of(c.contact_overflow).ok_or(Field::ContactOverflow)?,
        max_distance_scale: c.max_distance_scale,
    })
}

/// `xpbd_step_config3_default[_f32]`: the values of the Rust
/// `StepConfig::default()` (each constant there says why).
pub(crate) fn default_config<T: Real>() -> StepConfigC<T> {
    let c = StepConfig::<T, 3>::default();
    StepConfigC {
        gravity: c.gravity,
        substeps: c.substeps,
        iterations: c.iterations,
        tolerance: c.tolerance,
        damping: c.damping,
        particle_radius: c.particle_radius,
        contact_compliance: c.contact_compliance,
        static_friction: c.static_friction,
        dynamic_friction: c.dynamic_friction,
        zero_length_policy: XPBD_ZERO_LENGTH_REJECT,
        contact_overflow: XPBD_CONTACT_OVERFLOW_REJECT,
        max_distance_scale: c.max_distance_scale,
    }
}

/// The float flag of `T`'s block kinds.
fn f32_flag<T>() -> u32 {
    if size_of::<T>() == 4 {
        XPBD_BLOCK_F32
    } else {
        0
    }
}

/// A block's header for `T` (what the `_default` functions write).
fn header<T, B>(kind: u32) -> XpbdBlock {
    XpbdBlock {
        kind: kind | f32_flag::<T>(),
        size: u32::try_from(size_of::<B>()).unwrap_or(u32::MAX),
        next: ptr::null_mut(),
    }
}

/// `xpbd_world3_default[_f32]`: no particles, links, memory or block.
pub(crate) fn default_world<T>() -> WorldC<T> {
    WorldC {
        positions: ptr::null_mut(),
        velocities: ptr::null_mut(),
        inverse_masses: ptr::null(),
        particle_count: 0,
        links: ptr::null_mut(),
        link_count: 0,
        memory: ptr::null_mut(),
        memory_size: 0,
        blocks: ptr::null_mut(),
        error_index: 0,
        error_field: 0,
    }
}

/// `xpbd_colliders3_default[_f32]`: no collider, the default budget.
pub(crate) fn default_colliders<T>() -> CollidersC<T> {
    CollidersC {
        block: header::<T, CollidersC<T>>(XPBD_BLOCK_COLLIDERS),
        planes: ptr::null(),
        plane_count: 0,
        spheres: ptr::null(),
        sphere_count: 0,
        capsules: ptr::null(),
        capsule_count: 0,
        boxes: ptr::null(),
        box_count: 0,
        heightfields: ptr::null(),
        heightfield_count: 0,
        sdfs: ptr::null(),
        sdf_count: 0,
        samples: ptr::null(),
        sample_count: 0,
        contact_budget: 0,
    }
}

/// `xpbd_self_collision3_default[_f32]`: no rest positions, the default
/// budget.
pub(crate) fn default_self_collision<T>() -> SelfCollisionC<T> {
    SelfCollisionC {
        block: header::<T, SelfCollisionC<T>>(XPBD_BLOCK_SELF_COLLISION),
        rest_positions: ptr::null_mut(),
        pair_budget: 0,
    }
}

/// `xpbd_tearing3_default[_f32]`: no maximum forces (set them), no output.
pub(crate) fn default_tearing<T>() -> TearingC<T> {
    TearingC {
        block: header::<T, TearingC<T>>(XPBD_BLOCK_TEARING),
        max_force: ptr::null(),
        torn: ptr::null_mut(),
        torn_capacity: 0,
    }
}

/// `xpbd_engine_contacts3_default[_f32]`: no contacts.
pub(crate) fn default_engine_contacts<T>() -> EngineContactsC<T> {
    EngineContactsC {
        block: header::<T, EngineContactsC<T>>(XPBD_BLOCK_ENGINE_CONTACTS),
        contacts: ptr::null_mut(),
        count: 0,
    }
}

/// `xpbd_groups3_default[_f32]`: no groups.
pub(crate) fn default_groups<T>() -> GroupsC<T> {
    GroupsC {
        block: header::<T, GroupsC<T>>(XPBD_BLOCK_GROUPS),
        groups: super::types::empty_constraints(),
    }
}

/// `xpbd_wind3_default[_f32]`: no triangles, no wind (velocity 0, no
/// per-particle wind), air (`Wind::new`: density 1.225 kg/m³).
pub(crate) fn default_wind<T: Real>() -> WindC<T> {
    let w = Wind::<T>::new(&[]);
    WindC {
        block: header::<T, WindC<T>>(XPBD_BLOCK_WIND),
        triangles: ptr::null(),
        triangle_count: 0,
        particle_velocities: ptr::null_mut(),
        velocity: w.velocity,
        density: w.density,
    }
}

/// `xpbd_local_space3_default[_f32]`: the identity root at the frame's
/// start and end, full inertia (world-space behaviour), no clamps (+∞),
/// no teleport (`LocalSpace::new`).
pub(crate) fn default_local_space<T: Real>() -> LocalSpaceC<T> {
    LocalSpaceC {
        block: header::<T, LocalSpaceC<T>>(XPBD_BLOCK_LOCAL_SPACE),
        local: LocalSpace::new(Transform::identity()),
    }
}

/// `xpbd_world3_add[_f32]`: puts `block` at the head of the world's chain.
///
/// # Safety
/// `world` and `block` are NULL or valid.
pub(crate) unsafe fn add_raw<T>(world: *mut WorldC<T>, block: *mut XpbdBlock) -> XpbdStatus {
    if world.is_null() || block.is_null() {
        return XpbdStatus::NullPointer;
    }
    if let Err(e) = check_buffers(&[Buf::of(world, 1), Buf::of(block, 1)]) {
        return e;
    }
    // SAFETY: both non-null, aligned and disjoint (checked), valid by the
    // caller's contract.
    unsafe {
        let head = ptr::read(ptr::addr_of!((*world).blocks));
        if head == block {
            return XpbdStatus::InvalidBlock;
        }
        ptr::write(ptr::addr_of_mut!((*block).next), head);
        ptr::write(ptr::addr_of_mut!((*world).blocks), block);
    }
    XpbdStatus::Ok
}

/// The blocks of a world's chain, read (copies) with their addresses.
struct Chain<T> {
    colliders: Option<(CollidersC<T>, *const CollidersC<T>)>,
    self_collision: Option<(SelfCollisionC<T>, *const SelfCollisionC<T>)>,
    tearing: Option<(TearingC<T>, *const TearingC<T>)>,
    engine: Option<(EngineContactsC<T>, *const EngineContactsC<T>)>,
    groups: Option<(GroupsC<T>, *const GroupsC<T>)>,
    wind: Option<(WindC<T>, *const WindC<T>)>,
    local_space: Option<(LocalSpaceC<T>, *const LocalSpaceC<T>)>,
}

/// A block of the chain, or `empty()` when the chain has none of its kind
/// (every field initialised either way).
fn filled<B: Copy>(slot: Option<(B, *const B)>, empty: fn() -> B) -> B {
    match slot {
        Some((b, _)) => b,
        None => empty(),
    }
}

/// An error of a C step: the status, `error_index`, `error_field`.
type Failure = (XpbdStatus, usize, Field);

/// Reads one block of the kind its header names into its slot.
///
/// # Safety
/// `p` is valid for a `B` (its header said so and its size matched).
unsafe fn take<B: Copy>(
    slot: &mut Option<(B, *const B)>,
    p: *const B,
    at: usize,
) -> Result<(), Failure> {
    if slot.is_some() {
        return Err((XpbdStatus::InvalidBlock, at, Field::Block));
    }
    if Buf::of(p, 1).check().is_err() {
        return Err((XpbdStatus::InvalidBlock, at, Field::Block));
    }
    // SAFETY: non-null, aligned (checked), valid by the caller's contract.
    *slot = Some((unsafe { ptr::read(p) }, p));
    Ok(())
}

/// Walks the chain from `head`: at most `XPBD_MAX_BLOCKS` blocks, each of
/// a kind this library knows for `T`, of its size, once.
///
/// # Safety
/// Every block of the chain is valid for its header's size.
unsafe fn read_chain<T: Real>(head: *mut XpbdBlock) -> Result<Chain<T>, Failure> {
    let mut chain = Chain {
        colliders: None,
        self_collision: None,
        tearing: None,
        engine: None,
        groups: None,
        wind: None,
        local_space: None,
    };
    let mut p = head;
    let mut at = 0usize;
    while !p.is_null() {
        let bad = (XpbdStatus::InvalidBlock, at, Field::Block);
        if at >= XPBD_MAX_BLOCKS || Buf::of(p, 1).check().is_err() {
            return Err(bad);
        }
        // SAFETY: non-null, aligned (checked), valid by the caller's contract.
        let h = unsafe { ptr::read(p) };
        let Some(kind) = h.kind.checked_sub(f32_flag::<T>()) else {
            return Err(bad);
        };
        let fits = |size: usize| usize::try_from(h.size).is_ok_and(|s| s == size);
        // SAFETY: in each arm the header names this block kind with this
        // library's size, and the block starts with the header.
        unsafe {
            match kind {
                XPBD_BLOCK_COLLIDERS if fits(size_of::<CollidersC<T>>()) => {
                    take(&mut chain.colliders, p.cast_const().cast(), at)?;
                }
                XPBD_BLOCK_SELF_COLLISION if fits(size_of::<SelfCollisionC<T>>()) => {
                    take(&mut chain.self_collision, p.cast_const().cast(), at)?;
                }
                XPBD_BLOCK_TEARING if fits(size_of::<TearingC<T>>()) => {
                    take(&mut chain.tearing, p.cast_const().cast(), at)?;
                }
                XPBD_BLOCK_ENGINE_CONTACTS if fits(size_of::<EngineContactsC<T>>()) => {
                    take(&mut chain.engine, p.cast_const().cast(), at)?;
                }
                XPBD_BLOCK_GROUPS if fits(size_of::<GroupsC<T>>()) => {
                    take(&mut chain.groups, p.cast_const().cast(), at)?;
                }
                XPBD_BLOCK_WIND if fits(size_of::<WindC<T>>()) => {
                    take(&mut chain.wind, p.cast_const().cast(), at)?;
                }
                XPBD_BLOCK_LOCAL_SPACE if fits(size_of::<LocalSpaceC<T>>()) => {
                    take(&mut chain.local_space, p.cast_const().cast(), at)?;
                }
                _ => return Err(bad),
            }
        }
        p = h.next;
        at = at.saturating_add(1);
    }
    Ok(chain)
}

/// Where each buffer lives in the world's memory (byte offsets) and the
/// lengths (entries).
struct Layout {
    lengths: Requirements,
    scratch: usize,
    contacts: usize,
    pairs: usize,
    table: usize,
    ids: usize,
    adjacency: usize,
    stamp: usize,
    total: usize,
}

/// The lengths of a world with these blocks and where they go.
fn layout<T: Real>(w: &WorldC<T>, chain: &Chain<T>) -> Layout {
    let colliders = chain.colliders.map_or(0, |(c, _)| {
        c.plane_count
            .saturating_add(c.sphere_count)
            .saturating_add(c.capsule_count)
            .saturating_add(c.box_count)
            .saturating_add(c.heightfield_count)
            .saturating_add(c.sdf_count)
    });
    let mut lengths = Requirements::new(
        w.particle_count,
        w.link_count,
        colliders,
        chain.self_collision.is_some(),
    );
    if let Some((c, _)) = chain.colliders {
        if c.contact_budget != 0 {
            lengths.contacts = c.contact_budget;
        }
    }
    if let Some((s, _)) = chain.self_collision {
        if s.pair_budget != 0 {
            lengths.pairs = s.pair_budget;
        }
    }
    let mut end = 0usize;
    let mut place = |count: usize, size: usize| {
        let start = end
            .checked_next_multiple_of(XPBD_MEMORY_ALIGN)
            .unwrap_or(usize::MAX);
        end = start.saturating_add(count.saturating_mul(size));
        start
    };
    let scratch = place(lengths.scratch, size_of::<[T; 3]>());
    let contacts = place(lengths.contacts, size_of::<Contact<T>>());
    let pairs = place(lengths.pairs, size_of::<ParticleContact<T>>());
    let table = place(lengths.hash_table, size_of::<u32>());
    let ids = place(lengths.hash_ids, size_of::<u32>());
    let adjacency = place(lengths.adjacency, size_of::<u32>());
    let stamp = place(lengths.stamp, size_of::<u32>());
    Layout {
        lengths,
        scratch,
        contacts,
        pairs,
        table,
        ids,
        adjacency,
        stamp,
        total: end,
    }
}

/// `xpbd_world3_requirements[_f32]`.
///
/// # Safety
/// See `xpbd_world3_requirements`.
pub(crate) unsafe fn requirements_raw<T: Real>(
    world: *mut WorldC<T>,
    out: *mut XpbdRequirements,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract (NULL-checked by the helper).
    let Ok(w) = (unsafe { read(world) }) else {
        return XpbdStatus::NullPointer;
    };
    if out.is_null() {
        return XpbdStatus::NullPointer;
    }
    if let Err(e) = check_buffers(&[Buf::of(world, 1), Buf::out(out)]) {
        return e;
    }
    // SAFETY: forwarded caller contract.
    let chain = match unsafe { read_chain::<T>(w.blocks) } {
        Ok(c) => c,
        Err(f) => return fail(world, f),
    };
    let l = layout(&w, &chain);
    let r = XpbdRequirements {
        memory_size: l.total,
        scratch: l.lengths.scratch,
        contacts: l.lengths.contacts,
        pairs: l.lengths.pairs,
        hash_table: l.lengths.hash_table,
        hash_ids: l.lengths.hash_ids,
        adjacency: l.lengths.adjacency,
        stamp: l.lengths.stamp,
    };
    // SAFETY: non-null, checked disjoint from the world struct.
    unsafe { ptr::write(out, r) };
    XpbdStatus::Ok
}

/// Writes a failure (or, with `XpbdStatus::Ok`, the absence of one) to
/// the world's error fields and returns its status.
fn fail<T>(world: *mut WorldC<T>, (status, index, field): Failure) -> XpbdStatus {
    // SAFETY: `world` is non-null and valid (every caller read it first);
    // the two fields are disjoint from every buffer (the world struct is
    // in every overlap check).
    unsafe {
        ptr::write(ptr::addr_of_mut!((*world).error_index), index);
        ptr::write(ptr::addr_of_mut!((*world).error_field), field.code());
    }
    status
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
        step_any(world, &[], dt, config, out, |w, dt, c, _| {
            step::step(w, dt, c)
        })
    }
}

/// `xpbd_world3_step_colored[_f32]`.
///
/// # Safety
/// See `xpbd_world3_step_colored`.
pub(crate) unsafe fn step_colored_raw<T: Real>(
    world: *mut WorldC<T>,
    colors: *const XpbdGroupColors,
    dt: T,
    config: *const StepConfigC<T>,
    jobs: *const XpbdJobSystem,
    out: *mut StepStats<T>,
) -> XpbdStatus {
    // SAFETY: forwarded caller contract (NULL-checked by the helper).
    let Ok(c) = (unsafe { read(colors) }) else {
        return XpbdStatus::NullPointer;
    };
    // SAFETY: NULL (one thread) or valid by the caller's contract.
    let job_system = unsafe { read(jobs) }.ok();
    let [a, b, cc, d, e] = color_buffers(&c, colors);
    let extra = [a, b, cc, d, e, Buf::out(jobs)];
    // SAFETY: forwarded caller contract; the colors' arrays and the job
    // system are in the overlap check (`extra`), only read.
    unsafe {
        step_any(world, &extra, dt, config, out, |w, dt, cfg, stamp| {
            let colors = color_slices(&c);
            let jobs = CJobs(job_system);
            step::step_colored(w, &colors, stamp, dt, cfg, &jobs)
        })
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

/// The one body of every step: the world, its blocks, the memory, the
/// configuration, the output and `extra` checked against each other in
/// one overlap check, the memory carved, then `run` ([`step::step`] or
/// [`step::step_colored`], given the coloring stamp from the memory).
///
/// # Safety
/// See `xpbd_world3_step` and `xpbd_world3_step_colored`; every buffer of
/// `extra` is valid for its count.
unsafe fn step_any<T: Real, F>(
    world: *mut WorldC<T>,
    extra: &[Buf],
    dt: T,
    config: *const StepConfigC<T>,
    out: *mut StepStats<T>,
    run: F,
) -> XpbdStatus
where
    F: FnOnce(
        &mut World<'_, T, 3>,
        T,
        &StepConfig<T, 3>,
        &mut [u32],
    ) -> Result<StepStats<T>, StepError>,
{
    // SAFETY: forwarded caller contract (NULL-checked by the helper).
    let (w, c) = match unsafe { (read(world), read(config)) } {
        (Ok(w), Ok(c)) => (w, c),
        _ => return XpbdStatus::NullPointer,
    };
    // SAFETY: forwarded caller contract.
    let chain = match unsafe { read_chain::<T>(w.blocks) } {
        Ok(chain) => chain,
        Err(f) => return fail(world, f),
    };
    let step_config = match config_of(&c) {
        Ok(s) => s,
        Err(field) => return fail(world, (XpbdStatus::InvalidConfig, 0, field)),
    };
    let l = layout(&w, &chain);
    #[allow(clippy::as_conversions)] // the address only, for its alignment
    let misaligned = (w.memory as usize) % XPBD_MEMORY_ALIGN != 0;
    if w.memory_size < l.total || (misaligned && l.total > 0) || (w.memory.is_null() && l.total > 0)
    {
        return fail(
            world,
            (XpbdStatus::CapacityTooSmall, l.total, Field::Memory),
        );
    }
    let n = w.particle_count;
    let links = w.link_count;
    // Room for every buffer below: the 8 of the core, then colliders 8,
    // self-collision 2, tearing 3, engine contacts 2, wind 3, local space
    // 1 and the groups' header 1 (28). A buffer past it would be left out
    // of the overlap check: `tests/hostile_c/blocks.rs` fills every block.
    let mut bufs = [Buf::of(ptr::null::<u8>(), 0); 28];
    let core = [
        Buf::of(w.positions, n),
        Buf::of(w.velocities, n),
        Buf::of(w.inverse_masses, n),
        Buf::of(w.links, links),
        Buf::of(w.memory.cast_const().cast::<u8>(), l.total),
        Buf::of(world, 1),
        Buf::of(config, 1),
        Buf::out(out),
    ];
    let mut k = 0;
    let mut push = |b: Buf| {
        if let Some(slot) = bufs.get_mut(k) {
            *slot = b;
            k += 1;
        }
    };
    core.into_iter().for_each(&mut push);
    // Each block's fields, or an empty block's where the chain has none:
    // every value read below is initialised, so that code the compiler
    // hoists above a block's presence test never reads the bytes of a
    // `None` (valgrind flags a branch on them, harmless or not).
    let colliders = filled(chain.colliders, default_colliders::<T>);
    let self_collision = filled(chain.self_collision, default_self_collision::<T>);
    let tearing = filled(chain.tearing, default_tearing::<T>);
    let engine = filled(chain.engine, default_engine_contacts::<T>);
    let wind = filled(chain.wind, default_wind::<T>);
    // The local-space values the step reads and (on success) updates: a
    // copy, written back to the caller's block only after a successful
    // frame.
    let mut local = filled(chain.local_space, default_local_space::<T>).local;
    // The optional arrays without a count: NULL (none) or one entry per
    // particle (rest positions, per-particle wind) or link (maximum
    // forces).
    let rest = self_collision.rest_positions.cast_const();
    let rest_count = if rest.is_null() { 0 } else { n };
    let max_force_count = if tearing.max_force.is_null() {
        0
    } else {
        links
    };
    let particle_wind = if wind.particle_velocities.is_null() {
        0
    } else {
        n
    };
    if let Some((_, p)) = chain.colliders {
        let c = &colliders;
        push(Buf::of(p, 1));
        push(Buf::of(c.planes, c.plane_count));
        push(Buf::of(c.spheres, c.sphere_count));
        push(Buf::of(c.capsules, c.capsule_count));
        push(Buf::of(c.boxes, c.box_count));
        push(Buf::of(c.heightfields, c.heightfield_count));
        push(Buf::of(c.sdfs, c.sdf_count));
        push(Buf::of(c.samples, c.sample_count));
    }
    if let Some((_, p)) = chain.self_collision {
        push(Buf::of(p, 1));
        push(Buf::of(rest, rest_count));
    }
    if let Some((_, p)) = chain.tearing {
        push(Buf::of(p, 1));
        push(Buf::of(tearing.max_force, max_force_count));
        push(Buf::of(tearing.torn, tearing.torn_capacity));
    }
    if let Some((_, p)) = chain.engine {
        push(Buf::of(p, 1));
        push(Buf::of(engine.contacts, engine.count));
    }
    if let Some((_, p)) = chain.wind {
        push(Buf::of(p, 1));
        push(Buf::of(wind.triangles, wind.triangle_count));
        push(Buf::of(wind.particle_velocities, particle_wind));
    }
    if let Some((_, p)) = chain.local_space {
        push(Buf::of(p, 1));
    }
    if let Some((_, p)) = chain.groups {
        // The header only: the groups struct after it is in the check
        // `constraints::view` makes.
        push(Buf::of(p.cast::<XpbdBlock>(), 1));
    }
    let bufs = bufs.get(..k).unwrap_or(&[]);
    let groups = match chain.groups {
        None => check_groups(&[bufs, extra]).map(|()| None),
        // SAFETY: forwarded caller contract; `bufs` and `extra` are every
        // other buffer; the groups struct is inside its block.
        Some((_, p)) => unsafe {
            constraints::view(ptr::addr_of!((*p).groups), [bufs, extra]).map(Some)
        },
    };
    let groups = match groups {
        Ok(g) => g,
        Err(e) => return fail(world, (e, 0, Field::None)),
    };
    let memory = w.memory.cast::<u8>();
    // SAFETY: every buffer is non-null (or empty), aligned, bounded, valid
    // for its count by the caller's contract, and no two overlap each other,
    // the world struct, the blocks, the config or the output (checked
    // above). The memory holds `l.total` bytes aligned to 8 (checked);
    // each carved buffer starts at a multiple of 8 inside it, is zeroed
    // before it is viewed (all-zero is a valid value of every element
    // type), and the carved buffers do not overlap each other.
    let mut world_view = unsafe {
        let carve = |offset: usize, bytes: usize| {
            if bytes == 0 {
                return ptr::null_mut();
            }
            let p = memory.add(offset);
            ptr::write_bytes(p, 0, bytes);
            p
        };
        let scratch = carve(
            l.scratch,
            l.lengths.scratch.saturating_mul(size_of::<[T; 3]>()),
        );
        let contacts = carve(
            l.contacts,
            l.lengths.contacts.saturating_mul(size_of::<Contact<T>>()),
        );
        let mut view = World::new(
            slice_mut(w.positions, n),
            slice_mut(w.velocities, n),
            slice(w.inverse_masses, n),
            slice_mut(contacts.cast::<Contact<T>>(), l.lengths.contacts),
            slice_mut(scratch.cast::<[T; 3]>(), l.lengths.scratch),
        );
        view.links = slice_mut(w.links, links);
        view.colliders = chain.colliders.is_some().then(|| Colliders {
            planes: slice(colliders.planes, colliders.plane_count),
            spheres: slice(colliders.spheres, colliders.sphere_count),
            capsules: slice(colliders.capsules, colliders.capsule_count),
            boxes: slice(colliders.boxes, colliders.box_count),
            heightfields: slice(colliders.heightfields, colliders.heightfield_count),
            sdfs: slice(colliders.sdfs, colliders.sdf_count),
            samples: slice(colliders.samples, colliders.sample_count),
        });
        view.self_collision = chain.self_collision.is_some().then(|| {
            let u32s = |offset: usize, count: usize| {
                slice_mut(carve(offset, count.saturating_mul(4)).cast::<u32>(), count)
            };
            SelfCollision {
                pairs: slice_mut(
                    carve(
                        l.pairs,
                        l.lengths
                            .pairs
                            .saturating_mul(size_of::<ParticleContact<T>>()),
                    )
                    .cast::<ParticleContact<T>>(),
                    l.lengths.pairs,
                ),
                table: u32s(l.table, l.lengths.hash_table),
                ids: u32s(l.ids, l.lengths.hash_ids),
                adjacency: u32s(l.adjacency, l.lengths.adjacency),
                rest: slice(rest, rest_count),
            }
        });
        view.tearing = chain.tearing.is_some().then(|| Tearing {
            max_force: slice(tearing.max_force, max_force_count),
            torn: slice_mut(tearing.torn, tearing.torn_capacity),
        });
        view.engine_contacts = chain
            .engine
            .is_some()
            .then(|| slice_mut(engine.contacts, engine.count));
        view.groups = groups;
        view.wind = chain.wind.is_some().then(|| Wind {
            triangles: slice(wind.triangles, wind.triangle_count),
            velocity: wind.velocity,
            particle_velocities: slice(wind.particle_velocities.cast_const(), particle_wind),
            density: wind.density,
        });
        view.local_space = chain.local_space.is_some().then_some(&mut local);
        view
    };
    // SAFETY: as above: the stamp is the last carved buffer (not viewed
    // when empty).
    let stamp = unsafe {
        if l.lengths.stamp == 0 {
            &mut []
        } else {
            let p = memory.add(l.stamp);
            ptr::write_bytes(p, 0, l.lengths.stamp.saturating_mul(4));
            slice_mut(p.cast::<u32>(), l.lengths.stamp)
        }
    };
    match run(&mut world_view, dt, &step_config, stamp) {
        Ok(stats) => {
            // SAFETY: `out` is NULL or valid and disjoint from every buffer.
            unsafe { write_opt(out, stats) };
            if let Some((_, p)) = chain.local_space {
                // SAFETY: the caller's block, non-null, aligned and
                // disjoint from every buffer (checked above), valid by the
                // caller's contract; only its `previous`, its added
                // velocities and `teleport` are written (never its
                // padding).
                unsafe {
                    let p = p.cast_mut();
                    ptr::write(ptr::addr_of_mut!((*p).local.previous), local.previous);
                    let linear = local.linear_velocity;
                    ptr::write(ptr::addr_of_mut!((*p).local.linear_velocity), linear);
                    let angular = local.angular_velocity;
                    ptr::write(ptr::addr_of_mut!((*p).local.angular_velocity), angular);
                    ptr::write(ptr::addr_of_mut!((*p).local.teleport), local.teleport);
                }
            }
            // No error: the error fields read 0 (not the last error's).
            fail(world, (XpbdStatus::Ok, 0, Field::None))
        }
        Err(e) => fail(world, status_of(e)),
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

/// Scratch entries (of 3 reals) `xpbd_world3_step` carves from the world's
/// memory for `particle_count` particles and `link_count` links:
/// 3 · particle_count (the frame's start and `x_prev`, or the SoA frame's
/// particles) + 2 · link_count (each link's state in the frame, six reals:
/// α̃, g, λ, the signed rest length and its two particle indices),
/// saturating.
#[no_mangle]
pub extern "C" fn xpbd_step_scratch_len(particle_count: usize, link_count: usize) -> usize {
    step::scratch_len(particle_count, link_count)
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
