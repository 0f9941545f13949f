//! **The kinds table**: the one list of a 3D system's constraint groups
//! beyond links ([`group_kinds!`]), and the per-kind walks it generates.
//!
//! Each line names a group: its field of [`Constraints`] (and the
//! [`Group`] variant), its instance type, its C item type, and its *walk*:
//! the loop family that sweeps it and the kind's module holding the
//! kernel. From the table come
//!
//! - the [`Group`] enum and the [`Constraints`] struct (`solver::groups`);
//! - every walk of [`Constraints`]: `len`, `locate`, `reborrow`,
//!   validation, the λ reset, the sequential sweep and `measure` (host and
//!   bare-metal loops), in table order;
//! - the colored side (`colored::groups`): the groups colored by
//!   boundaries and those that are a color per instance, the colored
//!   entry's reset list (`step::colored_entry`);
//! - the C list: `tests/architecture.rs` compares the C item types of the
//!   table with `cbindgen.toml`, `ffi-tests/build.rs` and `tools/ffi-gen`.
//!
//! | walk | sweep (hosts) | sweep (bare metal) | colored | λ written by |
//! |---|---|---|---|---|
//! | `fast(m)` | `m::solve_in_place` (declared fast kernel) | the shared `Instances` loop through `constraint::visit` and `commit` | by color boundaries, the fast kernel; in runs of `constraint::lanes::LANES` through the kind's `LaneKind` (`colored::groups::lanes`; vectorised; bends), the fast kernel for the rest | the kernel, or the shared commit |
//! | `fast_pairs(m)` | as `fast`; colored (AoS), two instances of a color at once (`m::solve_pair_in_place`) | as `fast` | as `fast` | as `fast` |
//! | `fast_scaled(m)` | `m::solve_in_place` with the group's [`Scaled`] α̃ | the shared `Solvable` loop through `constraint::solve` | as `fast` | as `fast` |
//! | `mesh(m)` | `m::solve_mesh` (a whole mesh: triangles, particle lists and the gradient scratch are its context) | the shared `Solvable` loop | one color per mesh | `constraint::store_lambda` (exception: a mesh has no fixed particle count, so no `Constraint` impl) |
//! | `lagged(m)` | `constraint::lagged::solve_lagged` through the kind's `Lagged` impl at the substep's `Motion` | the same | one color per instance, on the calling thread | `constraint::store_lambda` (exception: several scalar constraints of one particle through the shared `visit`, committed together) |

use super::groups::{
    invalid, measure_group, measure_kind, measure_solvable, stop_error, sweep_group, sweep_kind,
    sweep_solvable, SHARED_LOOPS,
};
use super::{count_visit, reset_lambdas, SweepStats, ZeroLength};
use crate::constraint::lagged::{solve_lagged, Lagged, Motion};
use crate::constraint::Scaled;
use crate::real::Real;
use crate::SystemError;

/// The kinds table: calls `$callback!` with one line per constraint group
/// beyond links, in sweep order:
/// `#[doc] field: GroupVariant, ItemType, CItemType, walk(module);`.
/// Adding a kind: its files under `src/constraint/`, one line here, its C
/// item type (and the lines the drift tests of `tests/architecture.rs`
/// ask for), its tests (`docs/constraints.md`).
macro_rules! group_kinds {
    ($callback:ident) => {
        $callback! {
            /// Dihedral bending constraints.
            bends: Bends, Bend, XpbdBend, fast(bend);
            /// Tetrahedral volume constraints.
            tets: Tets, Tet, XpbdTet, fast_pairs(volume);
            /// Long-range tethers.
            tethers: Tethers, Tether, XpbdTether, fast_scaled(tether);
            /// Closed-mesh volume (pressure) constraints.
            meshes: Meshes, MeshVolume, XpbdMeshVolume, mesh(pressure);
            /// Kinematic attachments (solved last; their point moves over a
            /// step's substeps, see [`Attachment`]).
            attachments: Attachments, Attachment, XpbdAttachment, lagged(attachment);
            /// Skinned constraints: max distance and backstop (character
            /// cloth; their points move over a step's substeps, see
            /// [`SkinConstraint`]).
            skin_constraints: SkinConstraints, SkinConstraint, XpbdSkinConstraint, lagged(skin);
        }
    };
}
pub(crate) use group_kinds;

use super::groups::{Constraints, Group};

/// What a group's sweep needs beyond the particles: `h²` (s²) and the
/// lagged kinds' substep (`Motion::at_target` outside a step).
#[derive(Debug, Clone, Copy)]
pub(crate) struct At<T> {
    /// h² (s²).
    pub(crate) h2: T,
    /// The lagged kinds' weight of `previous` and max distance scale.
    pub(crate) motion: Motion<T>,
}

/// One group of the table as its walks see it, implemented for each
/// group's field type by the line's walk.
pub(crate) trait GroupKind<T: Real> {
    /// The number of instances.
    fn count(&self) -> usize;
    /// Checks every instance's own parameters, the first named `at`;
    /// returns the index after the last.
    fn check(&self, at: usize, w: &[T], h2: T) -> Result<usize, SystemError>;
    /// Checks the group's shared context (after every group's own
    /// parameters), the first instance named `at`; writes only scratch.
    fn check_context(&mut self, _at: usize, _w: &[T]) -> Result<(), SystemError> {
        Ok(())
    }
    /// λ ← 0 for every instance (through the one reset).
    fn reset(&mut self);
    /// One Gauss-Seidel sweep in slice order, the first instance named
    /// `base`.
    fn sweep<const D: usize>(
        &mut self,
        base: usize,
        positions: &mut [[T; D]],
        inverse_masses: &[T],
        at: At<T>,
        policy: ZeroLength,
    ) -> Result<SweepStats<T>, SystemError>;
    /// The statistics [`sweep`](Self::sweep) would report, writing nothing.
    fn measure<const D: usize>(
        &self,
        base: usize,
        positions: &[[T; D]],
        inverse_masses: &[T],
        at: At<T>,
        policy: ZeroLength,
    ) -> Result<SweepStats<T>, SystemError>;
}

/// Each instance of a slice checked by its kind's `check`, the first
/// named `at`.
macro_rules! check_slice {
    ($items:expr, $at:expr, |$item:ident| $check:expr) => {{
        let mut at = $at;
        for $item in $items.iter() {
            $check.map_err(|e| invalid(e, at))?;
            at = at.saturating_add(1);
        }
        Ok(at)
    }};
}

/// The [`GroupKind`] impl of one table line, by its walk.
macro_rules! group_kind {
    (fast $item:ident $module:ident) => {
        impl<T: Real> GroupKind<T> for &mut [crate::constraint::$module::$item<T>] {
            fn count(&self) -> usize {
                self.len()
            }
            #[inline(always)] // the walk is the shared validation's, as before the table
            fn check(&self, at: usize, w: &[T], h2: T) -> Result<usize, SystemError> {
                check_slice!(self, at, |item| item.check(w, h2))
            }
            fn reset(&mut self) {
                reset_lambdas(self);
            }
            fn sweep<const D: usize>(
                &mut self,
                base: usize,
                positions: &mut [[T; D]],
                inverse_masses: &[T],
                at: At<T>,
                policy: ZeroLength,
            ) -> Result<SweepStats<T>, SystemError> {
                if SHARED_LOOPS {
                    return sweep_group(self, positions, inverse_masses, at.h2, policy, base);
                }
                let h2 = at.h2;
                sweep_kind(positions, inverse_masses, self, policy, |k, x, t| {
                    crate::constraint::$module::solve_in_place(k, x, h2, t)
                })
                .map_err(|e| stop_error(e, base))
            }
            fn measure<const D: usize>(
                &self,
                base: usize,
                positions: &[[T; D]],
                inverse_masses: &[T],
                at: At<T>,
                policy: ZeroLength,
            ) -> Result<SweepStats<T>, SystemError> {
                if SHARED_LOOPS {
                    return measure_group(self, positions, inverse_masses, at.h2, policy, base);
                }
                measure_kind(positions, inverse_masses, self, at.h2, policy)
                    .map_err(|e| stop_error(e, base))
            }
        }
    };
    (fast_pairs $item:ident $module:ident) => {
        group_kind!(fast $item $module);
    };
    (fast_scaled $item:ident $module:ident) => {
        impl<T: Real> GroupKind<T> for &mut [crate::constraint::$module::$item<T>] {
            fn count(&self) -> usize {
                self.len()
            }
            #[inline(always)] // the walk is the shared validation's, as before the table
            fn check(&self, at: usize, w: &[T], h2: T) -> Result<usize, SystemError> {
                check_slice!(self, at, |item| item.check(w, h2))
            }
            fn reset(&mut self) {
                reset_lambdas(self);
            }
            fn sweep<const D: usize>(
                &mut self,
                base: usize,
                positions: &mut [[T; D]],
                inverse_masses: &[T],
                at: At<T>,
                policy: ZeroLength,
            ) -> Result<SweepStats<T>, SystemError> {
                if SHARED_LOOPS {
                    return sweep_solvable(self, positions, inverse_masses, at.h2, policy, base);
                }
                let mut alpha = Scaled::new(at.h2);
                sweep_kind(positions, inverse_masses, self, policy, move |k, x, t| {
                    crate::constraint::$module::solve_in_place(k, x, &mut alpha, t)
                })
                .map_err(|e| stop_error(e, base))
            }
            fn measure<const D: usize>(
                &self,
                base: usize,
                positions: &[[T; D]],
                inverse_masses: &[T],
                at: At<T>,
                policy: ZeroLength,
            ) -> Result<SweepStats<T>, SystemError> {
                if SHARED_LOOPS {
                    return measure_solvable(self, positions, inverse_masses, at.h2, policy, base);
                }
                measure_kind(positions, inverse_masses, self, at.h2, policy)
                    .map_err(|e| stop_error(e, base))
            }
        }
    };
    (mesh $item:ident $module:ident) => {
        impl<T: Real> GroupKind<T> for crate::constraint::$module::MeshVolumes<'_, T> {
            fn count(&self) -> usize {
                self.volumes.len()
            }
            #[inline(always)] // the walk is the shared validation's, as before the table
            fn check(&self, at: usize, w: &[T], h2: T) -> Result<usize, SystemError> {
                let triangles = self.triangles;
                check_slice!(self.volumes, at, |item| item.check(triangles, w, h2))
            }
            // Inlined into the shared validation (where it was before the
            // table): the per-kind code-size split counts it as shared.
            #[inline(always)]
            fn check_context(&mut self, at: usize, w: &[T]) -> Result<(), SystemError> {
                if !self.volumes.is_empty() && self.scratch.len() < w.len() {
                    return Err(SystemError::CapacityTooSmall { needed: w.len() });
                }
                for (k, v) in self.volumes.iter().enumerate() {
                    v.check_list(self.triangles, self.particles, w.len(), self.scratch)
                        .map_err(|e| invalid(e, at.saturating_add(k)))?;
                }
                Ok(())
            }
            fn reset(&mut self) {
                reset_lambdas(self.volumes);
            }
            fn sweep<const D: usize>(
                &mut self,
                base: usize,
                positions: &mut [[T; D]],
                inverse_masses: &[T],
                at: At<T>,
                policy: ZeroLength,
            ) -> Result<SweepStats<T>, SystemError> {
                if SHARED_LOOPS {
                    return sweep_solvable(self, positions, inverse_masses, at.h2, policy, base);
                }
                let mut s = SweepStats::default();
                let groups = (self.triangles, self.particles);
                for (index, mesh) in self.volumes.iter_mut().enumerate() {
                    let v = crate::constraint::$module::solve_mesh(
                        mesh,
                        groups,
                        self.scratch,
                        positions,
                        inverse_masses,
                        at.h2,
                    );
                    count_visit(&mut s, v, index, policy).map_err(|e| stop_error(e, base))?;
                }
                Ok(s)
            }
            fn measure<const D: usize>(
                &self,
                base: usize,
                positions: &[[T; D]],
                inverse_masses: &[T],
                at: At<T>,
                policy: ZeroLength,
            ) -> Result<SweepStats<T>, SystemError> {
                if SHARED_LOOPS {
                    return measure_solvable(self, positions, inverse_masses, at.h2, policy, base);
                }
                let mut s = SweepStats::default();
                let groups = (self.triangles, self.particles);
                for (index, mesh) in self.volumes.iter().enumerate() {
                    let v = crate::constraint::$module::visit_mesh(
                        mesh,
                        groups,
                        positions,
                        inverse_masses,
                        at.h2,
                    );
                    count_visit(&mut s, v, index, policy).map_err(|e| stop_error(e, base))?;
                }
                Ok(s)
            }
        }
    };
    (lagged $item:ident $module:ident) => {
        impl<T: Real> GroupKind<T> for &mut [crate::constraint::$module::$item<T>] {
            fn count(&self) -> usize {
                self.len()
            }
            #[inline(always)] // the walk is the shared validation's, as before the table
            fn check(&self, at: usize, w: &[T], h2: T) -> Result<usize, SystemError> {
                check_slice!(self, at, |item| Lagged::check(item, w, h2))
            }
            fn reset(&mut self) {
                reset_lambdas(self);
            }
            fn sweep<const D: usize>(
                &mut self,
                base: usize,
                positions: &mut [[T; D]],
                inverse_masses: &[T],
                at: At<T>,
                policy: ZeroLength,
            ) -> Result<SweepStats<T>, SystemError> {
                let mut s = SweepStats::default();
                for (index, a) in self.iter_mut().enumerate() {
                    let v = solve_lagged(a, positions, inverse_masses, at.motion, at.h2);
                    count_visit(&mut s, v, index, policy).map_err(|e| stop_error(e, base))?;
                }
                Ok(s)
            }
            fn measure<const D: usize>(
                &self,
                base: usize,
                positions: &[[T; D]],
                inverse_masses: &[T],
                at: At<T>,
                policy: ZeroLength,
            ) -> Result<SweepStats<T>, SystemError> {
                let mut s = SweepStats::default();
                for (index, a) in self.iter().enumerate() {
                    let v = Lagged::visit(a, positions, inverse_masses, at.motion, at.h2)
                        .map(|(o, _)| o);
                    count_visit(&mut s, v, index, policy).map_err(|e| stop_error(e, base))?;
                }
                Ok(s)
            }
        }
    };
}

/// Every line's [`GroupKind`] impl and the walks of [`Constraints`] over
/// the table, in table order.
macro_rules! walks {
    ($( $(#[$doc:meta])* $field:ident : $group:ident, $item:ident, $c:ident, $walk:ident($module:ident); )*) => {
        $( group_kind!($walk $item $module); )*

        /// The number of groups beyond links.
        pub(crate) const GROUP_KINDS: usize = [$(Group::$group),*].len();

        /// Every group in sweep order, links first.
        pub(crate) const GROUPS: [Group; GROUP_KINDS + 1] = [Group::Links, $(Group::$group),*];

        impl<T: Real> Constraints<'_, T> {
            /// The number of instances over every group.
            #[must_use]
            pub fn len(&self) -> usize {
                let mut n = 0usize;
                $( n = n.saturating_add(GroupKind::count(&self.$field)); )*
                n
            }

            /// The instance count of every group in sweep order, links
            /// (`links` of them) first.
            pub(crate) fn counts(&self, links: usize) -> [usize; GROUP_KINDS + 1] {
                [links, $(GroupKind::count(&self.$field)),*]
            }

            /// The group and position of the constraint a [`SystemError`]
            /// names by `index`, in a system with `links` links (see the
            /// module documentation); `None` past the last group.
            #[must_use]
            pub fn locate(&self, links: usize, index: usize) -> Option<(Group, usize)> {
                let mut k = index;
                for (g, n) in GROUPS.into_iter().zip(self.counts(links)) {
                    if k < n {
                        return Some((g, k));
                    }
                    k -= n;
                }
                None
            }

            /// Checks every instance's own parameters, then every group's
            /// shared context (the mesh scratch's length and every mesh's
            /// particle list, marking particles in the scratch: the one
            /// buffer written); `base` is the index of the first bend (the
            /// link count).
            pub(crate) fn validate(
                &mut self,
                base: usize,
                w: &[T],
                h2: T,
            ) -> Result<(), SystemError> {
                let at = base;
                $( let $field = at; let at = GroupKind::check(&self.$field, at, w, h2)?; )*
                let _ = at;
                $( GroupKind::check_context(&mut self.$field, $field, w)?; )*
                Ok(())
            }

            /// λ ← 0 for every instance (the one reset, per group).
            pub(crate) fn reset(&mut self) {
                $( GroupKind::reset(&mut self.$field); )*
            }

            /// One Gauss-Seidel sweep over every group in order; `base` is
            /// the link count (for the indices errors name), `motion` the
            /// lagged kinds' substep (`Motion::at_target` outside a step).
            pub(crate) fn sweep<const D: usize>(
                &mut self,
                base: usize,
                positions: &mut [[T; D]],
                inverse_masses: &[T],
                h2: T,
                motion: Motion<T>,
                policy: ZeroLength,
            ) -> Result<SweepStats<T>, SystemError> {
                let at = At { h2, motion };
                let mut stats = SweepStats::default();
                let mut base = base;
                $(
                    let s = GroupKind::sweep(&mut self.$field, base, positions, inverse_masses, at, policy)?;
                    stats = stats.merge(s);
                    base = base.saturating_add(GroupKind::count(&self.$field));
                )*
                let _ = base;
                Ok(stats)
            }

            /// The statistics [`sweep`](Self::sweep) would report, writing
            /// nothing.
            pub(crate) fn measure<const D: usize>(
                &self,
                base: usize,
                positions: &[[T; D]],
                inverse_masses: &[T],
                h2: T,
                motion: Motion<T>,
                policy: ZeroLength,
            ) -> Result<SweepStats<T>, SystemError> {
                let at = At { h2, motion };
                let mut stats = SweepStats::default();
                let mut base = base;
                $(
                    let s = GroupKind::measure(&self.$field, base, positions, inverse_masses, at, policy)?;
                    stats = stats.merge(s);
                    base = base.saturating_add(GroupKind::count(&self.$field));
                )*
                let _ = base;
                Ok(stats)
            }
        }
    };
}
group_kinds!(walks);
