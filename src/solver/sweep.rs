//! The Gauss-Seidel sweep: every instance of a constraint group visited in
//! slice order, each solved by `constraint::solve` (the one update) and
//! committed before the next is visited.

use super::{within_work, Convergence, SweepStats, ZeroLength, MAX_ITERATIONS};
use crate::constraint::distance::Link;
use crate::constraint::{max, solve, visit, Constraint, Fault, Outcome};
use crate::real::{finite_non_negative, Real};
use crate::SystemError;

/// Why a sweep stopped, naming the instance (its index in the group).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stop {
    /// An index names no particle (or collider).
    OutOfRange(usize),
    /// The correction would not be finite.
    NonFinite(usize),
    /// The gradient is undefined and the policy is [`ZeroLength::Reject`].
    Degenerate(usize),
    /// A particle's position is NaN or infinite: `(instance, particle)`.
    NonFinitePosition(usize, usize),
}

impl Stop {
    /// The system error of a link group's stop.
    pub(crate) fn for_links(self) -> SystemError {
        match self {
            Stop::OutOfRange(constraint) => SystemError::IndexOutOfRange { constraint },
            Stop::NonFinite(constraint) => SystemError::InvalidResult { constraint },
            Stop::Degenerate(constraint) => SystemError::ZeroLength { constraint },
            Stop::NonFinitePosition(_, particle) => SystemError::NonFinitePosition { particle },
        }
    }
}

/// Adds one visit's outcome to the statistics, or names the stop.
#[inline(always)]
pub(crate) fn count_visit<T: Real>(
    stats: &mut SweepStats<T>,
    visit: Result<Outcome<T>, Fault>,
    index: usize,
    policy: ZeroLength,
) -> Result<(), Stop> {
    match visit {
        Ok(Outcome::Static) => stats.skipped_static = stats.skipped_static.saturating_add(1),
        Ok(Outcome::Idle) => stats.applied = stats.applied.saturating_add(1),
        Ok(Outcome::Degenerate) => match policy {
            ZeroLength::Reject => return Err(Stop::Degenerate(index)),
            ZeroLength::Skip => {
                stats.skipped_zero_length = stats.skipped_zero_length.saturating_add(1)
            }
        },
        Ok(Outcome::Applied { c_abs, residual }) => {
            stats.applied = stats.applied.saturating_add(1);
            stats.max_abs_c = max(stats.max_abs_c, c_abs);
            stats.max_residual = max(stats.max_residual, residual);
        }
        Err(Fault::OutOfRange) => return Err(Stop::OutOfRange(index)),
        Err(Fault::NonFinitePosition(p)) => return Err(Stop::NonFinitePosition(index, p)),
        Err(Fault::NonFinite) => return Err(Stop::NonFinite(index)),
    }
    Ok(())
}

/// One Gauss-Seidel sweep over a group of any constraint kind, in slice
/// order. Each instance is all-or-nothing; on a stop the instances before
/// it in this sweep have been applied, it and the later ones have not.
#[inline]
pub(crate) fn sweep<T: Real, const D: usize, const N: usize, K: Constraint<T, D, N>>(
    positions: &mut [[T; D]],
    inverse_masses: &[T],
    items: &mut [K],
    shared: &K::Shared<'_>,
    h2: T,
    policy: ZeroLength,
) -> Result<SweepStats<T>, Stop> {
    let mut stats = SweepStats::default();
    for (index, item) in items.iter_mut().enumerate() {
        let v = solve(item, positions, inverse_masses, shared, h2);
        count_visit(&mut stats, v, index, policy)?;
    }
    Ok(stats)
}

/// A sweep's statistics as a kind's in-place kernel adds to them: the
/// instance being solved (`index`, for a stop) and the policy. The kernel
/// counts its outcome where it decides it ([`count`](Self::count)), so
/// each outcome's counting is compiled at its own site; the same counts
/// and stops as [`count_visit`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct Tally<T> {
    /// The statistics so far.
    pub(crate) stats: SweepStats<T>,
    /// The instance being solved (its position in the group).
    pub(crate) index: usize,
    /// The zero-length (degenerate) policy.
    pub(crate) policy: ZeroLength,
}

impl<T: Real> Tally<T> {
    /// Empty statistics under `policy`.
    #[inline(always)]
    pub(crate) fn new(policy: ZeroLength) -> Self {
        Self {
            stats: SweepStats::default(),
            index: 0,
            policy,
        }
    }

    /// Counts the current instance's outcome ([`count_visit`]).
    #[inline(always)]
    pub(crate) fn count(&mut self, outcome: Outcome<T>) -> Result<(), Stop> {
        count_visit(&mut self.stats, Ok(outcome), self.index, self.policy)
    }

    /// The stop a fault of the current instance is ([`count_visit`]).
    #[inline(always)]
    pub(crate) fn fault(&self, fault: Fault) -> Stop {
        match fault {
            Fault::OutOfRange => Stop::OutOfRange(self.index),
            Fault::NonFinitePosition(p) => Stop::NonFinitePosition(self.index, p),
            Fault::NonFinite => Stop::NonFinite(self.index),
        }
    }
}

/// [`sweep`] through a kind's own in-place kernel (`solve_one`: one
/// instance solved and committed, or nothing written on a fault, its
/// outcome counted in the [`Tally`]), for the kinds that have one (host
/// sweeps: `solver::groups`). The same order, statistics and stops as
/// [`sweep`].
#[inline(always)]
pub(crate) fn sweep_in_place<T: Real, K, P>(
    items: &mut [K],
    particles: &mut P,
    policy: ZeroLength,
    mut solve_one: impl FnMut(&mut K, &mut P, &mut Tally<T>) -> Result<(), Stop>,
) -> Result<SweepStats<T>, Stop> {
    let mut tally = Tally::new(policy);
    for (index, item) in items.iter_mut().enumerate() {
        tally.index = index;
        solve_one(item, particles, &mut tally)?;
    }
    Ok(tally.stats)
}

/// One sweep over links with substep length `h` (s).
pub(crate) fn sweep_links<T: Real, const D: usize>(
    positions: &mut [[T; D]],
    inverse_masses: &[T],
    links: &mut [Link<T>],
    h: T,
    policy: ZeroLength,
) -> Result<SweepStats<T>, SystemError> {
    sweep(positions, inverse_masses, links, &(), h * h, policy).map_err(Stop::for_links)
}

/// The statistics a sweep over links would report for the current state,
/// without changing anything.
pub(crate) fn measure<T: Real, const D: usize>(
    positions: &[[T; D]],
    inverse_masses: &[T],
    links: &[Link<T>],
    h: T,
    policy: ZeroLength,
) -> Result<SweepStats<T>, SystemError> {
    let h2 = h * h;
    let mut stats = SweepStats::default();
    for (index, link) in links.iter().enumerate() {
        let v = visit(link, positions, inverse_masses, &(), h2).map(|v| v.outcome());
        count_visit(&mut stats, v, index, policy).map_err(Stop::for_links)?;
    }
    Ok(stats)
}

/// Sweeps the links until `max_residual ≤ tolerance` or `max_iterations`
/// sweeps ran.
pub(crate) fn iterate_until<T: Real, const D: usize>(
    positions: &mut [[T; D]],
    inverse_masses: &[T],
    links: &mut [Link<T>],
    h: T,
    policy: ZeroLength,
    tolerance: T,
    max_iterations: u32,
) -> Result<Convergence<T>, SystemError> {
    if !finite_non_negative(tolerance) {
        return Err(SystemError::InvalidTolerance);
    }
    if max_iterations > MAX_ITERATIONS || !within_work(u64::from(max_iterations), links.len()) {
        return Err(SystemError::WorkLimit);
    }
    let mut result = Convergence::default();
    while result.iterations < max_iterations {
        result.last = sweep_links(positions, inverse_masses, links, h, policy)?;
        result.iterations = result.iterations.saturating_add(1);
        if result.last.max_residual <= tolerance {
            result.converged = 1;
            break;
        }
    }
    Ok(result)
}
