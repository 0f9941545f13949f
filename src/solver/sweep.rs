//! The Gauss-Seidel sweep: every instance of a constraint group visited in
//! slice order, each solved by `constraint::solve` (the one update) and
//! committed before the next is visited.

use super::{within_work, Convergence, SweepStats, ZeroLength, MAX_ITERATIONS};
use crate::constraint::distance::Link;
use crate::constraint::{solve, visit, Constraint, Count, Fault, Outcome};
use crate::math::max;
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
///
/// Only the skipped instances are counted: every instance visited without
/// a stop is exactly one of applied (or idle), static or skipped for zero
/// length, so [`stats`](Self::stats) derives `applied` from the number of
/// instances visited. Statistics are read only after a sweep without a
/// stop (a stop discards them), so the derivation is exact. A count grows
/// by at most one per instance of one slice, so it never reaches
/// `usize::MAX` and a plain (wrapping) add gives `count_visit`'s
/// saturating one. The fields are few and plain so that the sweep loops
/// keep them in registers.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Tally<T> {
    /// The largest `|C|` so far.
    max_abs_c: T,
    /// The largest `|C + α̃λ|` so far.
    max_residual: T,
    /// Instances skipped as static so far.
    skipped_static: usize,
    /// Instances skipped for zero length so far.
    skipped_zero_length: usize,
    /// The instance being solved (its position in the group).
    pub(crate) index: usize,
    /// The zero-length (degenerate) policy.
    policy: ZeroLength,
}

impl<T: Real> Tally<T> {
    /// Empty statistics under `policy`.
    #[inline(always)]
    pub(crate) fn new(policy: ZeroLength) -> Self {
        Self {
            max_abs_c: T::ZERO,
            max_residual: T::ZERO,
            skipped_static: 0,
            skipped_zero_length: 0,
            index: 0,
            policy,
        }
    }

    /// The statistics of a sweep (or range) that visited `visited`
    /// instances, every one counted and none stopped.
    #[inline(always)]
    pub(crate) fn stats(&self, visited: usize) -> SweepStats<T> {
        SweepStats {
            applied: visited
                .saturating_sub(self.skipped_static)
                .saturating_sub(self.skipped_zero_length),
            skipped_static: self.skipped_static,
            skipped_zero_length: self.skipped_zero_length,
            max_abs_c: self.max_abs_c,
            max_residual: self.max_residual,
        }
    }
}

impl<T: Real> Count<T> for Tally<T> {
    type Stop = Stop;

    /// Counts the current instance's outcome ([`count_visit`]).
    #[inline(always)]
    fn count(&mut self, outcome: Outcome<T>) -> Result<(), Stop> {
        match outcome {
            Outcome::Static => self.skipped_static = self.skipped_static.wrapping_add(1),
            Outcome::Idle => {}
            Outcome::Degenerate => match self.policy {
                ZeroLength::Reject => return Err(Stop::Degenerate(self.index)),
                ZeroLength::Skip => {
                    self.skipped_zero_length = self.skipped_zero_length.wrapping_add(1);
                }
            },
            Outcome::Applied { c_abs, residual } => {
                self.max_abs_c = max(self.max_abs_c, c_abs);
                self.max_residual = max(self.max_residual, residual);
            }
        }
        Ok(())
    }

    /// The stop a fault of the current instance is ([`count_visit`]).
    #[inline(always)]
    fn fault(&self, fault: Fault) -> Stop {
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
    let visited = items.len();
    for (index, item) in items.iter_mut().enumerate() {
        tally.index = index;
        solve_one(item, particles, &mut tally)?;
    }
    Ok(tally.stats(visited))
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

/// The kinds' in-place kernels (hosts) against the shared `solve` (bare
/// metal, and every kind before them): the same positions, λ, statistics
/// and stops, bit for bit, on ordinary and hostile instances.
#[cfg(test)]
#[allow(clippy::indexing_slicing, clippy::unwrap_used, clippy::panic)]
mod in_place {
    use super::*;
    use crate::constraint::contact::{sweep_colliders, Colliders, Contact, Plane, Sphere};
    use crate::constraint::moving::{Capsule, Moving};
    use crate::constraint::{bend, tether, volume, Bend, InPlace, Scaled, Tet, Tether};

    /// Positions of a few kinds of trouble, one case each.
    fn cases() -> Vec<(Vec<[f64; 3]>, Vec<f64>)> {
        let base: Vec<[f64; 3]> = (0..8)
            .map(|k| {
                let k = f64::from(k);
                [
                    0.3 * k + 0.01 * k * k,
                    0.2 * (k % 3.0),
                    0.1 * (k % 2.0) - 0.05 * k,
                ]
            })
            .collect();
        let w = vec![1.0, 0.0, 2.0, 1.0, 0.5, 1.0, 0.0, 3.0];
        let mut out = vec![(base.clone(), w.clone())];
        let mut nan = base.clone();
        nan[2][1] = f64::NAN;
        out.push((nan, w.clone()));
        let mut inf = base.clone();
        inf[5][0] = f64::INFINITY;
        out.push((inf, w.clone()));
        let point = vec![[0.25; 3]; 8];
        out.push((point, w.clone()));
        let huge: Vec<[f64; 3]> = base.iter().map(|p| p.map(|c| c * 1e300)).collect();
        out.push((huge, w.clone()));
        let tiny: Vec<[f64; 3]> = base.iter().map(|p| p.map(|c| c * 1e-160)).collect();
        out.push((tiny, w.clone()));
        out.push((base.clone(), vec![0.0; 8]));
        let mut heavy = w.clone();
        heavy[3] = f64::INFINITY;
        out.push((base.clone(), heavy));
        out.push((base, vec![1e300; 8]));
        out
    }

    /// Runs `items` through both paths on every case, with both policies.
    fn same<K: Clone + core::fmt::Debug + PartialEq>(
        items: &[K],
        generic: impl Fn(&mut [[f64; 3]], &[f64], &mut [K], ZeroLength) -> Result<SweepStats<f64>, Stop>,
        kernel: impl Fn(&mut K, &mut InPlace<'_, f64, 3>, &mut Tally<f64>) -> Result<(), Stop>,
    ) {
        // Miri (CI budget): the first three cases (plain, NaN, infinite)
        // and one sweep; every case and up to three sweeps natively.
        let (case_count, max_sweeps) = if cfg!(miri) { (3, 1) } else { (usize::MAX, 3) };
        for (x, w) in cases().into_iter().take(case_count) {
            for policy in [ZeroLength::Skip, ZeroLength::Reject] {
                for sweeps in 1..=max_sweeps {
                    let (mut xa, mut ia) = (x.clone(), items.to_vec());
                    let (mut xb, mut ib) = (x.clone(), items.to_vec());
                    for _ in 0..sweeps {
                        let a = generic(&mut xa, &w, &mut ia, policy);
                        let mut p = InPlace { x: &mut xb, w: &w };
                        let b = sweep_in_place(&mut ib, &mut p, policy, &kernel);
                        let bits = |s: &SweepStats<f64>| {
                            (
                                s.applied,
                                s.skipped_static,
                                s.skipped_zero_length,
                                s.max_abs_c.to_bits(),
                                s.max_residual.to_bits(),
                            )
                        };
                        assert_eq!(a.as_ref().map(bits), b.as_ref().map(bits));
                    }
                    let flat = |x: &[[f64; 3]]| {
                        x.as_flattened()
                            .iter()
                            .map(|v| v.to_bits())
                            .collect::<Vec<_>>()
                    };
                    assert_eq!(flat(&xa), flat(&xb));
                    assert_eq!(format!("{ia:?}"), format!("{ib:?}"));
                }
            }
        }
    }

    // Safe Rust only: natively (the interpreter adds nothing here).

    #[test]
    #[cfg_attr(miri, ignore)]
    fn tethers() {
        let items = [
            Tether::new(2, 0, 0.1, 0.0),
            Tether::new(3, 0, 0.1, 1e-3),
            Tether::new(4, 1, 5.0, 0.0),
            Tether::new(5, 6, 0.0, 0.0),
            Tether::new(7, 2, 0.2, 0.0),
            Tether::new(6, 1, 0.2, 0.0),
            Tether::new(4, 0, 0.1, -0.0),
            Tether::new(5, 1, 0.1, 0.0),
            Tether::new(7, 1, 0.3, 1e-3),
            Tether::new(2, 6, 0.1, 1e-3),
            Tether::new(3, 6, 0.1, 2e-3),
            Tether::new(3, 3, 0.2, 0.0),
            Tether::new(9, 0, 0.1, 0.0),
        ];
        let memo = core::cell::Cell::new(Scaled::new(0.01));
        same(
            &items,
            |x, w, t, p| sweep(x, w, t, &(), 0.01, p),
            |t, x, tally| {
                // One quotient kept across every call (the same `h²`).
                let mut alpha = memo.get();
                let r = tether::solve_in_place(t, x, &mut alpha, tally);
                memo.set(alpha);
                r
            },
        );
    }

    // Safe Rust only: natively (the interpreter adds nothing here).

    #[test]
    #[cfg_attr(miri, ignore)]
    fn links() {
        use crate::constraint::distance;
        let mut slack = Link::new(1, 2, 5.0, 0.0);
        slack.flags = Link::<f64>::TENSION_ONLY;
        let mut taut = Link::new(3, 4, 0.01, 1e-4);
        taut.flags = Link::<f64>::TENSION_ONLY;
        let mut off = Link::new(0, 5, 0.2, 0.0);
        off.flags = Link::<f64>::DISABLED;
        let items = [
            Link::new(0, 2, 0.2, 0.0),
            Link::new(2, 3, 0.1, 1e-4),
            Link::new(1, 6, 0.3, 0.0),
            Link::new(4, 4, 0.2, 0.0),
            slack,
            taut,
            off,
            Link::new(5, 7, 0.05, 0.0),
            Link::new(0, 8, 0.1, 0.0),
        ];
        same(
            &items,
            |x, w, t, p| sweep(x, w, t, &(), 0.01, p),
            |l, x, tally| distance::solve_in_place(l, x, 0.01, tally),
        );
    }

    // Safe Rust only: natively (the interpreter adds nothing here).

    #[test]
    #[cfg_attr(miri, ignore)]
    fn tets() {
        let items = [
            Tet::new([0, 2, 3, 4], 0.02, 0.0),
            Tet::new([2, 3, 4, 5], -0.01, 1e-4),
            Tet::new([1, 6, 0, 7], 0.05, 0.0),
            Tet::new([1, 6, 1, 6], 0.05, 0.0),
            Tet::new([4, 5, 7, 3], 0.03, 0.0),
            Tet::new([0, 2, 3, 8], 0.02, 0.0),
        ];
        same(
            &items,
            |x, w, t, p| sweep(x, w, t, &(), 0.01, p),
            |t, x, tally| volume::solve_in_place(t, x, 0.01, tally),
        );
    }

    // Safe Rust only: natively (the interpreter adds nothing here).

    #[test]
    #[cfg_attr(miri, ignore)]
    fn bends() {
        let items = [
            Bend::new([0, 2, 3, 4], 0.1, 0.0),
            Bend::new([2, 3, 4, 5], -0.3, 1e-4),
            Bend::new([1, 6, 0, 7], 3.0, 0.0),
            Bend::new([1, 6, 1, 6], 0.0, 0.0),
            Bend::new([4, 5, 7, 3], 0.2, 0.0),
            Bend::new([0, 2, 3, 8], 0.0, 0.0),
        ];
        same(
            &items,
            |x, w, t, p| sweep(x, w, t, &(), 0.01, p),
            |b, x, tally| bend::solve_in_place(b, x, 0.01, tally),
        );
    }

    /// The failing instance of a stop.
    fn stop_index(s: Stop) -> usize {
        match s {
            Stop::OutOfRange(k)
            | Stop::NonFinite(k)
            | Stop::Degenerate(k)
            | Stop::NonFinitePosition(k, _) => k,
        }
    }

    /// `contact::sweep_colliders` against the shared sweep under
    /// `ZeroLength::Skip`: the same positions, λ and failing contact, bit
    /// for bit, on ordinary and hostile contacts and colliders (kept
    /// planes, a plane whose normal is not kept, spheres, a moving
    /// capsule, indices out of range).
    // Safe Rust only: natively (the interpreter adds nothing here).
    #[test]
    #[cfg_attr(miri, ignore)]
    fn collider_contacts() {
        // Under Miri (CI time) every third scene: ordinary, infinite,
        // tiny positions (NaN, huge and the weights are the others) and
        // two sweeps from each start instead of three.
        let cases: Vec<_> = cases()
            .into_iter()
            .step_by(if cfg!(miri) { 3 } else { 1 })
            .collect();
        let sweeps = if cfg!(miri) { 2 } else { 3 };
        let planes = [
            Plane {
                normal: [0.0, 1.0, 0.0],
                offset: 0.0,
            },
            Plane {
                normal: [0.3, 2.0, -0.1],
                offset: 0.01,
            },
            Plane {
                normal: [1e-300, 0.0, 0.0],
                offset: -0.2,
            },
            Plane {
                normal: [0.0, 0.0, -1.0],
                offset: -0.3,
            },
            Plane {
                normal: [0.0, 1.0, 1.0],
                offset: 1e300,
            },
        ];
        let zero_normal = [
            planes[0],
            planes[1],
            Plane {
                normal: [0.0; 3],
                offset: 0.0,
            },
            planes[3],
        ];
        let spheres = [Sphere {
            center: [0.2, -0.5, 0.0],
            radius: 0.5,
        }];
        let capsules = [Capsule {
            center: [-0.5, -0.2, 0.0],
            half_axis: [0.2, 0.0, 0.0],
            radius: 0.25,
            velocity: [1.0, 0.0, 0.0],
            angular_velocity: [0.0, 0.0, 2.0],
            static_friction: 0.4,
            dynamic_friction: 0.2,
        }];
        let contacts: Vec<Contact<f64>> = [
            (0, 0),
            (1, 0),
            (2, 1),
            (3, 2),
            (4, 3),
            (5, 4),
            (6, 0),
            (7, 1),
            (0, 5),
            (2, 6),
            (3, 0),
            (9, 0),
            (4, 99),
            (7, 3),
            (u32::MAX, 1),
        ]
        .iter()
        .map(|&(k, c)| Contact::new(k, c))
        .collect();
        let flat = |x: &[[f64; 3]]| {
            x.as_flattened()
                .iter()
                .map(|v| v.to_bits())
                .collect::<Vec<_>>()
        };
        let lambdas = |c: &[Contact<f64>]| c.iter().map(|c| c.lambda.to_bits()).collect::<Vec<_>>();
        let mut checked = 0;
        for (x, w) in &cases {
            // Starts a little off the positions (static friction has work).
            let previous: Vec<[f64; 3]> = x
                .iter()
                .map(|p| [p[0] - 0.01, p[1], p[2] + 0.004])
                .collect();
            for planes in [&planes[..], &zero_normal[..]] {
                for (alpha, mu) in [(0.0, 0.0), (1e-3, 0.5), (0.0, 1e300)] {
                    for start in [0.0, 2.0] {
                        let p = Colliders {
                            planes,
                            spheres: &spheres,
                            previous: &previous,
                            radius: 0.02,
                            alpha,
                            static_friction: mu,
                            moving: Moving {
                                capsules: &capsules,
                                boxes: &[],
                                fields: Default::default(),
                                time: 0.01,
                                h: 0.01,
                                prepared: &[],
                            },
                            units: [[0.0; 3]; 4],
                            cached: 0,
                        }
                        .with_units();
                        let mut items = contacts.clone();
                        for c in &mut items {
                            c.lambda = start;
                        }
                        let (mut xa, mut ia) = (x.clone(), items.clone());
                        let (mut xb, mut ib) = (x.clone(), items.clone());
                        // A task's slice from particle 2: its contacts as
                        // they are (`base`), against the shared sweep on
                        // the same contacts renumbered from 2 (wrapping).
                        let from = 2.min(x.len());
                        let local = Colliders {
                            previous: &previous[from..],
                            ..p
                        };
                        let (mut xc, mut ic) = (x[from..].to_vec(), items.clone());
                        let mut id = items;
                        for c in &mut id {
                            c.particle = c.particle.wrapping_sub(2);
                        }
                        let mut xd = xc.clone();
                        let ws = &w[from..];
                        for _ in 0..sweeps {
                            let a = sweep(&mut xa, w, &mut ia, &p, 1e-4, ZeroLength::Skip)
                                .map(|_| ())
                                .map_err(stop_index);
                            let b = sweep_colliders(&mut xb, w, &mut ib, &p, 1e-4, 0);
                            assert_eq!(a, b);
                            assert_eq!(flat(&xa), flat(&xb));
                            assert_eq!(lambdas(&ia), lambdas(&ib));
                            let d = sweep(&mut xd, ws, &mut id, &local, 1e-4, ZeroLength::Skip)
                                .map(|_| ())
                                .map_err(stop_index);
                            let c = sweep_colliders(&mut xc, ws, &mut ic, &local, 1e-4, 2);
                            assert_eq!(c, d);
                            assert_eq!(flat(&xc), flat(&xd));
                            assert_eq!(lambdas(&ic), lambdas(&id));
                            checked += 1;
                        }
                    }
                }
            }
        }
        assert_eq!(checked, cases.len() * 2 * 3 * 2 * sweeps);
    }
}
