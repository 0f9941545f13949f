//! Colored solving of a 3D system's links and constraint groups
//! ([`Constraints`]): each group stored in colored order
//! ([`color_instances`](super::coloring::color_instances),
//! [`color_order`](super::coloring::color_order),
//! [`fill_in_order`](super::coloring::fill_in_order)), its color boundaries
//! in [`GroupColors`], and every instance solved by the one
//! `constraint::solve` of the sequential sweep.
//!
//! # Order and bits
//!
//! An iteration solves the links color by color, then the bends, the tets
//! and the tethers, then every mesh volume (one color each), then every
//! attachment and every skinned constraint (one color each, at their
//! `target` outside a step). Within a color
//! no two instances share a particle, so solving the color's instances in
//! any order, in any split into jobs, on any number of threads, gives
//! **exactly** the bits of the sequential sweep ([`Substep::iterate`]) over
//! the same (colored) order: the arithmetic is the sequential one, and each
//! instance sees the same positions. (The colored links of
//! [`SimdLinks`](super::SimdLinks) agree with the sequential sweep
//! only to rounding: they use their own SIMD equations.)
//!
//! A job gathers an instance's `N` particles into a local array, solves a
//! copy of the instance over them with `constraint::solve`, and writes the
//! particles and λ back: no slice over the shared positions is formed, so
//! jobs of one color run concurrently without aliasing. On hosts (every
//! target but bare metal) the bends, tets and tethers instead run their
//! kind's in-place kernel (`solve_in_place` in `constraint::bend`,
//! `volume`, `tether`: `solve`'s operations, so the same bits), which
//! reads the particles through the raw views and writes only the particles
//! it moves and the instance's λ.
//!
//! # Failures
//!
//! An instance that cannot be applied (out-of-range index, a non-finite
//! result or position, a degenerate one under [`ZeroLength::Reject`]) is
//! not written; the rest of its color (of its job) is still solved, the
//! error names the first such instance (its global index, see
//! [`Constraints`]), and a colored iteration stops before the next color.
//! Each instance's outcome depends only on the state before its color, so
//! a failed iteration too leaves the same bits for every split; it differs
//! from [`Substep::iterate`], which stops at the failing instance.

use core::marker::PhantomData;
use core::ptr;

use super::coloring::{check_coloring_over, check_starts, Instance};
use super::{ix, job_range, Isa};
use crate::constraint::attachment::Attachment;
use crate::constraint::bend::Bend;
use crate::constraint::distance;
use crate::constraint::lagged::Motion;
use crate::constraint::pressure::{solve_mesh, MeshVolume};
use crate::constraint::skin::SkinConstraint;
use crate::constraint::tether::Tether;
use crate::constraint::volume::Tet;
use crate::constraint::{solve, Constraint, Count, Outcome, Particles, Scaled};
use crate::real::Real;
use crate::solver::{
    count_visit, group_kinds, stop_error, Constraints, Group, Link, Stop, Substep, SweepStats,
    SystemError, Tally, ZeroLength, GROUPS,
};

/// The color boundaries of a 3D system's groups, each group stored in
/// colored order: color `c` of a group is its instances
/// `starts[c] .. starts[c + 1]` (the `color_starts` of
/// [`color_order`](super::coloring::color_order)). An empty group may have
/// empty boundaries. Mesh volumes and attachments need none: each is a
/// color of its own, the meshes solved after the tethers, the attachments
/// last.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GroupColors<'c> {
    /// Boundaries of the system's links (colored positions).
    pub links: &'c [usize],
    /// Boundaries of [`Constraints::bends`].
    pub bends: &'c [usize],
    /// Boundaries of [`Constraints::tets`].
    pub tets: &'c [usize],
    /// Boundaries of [`Constraints::tethers`].
    pub tethers: &'c [usize],
}

/// The colored side of the kinds table: [`GroupColors::of`], the
/// [`RawGroups`] walks that name a group ([`RawGroups::len`], the range
/// dispatch of [`RawGroups::run_colors`]) and the colors' checks, each
/// group by its walk (`solver::kinds`): the `fast*` groups are colored by
/// boundaries (a field of [`GroupColors`] each) and solved by their fast
/// kernel on hosts, the others are a color per instance.
macro_rules! colored_walks {
    ($( $(#[$doc:meta])* $field:ident : $group:ident, $item:ident, $c:ident, $walk:ident($module:ident); )*) => {
        impl<'c> GroupColors<'c> {
            /// The boundaries of a colored group (`None` for the groups
            /// that are a color per instance: meshes, attachments).
            #[must_use]
            pub fn of(&self, group: Group) -> Option<&'c [usize]> {
                match group {
                    Group::Links => Some(self.links),
                    $( Group::$group => colors_of!($walk self.$field), )*
                }
            }
        }

        impl<T: Real, const D: usize> RawGroups<T, D> {
            /// The instance count of a group.
            fn len(&self, group: Group) -> usize {
                match group {
                    Group::Links => self.links.len,
                    $( Group::$group => self.$field.len, )*
                }
            }

            /// Solves `begin .. end` (`end` clamped) of a group of the
            /// table over the colors `starts` ([`run_colors`](Self::run_colors)).
            ///
            /// # Safety
            /// As [`run`](Self::run).
            unsafe fn run_kind<P: Particles<T, D>>(
                &self,
                x: P,
                group: Group,
                begin: usize,
                end: usize,
                starts: &[usize],
            ) -> Result<SweepStats<T>, Stop> {
                let _ = (starts, &x);
                // SAFETY: forwarded caller contract.
                unsafe {
                    match group {
                        Group::Links => Ok(SweepStats::default()),
                        $( Group::$group => run_kind!($walk $module self x $field begin end starts), )*
                    }
                }
            }
        }

        /// Checks the boundaries of every group against the group lengths (not
        /// whether the coloring is proper).
        pub(crate) fn check_colors<T>(
            colors: &GroupColors<'_>,
            links: usize,
            c: &Constraints<'_, T>,
        ) -> Result<(), SystemError> {
            check_starts(colors.links, links)?;
            $( check_colors!($walk colors.$field, c.$field); )*
            Ok(())
        }

        /// Checks the boundaries of every group and that each coloring is proper
        /// over `n` particles (`stamp`: scratch, one `u32` per particle), naming a
        /// bad instance by its global index; a particle whose inverse mass in
        /// `static_w` is 0 may be shared within a color (empty: the strict
        /// check). Writes only `stamp`.
        pub(crate) fn check_proper<T: Real>(
            colors: &GroupColors<'_>,
            links: &[Link<T>],
            c: &Constraints<'_, T>,
            n: usize,
            stamp: &mut [u32],
            static_w: &[T],
        ) -> Result<(), SystemError> {
            check_colors(colors, links.len(), c)?;
            let at = |base: usize| {
                move |e: SystemError| match e {
                    SystemError::IndexOutOfRange { constraint } => SystemError::IndexOutOfRange {
                        constraint: base.saturating_add(constraint),
                    },
                    SystemError::SameParticle { constraint } => SystemError::SameParticle {
                        constraint: base.saturating_add(constraint),
                    },
                    other => other,
                }
            };
            let is_static = |q: usize| static_w.get(q).is_some_and(|w| *w == T::ZERO);
            check_coloring_over(links, colors.links, n, stamp, is_static).map_err(at(0))?;
            let mut counts = c.counts(links.len()).into_iter();
            let mut base = counts.next().unwrap_or(0);
            $(
                check_proper!($walk colors.$field, c.$field, n, stamp, is_static, at(base));
                base = base.saturating_add(counts.next().unwrap_or(0));
            )*
            let _ = base;
            Ok(())
        }
    };
}

/// A group's boundaries in [`GroupColors`], by its walk.
macro_rules! colors_of {
    (mesh $f:expr) => {
        None
    };
    (lagged $f:expr) => {
        None
    };
    ($walk:ident $f:expr) => {
        Some($f)
    };
}

/// A group's range solved, by its walk (in an `unsafe` block). The
/// `fast` kinds run in lane runs ([`lanes`]), their scalar kernel taking
/// the rest.
macro_rules! run_kind {
    (fast $module:ident $s:ident $x:ident $field:ident $begin:ident $end:ident $starts:ident) => {
        if IN_PLACE {
            let (h2, isa) = ($s.h2, $s.lanes);
            $s.range_in_place_many(
                $x,
                $s.$field,
                $begin,
                $end,
                $starts,
                |k, x, tally| crate::constraint::$module::solve_in_place(k, x, h2, tally),
                |k, x| crate::colored::groups::lanes::solve_lanes_in_place(k, x, h2, isa),
            )
        } else {
            $s.range($s.$field, $begin, $end)
        }
    };
    (fast_pairs $module:ident $s:ident $x:ident $field:ident $begin:ident $end:ident $starts:ident) => {
        if IN_PLACE {
            let h2 = $s.h2;
            $s.range_in_place_many(
                $x,
                $s.$field,
                $begin,
                $end,
                $starts,
                |k, x, tally| crate::constraint::$module::solve_in_place(k, x, h2, tally),
                |[a, b]: &mut [_; 2], x| {
                    crate::constraint::$module::solve_pair_in_place(a, b, x, h2)
                },
            )
        } else {
            $s.range($s.$field, $begin, $end)
        }
    };
    (fast_scaled $module:ident $s:ident $x:ident $field:ident $begin:ident $end:ident $starts:ident) => {
        if IN_PLACE {
            let mut alpha = Scaled::new($s.h2);
            $s.range_in_place($x, $s.$field, $begin, $end, $starts, move |k, x, tally| {
                crate::constraint::$module::solve_in_place(k, x, &mut alpha, tally)
            })
        } else {
            $s.range($s.$field, $begin, $end)
        }
    };
    (mesh $module:ident $s:ident $x:ident $field:ident $begin:ident $end:ident $starts:ident) => {
        $s.meshes($begin, $end)
    };
    (lagged $module:ident $s:ident $x:ident $field:ident $begin:ident $end:ident $starts:ident) => {
        $s.lagged($s.$field, $begin, $end)
    };
}

/// A group's boundaries checked against its length, by its walk.
macro_rules! check_colors {
    (mesh $starts:expr, $items:expr) => {};
    (lagged $starts:expr, $items:expr) => {};
    ($walk:ident $starts:expr, $items:expr) => {
        check_starts($starts, $items.len())?
    };
}

/// A group's coloring checked proper, by its walk.
macro_rules! check_proper {
    (mesh $starts:expr, $items:expr, $n:expr, $stamp:expr, $w:expr, $at:expr) => {};
    (lagged $starts:expr, $items:expr, $n:expr, $stamp:expr, $w:expr, $at:expr) => {};
    ($walk:ident $starts:expr, $items:expr, $n:expr, $stamp:expr, $w:expr, $at:expr) => {
        check_coloring_over(&*$items, $starts, $n, $stamp, $w).map_err($at)?
    };
}

group_kinds!(colored_walks);

/// Caller memory of one group, as a pointer and a length (any pointer
/// when the length is 0).
pub(crate) struct RawGroup<K> {
    /// The first instance.
    pub(crate) p: *mut K,
    /// The instance count.
    pub(crate) len: usize,
}

impl<K> Clone for RawGroup<K> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<K> Copy for RawGroup<K> {}

impl<K> RawGroup<K> {
    /// The view of a slice.
    pub(crate) fn of(items: &mut [K]) -> Self {
        Self {
            p: items.as_mut_ptr(),
            len: items.len(),
        }
    }
}

/// Raw views of a system with groups, for jobs that run concurrently
/// (the C job builds one from its structs), in `D` dimensions (the
/// groups beyond links are empty unless `D = 3`: `step_colored` refuses
/// them).
pub(crate) struct RawGroups<T, const D: usize = 3> {
    /// Positions (m), `n` entries.
    pub(crate) x: *mut [T; D],
    /// Positions as one array per coordinate (`n` entries each) instead
    /// of `x` (the SoA frame's): only the in-place kernels (the `fast*`
    /// groups on hosts) read them; every other range fails.
    pub(crate) xyz: Option<[*mut T; D]>,
    /// Inverse masses (1/kg), `n` entries; never written.
    pub(crate) w: *const T,
    /// The particle count.
    pub(crate) n: usize,
    /// The links.
    pub(crate) links: RawGroup<Link<T>>,
    /// The bends.
    pub(crate) bends: RawGroup<Bend<T>>,
    /// The tets.
    pub(crate) tets: RawGroup<Tet<T>>,
    /// The tethers.
    pub(crate) tethers: RawGroup<Tether<T>>,
    /// The mesh volumes.
    pub(crate) meshes: RawGroup<MeshVolume<T>>,
    /// The meshes' triangles; never written.
    pub(crate) triangles: RawGroup<[u32; 3]>,
    /// The meshes' particle lists; never written.
    pub(crate) particles: RawGroup<u32>,
    /// The meshes' gradient scratch.
    pub(crate) scratch: RawGroup<[T; 3]>,
    /// The attachments.
    pub(crate) attachments: RawGroup<Attachment<T>>,
    /// The skinned constraints.
    pub(crate) skin_constraints: RawGroup<SkinConstraint<T>>,
    /// The lagged kinds' substep (`Motion::at_target`: their point is
    /// `target`).
    pub(crate) motion: Motion<T>,
    /// h² (s²).
    pub(crate) h2: T,
    /// The zero-length (degenerate) policy.
    pub(crate) policy: ZeroLength,
    /// The vector level of the `fast` kinds' lane runs ([`lanes`]): the
    /// frame's in `step_colored`, else the target's baseline (SSE2, NEON):
    /// the job views detect nothing per call (`Isa::detect`'s cpuid took
    /// about 11 µs in a virtual machine, more than a job of 64 bends).
    pub(crate) lanes: Isa,
}

impl<T: Copy, const D: usize> Clone for RawGroups<T, D> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: Copy, const D: usize> Copy for RawGroups<T, D> {}

// SAFETY: the views are used only by jobs over disjoint particles and
// instances (one color of a proper coloring at a time), or by one thread.
unsafe impl<T: Send, const D: usize> Send for RawGroups<T, D> {}
// SAFETY: as for `Send`; shared reads are of data no job writes.
unsafe impl<T: Sync, const D: usize> Sync for RawGroups<T, D> {}

impl<T: Real, const D: usize> RawGroups<T, D> {
    /// Views of a system's buffers (`x` and `w` of `n` particles each) and
    /// groups, with `h2 = h²`.
    pub(crate) fn new(
        x: &mut [[T; D]],
        w: &[T],
        links: &mut [Link<T>],
        c: &mut Constraints<'_, T>,
        h2: T,
        motion: Motion<T>,
        policy: ZeroLength,
    ) -> Self {
        Self {
            x: x.as_mut_ptr(),
            xyz: None,
            w: w.as_ptr(),
            n: x.len().min(w.len()),
            links: RawGroup::of(links),
            bends: RawGroup::of(c.bends),
            tets: RawGroup::of(c.tets),
            tethers: RawGroup::of(c.tethers),
            meshes: RawGroup::of(c.meshes.volumes),
            triangles: RawGroup {
                p: c.meshes.triangles.as_ptr().cast_mut(),
                len: c.meshes.triangles.len(),
            },
            particles: RawGroup {
                p: c.meshes.particles.as_ptr().cast_mut(),
                len: c.meshes.particles.len(),
            },
            scratch: RawGroup::of(c.meshes.scratch),
            attachments: RawGroup::of(c.attachments),
            skin_constraints: RawGroup::of(c.skin_constraints),
            motion,
            h2,
            policy,
            lanes: Isa::BASELINE,
        }
    }

    /// Views of the in-place groups of `c` (the bends, tets and tethers)
    /// and its lagged kinds (at `motion`; its meshes are left out, as are
    /// the links) over positions in one array per coordinate (`xyz`, `n`
    /// entries each) with inverse masses `w` (at least `n`), with
    /// `h2 = h²`: the SoA frame's groups; the lane kernels run at the
    /// widest level of `isa`.
    ///
    /// # Safety
    /// The arrays of `xyz` are valid for `n` entries each for as long as
    /// the value is used.
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn soa(
        xyz: [*mut T; D],
        n: usize,
        w: &[T],
        c: &mut Constraints<'_, T>,
        h2: T,
        motion: Motion<T>,
        policy: ZeroLength,
        isa: Isa,
    ) -> Self {
        Self {
            x: ptr::null_mut(),
            xyz: Some(xyz),
            w: w.as_ptr(),
            n: n.min(w.len()),
            links: RawGroup::of(&mut []),
            bends: RawGroup::of(c.bends),
            tets: RawGroup::of(c.tets),
            tethers: RawGroup::of(c.tethers),
            meshes: RawGroup::of(&mut []),
            triangles: RawGroup::of(&mut []),
            particles: RawGroup::of(&mut []),
            scratch: RawGroup::of(&mut []),
            attachments: RawGroup::of(c.attachments),
            skin_constraints: RawGroup::of(c.skin_constraints),
            motion,
            h2,
            policy,
            lanes: isa,
        }
    }

    /// The global index of a group's first instance.
    fn base(&self, group: Group) -> usize {
        GROUPS
            .iter()
            .take_while(|g| **g != group)
            .fold(0usize, |acc, g| acc.saturating_add(self.len(*g)))
    }

    /// Solves instances `begin .. end` of `group` (clamped to the group).
    ///
    /// # Safety
    /// Every buffer of the views is valid for its length; nothing else
    /// accesses the particles and instances of the range meanwhile (one
    /// thread, or concurrent ranges within one color of a proper coloring;
    /// a mesh range only while no other range runs).
    pub(crate) unsafe fn run(
        &self,
        group: Group,
        begin: usize,
        end: usize,
    ) -> Result<SweepStats<T>, SystemError> {
        // SAFETY: forwarded caller contract.
        unsafe { self.run_colors(group, begin, end, &[]) }
    }

    /// [`run`](Self::run) over `begin .. end` spanning the colors whose
    /// boundaries are `starts` (checked by [`check_colors`]; empty: one
    /// range), on one thread: every instance in order, as color after
    /// color, and after a failure the rest of its color only (the colored
    /// iteration stops before the next color). The in-place kinds (hosts)
    /// solve the span in one loop; the others ignore `starts` (the caller
    /// passes a color at a time).
    ///
    /// # Safety
    /// As [`run`](Self::run).
    unsafe fn run_colors(
        &self,
        group: Group,
        begin: usize,
        end: usize,
        starts: &[usize],
    ) -> Result<SweepStats<T>, SystemError> {
        let end = end.min(self.len(group));
        let base = self.base(group);
        if let Some(xyz) = self.xyz {
            // Positions in coordinate arrays reach only the in-place
            // kernels of the groups colored by boundaries (never `x`)
            // and the lagged kinds (one particle's window each).
            let colored = GroupColors::default().of(group).is_some();
            if !IN_PLACE || group == Group::Links || !(colored || group.lagged()) {
                return Err(SystemError::InvalidShape);
            }
            let x = SoaShared {
                xyz,
                w: self.w,
                n: self.n,
            };
            // SAFETY: forwarded caller contract (`soa`'s: the arrays hold
            // `n` entries each).
            let r = unsafe { self.run_kind(x, group, begin, end, starts) };
            return r.map_err(|stop| stop_error(stop, base));
        }
        // SAFETY: forwarded caller contract: the buffers are valid for `n`
        // particles and, while this range runs, the particles of its
        // instances are its own (reads of others' are of data no job
        // writes during the color).
        let x = unsafe { Shared::new(self.x, self.w, self.n) };
        // SAFETY: forwarded caller contract.
        let r = unsafe {
            match group {
                Group::Links if IN_PLACE => {
                    let h2 = self.h2;
                    return self
                        .range_in_place(x, self.links, begin, end, starts, |l, x, tally| {
                            distance::solve_in_place(l, x, h2, tally)
                        })
                        .map_err(Stop::for_links);
                }
                Group::Links => return self.range(self.links, begin, end).map_err(Stop::for_links),
                _ => self.run_kind(x, group, begin, end, starts),
            }
        };
        r.map_err(|stop| stop_error(stop, base))
    }

    /// Solves `items[begin .. end]` one by one through local copies.
    ///
    /// # Safety
    /// As [`run`](Self::run); `end ≤ items.len`.
    unsafe fn range<const N: usize, K>(
        &self,
        items: RawGroup<K>,
        begin: usize,
        end: usize,
    ) -> Result<SweepStats<T>, Stop>
    where
        K: Instance<N> + for<'s> Constraint<T, D, N, Shared<'s> = ()>,
    {
        let mut stats = SweepStats::default();
        let mut first = None;
        let local: [u32; N] = core::array::from_fn(|k| u32::try_from(k).unwrap_or(0));
        for k in begin..end.min(items.len) {
            // SAFETY: k < items.len, the buffer is valid, and only this
            // range touches instance k (caller contract).
            let item = unsafe { ptr::read(items.p.add(k)) };
            let p = item.particles();
            let mut x = [[T::ZERO; D]; N];
            let mut w = [T::ZERO; N];
            let mut inside = true;
            for ((&q, xq), wq) in p.iter().zip(x.iter_mut()).zip(w.iter_mut()) {
                let q = ix(q);
                if q >= self.n {
                    inside = false;
                    break;
                }
                // SAFETY: q < n, so both reads are in the buffers; the
                // particle is this range's alone (proper coloring), and
                // inverse masses are never written.
                unsafe {
                    *xq = ptr::read(self.x.add(q));
                    *wq = ptr::read(self.w.add(q));
                }
            }
            if !inside {
                first = first.or(Some(Stop::OutOfRange(k)));
                continue;
            }
            let mut copy = item.with_particles(local);
            let v = solve(&mut copy, &mut x, &w, &(), self.h2);
            if let Err(stop) = count_visit(&mut stats, v, k, self.policy) {
                let stop = match stop {
                    Stop::NonFinitePosition(k, q) => {
                        Stop::NonFinitePosition(k, p.get(q).map_or(q, |&q| ix(q)))
                    }
                    other => other,
                };
                first = first.or(Some(stop));
                continue;
            }
            let mut item = item;
            item.set_lambda(copy.lambda());
            // SAFETY: as for the reads above: every index was checked below
            // n, and the particles and the instance are this range's alone.
            // A static particle keeps its bits (the visit leaves it) and
            // is not written: a frame's coloring may share it between
            // instances of one color, whose tasks then only read it.
            unsafe {
                for ((&q, xq), &wq) in p.iter().zip(&x).zip(&w) {
                    if wq != T::ZERO {
                        ptr::write(self.x.add(ix(q)), *xq);
                    }
                }
                ptr::write(items.p.add(k), item);
            }
        }
        first.map_or(Ok(stats), Err)
    }

    /// Solves `items[begin .. end]` one by one with the kind's in-place
    /// kernel `solve_one` (hosts: [`IN_PLACE`]), reading and writing the
    /// shared particles through [`Shared`]: only the particles an instance
    /// moves and its λ are written. The same bits, statistics and stops as
    /// [`range`](Self::range) (the kernel is `solve`'s operations, with
    /// the particles' global indices). Out of line, one copy per kind, so
    /// that its registers are its own (inlined into [`run`](Self::run),
    /// beside every other kind, the kernel kept each instance's particles
    /// in stack copies and read them back at another width: a failed store
    /// forward per instance).
    ///
    /// # Safety
    /// As [`run`](Self::run); `end ≤ items.len`.
    #[inline(never)]
    unsafe fn range_in_place<K, P: Particles<T, D>>(
        &self,
        x: P,
        items: RawGroup<K>,
        begin: usize,
        end: usize,
        starts: &[usize],
        solve_one: impl FnMut(&mut K, &mut P, &mut Tally<T>) -> Result<(), Stop>,
    ) -> Result<SweepStats<T>, Stop> {
        let none = |_: &mut [K; 1], _: &mut P| None;
        // SAFETY: forwarded caller contract.
        unsafe { self.range_body::<K, P, 1>(x, items, begin, end, starts, solve_one, none) }
    }

    /// [`range_in_place`](Self::range_in_place) with a kernel of `W`
    /// instances `solve_many` (tets: two, `volume::solve_pair_in_place`;
    /// bends: `lanes::LANES`, `lanes::solve_lanes_in_place`):
    /// `W` consecutive instances of one color (`starts`; a range without
    /// boundaries is one color) go to it, which either solves them all,
    /// writing each and returning their outcomes (counted here in order,
    /// as `W` `solve_one` calls count them), or writes nothing and returns
    /// `None`; then the first goes through `solve_one` and the next `W`
    /// are taken anew. The last instances of a color, fewer than `W`, go
    /// through `solve_one`. Instances of one color share no moving
    /// particle (a shared static one is never written), so any order
    /// within a color gives the same bits; the instances are still
    /// visited in order, so the statistics and the first stop (and the
    /// colors solved after it) are `range_in_place`'s.
    ///
    /// # Safety
    /// As [`range_in_place`](Self::range_in_place).
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    unsafe fn range_in_place_many<K, P: Particles<T, D>, const W: usize>(
        &self,
        x: P,
        items: RawGroup<K>,
        begin: usize,
        end: usize,
        starts: &[usize],
        solve_one: impl FnMut(&mut K, &mut P, &mut Tally<T>) -> Result<(), Stop>,
        solve_many: impl FnMut(&mut [K; W], &mut P) -> Option<[Outcome<T>; W]>,
    ) -> Result<SweepStats<T>, Stop> {
        // SAFETY: forwarded caller contract.
        unsafe { self.range_body::<K, P, W>(x, items, begin, end, starts, solve_one, solve_many) }
    }

    /// The loop of [`range_in_place`](Self::range_in_place) (`W` = 1:
    /// `solve_many` is never called) and of
    /// [`range_in_place_many`](Self::range_in_place_many).
    ///
    /// # Safety
    /// As [`range_in_place`](Self::range_in_place).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    unsafe fn range_body<K, P: Particles<T, D>, const W: usize>(
        &self,
        x: P,
        items: RawGroup<K>,
        begin: usize,
        end: usize,
        starts: &[usize],
        solve_one: impl FnMut(&mut K, &mut P, &mut Tally<T>) -> Result<(), Stop>,
        solve_many: impl FnMut(&mut [K; W], &mut P) -> Option<[Outcome<T>; W]>,
    ) -> Result<SweepStats<T>, Stop> {
        // Locals of this function (the arguments are the caller's memory):
        // a kernel's state in them (`Scaled`) can live in registers.
        let (mut solve_one, mut solve_many) = (solve_one, solve_many);
        let mut tally = Tally::new(self.policy);
        let mut first = None;
        // The caller's view: valid for `n` particles and, while this range
        // runs, the particles of its instances are its own (reads of
        // others' are of data no job writes during the color).
        let mut x = x;
        let mut end = end.min(items.len);
        let mut k = begin;
        // The end of `k`'s color (found again when `k` reaches it).
        let mut color_end = k;
        while k < end {
            if W > 1 {
                if color_end <= k {
                    color_end = starts
                        .iter()
                        .copied()
                        .find(|&s| s > k)
                        .map_or(end, |s| s.min(end));
                }
                if k.saturating_add(W) <= color_end {
                    // SAFETY: k + W ≤ end ≤ items.len: `W` consecutive
                    // instances (the layout of `[K; W]`) this range alone
                    // touches (caller contract).
                    let many = unsafe { &mut *items.p.add(k).cast::<[K; W]>() };
                    if let Some(outcomes) = solve_many(many, &mut x) {
                        for (j, o) in (k..).zip(outcomes) {
                            tally.index = j;
                            if let Err(stop) = tally.count(o) {
                                end = keep_first(&mut first, stop, starts, j, end);
                            }
                        }
                        k = k.saturating_add(W);
                        continue;
                    }
                }
            }
            tally.index = k;
            // SAFETY: k < end ≤ items.len, the buffer is valid, and only
            // this range touches instance k (caller contract).
            let item = unsafe { &mut *items.p.add(k) };
            if let Err(stop) = solve_one(item, &mut x, &mut tally) {
                end = keep_first(&mut first, stop, starts, k, end);
            }
            k = k.wrapping_add(1);
        }
        first.map_or(Ok(tally.stats(end.saturating_sub(begin))), Err)
    }

    /// Solves mesh volumes `begin .. end` (each a color of its own).
    ///
    /// # Safety
    /// As [`run`](Self::run): no other range runs meanwhile (a mesh writes
    /// any of its particles and the shared scratch).
    unsafe fn meshes(&self, begin: usize, end: usize) -> Result<SweepStats<T>, Stop> {
        let mut stats = SweepStats::default();
        if begin >= end {
            return Ok(stats);
        }
        // SAFETY: every buffer is valid for its length and, by the caller's
        // contract, nothing else accesses them while this range runs; the
        // buffers do not overlap (distinct slices of one system), so the
        // mutable slices do not alias.
        let (x, w, volumes, triangles, particles, scratch) = unsafe {
            (
                part(self.x, self.n),
                part_ref(self.w, self.n),
                part(self.meshes.p, self.meshes.len),
                part_ref(self.triangles.p.cast_const(), self.triangles.len),
                part_ref(self.particles.p.cast_const(), self.particles.len),
                part(self.scratch.p, self.scratch.len),
            )
        };
        let Some(meshes) = volumes.get_mut(begin..end) else {
            return Ok(stats);
        };
        for (k, mesh) in meshes.iter_mut().enumerate() {
            let v = solve_mesh(mesh, (triangles, particles), scratch, x, w, self.h2);
            count_visit(&mut stats, v, begin.saturating_add(k), self.policy)?;
        }
        Ok(stats)
    }

    /// One colored iteration: every color of every group in order, each
    /// color completed before an error is returned.
    ///
    /// # Safety
    /// As [`run`](Self::run), on one thread; `colors` checked by
    /// [`check_colors`].
    pub(crate) unsafe fn iterate(
        &self,
        colors: &GroupColors<'_>,
    ) -> Result<SweepStats<T>, SystemError> {
        let mut stats = SweepStats::default();
        for group in GROUPS {
            let Some(starts) = colors.of(group) else {
                // A color per instance, solved in order on one thread.
                // SAFETY: forwarded caller contract (one thread).
                stats = stats.merge(unsafe { self.run(group, 0, self.len(group)) }?);
                continue;
            };
            if IN_PLACE {
                // One thread: the group's colors in one loop (the same
                // order, bits, statistics and stop as color by color).
                if let (Some(&b), Some(&e)) = (starts.first(), starts.last()) {
                    // SAFETY: forwarded caller contract; `starts` checked.
                    stats = stats.merge(unsafe { self.run_colors(group, b, e, starts) }?);
                }
                continue;
            }
            for w in starts.windows(2) {
                let (Some(&b), Some(&e)) = (w.first(), w.get(1)) else {
                    continue;
                };
                // SAFETY: forwarded caller contract.
                stats = stats.merge(unsafe { self.run(group, b, e) }?);
            }
        }
        Ok(stats)
    }
}

/// Keeps a range's first stop (instance `k` failed) and returns where the
/// range now ends: `end`, or with color boundaries `starts` the end of
/// `k`'s color if sooner (the colors after a failing one are not solved).
/// Out of line and cold, so the range's loop keeps no stop in its
/// registers (only its address).
#[cold]
#[inline(never)]
fn keep_first(
    first: &mut Option<Stop>,
    stop: Stop,
    starts: &[usize],
    k: usize,
    end: usize,
) -> usize {
    if first.is_none() {
        *first = Some(stop);
    }
    starts
        .iter()
        .copied()
        .find(|&s| s > k)
        .map_or(end, |s| s.min(end))
}

/// Whether the tets and tethers of a colored range are solved by their
/// kinds' in-place kernels ([`RawGroups::range_in_place`]): on every
/// target but bare metal (`target_os = "none"`), whose images keep the one
/// generic range (code size, as `solver::groups::SHARED_LOOPS`). The same
/// bits, statistics and stops either way.
const IN_PLACE: bool = !cfg!(target_os = "none");

/// The shared particles of a colored range as [`Particles`]: reads and
/// writes of one particle through the raw views, none past `n`.
#[derive(Clone, Copy)]
pub(crate) struct Shared<T, const D: usize> {
    /// Positions (m), `n` entries.
    x: *mut [T; D],
    /// Inverse masses (1/kg), `n` entries; never written.
    w: *const T,
    /// The particle count.
    n: usize,
}

impl<T, const D: usize> Shared<T, D> {
    /// The particles of a range.
    ///
    /// # Safety
    /// `x` and `w` are valid for `n` entries while the value lives, and
    /// every particle it writes is the holder's alone meanwhile (the range
    /// of one color of a proper coloring, or one thread); `w` is never
    /// written.
    unsafe fn new(x: *mut [T; D], w: *const T, n: usize) -> Self {
        Self { x, w, n }
    }

    /// The particles `x` and `w` (their common length), lent to the tasks
    /// of one phase.
    ///
    /// # Safety
    /// Until the phase ends, nothing else uses `x` and every particle a
    /// copy of the value writes is that copy's alone (the ranges of one
    /// color of a proper coloring).
    pub(crate) unsafe fn lend(x: &mut [[T; D]], w: &[T]) -> Self {
        let n = x.len().min(w.len());
        // SAFETY: both are valid for `n` entries while the borrow the
        // caller keeps lives; exclusivity is the caller's contract.
        unsafe { Self::new(x.as_mut_ptr(), w.as_ptr(), n) }
    }
}

// SAFETY: the copies of one phase's value write disjoint particles (the
// contract of `lend`), and `w` is never written.
unsafe impl<T: Send, const D: usize> Send for Shared<T, D> {}
// SAFETY: as `Send`.
unsafe impl<T: Sync, const D: usize> Sync for Shared<T, D> {}

impl<T: Copy, const D: usize> Particles<T, D> for Shared<T, D> {
    #[inline(always)]
    fn get(&self, k: usize) -> Option<([T; D], T)> {
        if k >= self.n {
            return None;
        }
        // SAFETY: k < n, so both reads are in the buffers (`new`'s
        // contract); the particle is this range's alone or unwritten.
        unsafe { Some((ptr::read(self.x.add(k)), ptr::read(self.w.add(k)))) }
    }
    #[inline(always)]
    fn set(&mut self, k: usize, x: [T; D]) {
        if k < self.n {
            // SAFETY: k < n, in the buffer; the particle an instance of
            // this range moves is this range's alone (`new`'s contract).
            unsafe { ptr::write(self.x.add(k), x) }
        }
    }
}

/// [`Shared`] over one array per coordinate (the SoA frame's: coordinate
/// `c` of particle `k` is `xyz[c][k]`): the in-place kernels' other view,
/// a copy of each kernel of its own (the AoS ranges keep their code).
#[derive(Clone, Copy)]
pub(crate) struct SoaShared<T, const D: usize> {
    /// Each coordinate's array (m), `n` entries each.
    xyz: [*mut T; D],
    /// Inverse masses (1/kg), `n` entries; never written.
    w: *const T,
    /// The particle count.
    n: usize,
}

impl<T: Copy, const D: usize> Particles<T, D> for SoaShared<T, D> {
    #[inline(always)]
    fn get(&self, k: usize) -> Option<([T; D], T)> {
        if k >= self.n {
            return None;
        }
        // SAFETY: k < n, so every read is in the arrays (the contract of
        // `RawGroups::soa`); the particle is this range's alone or
        // unwritten.
        unsafe {
            Some((
                self.xyz.map(|c| ptr::read(c.add(k))),
                ptr::read(self.w.add(k)),
            ))
        }
    }
    #[inline(always)]
    fn set(&mut self, k: usize, x: [T; D]) {
        if k < self.n {
            for (c, v) in self.xyz.iter().zip(x) {
                // SAFETY: k < n, in each array; the particle an instance
                // of this range moves is this range's alone.
                unsafe { ptr::write(c.add(k), v) }
            }
        }
    }
}

/// A slice over a raw view: empty for a zero length (any pointer).
///
/// # Safety
/// For a non-zero `len`, `p` is valid for `len` reads and writes for `'x`
/// and nothing else accesses that memory meanwhile.
unsafe fn part<'x, U>(p: *mut U, len: usize) -> &'x mut [U] {
    if len == 0 {
        &mut []
    } else {
        // SAFETY: forwarded caller contract.
        unsafe { core::slice::from_raw_parts_mut(p, len) }
    }
}

/// [`part`], read only.
///
/// # Safety
/// For a non-zero `len`, `p` is valid for `len` reads for `'x` and nothing
/// writes that memory meanwhile.
unsafe fn part_ref<'x, U>(p: *const U, len: usize) -> &'x [U] {
    if len == 0 {
        &[]
    } else {
        // SAFETY: forwarded caller contract.
        unsafe { core::slice::from_raw_parts(p, len) }
    }
}

mod lagged;
mod lanes;
mod view;
pub use view::{ColoredGroups, GroupJob, GroupJobs};
