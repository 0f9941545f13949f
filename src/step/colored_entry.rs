//! The colored step's checks and λ reset as tasks: the frame's validation
//! of the particles and links, the roll-back snapshot, and each
//! substep's entry (the positions, the zero lengths, every λ ← 0), split
//! over particle and instance ranges.
//!
//! Errors are the sequential ones: the checks of a range stop at its
//! first failure, and of several ranges' failures the lowest range's is
//! reported (tasks come back in range order), every particle error before
//! any link error, as [`validate`](crate::solver::validate) checks them.
//! A substep entry checks and then resets in two phases, so that on an
//! error no λ has been written, as `begin_substep` promises.

use super::jobs::{run_phase, split_range, task_count, Shared};
use super::{Jobs, StepError};
use crate::constraint::distance::Link;
use crate::math::length_squared;
use crate::real::Real;
use crate::solver::{
    first_non_finite, first_zero_length, group_kinds, index_entries, reset_lambdas, validate_links,
    validate_particles, Constraints, ContactGroup, LinkConstants, Substep, System, SystemError,
    ZeroLength,
};

/// The entry's reset list, from the kinds table (`solver::kinds`): the
/// groups colored by boundaries (`fast*` walks) are reset by the tasks,
/// a range each; the groups that are a color per instance after the
/// phase, on the calling thread.
macro_rules! entry_resets {
    ($( $(#[$doc:meta])* $field:ident : $group:ident, $item:ident, $c:ident, $walk:ident($module:ident); )*) => {
        /// Every group's instances lent to the entry's tasks.
        struct Lent<T> {
            $( $field: Shared<crate::constraint::$module::$item<T>>, )*
        }

        impl<T: Real> Lent<T> {
            /// Lends the groups of `c` to one phase.
            fn new(c: &mut Constraints<'_, T>) -> Self {
                Self {
                    $( $field: Shared::new(instances!($walk c.$field)), )*
                }
            }

            /// The largest group the tasks reset.
            fn most(&self) -> usize {
                let mut most = 0usize;
                $( most = most.max(task_len!($walk self.$field)); )*
                most
            }

            /// Task `i`'s ranges (`range` of a length) of the groups the
            /// tasks reset, λ ← 0.
            ///
            /// # Safety
            /// As [`Shared::range`]: the phase's tasks take disjoint ranges.
            unsafe fn reset_ranges(&self, range: impl Fn(usize) -> (usize, usize)) {
                $( reset_range!($walk self.$field, range); )*
            }

            /// λ ← 0 for the groups the tasks do not reset (after the
            /// phase: the lent slices are no longer used).
            fn reset_own(&self, c: &mut Constraints<'_, T>) {
                $( reset_own!($walk c.$field); )*
            }
        }
    };
}

/// A group's instances, by its walk.
macro_rules! instances {
    (mesh $g:expr) => {
        &mut *$g.volumes
    };
    ($walk:ident $g:expr) => {
        &mut *$g
    };
}

/// A group's length for the task count, by its walk (0: not the tasks').
macro_rules! task_len {
    (mesh $g:expr) => {
        $g.len() * 0
    };
    (lagged $g:expr) => {
        $g.len() * 0
    };
    ($walk:ident $g:expr) => {
        $g.len()
    };
}

/// A group's range reset by a task, by its walk.
macro_rules! reset_range {
    (mesh $g:expr, $range:ident) => {};
    (lagged $g:expr, $range:ident) => {};
    ($walk:ident $g:expr, $range:ident) => {{
        let (a, b) = $range($g.len());
        // SAFETY: forwarded caller contract.
        reset_lambdas(unsafe { $g.range(a, b) }.unwrap_or(&mut []));
    }};
}

/// A group reset after the phase, by its walk.
macro_rules! reset_own {
    (mesh $g:expr) => { reset_lambdas(instances!(mesh $g)) };
    (lagged $g:expr) => { reset_lambdas(instances!(lagged $g)) };
    ($walk:ident $g:expr) => {};
}

group_kinds!(entry_resets);

/// Particles or instances per checking or resetting task, at least (no
/// bit depends on it; small under Miri, so that its small scenes split).
const ITEMS_PER_TASK: usize = if cfg!(miri) { 8 } else { 4096 };

/// The task count of a phase over ranges of `items` items.
fn tasks(jobs: &dyn Jobs, items: usize) -> usize {
    task_count(jobs, items.div_ceil(ITEMS_PER_TASK))
}

/// The frame's check of the particles and links
/// ([`validate`](crate::solver::validate), same errors in the same
/// order) as tasks over particle and link ranges, writing the links'
/// constants into their frame `state` (empty: nothing).
pub(super) fn validate_frame<T: Real, const D: usize>(
    jobs: &dyn Jobs,
    positions: &[[T; D]],
    inverse_masses: &[T],
    links: &[Link<T>],
    h: T,
    policy: ZeroLength,
    state: LinkConstants<'_, T>,
) -> Result<(), StepError> {
    if !h.is_finite() || h <= T::ZERO {
        return Err(SystemError::InvalidTimeStep.into());
    }
    let (n, m) = (positions.len(), links.len());
    if n != inverse_masses.len() {
        return Err(SystemError::ParticleCountMismatch.into());
    }
    if u32::try_from(n).is_err() {
        return Err(SystemError::TooManyParticles.into());
    }
    let h2 = h * h;
    let x = positions.as_flattened();
    // `|x_j − x_i|²` for the quick link check, from the `[T; D]` entries.
    let len2 = |i: usize, j: usize| match (positions.get(i), positions.get(j)) {
        (Some(a), Some(b)) => length_squared(a, b),
        _ => T::ZERO,
    };
    let count = tasks(jobs, n.max(m));
    let (mut particle, mut link) = (None, None);
    let lent = (
        Shared::new(state.alpha),
        Shared::new(state.g),
        Shared::new(state.rest),
        Shared::new(state.ij),
    );
    run_phase(
        jobs,
        count,
        &|i| {
            let (a, b) = split_range(n, i, count);
            let p = match (positions.get(a..b), inverse_masses.get(a..b)) {
                (Some(x), Some(w)) => validate_particles(x.as_flattened(), D, w, a).err(),
                _ => None,
            };
            let (a, b) = split_range(m, i, count);
            let e = index_entries::<T>();
            // SAFETY: the ranges of one phase are disjoint, and the state
            // is not used elsewhere until the phase ends (an empty state
            // gives empty ranges; the indices take `e` entries per link).
            let state = unsafe {
                (
                    lent.0.range(a, b),
                    lent.1.range(a, b),
                    lent.2.range(a, b),
                    lent.3.range(a.saturating_mul(e), b.saturating_mul(e)),
                )
            };
            let state = match state {
                (Some(alpha), Some(g), Some(rest), Some(ij)) => {
                    LinkConstants { alpha, g, rest, ij }
                }
                _ => LinkConstants::default(),
            };
            let l = links.get(a..b).and_then(|l| {
                validate_links(x, D, inverse_masses, l, a, h2, policy, state, Some(&len2)).err()
            });
            (p, l)
        },
        |_, (p, l)| {
            particle = particle.or(p);
            link = link.or(l);
        },
    )?;
    match particle.or(link) {
        Some(e) => Err(e.into()),
        None => Ok(()),
    }
}

/// `dst ← src` over the common length, as tasks over ranges (the frame's
/// roll-back snapshot).
pub(super) fn copy<E: Copy + Send + Sync>(
    jobs: &dyn Jobs,
    dst: &mut [E],
    src: &[E],
) -> Result<(), StepError> {
    let n = dst.len().min(src.len());
    let count = tasks(jobs, n);
    let ds = Shared::new(dst);
    run_phase(
        jobs,
        count,
        &|i| {
            let (a, b) = split_range(n, i, count);
            // SAFETY: the ranges of one phase are disjoint, and `dst` is
            // not used until the phase ends.
            if let (Some(d), Some(s)) = (unsafe { ds.range(a, b) }, src.get(a..b)) {
                super::copy(d, s);
            }
        },
        |_, ()| {},
    )
}

/// A substep's entry in a colored step: what `begin_substep` checks that
/// can change within a frame whose start [`validate_frame`] and the
/// groups' check passed at this `h` (the positions, and under
/// [`ZeroLength::Reject`] the links' lengths; inverse masses, indices,
/// rest values, compliances and scales do not change during a frame),
/// then every λ ← 0 (links, groups, contacts), as tasks. The errors are
/// those `begin_substep` reports.
///
/// The frame's `first` substep checks in one phase and resets in a
/// second, so that a failing entry writes no λ (the caller's λ stay as
/// they were). A later substep's λ are the frame's own already: it checks
/// and resets in one phase ([`entry`]), each task its links
/// [`LINKS_PER_PASS`] at a time, a batch reset as soon as it passed
/// (still in cache); when it fails, some λ have been reset (the step
/// reports the error, positions and velocities rolled back).
pub(super) fn begin<'s, 'a, T: Real, const D: usize, const G: bool>(
    jobs: &dyn Jobs,
    system: &'s mut System<'a, T, D>,
    h: T,
    mut group: ContactGroup<'s, T, D>,
    first: bool,
) -> Result<Substep<'s, 'a, T, D, G>, StepError> {
    let (particle, link) = entry::<T, D, G>(jobs, system, &mut group, true, !first)?;
    if let Some(particle) = particle {
        return Err(SystemError::NonFinitePosition { particle }.into());
    }
    if let Some(constraint) = link {
        return Err(SystemError::ZeroLength { constraint }.into());
    }
    if first {
        entry::<T, D, G>(jobs, system, &mut group, false, true)?;
    }
    Ok(Substep::new(system, h).holding(group))
}

/// A substep's entry in a frame on the link pass: no check, every λ of
/// the groups and contacts ← 0 as tasks (the system holds no links; the
/// link pass resets theirs in its first sweep).
pub(super) fn begin_unchecked<'s, 'a, T: Real, const D: usize, const G: bool>(
    jobs: &dyn Jobs,
    system: &'s mut System<'a, T, D>,
    h: T,
    mut group: ContactGroup<'s, T, D>,
) -> Result<Substep<'s, 'a, T, D, G>, StepError> {
    entry::<T, D, G>(jobs, system, &mut group, false, true)?;
    Ok(Substep::new(system, h).holding(group))
}

/// Links checked for zero length, then reset, at a time.
const LINKS_PER_PASS: usize = 1024;

/// The substep entry's phase: with `check`, the first non-finite particle
/// and (with `reject` too) the first link of zero length, each the lowest
/// of the tasks'; with `reset`, every λ ← 0 (after `check`: the links up
/// to a failing batch; the groups when `G`, the contacts of `group`).
/// Each task takes its range of every kind.
fn entry<T: Real, const D: usize, const G: bool>(
    jobs: &dyn Jobs,
    system: &mut System<'_, T, D>,
    group: &mut ContactGroup<'_, T, D>,
    check: bool,
    reset: bool,
) -> Result<(Option<usize>, Option<usize>), StepError> {
    let reject = check && system.zero_length == ZeroLength::Reject;
    let (positions, w) = (&*system.positions, system.inverse_masses);
    let x = positions.as_flattened();
    let n = if check { positions.len() } else { 0 };
    let c = &mut system.constraints;
    let lent = Lent::new(c);
    let sizes = [
        n,
        system.links.len(),
        lent.most(),
        group.items.len(),
        group.engine.len(),
        group.pairs.len(),
    ];
    let most = sizes.iter().copied().max().unwrap_or(0);
    let count = tasks(jobs, most);
    let links = Shared::new(&mut *system.links);
    let items = Shared::new(&mut *group.items);
    let engine = Shared::new(&mut *group.engine);
    let pairs = Shared::new(&mut *group.pairs);
    let (mut particle, mut link) = (None, None);
    run_phase(
        jobs,
        count,
        &|i| {
            let range = |len: usize| split_range(len, i, count);
            let (a, b) = range(n);
            let p = positions
                .get(a..b)
                .and_then(first_non_finite)
                .map(|k| a.saturating_add(k));
            let mut l = None;
            // SAFETY: task i takes range i of each slice; the ranges of one
            // phase are disjoint, and nothing else uses the slices until
            // the phase ends.
            unsafe {
                let (a, b) = range(links.len());
                let mine = links.range(a, b).unwrap_or(&mut []);
                if reject {
                    let mut first = a;
                    for batch in mine.chunks_mut(LINKS_PER_PASS) {
                        l = first_zero_length(x, D, w, batch, first);
                        if l.is_some() {
                            break;
                        }
                        if reset {
                            reset_lambdas(batch);
                        }
                        first = first.saturating_add(batch.len());
                    }
                } else if reset {
                    reset_lambdas(mine);
                }
                if !reset {
                    return (p, l);
                }
                if G {
                    lent.reset_ranges(range);
                }
                let (a, b) = range(items.len());
                reset_lambdas(items.range(a, b).unwrap_or(&mut []));
                let (a, b) = range(engine.len());
                reset_lambdas(engine.range(a, b).unwrap_or(&mut []));
                let (a, b) = range(pairs.len());
                reset_lambdas(pairs.range(a, b).unwrap_or(&mut []));
            }
            (p, l)
        },
        |_, (p, l)| {
            particle = particle.or(p);
            link = link.or(l);
        },
    )?;
    if G && reset && particle.is_none() && link.is_none() {
        lent.reset_own(c);
    }
    Ok((particle, link))
}
