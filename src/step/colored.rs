//! Colored stepping: the frame loop of [`step`](super::step) with every
//! constraint group solved in colored order and the frame's phases split
//! into tasks an engine's job system runs ([`Jobs`]).
//!
//! # The SoA frame
//!
//! On hosts in 3D, a world of links, bends, tets and tethers with at most
//! [`MAX_COLLIDERS`](super::soa_frame::MAX_COLLIDERS) planes and spheres runs its whole
//! frame on structure-of-arrays scratch ([`soa_frame`](super::soa_frame):
//! the particle passes as vectorised loops, the links on the SIMD kernels
//! and the groups on their in-place kernels over the coordinate arrays),
//! with the same bits; a frame it cannot finish runs again on the AoS
//! passes below.
//!
//! # Phases of one substep (AoS passes)
//!
//! | phase | split into tasks by |
//! |---|---|
//! | `x_prev ← x`, prediction and collider detection in one pass (with self-collision: prediction, then the pair search and the pairs' coloring on the calling thread, then detection) | particle ranges (several: a second pass writes the contacts in detection order) |
//! | the substep's entry: positions, zero lengths ([`colored_entry`](super::colored_entry)); after the frame's first substep in the same pass as the next row | particle and link ranges |
//! | every λ ← 0 | ranges of every kind |
//! | each iteration: every color of the links, bends, tets, tethers | instance ranges of the color ([`job_range`](crate::colored::job_range)) |
//! | each iteration: mesh volumes, attachments | — |
//! | each iteration: every color of the particle pairs | pair ranges of the color |
//! | each iteration: collider contacts | particle ranges, their contacts by binary search |
//! | each iteration: engine contacts | — |
//! | velocity update, damping, collider friction, finite check in one pass, a chunk of particles at a time ([`colored_particles`](super::colored_particles)) | particle ranges |
//! | the pairs' and engine contacts' friction, forces, tearing | — |
//!
//! Each phase ends before the next begins ([`Jobs::run`] returns when its
//! tasks have). Within a phase the tasks touch disjoint particles and
//! instances: the result does not depend on the split, the thread count
//! or the order the tasks run in. A phase asks for at most
//! [`Jobs::split`] tasks, and for fewer when it is small (1,024
//! particles or contacts, or one 64-instance chunk of a color, per task
//! at least).
//!
//! # The bits
//!
//! With the groups stored in colored order, a colored frame without
//! self-collision gives **exactly** the bits of
//! [`step`](super::step) on the same world, for every split: a
//! color's instances share no particle, so solving them in any split is
//! the sequential sweep over the same order, and the contacts are solved
//! in their sequential order. With self-collision the particle pairs are
//! solved in their colored order (the coloring and the sort are part of
//! the step, deterministic), so the bits differ from `step_with` but are
//! the same for every split and thread count. Errors are the sequential
//! ones, found by running a failed frame again on the checked path
//! ([`step`](super::step), "The frame is a transaction"): the frame is
//! rolled back, the links' λ too; the groups' and contacts' λ after an
//! error are unspecified.

use super::colored_entry as entry;
use super::colored_pairs::{color_pairs, sweep_pairs};
use super::colored_particles::{self as particles, Update};
use super::jobs::{run_phase, split_range, task_count, Shared};
pub use super::jobs::{Jobs, OneThread, MAX_JOBS};
use super::link_pass::{self, LinkState, Pass, SharedState};
use super::order::{predict_range, Order, HOST};
use super::world::Frame;
use super::{soa_frame, step_groups, StepConfig, StepError, StepStats, World};
use crate::colored::groups::Shared as Particles;
use crate::colored::groups::{check_proper, RawGroups};
use crate::colored::{job_range, solve_frame_range, GroupColors, Isa, RawAos, CHUNK};
use crate::constraint::contact::{sweep_colliders, Colliders, Contact};
use crate::constraint::distance::Link;
use crate::constraint::particle_contact::ParticleContact;
use crate::real::Real;
use crate::solver::Constraints;
use crate::solver::{
    contact_at, contact_error, sweep, validate, ContactGroup, Group, LinkConstants, PairColors,
    Substep, SweepStats, System, SystemError, ZeroLength, GROUPS,
};

/// Particles per prediction, detection or velocity task, at least:
/// smaller phases run as fewer tasks (splitting them costs more than it
/// saves). No bit depends on it; under Miri it is small, so that the
/// interpreter's small scenes split too.
pub(super) const PARTICLES_PER_TASK: usize = if cfg!(miri) { 8 } else { 1024 };

/// Contacts per contact-phase task, at least (as [`PARTICLES_PER_TASK`]).
const CONTACTS_PER_TASK: usize = if cfg!(miri) { 8 } else { 1024 };

/// Colored order on an engine's jobs (see the module documentation).
pub(crate) struct ColoredOrder<'c> {
    /// The color boundaries of the links and groups.
    pub(crate) colors: GroupColors<'c>,
    /// The engine's job system.
    pub(crate) jobs: &'c dyn Jobs,
    /// The link kernels' instruction set ([`Isa::detect`]).
    pub(crate) isa: Isa,
}

impl ColoredOrder<'_> {
    /// The task count of a particle phase over `n` particles.
    fn particle_tasks(&self, n: usize) -> usize {
        task_count(self.jobs, n.div_ceil(PARTICLES_PER_TASK))
    }
}

impl<T: Real, const D: usize> Order<T, D, true> for ColoredOrder<'_> {
    const FUSED: bool = HOST;

    fn validate(
        &self,
        positions: &[[T; D]],
        w: &[T],
        links: &[Link<T>],
        h: T,
        policy: ZeroLength,
        state: LinkConstants<'_, T>,
    ) -> Result<(), StepError> {
        if !HOST {
            return Ok(validate(positions, w, links, h, policy, state)?);
        }
        entry::validate_frame(self.jobs, positions, w, links, h, policy, state)
    }

    fn save(&self, dst: &mut [[T; D]], src: &[[T; D]]) -> Result<(), StepError> {
        if !HOST {
            super::copy(dst, src);
            return Ok(());
        }
        entry::copy(self.jobs, dst, src)
    }

    fn begin<'s, 'a>(
        &self,
        system: &'s mut System<'a, T, D>,
        h: T,
        group: ContactGroup<'s, T, D>,
        first: bool,
    ) -> Result<Substep<'s, 'a, T, D, true>, StepError> {
        if !HOST {
            return Ok(system.begin_substep_with::<true>(h, group)?);
        }
        entry::begin(self.jobs, system, h, group, first)
    }

    fn soa_frame(
        &self,
        world: &mut Frame<'_, T, D>,
        constraints: &mut Constraints<'_, T>,
        area: [&mut [[T; D]]; 3],
        state: LinkState<'_, T>,
        h_dt: (T, T),
        config: &StepConfig<T, D>,
    ) -> Option<StepStats<T>> {
        if !HOST {
            return None;
        }
        soa_frame::run(
            self.jobs,
            &self.colors,
            self.isa,
            world,
            constraints,
            area,
            state,
            h_dt,
            config,
        )
    }

    fn commit_links(&self, links: &mut [Link<T>], lambda: &[T]) -> Result<(), StepError> {
        let m = links.len();
        let count = task_count(self.jobs, m.div_ceil(PARTICLES_PER_TASK));
        let lent = Shared::new(links);
        run_phase(
            self.jobs,
            count,
            &|i| {
                let (a, b) = split_range(m, i, count);
                // SAFETY: the ranges of one phase are disjoint, and the
                // links are not used elsewhere until the phase ends.
                if let (Some(l), Some(s)) = (unsafe { lent.range(a, b) }, lambda.get(a..b)) {
                    link_pass::commit(l, s);
                }
            },
            |_, ()| {},
        )
    }

    fn begin_unchecked<'s, 'a>(
        &self,
        system: &'s mut System<'a, T, D>,
        h: T,
        group: ContactGroup<'s, T, D>,
    ) -> Result<Substep<'s, 'a, T, D, true>, StepError> {
        entry::begin_unchecked(self.jobs, system, h, group)
    }

    fn sweep_links(
        &self,
        substep: &mut Substep<'_, '_, T, D, true>,
        links: &[Link<T>],
        state: LinkState<'_, T>,
        pass: &Pass,
        mut stats: Option<&mut SweepStats<T>>,
    ) -> Result<(), StepError> {
        let (x, w, _, _) = substep.contact_parts();
        let want = stats.is_some();
        // f32 at most AVX2: the frame's kernels gather AoS particles, and
        // sixteen f32 lanes gathered through the stack cost more than
        // eight (measured on the 100² cloth, AVX-512 host: 14.2–16.3 ns
        // per link and substep with AVX-512, 12.4–12.5 with AVX2; f64
        // keeps AVX-512: 13.2–13.4 against 14.6). Every kernel gives the
        // same bits.
        let isa = link_pass::kernel_isa::<T>(self.isa);
        // On hosts in 3D the colored SIMD kernels (the same bits as the
        // link pass: `colored::kernel::chunk::candidate`); else the link
        // pass over each range.
        let kernel = if HOST && D == 3 {
            match state.kernel_links(links.len(), w, false) {
                Some(l) => Ok((
                    RawAos {
                        p: x.as_mut_ptr().cast::<[T; 3]>(),
                    },
                    l,
                )),
                None => return Err(link_pass::zero_length(0)),
            }
        } else {
            // SAFETY: `x` is used only by the tasks below until the
            // substep's next phase; each task writes the particles of its
            // range of one color of a coloring `step_colored` checked
            // proper.
            Err((unsafe { Particles::lend(x, w) }, SharedState::new(state)))
        };
        for bounds in self.colors.links.windows(2) {
            let (Some(&b), Some(&e)) = (bounds.first(), bounds.get(1)) else {
                continue;
            };
            let count = task_count(self.jobs, e.saturating_sub(b).div_ceil(CHUNK));
            let mut failed = None;
            run_phase(
                self.jobs,
                count,
                &|i| {
                    let mut tally = SweepStats::default();
                    let Some((lo, hi)) = job_range(b, e, i, count) else {
                        return Ok(tally);
                    };
                    match &kernel {
                        Ok((x, l)) => {
                            // SAFETY: `l` views the frame's links (every
                            // index validated below the particle count of
                            // `x` and `w`, which are 3D here) and their
                            // state, all borrowed until this sweep ends;
                            // `lo .. hi` is this task's range of one color
                            // of a coloring `step_colored` checked proper
                            // (no moving particle shared; static ones are
                            // only read), disjoint from the other tasks'
                            // ranges.
                            let r = unsafe {
                                solve_frame_range(*x, *l, lo, hi, pass.first, pass.policy, isa)
                            };
                            r.map_err(|_| link_pass::zero_length(lo))
                        }
                        Err((particles, lent)) => {
                            let mine = links.get(lo..hi).unwrap_or(&[]);
                            // SAFETY: the job ranges of one color are
                            // disjoint, and the state is not used elsewhere
                            // until the phase ends.
                            let state = unsafe { lent.range(lo, hi) };
                            let mut p = *particles;
                            pass.sweep(&mut p, mine, state, lo, want.then_some(&mut tally))
                                .map(|()| tally)
                        }
                    }
                },
                |_, r| match r {
                    Ok(s) => {
                        if let Some(t) = stats.as_deref_mut() {
                            *t = t.merge(s);
                        }
                    }
                    Err(e) => failed = failed.or(Some(e)),
                },
            )?;
            if let Some(e) = failed {
                return Err(e);
            }
        }
        Ok(())
    }

    fn predict(
        &self,
        x: &mut [[T; D]],
        previous: &mut [[T; D]],
        v: &[[T; D]],
        w: &[T],
        h: T,
        g: &[T; D],
    ) -> Result<(), StepError> {
        let n = x.len();
        let count = self.particle_tasks(n);
        let (xs, ps) = (Shared::new(x), Shared::new(previous));
        run_phase(
            self.jobs,
            count,
            &|i| {
                let (a, b) = split_range(n, i, count);
                // SAFETY: the ranges of one phase are disjoint, and `x` and
                // `previous` are not used until the phase ends.
                let (x, p) = unsafe { (xs.range(a, b), ps.range(a, b)) };
                if let (Some(x), Some(p), Some(v), Some(w)) = (x, p, v.get(a..b), w.get(a..b)) {
                    predict_range(x, p, v, w, h, g);
                }
            },
            |_, ()| {},
        )
    }

    fn iterate(
        &self,
        substep: &mut Substep<'_, '_, T, D, true>,
    ) -> Result<SweepStats<T>, StepError> {
        // On the link pass the frame's links are outside the system.
        let colors = if substep.links().is_empty() {
            GroupColors {
                links: &[],
                ..self.colors
            }
        } else {
            self.colors
        };
        let stats = iterate_groups(substep, &colors, self.jobs, self.isa)?;
        sweep_contacts(substep, self.jobs)?;
        Ok(stats)
    }

    fn arrange_pairs(&self, pairs: &mut [ParticleContact<T>], scratch: &mut [u32]) -> PairColors {
        color_pairs(pairs, scratch)
    }

    fn detect(
        &self,
        x: &[[T; D]],
        w: &[T],
        p: &Colliders<'_, T, D>,
        contacts: &mut [Contact<T>],
    ) -> Result<(usize, usize), StepError> {
        particles::detect(self.jobs, x, w, p, contacts, None)
    }

    fn predict_detect(
        &self,
        x: &mut [[T; D]],
        previous: &mut [[T; D]],
        v: &[[T; D]],
        w: &[T],
        h: T,
        g: &[T; D],
        p: &Colliders<'_, T, D>,
        contacts: &mut [Contact<T>],
    ) -> Result<(usize, usize), StepError> {
        particles::predict_detect(self.jobs, x, previous, v, w, h, g, p, contacts)
    }

    fn velocities(&self, v: &mut [[T; D]], u: &Update<'_, '_, T, D>) -> Result<bool, StepError> {
        particles::velocities(self.jobs, v, u)
    }
}

/// Task `i` of `count` of a contact phase over `n` particles: its
/// particles `pa .. pb` (near-equal ranges) and the contacts `a .. b`
/// naming them (detection stores the contacts sorted by particle; one
/// naming a particle outside its task's range, never, is reported by the
/// sweep as out of range, not solved).
fn task_contacts<T>(
    contacts: &[Contact<T>],
    n: usize,
    i: usize,
    count: usize,
) -> (usize, usize, usize, usize) {
    let (pa, pb) = split_range(n, i, count);
    let below =
        |p: usize| contacts.partition_point(|c| usize::try_from(c.particle).is_ok_and(|k| k < p));
    let b = if pb >= n { contacts.len() } else { below(pb) };
    (below(pa).min(b), b, pa, pb)
}

/// The contacts' part of a colored iteration, in the order and with the
/// bits of [`Substep::sweep_contacts`]: the particle pairs and the
/// engine's contacts on this thread, the collider contacts as tasks split
/// by particle.
fn sweep_contacts<T: Real, const D: usize>(
    substep: &mut Substep<'_, '_, T, D, true>,
    jobs: &dyn Jobs,
) -> Result<(), StepError> {
    let (x, w, group, h) = substep.contact_parts();
    let Some(group) = group else {
        return Ok(());
    };
    let h2 = h * h;
    let found = group.items.len();
    let base = found.saturating_add(group.engine.len());
    if group.pair_colors.count == 0 {
        sweep(x, w, group.pairs, &group.pair_shared, h2, ZeroLength::Skip)
            .map_err(|stop| contact_error(stop, base))?;
    } else {
        let colors = group.pair_colors;
        sweep_pairs(x, w, group.pairs, &group.pair_shared, &colors, h2, jobs).map_err(
            |e| match e {
                StepError::InvalidContactResult { contact } => StepError::InvalidContactResult {
                    contact: base.saturating_add(contact),
                },
                other => other,
            },
        )?;
    }
    let count = task_count(jobs, found.div_ceil(CONTACTS_PER_TASK));
    if count <= 1 {
        sweep_colliders(x, w, group.items, &group.colliders, h2, 0)
            .map_err(|k| contact_at(k, 0))?;
    } else {
        {
            let n = x.len();
            let p = group.colliders;
            let ranges: [(usize, usize, usize, usize); MAX_JOBS] =
                core::array::from_fn(|i| task_contacts(group.items, n, i, count));
            let (xs, is) = (Shared::new(&mut *x), Shared::new(&mut *group.items));
            let mut first: Option<StepError> = None;
            run_phase(
                jobs,
                count,
                &|i| {
                    let Some((a, b, pa, pb)) = ranges.get(i).copied() else {
                        return Ok(());
                    };
                    // SAFETY: the tasks' particle ranges are disjoint
                    // (`split_range`), and so are their contact ranges
                    // (bounds non-decreasing in the task); `x` and the
                    // contacts are not used until the phase ends.
                    let (x, items) = unsafe { (xs.range(pa, pb), is.range(a, b)) };
                    let (Some(x), Some(items), Some(w), Some(prev)) =
                        (x, items, w.get(pa..pb), p.previous.get(pa..pb))
                    else {
                        return Ok(());
                    };
                    let local = Colliders {
                        previous: prev,
                        ..p
                    };
                    // This task's particles start at `pa`.
                    let base = u32::try_from(pa).unwrap_or(0);
                    sweep_colliders(x, w, items, &local, h2, base).map_err(|k| contact_at(k, a))
                },
                |_, r| {
                    if let Err(e) = r {
                        first = first.or(Some(e));
                    }
                },
            )?;
            if let Some(e) = first {
                return Err(e);
            }
        }
    }
    sweep(x, w, group.engine, &group.surfaces, h2, ZeroLength::Skip)
        .map_err(|stop| contact_error(stop, found))?;
    Ok(())
}

/// One colored iteration of a substep's groups: every color of the links,
/// bends, tets and tethers as tasks on `jobs`, then the mesh volumes and
/// the attachments on this thread. A failing color is completed; its
/// lowest failing instance is reported.
fn iterate_groups<T: Real, const D: usize>(
    substep: &mut Substep<'_, '_, T, D, true>,
    colors: &GroupColors<'_>,
    jobs: &dyn Jobs,
    isa: Isa,
) -> Result<SweepStats<T>, StepError> {
    let mut raw = substep.raw(colors)?;
    // The bends' lane runs at the frame's vector level.
    raw.lanes = isa;
    let mut stats = SweepStats::default();
    for group in GROUPS {
        match colors.of(group) {
            // SAFETY: `raw` views the substep's system, whose groups
            // `step_colored` checked colored properly by `colors`, and
            // nothing else touches it meanwhile.
            Some(starts) => unsafe { sweep_colors(jobs, &raw, group, starts, &mut stats) }?,
            // SAFETY: one range over the whole group (a color per
            // instance) on this thread, while nothing else touches the
            // system.
            None => stats = stats.merge(unsafe { raw.run(group, 0, usize::MAX) }?),
        }
    }
    Ok(stats)
}

/// The colors `starts` of one group of `raw`, color after color, each
/// color's job ranges as tasks; their statistics merged into `stats`, or
/// the first error (the colors after its color not solved). The one loop
/// of the AoS frame's colored iteration and the SoA frame's groups.
///
/// # Safety
/// `raw`'s views are valid and nothing else touches them during the
/// call; `starts` are boundaries of a proper coloring of `group` (no
/// moving particle shared within a color).
pub(super) unsafe fn sweep_colors<T: Real, const D: usize>(
    jobs: &dyn Jobs,
    raw: &RawGroups<T, D>,
    group: Group,
    starts: &[usize],
    stats: &mut SweepStats<T>,
) -> Result<(), StepError> {
    for w in starts.windows(2) {
        let (Some(&b), Some(&e)) = (w.first(), w.get(1)) else {
            continue;
        };
        let count = task_count(jobs, e.saturating_sub(b).div_ceil(CHUNK));
        let mut first: Option<SystemError> = None;
        run_phase(
            jobs,
            count,
            &|i| match job_range(b, e, i, count) {
                // SAFETY: the ranges lie within one color of a proper
                // coloring and are disjoint (caller contract and
                // `job_range`), and no other phase runs meanwhile.
                Some((lo, hi)) => unsafe { raw.run(group, lo, hi) },
                None => Ok(SweepStats::default()),
            },
            |_, r| match r {
                Ok(s) => *stats = stats.merge(s),
                Err(e) => first = first.or(Some(e)),
            },
        )?;
        if let Some(e) = first {
            return Err(e.into());
        }
    }
    Ok(())
}

/// [`step`](super::step) in colored order, its phases run as
/// tasks on `jobs` (see [`crate::step`]'s colored stepping section and
/// the table of phases there).
///
/// The links and every group must be stored in colored order with their
/// boundaries in `colors` (as [`ColoredGroups`](crate::ColoredGroups)
/// takes them: [`color_instances`](crate::color_instances),
/// [`color_order`](crate::color_order),
/// [`fill_in_order`](crate::fill_in_order)); the coloring is checked
/// proper once per frame (`stamp`: scratch, one `u32` per particle).
/// Without self-collision the result is bit-identical to
/// [`step`](super::step) on the same world; with it, the
/// particle pairs are solved in colored order. Either way the bits do not
/// depend on [`Jobs::split`] or on how many threads run the tasks.
///
/// One implementation for both dimensions (`D`, inferred from the world):
/// a 2D world ([`step`](super::step)'s `World<T, 2>`: links, planes,
/// spheres, moving colliders, engine contacts, self-collision) steps in
/// colored order too, with `constraints` empty and only `colors.links`
/// (the groups beyond links are 3D, as [`step`](super::step)'s).
/// Without self-collision its bits are those of [`step`](super::step).
///
/// # Errors
///
/// As [`step`](super::step); [`StepError::GroupsNeed3D`] when `D ≠ 3`
/// and the world has groups or `colors.bends`, `colors.tets` or
/// `colors.tethers` is not empty (nothing written, not even `stamp`);
/// [`SystemError::InvalidShape`]
/// (bad boundaries, `stamp` shorter than the particles, an improper color),
/// [`SystemError::IndexOutOfRange`] and [`SystemError::SameParticle`]
/// from the coloring check; [`StepError::JobContract`] when the job
/// system did not run a task. On every error positions and velocities are
/// restored, so are the links' λ, and nothing is torn. The λ of groups
/// and contacts after an error are unspecified, as after a failing
/// substep of [`step`](super::step).
///
/// # Examples
///
/// ```
/// use xpbd::step::{step_colored, OneThread, StepConfig, World};
/// use xpbd::{color_instances, color_order, fill_in_order, GroupColors, Link};
///
/// // A 4-link rope, top pinned, links stored in colored order.
/// let mut x: Vec<[f64; 3]> = (0..5).map(|i| [0.1 * i as f64, 1.0, 0.0]).collect();
/// let mut v = vec![[0.0; 3]; 5];
/// let w = [0.0, 1.0, 1.0, 1.0, 1.0];
/// let links: Vec<Link<f64>> = (0..4).map(|i| Link::new(i, i + 1, 0.1, 0.0)).collect();
/// let (mut used, mut color) = (vec![0u64; 5], vec![0u32; 4]);
/// let count = color_instances(&links, 5, &mut used, &mut color).unwrap();
/// let (mut starts, mut order) = (vec![0usize; count as usize + 1], vec![0u32; 4]);
/// color_order(&color, count, &mut starts, &mut order).unwrap();
/// let mut colored = links.clone();
/// fill_in_order(&links, &order, &mut colored).unwrap();
///
/// let mut scratch = vec![[0.0; 3]; 23]; // world.requirements().scratch: 3 · 5 + 2 · 4 links
/// let mut contacts = [];
/// let mut world = World::new(&mut x, &mut v, &w, &mut contacts, &mut scratch);
/// world.links = &mut colored;
/// let colors = GroupColors { links: &starts, ..Default::default() };
/// let mut stamp = [0u32; 5]; // world.requirements().stamp
/// let config = StepConfig::new([0.0, -9.81, 0.0]);
/// step_colored(&mut world, &colors, &mut stamp, 1.0 / 60.0, &config, &OneThread).unwrap();
/// assert!(world.positions[4][1] < 1.0);
/// ```
///
/// The same rope in 2D, on a ground line y = 0.98 (`D = 2` inferred): its
/// bits are those of [`step`](super::step), and a 2D world refuses groups
/// beyond links.
///
/// ```
/// use xpbd::step::{step, step_colored, Colliders, Contact, OneThread, Plane, StepConfig, World};
/// use xpbd::{Bend, Constraints, GroupColors, Link, StepError};
///
/// // Links 0-1 and 2-3 share no particle (color 0), then 1-2 and 3-4.
/// let colored: Vec<Link<f64>> = [(0, 1), (2, 3), (1, 2), (3, 4)]
///     .iter()
///     .map(|&(i, j)| Link::new(i, j, 0.1, 0.0))
///     .collect();
/// let starts = [0, 2, 4];
/// let colors = GroupColors { links: &starts, ..Default::default() };
/// let ground = [Plane { normal: [0.0, 1.0], offset: 0.98 }];
/// let config = StepConfig::new([0.0, -9.81]);
/// let w = [0.0, 1.0, 1.0, 1.0, 1.0];
/// let frame = |colored_order: bool| {
///     let mut x: Vec<[f64; 2]> = (0..5).map(|i| [0.1 * i as f64, 1.0]).collect();
///     let mut v = vec![[0.0; 2]; 5];
///     let mut links = colored.clone();
///     let (mut contacts, mut scratch) = ([Contact::default(); 8], [[0.0; 2]; 27]);
///     let mut world = World::new(&mut x, &mut v, &w, &mut contacts, &mut scratch);
///     world.links = &mut links;
///     world.colliders = Some(Colliders { planes: &ground, ..Default::default() });
///     for _ in 0..6 {
///         if colored_order {
///             let mut stamp = [0u32; 5];
///             step_colored(&mut world, &colors, &mut stamp, 1.0 / 60.0, &config, &OneThread)
///                 .unwrap();
///         } else {
///             step(&mut world, 1.0 / 60.0, &config).unwrap();
///         }
///     }
///     x
/// };
/// let x = frame(true);
/// assert_eq!(x, frame(false));
/// assert!(x[4][1] >= 0.98 - 1e-9 && x[4][1] < 0.99); // fell onto the line
///
/// // A bend in a 2D world: refused, nothing written.
/// let mut bends = [Bend::new([0, 1, 2, 3], 0.0, 0.0)];
/// let mut groups = Constraints { bends: &mut bends, ..Default::default() };
/// let (mut x, mut v) = ([[0.0_f64; 2]; 5], [[0.0; 2]; 5]);
/// let (mut contacts, mut scratch) = ([Contact::default(); 8], [[0.0; 2]; 27]);
/// let mut world = World::new(&mut x, &mut v, &w, &mut contacts, &mut scratch);
/// world.groups = Some(groups);
/// let r = step_colored(&mut world, &GroupColors::default(), &mut [0u32; 5],
///                      1.0 / 60.0, &config, &OneThread);
/// assert_eq!(r, Err(StepError::GroupsNeed3D));
/// assert_eq!(step(&mut world, 1.0 / 60.0, &config), Err(StepError::GroupsNeed3D));
/// ```
pub fn step_colored<T: Real, const D: usize>(
    world: &mut World<'_, T, D>,
    colors: &GroupColors<'_>,
    stamp: &mut [u32],
    frame_dt: T,
    config: &StepConfig<T, D>,
    jobs: &dyn Jobs,
) -> Result<StepStats<T>, StepError> {
    step_colored_on(world, colors, stamp, frame_dt, config, jobs, Isa::detect())
}

/// [`step_colored`] with the links' SIMD kernels of `isa` (every kernel
/// gives the same bits: the tests check each against [`step`](super::step)).
#[doc(hidden)]
pub fn step_colored_on<T: Real, const D: usize>(
    world: &mut World<'_, T, D>,
    colors: &GroupColors<'_>,
    stamp: &mut [u32],
    frame_dt: T,
    config: &StepConfig<T, D>,
    jobs: &dyn Jobs,
    isa: Isa,
) -> Result<StepStats<T>, StepError> {
    // The groups beyond links are 3D constraints (as `step`'s).
    let groups = world.groups.is_some()
        || world.wind.is_some()
        || world.local_space.is_some()
        || !colors.bends.is_empty()
        || !colors.tets.is_empty()
        || !colors.tethers.is_empty();
    if D != 3 && groups {
        return Err(StepError::GroupsNeed3D);
    }
    let (mut world, mut constraints) = world.frame();
    let constraints = &mut constraints;
    // Particles static for the frame (w = 0) may be shared within a
    // color: the frame's kernels write moving particles only.
    check_proper(
        colors,
        world.links,
        constraints,
        world.positions.len(),
        stamp,
        world.inverse_masses,
    )?;
    let order = ColoredOrder {
        colors: *colors,
        jobs,
        isa,
    };
    step_groups::<T, D, true, _>(&mut world, constraints, frame_dt, config, &order)
}
