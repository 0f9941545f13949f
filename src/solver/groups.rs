//! The constraint groups beyond links a system may hold ([`Constraints`]):
//! dihedral bending, tetrahedral volume, tethers, closed-mesh volumes and
//! kinematic attachments, validated, reset and swept by the same machinery
//! as links.
//!
//! # Order and indices
//!
//! One iteration sweeps the links, then the bends, the tets, the tethers,
//! the meshes and the attachments, each group in slice order
//! (Gauss-Seidel). A [`SystemError`] naming a constraint counts the groups
//! in that order: a system with `L` links, `B` bends, `V` tets, `E`
//! tethers and `M` meshes names its first bend `L`, its first tet `L + B`,
//! its first tether `L + B + V`, its first mesh `L + B + V + E` and its
//! first attachment `L + B + V + E + M` ([`Constraints::locate`] turns an
//! index back into a group and a position).
//!
//! Stored in colored order, the same groups can be solved color by color
//! and in jobs with the same bits ([`crate::colored::groups`]); a position
//! is then the instance's colored position.

use super::kinds::group_kinds;
use super::sweep::{sweep_in_place, Stop, Tally};
use super::{count_visit, SweepStats, ZeroLength};
use crate::constraint::attachment::Attachment;
use crate::constraint::bend::Bend;
use crate::constraint::pressure::{solve_mesh, visit_mesh, MeshVolumes};
use crate::constraint::skin::SkinConstraint;
use crate::constraint::tether::Tether;
use crate::constraint::volume::Tet;
use crate::constraint::{
    commit, solve, visit, Constraint, Fault, InPlace, Invalid, Outcome, Visit,
};
use crate::real::Real;
use crate::SystemError;

/// The [`Constraints`] struct and the [`Group`] enum, from the kinds
/// table (`solver::kinds`).
macro_rules! types {
    ($( $(#[$doc:meta])* $field:ident : $group:ident, $item:ident, $c:ident, $walk:ident($module:ident); )*) => {
        /// The constraint groups of a [`System`](crate::System) beyond its links
        /// (3D systems: [`System::with_constraints`](crate::System::with_constraints)).
        /// Every group is caller memory; empty groups cost nothing.
        pub struct Constraints<'a, T> {
            $( $(#[$doc])* pub $field: store!($walk 'a $item), )*
        }

        impl<T: Default> Default for Constraints<'_, T> {
            fn default() -> Self {
                Self {
                    $( $field: Default::default(), )*
                }
            }
        }

        impl<T: core::fmt::Debug> core::fmt::Debug for Constraints<'_, T> {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.debug_struct("Constraints")
                    $( .field(stringify!($field), &self.$field) )*
                    .finish()
            }
        }

        /// A constraint group, as [`Constraints::locate`] names it.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Group {
            /// The system's links.
            Links,
            $(
                #[doc = concat!("[`Constraints::", stringify!($field), "`].")]
                $group,
            )*
        }

        impl Group {
            /// Whether the group's walk is `lagged` (one particle each, its
            /// point moving over a step's substeps: one color per
            /// instance, solved on the calling thread).
            #[must_use]
            pub(crate) const fn lagged(self) -> bool {
                match self {
                    Group::Links => false,
                    $( Group::$group => is_lagged!($walk), )*
                }
            }
        }

        impl<T: Real> Constraints<'_, T> {
            /// The same groups reborrowed for a shorter lifetime (to lend them to a
            /// system for one call).
            pub fn reborrow(&mut self) -> Constraints<'_, T> {
                Constraints {
                    $( $field: reborrow!($walk self.$field), )*
                }
            }
        }
    };
}

/// Whether a walk is `lagged`.
macro_rules! is_lagged {
    (lagged) => {
        true
    };
    ($walk:ident) => {
        false
    };
}

/// A group's field type, by its walk.
macro_rules! store {
    (mesh $a:lifetime $item:ident) => { MeshVolumes<$a, T> };
    ($walk:ident $a:lifetime $item:ident) => { &$a mut [$item<T>] };
}

/// A group reborrowed, by its walk.
macro_rules! reborrow {
    (mesh $m:expr) => {
        MeshVolumes {
            volumes: &mut *$m.volumes,
            triangles: $m.triangles,
            particles: $m.particles,
            scratch: &mut *$m.scratch,
        }
    };
    ($walk:ident $g:expr) => {
        &mut *$g
    };
}

group_kinds!(types);

/// The system error for an instance's invalid parameter, naming it.
pub(super) fn invalid(e: Invalid, constraint: usize) -> SystemError {
    match e {
        Invalid::IndexOutOfRange => SystemError::IndexOutOfRange { constraint },
        Invalid::SameParticle => SystemError::SameParticle { constraint },
        Invalid::RestValue => SystemError::InvalidRestValue { constraint },
        Invalid::Compliance => SystemError::InvalidCompliance { constraint },
        Invalid::Scale => SystemError::UnrepresentableScale { constraint },
    }
}

/// The system error of a group's stop, naming the instance by its global
/// index (`base` + its position).
pub(crate) fn stop_error(stop: Stop, base: usize) -> SystemError {
    let at = |k: usize| base.saturating_add(k);
    match stop {
        Stop::OutOfRange(k) => SystemError::IndexOutOfRange { constraint: at(k) },
        Stop::NonFinite(k) => SystemError::InvalidResult { constraint: at(k) },
        Stop::Degenerate(k) => SystemError::Degenerate { constraint: at(k) },
        Stop::NonFinitePosition(_, particle) => SystemError::NonFinitePosition { particle },
    }
}

impl<T: Real> Constraints<'_, T> {
    /// Whether every group is empty.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A step's frame starts: every attachment's `impulse ← 0`.
    pub(crate) fn begin_frame(&mut self) {
        for a in self.attachments.iter_mut() {
            a.begin_frame();
        }
    }

    /// A step's substep of length `h` (s) ended: every attachment's
    /// `impulse += λ / h`.
    pub(crate) fn end_substep(&mut self, h: T) {
        for a in self.attachments.iter_mut() {
            a.end_substep(h);
        }
    }

    /// The particle of the first attachment whose frame force
    /// `impulse / dt` would not be finite ([`Self::end_frame`] must not
    /// run then: the step fails instead).
    pub(crate) fn unrepresentable_force(&self, dt: T) -> Option<usize> {
        self.attachments
            .iter()
            .find_map(|a| a.unrepresentable_force(dt))
    }

    /// A step's frame of length `dt` (s) succeeded: every attachment's
    /// `force ← impulse / dt` and `previous ← target`, every skinned
    /// constraint's `previous ← target` (and its normal's).
    pub(crate) fn end_frame(&mut self, dt: T) {
        for a in self.attachments.iter_mut() {
            a.end_frame(dt);
        }
        for s in self.skin_constraints.iter_mut() {
            s.end_frame();
        }
    }
}

/// The host sweep of one group: `solver::sweep` through the kind's
/// in-place kernel (`bend`, `volume` or `tether::solve_in_place`), out of
/// line so that its registers are its own (one copy per kind).
#[inline(never)]
pub(super) fn sweep_kind<T: Real, const D: usize, K>(
    positions: &mut [[T; D]],
    inverse_masses: &[T],
    items: &mut [K],
    policy: ZeroLength,
    kernel: impl FnMut(&mut K, &mut InPlace<'_, T, D>, &mut Tally<T>) -> Result<(), Stop>,
) -> Result<SweepStats<T>, Stop> {
    let mut x = InPlace::new(positions, inverse_masses);
    sweep_in_place(items, &mut x, policy, kernel)
}

/// Whether the group sweep and measure loops are the shared ones reaching
/// each kind through a trait object ([`Instances`], [`Solvable`]): on bare
/// metal (`target_os = "none"`, the Cortex-M images docs/code-size.md
/// measures per kind), where size matters. Elsewhere each kind gets its own
/// monomorphic loop with its visit inlined (speed: docs/performance-kinds.md,
/// "In-place kernels"). The same operations in the same order either way,
/// so the same bits and the same errors.
pub(super) const SHARED_LOOPS: bool = cfg!(target_os = "none");

/// The statistics a sweep over one group of a [`Constraint`] kind would
/// report, writing nothing (the monomorphic loop, [`SHARED_LOOPS`] off).
#[inline]
pub(super) fn measure_kind<T, const D: usize, const N: usize, K>(
    positions: &[[T; D]],
    inverse_masses: &[T],
    items: &[K],
    h2: T,
    policy: ZeroLength,
) -> Result<SweepStats<T>, Stop>
where
    T: Real,
    K: for<'s> Constraint<T, D, N, Shared<'s> = ()>,
{
    let mut stats = SweepStats::default();
    for (index, item) in items.iter().enumerate() {
        let v = visit(item, positions, inverse_masses, &(), h2).map(|v| v.outcome());
        count_visit(&mut stats, v, index, policy)?;
    }
    Ok(stats)
}

/// One group of a [`Constraint`] kind with `N` particles per instance, as
/// the shared sweep and measure loops see it: its instance count, one
/// instance visited, its λ stored. Object safe, so one loop of each serves
/// every kind with the same `N` (bends and tets, `N = 4`): a kind's own
/// code is its visit (docs/code-size.md measures each kind's code by name).
pub(super) trait Instances<T: Real, const D: usize, const N: usize> {
    /// The number of instances.
    fn count(&self) -> usize;
    /// Instance `index` visited at `positions` ([`visit`]), writing nothing.
    fn visit_at(
        &self,
        index: usize,
        positions: &[[T; D]],
        inverse_masses: &[T],
        h2: T,
    ) -> Result<Visit<T, D, N>, Fault>;
    /// Stores instance `index`'s accumulated multiplier.
    fn set_lambda_at(&mut self, index: usize, lambda: T);
}

/// [`Instances`] for a slice of a [`Constraint`] kind.
macro_rules! instances {
    ($kind:ident, $n:literal) => {
        impl<T: Real, const D: usize> Instances<T, D, $n> for &mut [$kind<T>] {
            fn count(&self) -> usize {
                self.len()
            }
            fn visit_at(
                &self,
                index: usize,
                positions: &[[T; D]],
                inverse_masses: &[T],
                h2: T,
            ) -> Result<Visit<T, D, $n>, Fault> {
                let item = self.get(index).ok_or(Fault::OutOfRange)?;
                visit(item, positions, inverse_masses, &(), h2)
            }
            fn set_lambda_at(&mut self, index: usize, lambda: T) {
                if let Some(item) = self.get_mut(index) {
                    Constraint::<T, D, $n>::set_lambda(item, lambda);
                }
            }
        }
    };
}
instances!(Bend, 4);
instances!(Tet, 4);

/// One Gauss-Seidel sweep over one group in order, each instance visited,
/// then its correction written with its λ ([`solve`]'s steps); `base` is
/// the global index of its first instance (for the error naming one).
#[inline(never)]
pub(super) fn sweep_group<T: Real, const D: usize, const N: usize>(
    group: &mut dyn Instances<T, D, N>,
    positions: &mut [[T; D]],
    inverse_masses: &[T],
    h2: T,
    policy: ZeroLength,
    base: usize,
) -> Result<SweepStats<T>, SystemError> {
    let mut stats = SweepStats::default();
    for index in 0..group.count() {
        let v = group
            .visit_at(index, positions, inverse_masses, h2)
            .map(|v| {
                if let Some(lambda) = commit(&v, positions) {
                    group.set_lambda_at(index, lambda);
                }
                v.outcome()
            });
        count_visit(&mut stats, v, index, policy).map_err(|e| stop_error(e, base))?;
    }
    Ok(stats)
}

/// The statistics [`sweep_group`] would report, writing nothing.
#[inline(never)]
pub(super) fn measure_group<T: Real, const D: usize, const N: usize>(
    group: &dyn Instances<T, D, N>,
    positions: &[[T; D]],
    inverse_masses: &[T],
    h2: T,
    policy: ZeroLength,
    base: usize,
) -> Result<SweepStats<T>, SystemError> {
    let mut stats = SweepStats::default();
    for index in 0..group.count() {
        let v = group
            .visit_at(index, positions, inverse_masses, h2)
            .map(|v| v.outcome());
        count_visit(&mut stats, v, index, policy).map_err(|e| stop_error(e, base))?;
    }
    Ok(stats)
}

/// A group as the second pair of shared loops sees it: its instance count
/// and one instance measured, or solved and committed, by the kind's own
/// code. For the kinds alone with their `N` (tethers, `N = 2`; meshes, any
/// number of particles), so that these loops too serve two kinds.
pub(super) trait Solvable<T: Real, const D: usize> {
    /// The number of instances.
    fn count(&self) -> usize;
    /// Instance `index` visited at `positions`, writing nothing.
    fn measure(
        &self,
        index: usize,
        positions: &[[T; D]],
        inverse_masses: &[T],
        h2: T,
    ) -> Result<Outcome<T>, Fault>;
    /// Instance `index` solved and its correction committed.
    fn solve(
        &mut self,
        index: usize,
        positions: &mut [[T; D]],
        inverse_masses: &[T],
        h2: T,
    ) -> Result<Outcome<T>, Fault>;
}

impl<T: Real, const D: usize> Solvable<T, D> for &mut [Tether<T>] {
    fn count(&self) -> usize {
        self.len()
    }
    fn measure(
        &self,
        index: usize,
        positions: &[[T; D]],
        inverse_masses: &[T],
        h2: T,
    ) -> Result<Outcome<T>, Fault> {
        let item = self.get(index).ok_or(Fault::OutOfRange)?;
        visit(item, positions, inverse_masses, &(), h2).map(|v| v.outcome())
    }
    fn solve(
        &mut self,
        index: usize,
        positions: &mut [[T; D]],
        inverse_masses: &[T],
        h2: T,
    ) -> Result<Outcome<T>, Fault> {
        let item = self.get_mut(index).ok_or(Fault::OutOfRange)?;
        solve(item, positions, inverse_masses, &(), h2)
    }
}

impl<T: Real, const D: usize> Solvable<T, D> for MeshVolumes<'_, T> {
    fn count(&self) -> usize {
        self.volumes.len()
    }
    fn measure(
        &self,
        index: usize,
        positions: &[[T; D]],
        inverse_masses: &[T],
        h2: T,
    ) -> Result<Outcome<T>, Fault> {
        let mesh = self.volumes.get(index).ok_or(Fault::OutOfRange)?;
        visit_mesh(
            mesh,
            (self.triangles, self.particles),
            positions,
            inverse_masses,
            h2,
        )
    }
    fn solve(
        &mut self,
        index: usize,
        positions: &mut [[T; D]],
        inverse_masses: &[T],
        h2: T,
    ) -> Result<Outcome<T>, Fault> {
        let mesh = self.volumes.get_mut(index).ok_or(Fault::OutOfRange)?;
        solve_mesh(
            mesh,
            (self.triangles, self.particles),
            self.scratch,
            positions,
            inverse_masses,
            h2,
        )
    }
}

/// [`sweep_group`] for a [`Solvable`] group.
#[inline(never)]
pub(super) fn sweep_solvable<T: Real, const D: usize>(
    group: &mut dyn Solvable<T, D>,
    positions: &mut [[T; D]],
    inverse_masses: &[T],
    h2: T,
    policy: ZeroLength,
    base: usize,
) -> Result<SweepStats<T>, SystemError> {
    let mut stats = SweepStats::default();
    for index in 0..group.count() {
        let v = group.solve(index, positions, inverse_masses, h2);
        count_visit(&mut stats, v, index, policy).map_err(|e| stop_error(e, base))?;
    }
    Ok(stats)
}

/// [`measure_group`] for a [`Solvable`] group.
#[inline(never)]
pub(super) fn measure_solvable<T: Real, const D: usize>(
    group: &dyn Solvable<T, D>,
    positions: &[[T; D]],
    inverse_masses: &[T],
    h2: T,
    policy: ZeroLength,
    base: usize,
) -> Result<SweepStats<T>, SystemError> {
    let mut stats = SweepStats::default();
    for index in 0..group.count() {
        let v = group.measure(index, positions, inverse_masses, h2);
        count_visit(&mut stats, v, index, policy).map_err(|e| stop_error(e, base))?;
    }
    Ok(stats)
}
