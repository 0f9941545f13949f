//! Colored stepping: the frame loop of [`step`](super::step) with every
//! constraint group solved in colored order and the frame's phases split
//! into tasks an engine's job system runs ([`Jobs`]).
//!
//! # Phases of one substep
//!
//! | phase | split into tasks by | tasks |
//! |---|---|---|
//! | `x_prev ← x`, prediction | particle ranges | up to [`Jobs::split`] |
//! | self-collision pairs, collider contacts, λ reset | — | the calling thread |
//! | each iteration: every color of the links, bends, tets, tethers | instance ranges of the color ([`job_range`](crate::colored::job_range)) | up to [`Jobs::split`] per color |
//! | each iteration: mesh volumes, attachments, particle pairs, contacts, engine contacts | — | the calling thread |
//! | velocity update, damping | particle ranges | up to [`Jobs::split`] |
//! | dynamic friction | — | the calling thread |
//!
//! Each phase ends before the next begins ([`Jobs::run`] returns when its
//! tasks have). Within a phase the tasks touch disjoint particles and
//! instances: the result does not depend on the split, the thread count
//! or the order the tasks run in.
//!
//! # The bits
//!
//! With the groups stored in colored order (the links too), a colored
//! frame gives **exactly** the bits of [`step_with`](super::step_with) on
//! the same world, for every split: a color's instances share no particle,
//! so solving them in any split is the sequential sweep over the same
//! order, and the contacts are solved in their sequential order. Errors
//! are the sequential ones too, except that a failing color is completed
//! before the error is returned (the frame is rolled back either way).

use super::jobs::{run_phase, split_range, task_count, Shared};
pub use super::jobs::{Jobs, OneThread, MAX_JOBS};
use super::{step_groups, StepConfig, StepError, StepStats, World};
use crate::colored::groups::check_proper;
use crate::colored::{job_range, GroupColors, CHUNK};
use crate::real::Real;
use crate::solver::{Constraints, Group, Substep, SweepStats, SystemError};

/// Particles per prediction or velocity task, at least: smaller phases
/// run as fewer tasks (splitting them costs more than it saves).
const PARTICLES_PER_TASK: usize = 1024;

/// How the substeps of a frame run: [`Sequential`] on the calling thread,
/// or [`ColoredOrder`] on an engine's jobs.
pub(crate) trait Order<T: Real, const D: usize, const G: bool> {
    /// `x_prev ← x`, then `x ← x + h v + h² g` for particles with `w > 0`
    /// and `x ← x + h v` for a kinematic one (w = 0) with a velocity.
    fn predict(
        &self,
        x: &mut [[T; D]],
        previous: &mut [[T; D]],
        v: &[[T; D]],
        w: &[T],
        h: T,
        g: &[T; D],
    ) -> Result<(), StepError>;

    /// One iteration of the substep: its groups, then its contacts.
    fn iterate(&self, substep: &mut Substep<'_, '_, T, D, G>) -> Result<SweepStats<T>, StepError>;

    /// `v ← (x − x_prev)/h` then `v ← v · keep` for particles with `w > 0`;
    /// fails naming the first particle whose velocity or position is not
    /// finite.
    fn velocities(
        &self,
        v: &mut [[T; D]],
        x: &[[T; D]],
        previous: &[[T; D]],
        w: &[T],
        h: T,
        keep: Option<T>,
    ) -> Result<(), StepError>;
}

/// The sequential Gauss-Seidel frame of [`step`](super::step) and
/// [`step_with`](super::step_with).
pub(crate) struct Sequential;

impl<T: Real, const D: usize, const G: bool> Order<T, D, G> for Sequential {
    #[inline]
    fn predict(
        &self,
        x: &mut [[T; D]],
        previous: &mut [[T; D]],
        v: &[[T; D]],
        w: &[T],
        h: T,
        g: &[T; D],
    ) -> Result<(), StepError> {
        predict_range(x, previous, v, w, h, g);
        Ok(())
    }

    #[inline]
    fn iterate(&self, substep: &mut Substep<'_, '_, T, D, G>) -> Result<SweepStats<T>, StepError> {
        substep.iterate_with_contacts()
    }

    #[inline]
    fn velocities(
        &self,
        v: &mut [[T; D]],
        x: &[[T; D]],
        previous: &[[T; D]],
        w: &[T],
        h: T,
        keep: Option<T>,
    ) -> Result<(), StepError> {
        match velocity_range(v, x, previous, w, h, keep) {
            Some(particle) => Err(StepError::InvalidResult { particle }),
            None => Ok(()),
        }
    }
}

/// The prediction of particles `0 .. x.len()` (all slices of one range).
#[inline]
fn predict_range<T: Real, const D: usize>(
    x: &mut [[T; D]],
    previous: &mut [[T; D]],
    v: &[[T; D]],
    w: &[T],
    h: T,
    g: &[T; D],
) {
    let h2 = h * h;
    for (((x, p), v), w) in x.iter_mut().zip(previous.iter_mut()).zip(v).zip(w) {
        *p = *x;
        if *w == T::ZERO {
            if v.iter().any(|c| *c != T::ZERO) {
                for (xi, vi) in x.iter_mut().zip(v) {
                    *xi = *xi + h * *vi;
                }
            }
            continue;
        }
        for ((xi, vi), gi) in x.iter_mut().zip(v).zip(g) {
            *xi = *xi + h * *vi + h2 * *gi;
        }
    }
}

/// The velocity update of particles `0 .. v.len()`: the first particle
/// (local index) whose velocity or position is not finite, if any.
#[inline]
fn velocity_range<T: Real, const D: usize>(
    v: &mut [[T; D]],
    x: &[[T; D]],
    previous: &[[T; D]],
    w: &[T],
    h: T,
    keep: Option<T>,
) -> Option<usize> {
    for (particle, (((v, x), prev), w)) in v.iter_mut().zip(x).zip(previous).zip(w).enumerate() {
        if *w != T::ZERO {
            for ((vi, xi), pi) in v.iter_mut().zip(x).zip(prev) {
                *vi = (*xi - *pi) / h;
            }
            if let Some(keep) = keep {
                for vi in v.iter_mut() {
                    *vi = *vi * keep;
                }
            }
        }
        if !v.iter().chain(x.iter()).all(|c| c.is_finite()) {
            return Some(particle);
        }
    }
    None
}

/// Colored order on an engine's jobs (see the module documentation).
pub(crate) struct ColoredOrder<'c> {
    /// The color boundaries of the links and groups.
    pub(crate) colors: GroupColors<'c>,
    /// The engine's job system.
    pub(crate) jobs: &'c dyn Jobs,
}

impl ColoredOrder<'_> {
    /// The task count of a particle phase over `n` particles.
    fn particle_tasks(&self, n: usize) -> usize {
        task_count(self.jobs, n.div_ceil(PARTICLES_PER_TASK))
    }
}

impl<T: Real> Order<T, 3, true> for ColoredOrder<'_> {
    fn predict(
        &self,
        x: &mut [[T; 3]],
        previous: &mut [[T; 3]],
        v: &[[T; 3]],
        w: &[T],
        h: T,
        g: &[T; 3],
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
        substep: &mut Substep<'_, '_, T, 3, true>,
    ) -> Result<SweepStats<T>, StepError> {
        let stats = iterate_groups(substep, &self.colors, self.jobs)?;
        substep.sweep_contacts()?;
        Ok(stats)
    }

    fn velocities(
        &self,
        v: &mut [[T; 3]],
        x: &[[T; 3]],
        previous: &[[T; 3]],
        w: &[T],
        h: T,
        keep: Option<T>,
    ) -> Result<(), StepError> {
        let n = v.len();
        let count = self.particle_tasks(n);
        let vs = Shared::new(v);
        let mut first: Option<usize> = None;
        run_phase(
            self.jobs,
            count,
            &|i| {
                let (a, b) = split_range(n, i, count);
                // SAFETY: the ranges of one phase are disjoint, and `v` is
                // not used until the phase ends.
                let v = unsafe { vs.range(a, b) };
                match (v, x.get(a..b), previous.get(a..b), w.get(a..b)) {
                    (Some(v), Some(x), Some(p), Some(w)) => {
                        velocity_range(v, x, p, w, h, keep).map(|k| a.saturating_add(k))
                    }
                    _ => None,
                }
            },
            // Tasks come back in range order: the first failure is the
            // lowest particle, as the sequential loop reports it.
            |_, bad| first = first.or(bad),
        )?;
        match first {
            Some(particle) => Err(StepError::InvalidResult { particle }),
            None => Ok(()),
        }
    }
}

/// One colored iteration of a substep's groups: every color of the links,
/// bends, tets and tethers as tasks on `jobs`, then the mesh volumes and
/// the attachments on this thread. A failing color is completed; its
/// lowest failing instance is reported.
fn iterate_groups<T: Real>(
    substep: &mut Substep<'_, '_, T, 3, true>,
    colors: &GroupColors<'_>,
    jobs: &dyn Jobs,
) -> Result<SweepStats<T>, StepError> {
    let raw = substep.raw(colors)?;
    let mut stats = SweepStats::default();
    for group in [Group::Links, Group::Bends, Group::Tets, Group::Tethers] {
        let starts = colors.of(group).unwrap_or(&[]);
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
                    // SAFETY: the ranges lie within one color of a coloring
                    // `step_colored` checked proper, they are disjoint, and
                    // nothing else touches the system during the phase.
                    Some((lo, hi)) => unsafe { raw.run(group, lo, hi) },
                    None => Ok(SweepStats::default()),
                },
                |_, r| match r {
                    Ok(s) => stats = stats.merge(s),
                    Err(e) => first = first.or(Some(e)),
                },
            )?;
            if let Some(e) = first {
                return Err(e.into());
            }
        }
    }
    for group in [Group::Meshes, Group::Attachments] {
        // SAFETY: one range over the whole group on this thread, while
        // nothing else touches the system.
        stats = stats.merge(unsafe { raw.run(group, 0, usize::MAX) }?);
    }
    Ok(stats)
}

/// [`step_with`](super::step_with) in colored order, its phases run as
/// tasks on `jobs` (see [`crate::step`]'s colored stepping section and
/// the table of phases there).
///
/// The links and every group must be stored in colored order with their
/// boundaries in `colors` (as [`ColoredGroups`](crate::ColoredGroups)
/// takes them: [`color_instances`](crate::color_instances),
/// [`color_order`](crate::color_order),
/// [`fill_in_order`](crate::fill_in_order)); the coloring is checked
/// proper once per frame (`stamp`: scratch, one `u32` per particle). The
/// result is bit-identical to [`step_with`](super::step_with) on the same
/// world, whatever [`Jobs::split`] is and however many threads run the
/// tasks.
///
/// # Errors
///
/// As [`step_with`](super::step_with); [`SystemError::InvalidShape`]
/// (bad boundaries, `stamp` shorter than the particles, an improper color),
/// [`SystemError::IndexOutOfRange`] and [`SystemError::SameParticle`]
/// from the coloring check; [`StepError::JobContract`] when the job
/// system did not run a task. On every error positions and velocities are
/// restored and nothing is torn.
///
/// # Examples
///
/// ```
/// use xpbd::step::{step_colored, OneThread, StepConfig, World};
/// use xpbd::{color_instances, color_order, fill_in_order, Constraints, GroupColors, Link};
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
/// let mut scratch = vec![[0.0; 3]; 15];
/// let mut contacts = [];
/// let mut world = World::new(&mut x, &mut v, &w, &mut contacts, &mut scratch);
/// world.links = &mut colored;
/// let colors = GroupColors { links: &starts, ..Default::default() };
/// let mut stamp = [0u32; 5];
/// let config = StepConfig::new([0.0, -9.81, 0.0]);
/// let mut groups = Constraints::default();
/// step_colored(&mut world, &mut groups, &colors, &mut stamp, 1.0 / 60.0, &config, &OneThread)
///     .unwrap();
/// assert!(world.positions[4][1] < 1.0);
/// ```
#[allow(clippy::too_many_arguments)]
pub fn step_colored<T: Real>(
    world: &mut World<'_, T, 3>,
    constraints: &mut Constraints<'_, T>,
    colors: &GroupColors<'_>,
    stamp: &mut [u32],
    frame_dt: T,
    config: &StepConfig<T, 3>,
    jobs: &dyn Jobs,
) -> Result<StepStats<T>, StepError> {
    check_proper(
        colors,
        world.links,
        constraints,
        world.positions.len(),
        stamp,
    )?;
    let order = ColoredOrder {
        colors: *colors,
        jobs,
    };
    step_groups::<T, 3, true, _>(world, constraints, frame_dt, config, &order)
}
