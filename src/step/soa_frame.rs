//! The colored frame on structure-of-arrays scratch (issue 34, third and
//! fourth stages): the particle passes as flat, branch-free loops over coordinate
//! arrays, which the compiler turns into vector code (at the ISA the link
//! kernels run at), and the links on the colored kernels over the same
//! arrays. The same operations per particle as the AoS passes
//! ([`order`](super::order), [`colliders`](super::colliders),
//! `constraint::contact`), so the same bits.
//!
//! # When
//!
//! [`step_colored`](super::step_colored) on a host in 3D, for a world of
//! links, any colliders (planes, spheres, capsules, boxes), the groups
//! colored by boundaries ([`GroupColors`]: bends, tets, tethers, solved
//! after the links by their kinds' in-place kernels over the same
//! coordinate arrays) and attachments (after them, on this thread, a
//! particle's window each), in wind and in local space (issue 34, seventh
//! stage: the carry in tasks over the coordinate arrays, the wind's
//! triangles on this thread with their sums in the third area, both
//! before the prediction, `run_frame`'s order): no mesh volumes, engine
//! contacts or self-collision (those frames take the AoS passes). The
//! frame must fit:
//! every substep's contacts within
//! [`World::contacts`](super::World::contacts). The particle passes are
//! in [`soa_passes`](super::soa_passes); with capsules, boxes or more
//! than [`MAX_COLLIDERS`] planes and spheres the contacts are a list
//! ([`soa_list`](super::soa_list)).
//!
//! # A transaction
//!
//! The caller's positions and velocities are read once into the scratch
//! (the three areas the AoS frame keeps its snapshot and `x_prev` in,
//! `3n` entries of `[T; 3]`) and written once, when the whole frame
//! succeeded. Any failure (a non-finite result, a zero-length link under
//! [`ZeroLength::Reject`](crate::ZeroLength), more contacts than the
//! budget, a job system that skipped a task) writes nothing to them and
//! hands the frame to the AoS frame, which gives the same bits or names
//! the error exactly as before.
//!
//! # The scratch
//!
//! | area | holds |
//! |---|---|
//! | first (`n` entries) | positions `x`, `y`, `z`, an array each |
//! | second | per particle, from the prediction to the velocity update the substep's start `x_prev` (moving particles), else the velocity |
//! | third | per collider (planes, then spheres), the contact's λ (kg·m) of each particle, −1 when it has none (unused when the contacts are a list); before the prediction, the wind's force sums (N, x, y, z) |
//!
//! A static particle (w = 0) keeps its velocity in the second area all
//! frame (nothing needs its start: it has no contact and no link moves
//! it). A moving particle's velocity lives there between the velocity
//! update and the next prediction, which reads it and writes the start.
//!
//! # The contacts
//!
//! Detection flags a particle's contact with a collider by its λ (0 when
//! found); the contacts of distinct particles are independent, so a
//! collider at a time over all particles gives each particle's contacts in
//! detection order (planes, then spheres, by index), the bits of the AoS
//! sweep. A plane's contacts are flat loops that vectorise; a sphere's
//! call the AoS frame's own functions (`contact::gap`, `constraint::update`,
//! `contact::static_friction`, `slow_tangential`) one particle at a time. The
//! velocity pass writes the substep's contacts into
//! [`World::contacts`](super::World::contacts) in detection order, as the
//! AoS frame stores them. A frame with capsules or boxes, or more than
//! [`MAX_COLLIDERS`] planes and spheres, keeps them there from detection
//! on, as a list ([`soa_list`](super::soa_list): the AoS frame's contact
//! functions on windows of particles copied out of the coordinate
//! arrays).

use super::colliders::substep_colliders;
use super::colored::{sweep_colors, PARTICLES_PER_TASK};
use super::jobs::{run_phase, split_range, task_count, Jobs, Shared};
use super::link_pass::{kernel_isa, LinkState};
use super::local_space::LocalSpace;
use super::soa_list;
use super::soa_passes::{commit, phase, write_contacts, Consts, Lent, Pass, Plane};
use super::wind;
use super::world::Frame;
use super::{StepConfig, StepStats};
use crate::colored::groups::RawGroups;
use crate::colored::{job_range, solve_frame_range, GroupColors, Isa, RawSoa, CHUNK};
use crate::constraint::contact::Sphere;
use crate::constraint::lagged::Motion;
use crate::constraint::moving::{Prepared, PREPARED};
use crate::math::unit_any;
use crate::real::Real;
use crate::solver::{Constraints, SweepStats, GROUPS};

/// Most planes and spheres (together) a frame on the SoA passes takes:
/// the third scratch area holds one λ array per collider.
pub(super) const MAX_COLLIDERS: usize = 3;

/// The frame of `step_colored` on the SoA passes (see the module
/// documentation): `Some` with the frame's statistics when it ran and
/// committed positions, velocities and contacts (the links' λ are left
/// in `state` for the caller's commit), `None` when it does not apply or
/// failed, having written nothing but the scratch, `state`,
/// [`World::contacts`](super::World::contacts) and the groups' λ (which
/// the AoS frame resets at each substep's entry).
#[allow(clippy::too_many_arguments)]
pub(super) fn run<T: Real, const D: usize>(
    jobs: &dyn Jobs,
    group_colors: &GroupColors<'_>,
    isa: Isa,
    world: &mut Frame<'_, T, D>,
    constraints: &mut Constraints<'_, T>,
    area: [&mut [[T; D]]; 3],
    state: LinkState<'_, T>,
    (h, frame_dt): (T, T),
    config: &StepConfig<T, D>,
) -> Option<StepStats<T>> {
    // Groups colored by boundaries (their in-place kernels) and
    // attachments (a particle's window each, on this thread); a mesh
    // volume takes the AoS frame.
    let colored = GROUPS
        .into_iter()
        .zip(constraints.counts(0))
        .all(|(g, count)| count == 0 || group_colors.of(g).is_some() || g.lagged());
    let colors = group_colors.links;
    if D != 3 || !colored || !world.engine_contacts.is_empty() || world.self_collision.is_some() {
        return None;
    }
    // Capsules, boxes, fields or more planes and spheres than the λ arrays
    // hold: the contacts as a list (`soa_list`), the planes and spheres
    // too.
    let list = world.planes.len().saturating_add(world.spheres.len()) > MAX_COLLIDERS
        || !world.capsules.is_empty()
        || !world.boxes.is_empty()
        || world.fields.len() > 0;
    let n = world.positions.len();
    let mut planes = [Plane {
        n: [T::ZERO; 3],
        offset: T::ZERO,
    }; MAX_COLLIDERS];
    let mut spheres = [Sphere {
        center: [T::ZERO; 3],
        radius: T::ZERO,
    }; MAX_COLLIDERS];
    let (planes, spheres) = if list {
        (&planes[..0], &spheres[..0])
    } else {
        for (slot, p) in planes.iter_mut().zip(world.planes) {
            let u = unit_any(&p.normal)?;
            *slot = Plane {
                n: core::array::from_fn(|c| u.get(c).copied().unwrap_or(T::ZERO)),
                offset: p.offset,
            };
        }
        for (slot, s) in spheres.iter_mut().zip(world.spheres) {
            *slot = Sphere {
                center: core::array::from_fn(|c| s.center.get(c).copied().unwrap_or(T::ZERO)),
                radius: s.radius,
            };
        }
        (
            planes.get(..world.planes.len())?,
            spheres.get(..world.spheres.len())?,
        )
    };
    let [a0, a1, a2] = area;
    let split = |a: &'_ mut [[T; D]]| -> Option<[Shared<T>; 3]> {
        let flat = a.as_flattened_mut();
        let (c0, rest) = flat.split_at_mut_checked(n)?;
        let (c1, rest) = rest.split_at_mut_checked(n)?;
        let c2 = rest.get_mut(..n)?;
        Some([Shared::new(c0), Shared::new(c1), Shared::new(c2)])
    };
    let lent = Lent {
        x: split(a0)?,
        pv: split(a1)?,
        l: split(a2)?,
    };
    let w = world.inverse_masses;
    if w.len() != n {
        return None;
    }
    // The caller's positions and velocities into the scratch.
    let positions = world.positions.as_flattened();
    let velocities = world.velocities.as_flattened();
    let count = task_count(jobs, n.div_ceil(PARTICLES_PER_TASK));
    let mut failed = false;
    run_phase(
        jobs,
        count,
        &|i| {
            let (a, b) = split_range(n, i, count);
            // SAFETY: the ranges of one phase are disjoint, and the arrays
            // are used by nothing else until it ends.
            let (Some(p), Some(x), Some(v)) = (
                unsafe { lent.part(a, b) },
                positions.get(a.saturating_mul(3)..b.saturating_mul(3)),
                velocities.get(a.saturating_mul(3)..b.saturating_mul(3)),
            ) else {
                return false;
            };
            let ([x0, x1, x2], [v0, v1, v2]) = (p.x, p.pv);
            for (((x0, x1), x2), s) in x0.iter_mut().zip(x1).zip(x2).zip(x.chunks_exact(3)) {
                if let &[a, b, c] = s {
                    [*x0, *x1, *x2] = [a, b, c];
                }
            }
            for (((v0, v1), v2), s) in v0.iter_mut().zip(v1).zip(v2).zip(v.chunks_exact(3)) {
                if let &[a, b, c] = s {
                    [*v0, *v1, *v2] = [a, b, c];
                }
            }
            true
        },
        |_, ok| failed |= !ok,
    )
    .ok()?;
    if failed {
        return None;
    }
    let h2 = h * h;
    let keep = {
        let k = T::ONE - config.damping * h;
        if k > T::ZERO {
            k
        } else {
            T::ZERO
        }
    };
    let consts = Consts {
        w,
        planes,
        spheres,
        h,
        hg: core::array::from_fn(|c| h2 * config.gravity.get(c).copied().unwrap_or(T::ZERO)),
        radius: config.particle_radius,
        alpha: config.contact_compliance / h2,
        mu_s: config.static_friction,
        mu_k: config.dynamic_friction,
        keep: (config.damping > T::ZERO).then_some(keep),
        carry: None,
    };
    // The link kernels: f32 at most AVX2 (`ColoredOrder::sweep_links`).
    let link_isa = kernel_isa::<T>(isa);
    // The velocity pass checks every position: the link kernels' fast
    // paths test only λ' (`RawLinks::lazy`).
    let links = state.kernel_links(world.links.len(), w, true)?;
    let [s0, s1, s2] = &lent.x;
    let soa = RawSoa {
        x: s0.ptr(),
        y: s1.ptr(),
        z: s2.ptr(),
    };
    let has_groups = !constraints.is_empty();
    let budget = world.contacts.len();
    let out = Shared::new(world.contacts);
    let mut stats = StepStats::default();
    let mut found = [0usize; super::MAX_JOBS];
    let mut ok = [0usize; super::MAX_JOBS];
    // The attachments' impulses of this frame (`step`'s `begin_frame`).
    constraints.begin_frame();
    let mut poses = [Prepared::default(); PREPARED];
    let mut added = world.local_space.as_deref().map(LocalSpace::added);
    for s in 0..config.substeps {
        // Local space: the particles carried by the frame's scaled motion,
        // gravity turned into the frame (`run_frame`'s order).
        let local = (world.local_space.as_deref().zip(added.as_mut()))
            .map(|(l, a)| l.substep(s, config.substeps, h, a));
        let mut consts = consts;
        if let Some(l) = &local {
            consts.carry = l.motion();
            if consts.carry.is_some() {
                phase(jobs, &lent, n, Pass::Carry, &consts, isa, &mut ok)?;
            }
            let g = l.in_frame(&config.gravity);
            consts.hg = core::array::from_fn(|c| h2 * g.get(c).copied().unwrap_or(T::ZERO));
        }
        // Wind: its drag and lift change the velocities before the
        // prediction, the sums in the third area (free until the
        // detection), on this thread.
        if let Some(wind) = &world.wind {
            // SAFETY: no phase runs and no other reference to the arrays
            // is live.
            let p = unsafe { lent.part(0, n) }?;
            let [x0, x1, x2] = p.x;
            let v = p.pv;
            wind::apply_soa(wind, [x0, x1, x2], v, w, h, p.l, local.as_ref());
        }
        let consts = consts;
        let tasks = phase(
            jobs,
            &lent,
            n,
            Pass::PredictDetect,
            &consts,
            isa,
            &mut found,
        )?;
        // The substep's colliders as the AoS frame builds them (the list's
        // contacts; `previous` is the scratch's second area, per window).
        let template = substep_colliders(
            (world.planes, world.spheres),
            (world.capsules, world.boxes, world.fields),
            (s, h),
            config,
            &mut poses,
        );
        let mut total = 0usize;
        if list {
            let w = world.inverse_masses;
            total = soa_list::detect(
                jobs, &lent, n, w, &template, &out, budget, tasks, &mut found,
            )?;
        } else {
            for f in found.iter().take(tasks) {
                total = total.checked_add(*f)?;
            }
        }
        if total > budget {
            return None;
        }
        stats.max_contacts = stats.max_contacts.max(total);
        if has_groups {
            // The one λ reset of the groups at the substep's entry.
            constraints.reset();
        }
        // The groups' views for this substep's sweeps (taken after the
        // reset: from here on the groups are written through them only).
        // SAFETY: the coordinate arrays `soa` points into hold `n` entries
        // each and outlive the substep's phases, which use them one at a
        // time.
        let groups = unsafe {
            RawGroups::<T, 3>::soa(
                [soa.x, soa.y, soa.z],
                n,
                w,
                constraints,
                h2,
                Motion::of(s, config.substeps, config.max_distance_scale),
                config.zero_length,
                isa,
            )
        };
        let last_substep = s.saturating_add(1) == config.substeps;
        for k in 0..config.iterations {
            let want = config.tolerance > T::ZERO
                || (last_substep && k.saturating_add(1) == config.iterations);
            let mut tally = SweepStats::default();
            for bounds in colors.windows(2) {
                let (Some(&b), Some(&e)) = (bounds.first(), bounds.get(1)) else {
                    continue;
                };
                let count = task_count(jobs, e.saturating_sub(b).div_ceil(CHUNK));
                let mut bad = false;
                run_phase(
                    jobs,
                    count,
                    &|i| {
                        let Some((lo, hi)) = job_range(b, e, i, count) else {
                            return Some(SweepStats::default());
                        };
                        // SAFETY: `links` views the frame's links (every
                        // index validated below the particle count, the
                        // length of the scratch's coordinate arrays `soa`
                        // points into) and their state, all borrowed for
                        // this call; `lo .. hi` is this task's range of
                        // one color of a coloring `step_colored` checked
                        // proper (no moving particle shared), disjoint
                        // from the other tasks' ranges; no other phase
                        // runs meanwhile.
                        unsafe {
                            solve_frame_range(
                                soa,
                                links,
                                lo,
                                hi,
                                k == 0,
                                config.zero_length,
                                link_isa,
                            )
                        }
                        .ok()
                    },
                    |_, r| match r {
                        Some(t) => tally = tally.merge(t),
                        None => bad = true,
                    },
                )
                .ok()?;
                if bad {
                    return None;
                }
            }
            let links = if want { tally } else { SweepStats::default() };
            let mut swept = SweepStats::default();
            if has_groups {
                swept = sweep_groups(jobs, &groups, group_colors)?;
            }
            if total > 0 && list {
                soa_list::sweep(jobs, &lent, n, w, &template, &out, tasks, &found, h2)?;
            } else if total > 0 {
                let tasks = phase(jobs, &lent, n, Pass::Contacts, &consts, isa, &mut ok)?;
                if ok.iter().take(tasks).any(|r| *r != 0) {
                    return None;
                }
            }
            stats.last = links.merge(swept);
            stats.iterations = stats.iterations.saturating_add(1);
            if config.tolerance > T::ZERO && stats.last.max_residual <= config.tolerance {
                stats.converged_substeps = stats.converged_substeps.saturating_add(1);
                break;
            }
        }
        // The attachments' impulses (`step`'s `end_substep`).
        constraints.end_substep(h);
        if list {
            let u = (w, h, consts.keep, config.dynamic_friction);
            soa_list::velocities(jobs, &lent, n, &template, &out, tasks, &found, u)?;
            stats.substeps = stats.substeps.saturating_add(1);
            continue;
        }
        let tasks = phase(jobs, &lent, n, Pass::Velocities, &consts, isa, &mut ok)?;
        if ok.iter().take(tasks).any(|r| *r != 0) {
            return None;
        }
        // The substep's contacts in detection order, each task's after
        // those of the tasks before it.
        if total > 0 {
            let mut bad = false;
            run_phase(
                jobs,
                tasks,
                &|i| {
                    let (a, b) = split_range(n, i, tasks);
                    let at: usize = found.iter().take(i).sum();
                    let mine = found.get(i).copied().unwrap_or(0);
                    // SAFETY: the ranges of one phase are disjoint (the
                    // contacts of a particle range follow those of the
                    // ranges before it), and the arrays and contacts are
                    // used by nothing else until it ends.
                    let (Some(p), Some(dst)) = (unsafe { lent.part(a, b) }, unsafe {
                        out.range(at, at.saturating_add(mine))
                    }) else {
                        return false;
                    };
                    write_contacts(&p.l, planes.len() + spheres.len(), a, dst, 0) == Some(mine)
                },
                |_, r| bad |= !r,
            )
            .ok()?;
            if bad {
                return None;
            }
        }
        stats.substeps = stats.substeps.saturating_add(1);
    }
    // A frame force beyond the float range fails the frame (the AoS frame
    // names the particle), as `step`'s check after its substeps.
    if constraints.unrepresentable_force(frame_dt).is_some() {
        return None;
    }
    // Commit: the caller's positions and velocities (a task the job
    // system skipped is done on this thread: the frame succeeded).
    let positions = Shared::new(world.positions);
    let velocities = Shared::new(world.velocities);
    let commit = |a: usize, b: usize| {
        // SAFETY: (both uses) the ranges of one phase are disjoint, and
        // the arrays are used by nothing else until it ends; the fallback
        // runs after the phase, alone.
        unsafe { commit(&lent, &positions, &velocities, a, b) }
    };
    let mut done = [false; super::MAX_JOBS];
    let ran = run_phase(
        jobs,
        count,
        &|i| {
            let (a, b) = split_range(n, i, count);
            commit(a, b)
        },
        |i, r| {
            if let Some(d) = done.get_mut(i) {
                *d = r;
            }
        },
    );
    if ran.is_err() || done.iter().take(count).any(|d| !d) {
        commit(0, n);
    }
    Some(stats)
}

/// One sweep of the groups after the links, as the AoS frame's colored
/// iteration sweeps them (`colored::sweep_colors` for each group of the
/// table colored by boundaries, in order): their statistics, or `None`
/// when an instance failed (the AoS frame then runs and names it).
fn sweep_groups<T: Real>(
    jobs: &dyn Jobs,
    groups: &RawGroups<T, 3>,
    colors: &GroupColors<'_>,
) -> Option<SweepStats<T>> {
    let mut stats = SweepStats::default();
    for group in GROUPS.into_iter().skip(1) {
        if let Some(starts) = colors.of(group) {
            // SAFETY: `groups` views the frame's coordinate arrays and its
            // groups, colored properly by `colors` (`step_colored` checked
            // them), and no other phase runs meanwhile.
            unsafe { sweep_colors(jobs, groups, group, starts, &mut stats) }.ok()?;
        } else if group.lagged() {
            // A color per instance (attachments, skinned constraints), in
            // order on this thread (the AoS frame's colored iteration).
            // SAFETY: as above, one range on this thread.
            stats = stats.merge(unsafe { groups.run(group, 0, usize::MAX) }.ok()?);
        }
    }
    Some(stats)
}

#[cfg(test)]
#[allow(clippy::as_conversions, clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::super::colored::ColoredOrder;
    use super::super::order::Order;
    use super::super::world::World;
    use super::super::{scratch_len, Capsule, Colliders, OneThread, Transform, Wind};
    use super::*;
    use crate::colored::coloring::Instance;
    use crate::constraint::contact::{Contact, Plane as Ground, Sphere};
    use crate::constraint::engine_contact::EngineContact;
    use crate::step::AeroTriangle;
    use crate::{bends_count_for_cloth, bends_for_cloth, cloth, cloth_link_count};
    use crate::{color_instances, color_order, fill_in_order};
    use crate::{Attachment, Bend, Constraints, GroupColors, Link, ZeroLength};

    /// `items` in colored order, with the colors' boundaries.
    fn in_colors<const N: usize, K: Instance<N> + Copy>(
        items: &[K],
        n: usize,
    ) -> (Vec<K>, Vec<usize>) {
        let (mut used, mut colors) = (vec![0u64; n], vec![0u32; items.len()]);
        let count = color_instances(items, n, &mut used, &mut colors).unwrap();
        let mut starts = vec![0usize; count as usize + 1];
        let mut order = vec![0u32; items.len()];
        color_order(&colors, count, &mut starts, &mut order).unwrap();
        let mut sorted = items.to_vec();
        fill_in_order(items, &order, &mut sorted).unwrap();
        (sorted, starts)
    }

    /// A 6 × 6 cloth over the ground in colored order, one frame's
    /// entry by hand (the scratch's areas, the validated link state), then
    /// the SoA frame: it runs for links and planes, with a sphere, with
    /// bends, not with an attachment.
    #[test]
    fn links_colliders_bends_and_attachments_take_the_soa_frame_engine_contacts_do_not() {
        let side = 6;
        let n = side * side;
        let x0: Vec<[f64; 3]> = (0..n)
            .map(|k| [(k % side) as f64 * 0.01, 0.004, (k / side) as f64 * 0.01])
            .collect();
        let mut links = vec![Link::default(); cloth_link_count(side, side, true).unwrap()];
        cloth(&x0, side, side, true, 1e-7, &mut links).unwrap();
        let m = links.len();
        let (sorted, starts) = in_colors(&links, n);
        let mut bends = vec![Bend::default(); bends_count_for_cloth(side, side)];
        bends_for_cloth(&x0, side, side, 1e-3, &mut bends).unwrap();
        let (bends, bend_starts) = in_colors(&bends, n);
        let ground = [Ground {
            normal: [0.0, 1.0, 0.0],
            offset: 0.0,
        }];
        let ball = [Sphere {
            center: [0.0, -1.0, 0.0],
            radius: 0.5,
        }];
        let config = StepConfig::<f64, 3> {
            particle_radius: 0.005,
            substeps: 2,
            ..StepConfig::default()
        };
        let h = 1.0 / 60.0 / f64::from(config.substeps);
        let capsule = [Capsule::new([0.03, -0.01, 0.03], [0.02, 0.0, 0.0], 0.012)];
        // (a sphere, bends, an attachment, a capsule, an engine contact):
        // whether the SoA frame runs (a capsule: its contacts as a list).
        // The last flag: wind and a moving local space (the first case's
        // motion, carried; the same run).
        let cases = [
            (false, false, false, false, false, true, false),
            (true, false, false, false, false, true, false),
            (false, true, false, false, false, true, false),
            (false, true, true, false, false, true, false),
            (true, true, false, true, false, true, false),
            (false, true, true, false, true, false, false),
            (false, false, false, false, false, true, true),
            (true, false, true, true, false, true, true),
        ];
        // The interpreter: an attachment with the contact list, without the
        // bends (their lanes run under it elsewhere; 40 s for every case).
        // The engine contacts' AoS frame runs under it in
        // tests/colored_step (8 s here).
        let fewer = [(true, false, true, true, false, true, true)];
        let cases = if cfg!(miri) { &fewer[..] } else { &cases[..] };
        let triangles = [AeroTriangle::new([0, 1, side as u32])];
        for &(sphere, with_bends, attached, moving, engine, runs, character) in cases {
            let (mut x, mut v, w) = (x0.clone(), vec![[0.0; 3]; n], vec![1.0; n]);
            let mut links = sorted.clone();
            let mut bends = bends.clone();
            let mut attachments = [Attachment::new(0, x0[0], 0.0)];
            let mut groups = Constraints {
                bends: if with_bends { &mut bends } else { &mut [] },
                attachments: if attached { &mut attachments } else { &mut [] },
                ..Default::default()
            };
            let mut contacts = vec![Contact::default(); 2 * n];
            let mut scratch = vec![[0.0; 3]; scratch_len(n, m)];
            let mut world = World::new(&mut x, &mut v, &w, &mut contacts, &mut scratch);
            world.links = &mut links;
            let mut touch = [EngineContact::new(3, [0.0, 1.0, 0.0], [0.03, 0.0, 0.0])];
            if engine {
                world.engine_contacts = Some(&mut touch);
            }
            let mut local = LocalSpace::new(Transform::identity());
            local.target.translation = [0.01, 0.0, 0.0];
            if character {
                world.wind = Some(Wind {
                    velocity: [3.0, 0.0, 1.0],
                    ..Wind::new(&triangles)
                });
                world.local_space = Some(&mut local);
            }
            world.colliders = Some(Colliders {
                planes: &ground,
                spheres: if sphere { &ball } else { &[] },
                capsules: if moving { &capsule } else { &[] },
                ..Default::default()
            });
            let (mut frame, _) = world.frame();
            let scratch = core::mem::take(&mut frame.scratch);
            let (a, rest) = scratch.split_at_mut(n);
            let (b, rest) = rest.split_at_mut(n);
            let (c, rest) = rest.split_at_mut(n);
            let mut state = LinkState::carve(rest.as_flattened_mut(), m).unwrap();
            let order = ColoredOrder {
                colors: GroupColors {
                    links: &starts,
                    bends: if with_bends { &bend_starts } else { &[] },
                    ..Default::default()
                },
                jobs: &OneThread,
                isa: Isa::detect(),
            };
            order
                .validate(
                    frame.positions,
                    frame.inverse_masses,
                    frame.links,
                    h,
                    ZeroLength::Skip,
                    state.reborrow().constants(),
                )
                .unwrap();
            let before = frame.positions.to_vec();
            let r = order.soa_frame(
                &mut frame,
                &mut groups,
                [a, b, c],
                state.reborrow(),
                (h, h * f64::from(config.substeps)),
                &config,
            );
            assert_eq!(r.is_some(), runs);
            // It ran (and committed), or wrote nothing.
            assert_eq!(frame.positions.to_vec() != before, runs);
            if let Some(stats) = r {
                assert_eq!(stats.substeps, config.substeps);
                // Every particle on the ground; with the capsule, some on
                // it too.
                assert_eq!(stats.max_contacts > n, moving, "{}", stats.max_contacts);
                assert!(stats.max_contacts >= n);
                // Each bend and attachment solved: the frame's last sweep
                // counts the links' and the groups' instances.
                let solved = m
                    + if with_bends { groups.bends.len() } else { 0 }
                    + if attached { 1 } else { 0 };
                assert_eq!(stats.last.applied + stats.last.skipped_static, solved);
            }
        }
    }
}
