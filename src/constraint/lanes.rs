//! The kind side of the lane kernels (issue 34): what a kind gives the
//! colored groups' lane runs (`colored::groups::lanes`), which solve
//! [`LANES`] instances of one color at once in the colored sweeps: its
//! instances' particles, values and λ ([`LaneKind`]), and its in-place
//! kernel's arithmetic on one lane without a branch ([`Lane`]). The bends
//! implement it; tets and tethers keep their pair and scalar kernels
//! (through the lanes they were slower: their short per-lane arithmetic
//! was left unvectorised by the compiler, docs/performance.md).

use crate::real::Real;

/// Instances a lane kernel solves at once: a color's instances go to it
/// in runs of this many (AVX-512 holds eight binary64 lanes; AVX2 eight
/// binary32).
pub(crate) const LANES: usize = 8;

/// One value per lane.
pub(crate) type V<T> = [T; LANES];

/// Lane `i` of `v` (the default, zero for a number, past the lanes:
/// never, `i < LANES`).
#[inline(always)]
pub(crate) fn get<T: Copy + Default>(v: &[T; LANES], i: usize) -> T {
    v.get(i).copied().unwrap_or_default()
}

/// Sets lane `i` of `v` (nothing past the lanes: never).
#[inline(always)]
pub(crate) fn put<T: Copy>(v: &mut [T; LANES], i: usize, x: T) {
    if let Some(s) = v.get_mut(i) {
        *s = x;
    }
}

/// One instance's result from its kind's arithmetic on one lane.
#[derive(Clone, Copy)]
pub(crate) struct Lane<T, const N: usize> {
    /// `x_k + (w_k Δλ) ∇_k C` per particle (m), static ones too (never
    /// written).
    pub(crate) next: [[T; 3]; N],
    /// λ'.
    pub(crate) lambda: T,
    /// `|C|` (the statistics, [`Outcome::Applied`](super::Outcome::Applied)).
    pub(crate) c_abs: T,
    /// `|C + α̃λ|` (the statistics).
    pub(crate) residual: T,
    /// Every particle static: counted
    /// [`Outcome::Static`](super::Outcome::Static), nothing written (the
    /// scalar kernel's first test).
    pub(crate) still: bool,
    /// The scalar kernel would write this result without its rare path;
    /// `false` gives the run to the scalar kernel.
    pub(crate) ok: bool,
}

/// A kind with a lane kernel: its instances' particles, values and λ,
/// and its in-place kernel's arithmetic without a branch.
pub(crate) trait LaneKind<T: Real, const N: usize> {
    /// The instance's particles, in its order.
    fn particles(&self) -> [u32; N];
    /// The instance's values the arithmetic reads: its rest value, its
    /// compliance α and its λ (gathered into one array each per run, so
    /// that the lanes' loop reads contiguous arrays).
    fn values(&self) -> [T; 3];
    /// The kind's in-place kernel on one instance with `values`,
    /// positions `p` (m) and inverse masses `w` (1/kg), `α̃ = α/h²`, with
    /// no branch that depends on the values (selects only), in the
    /// kernel's order.
    fn lane(values: [T; 3], p: &[[T; 3]; N], w: &[T; N], h2: T) -> Lane<T, N>;
    /// Stores λ' (`constraint::store_lambda`).
    fn store(&mut self, lambda: T);
}

/// The vector level a lagged kind's lane run is compiled at: the colored
/// layer's `Isa` implements it (`colored::groups::lagged`, through
/// `colored::at_level!`), so that this floor names no `Isa`.
pub(crate) trait Widen {
    /// [`skin::lanes::compute`](super::skin::lanes::compute) at this
    /// level.
    fn skin<T: Real>(
        &self,
        g: &super::skin::lanes::Gathered<T>,
        at: super::lagged::Motion<T>,
        h2: T,
    ) -> super::skin::lanes::Solved<T>;
}
