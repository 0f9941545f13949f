//! Link colorings: a solve order in which no two links of one color share a
//! particle, computed into caller-provided memory (no allocation).
//!
//! A coloring assigns each link `k` a color `colors[k] ∈ 0 … count − 1` such
//! that two links of the same color never name the same particle. The links
//! of one color are then independent: solving them in any order, or on
//! several threads at once, gives the same bits. A colored sweep
//! ([`crate::colored`]) solves color 0, then color 1, … : Gauss-Seidel in
//! colored order.
//!
//! - [`rope_coloring`]: even/odd for a rope built by [`crate::rope`] (2
//!   colors), plus a third color for the closing link of an odd
//!   [`crate::closed_loop`].
//! - [`cloth_coloring`]: a fixed 4-color (structural) or 8-color (with
//!   shear) scheme for the link order of [`crate::cloth`].
//! - [`greedy_coloring`]: any graph; each link in order takes the smallest
//!   color neither of its particles has yet (at most 64 colors, scratch of
//!   one `u64` per particle).
//! - [`color_order`]: a stable counting sort of the links by color: the
//!   permutation `order` (colored position → original link index) and the
//!   color boundaries `color_starts` (color `c` is
//!   `order[color_starts[c] .. color_starts[c + 1]]`).
//! - [`check_coloring`]: verifies that a coloring is proper.
//! - [`color_instances`], [`fill_in_order`], [`check_instance_coloring`]:
//!   the same greedy pass, a permutation into colored order and the check,
//!   for any group of N-particle instances ([`Instance`]: links, bends,
//!   tets, tethers).

use crate::constraint::bend::Bend;
use crate::constraint::tether::Tether;
use crate::constraint::volume::Tet;
use crate::real::Real;
use crate::solver::{Link, SystemError};

/// The most colors [`greedy_coloring`] uses (one bit per color in a `u64`).
pub const MAX_GREEDY_COLORS: u32 = 64;

/// Colors for the links of [`crate::rope`] (`link_count = n − 1`, link `k`
/// joins `k` and `k + 1`) or, with `closed`, of [`crate::closed_loop`]
/// (`link_count = n`, the last link joins `n − 1` and `0`): `colors[k] = k mod
/// 2`, and color 2 for the closing link when `n` is odd. Returns the color
/// count (2, or 3 for an odd loop).
///
/// # Errors
///
/// [`SystemError::InvalidShape`] for no links (or a loop of fewer than 3),
/// [`SystemError::CapacityTooSmall`] when `colors` is shorter than
/// `link_count`. Nothing is written on error.
///
/// # Examples
///
/// ```
/// let mut colors = [9; 5];
/// assert_eq!(xpbd::rope_coloring(5, true, &mut colors), Ok(3));
/// assert_eq!(colors, [0, 1, 0, 1, 2]);
/// ```
pub fn rope_coloring(
    link_count: usize,
    closed: bool,
    colors: &mut [u32],
) -> Result<u32, SystemError> {
    if link_count == 0 || (closed && link_count < 3) {
        return Err(SystemError::InvalidShape);
    }
    let out = colors
        .get_mut(..link_count)
        .ok_or(SystemError::CapacityTooSmall { needed: link_count })?;
    for (k, c) in out.iter_mut().enumerate() {
        *c = if k % 2 == 0 { 0 } else { 1 };
    }
    let odd_loop = closed && link_count % 2 == 1;
    if odd_loop {
        if let Some(last) = out.last_mut() {
            *last = 2;
        }
        Ok(3)
    } else {
        Ok(if link_count == 1 { 1 } else { 2 })
    }
}

/// Colors for the links of [`crate::cloth`] over a `rows × cols` grid, in
/// the builder's order: horizontal link `(r, c)–(r, c+1)` gets `c mod 2`,
/// vertical `(r, c)–(r+1, c)` gets `2 + r mod 2`, and with `shear` the
/// diagonal `(r, c)–(r+1, c+1)` gets `4 + r mod 2` and `(r, c+1)–(r+1, c)`
/// gets `6 + r mod 2`. Returns the color count: 4, or 8 with shear.
///
/// Proper: horizontal links of one parity in a row touch disjoint column
/// pairs; vertical links of one row parity touch disjoint row pairs; a
/// diagonal of cell row `r` touches rows `r` and `r + 1` only, one particle
/// per column and row.
///
/// # Errors
///
/// [`SystemError::InvalidShape`] unless `rows ≥ 2` and `cols ≥ 2`,
/// [`SystemError::CapacityTooSmall`] when `colors` is shorter than
/// [`crate::cloth_link_count`]. Nothing is written on error.
pub fn cloth_coloring(
    rows: usize,
    cols: usize,
    shear: bool,
    colors: &mut [u32],
) -> Result<u32, SystemError> {
    let needed = crate::cloth_link_count(rows, cols, shear).ok_or(SystemError::InvalidShape)?;
    let out = colors
        .get_mut(..needed)
        .ok_or(SystemError::CapacityTooSmall { needed })?;
    let c1 = cols.saturating_sub(1);
    let horizontal = rows.saturating_mul(c1);
    let vertical = rows.saturating_sub(1).saturating_mul(cols);
    // Each color from the link index alone (no iterator state); the
    // divisors are ≥ 1 here and `checked_div` cannot panic.
    let parity = |v: usize| -> u32 { u32::from(v % 2 == 1) };
    for (k, slot) in out.iter_mut().enumerate() {
        *slot = if k < horizontal {
            parity(k.checked_rem(c1).unwrap_or(0))
        } else if k < horizontal.saturating_add(vertical) {
            2 + parity(k.saturating_sub(horizontal).checked_div(cols).unwrap_or(0))
        } else {
            let d = k.saturating_sub(horizontal).saturating_sub(vertical);
            let row = (d / 2).checked_div(c1).unwrap_or(0);
            (if d % 2 == 0 { 4 } else { 6 }) + parity(row)
        };
    }
    Ok(if shear { 8 } else { 4 })
}

/// Greedy coloring of any link graph: each link, in slice order, takes the
/// smallest color that neither of its particles has yet. `used` is scratch
/// (one `u64` per particle, overwritten); `colors[k]` receives link `k`'s
/// color. Returns the color count (at most [`MAX_GREEDY_COLORS`]; a graph
/// whose particles have at most `d` links each needs at most `2d − 1`).
///
/// # Errors
///
/// [`SystemError::CapacityTooSmall`] when `colors` is shorter than `links`,
/// [`SystemError::InvalidShape`] when `used` is shorter than
/// `particle_count` or 64 colors do not suffice,
/// [`SystemError::IndexOutOfRange`] / [`SystemError::SameParticle`] naming
/// a bad link. `colors` is written only on success (`used` always).
pub fn greedy_coloring<T: Real>(
    links: &[Link<T>],
    particle_count: usize,
    used: &mut [u64],
    colors: &mut [u32],
) -> Result<u32, SystemError> {
    color_instances(links, particle_count, used, colors)
}

/// One greedy pass: resets `used`, colors every instance in order, writes
/// each color to `write[k]` when given, returns the color count. The same
/// code for links and for every N-particle kind ([`Instance`]).
fn greedy_pass<const N: usize, K: Instance<N>>(
    items: &[K],
    used: &mut [u64],
    is_static: impl Fn(usize) -> bool,
    mut write: Option<&mut [u32]>,
) -> Result<u32, SystemError> {
    used.fill(0);
    let mut count = 0;
    for (constraint, item) in items.iter().enumerate() {
        let mut at = [0usize; N];
        for (slot, &p) in at.iter_mut().zip(&item.particles()) {
            *slot = usize::try_from(p).map_err(|_| SystemError::IndexOutOfRange { constraint })?;
        }
        for (a, pa) in at.iter().enumerate() {
            if at.iter().skip(a.saturating_add(1)).any(|pb| pb == pa) {
                return Err(SystemError::SameParticle { constraint });
            }
        }
        let mut taken = 0u64;
        let mut moving = [true; N];
        for (&p, m) in at.iter().zip(moving.iter_mut()) {
            let u = *used
                .get(p)
                .ok_or(SystemError::IndexOutOfRange { constraint })?;
            // A static particle is no conflict.
            *m = !is_static(p);
            if *m {
                taken |= u;
            }
        }
        let free = !taken;
        if free == 0 {
            return Err(SystemError::InvalidShape);
        }
        let color = free.trailing_zeros();
        let bit = 1u64 << color;
        for (&p, _) in at.iter().zip(&moving).filter(|(_, m)| **m) {
            if let Some(u) = used.get_mut(p) {
                *u |= bit;
            }
        }
        if let Some(slot) = write.as_deref_mut().and_then(|w| w.get_mut(constraint)) {
            *slot = color;
        }
        count = count.max(color.saturating_add(1));
    }
    Ok(count)
}

mod sealed {
    /// Seals [`super::Instance`]; also turns an instance into the same
    /// instance over other particle indices (the colored jobs solve a copy
    /// over its gathered particles `0 .. N`).
    pub trait Sealed<const N: usize>: Copy {
        /// The same instance with its particle indices replaced by `p`
        /// (in the order [`super::Instance::particles`] gives them).
        fn with_particles(self, p: [u32; N]) -> Self;
    }
}

/// A constraint instance over `N` particles that the colorings of this
/// module handle: [`Link`] (2), [`Bend`] (4), [`Tet`] (4), [`Tether`] (2).
/// Sealed: the kinds are the crate's.
pub trait Instance<const N: usize>: sealed::Sealed<N> {
    /// The particle indices the instance reads and writes.
    fn particles(&self) -> [u32; N];
}

impl<T: Copy> sealed::Sealed<2> for Link<T> {
    #[inline(always)]
    fn with_particles(mut self, [i, j]: [u32; 2]) -> Self {
        self.i = i;
        self.j = j;
        self
    }
}

impl<T: Copy> Instance<2> for Link<T> {
    #[inline(always)]
    fn particles(&self) -> [u32; 2] {
        [self.i, self.j]
    }
}

impl<T: Copy> sealed::Sealed<2> for Tether<T> {
    #[inline(always)]
    fn with_particles(mut self, [anchor, particle]: [u32; 2]) -> Self {
        self.anchor = anchor;
        self.particle = particle;
        self
    }
}

impl<T: Copy> Instance<2> for Tether<T> {
    /// `[anchor, particle]`.
    #[inline(always)]
    fn particles(&self) -> [u32; 2] {
        [self.anchor, self.particle]
    }
}

macro_rules! four {
    ($($t:ident),*) => {$(
        impl<T: Copy> sealed::Sealed<4> for $t<T> {
            #[inline(always)]
            fn with_particles(mut self, p: [u32; 4]) -> Self {
                self.particles = p;
                self
            }
        }

        impl<T: Copy> Instance<4> for $t<T> {
            #[inline(always)]
            fn particles(&self) -> [u32; 4] {
                self.particles
            }
        }
    )*};
}
four!(Bend, Tet);

/// Greedy coloring of any group of instances ([`Link`]s, [`Bend`]s,
/// [`Tet`]s, [`Tether`]s): each instance, in slice order, takes the
/// smallest color none of its `N` particles has yet, so no two instances of
/// one color share a particle. `used` is scratch (one `u64` per particle,
/// overwritten); `colors[k]` receives instance `k`'s color. Returns the
/// color count (at most [`MAX_GREEDY_COLORS`]). For links this is
/// [`greedy_coloring`], the same code and the same colors.
///
/// Closed-mesh volumes are not colored: each mesh volume is a color of its
/// own, solved after the colored kinds (see [`crate::colored::GroupColors`]).
///
/// # Errors
///
/// [`SystemError::CapacityTooSmall`] when `colors` is shorter than `items`,
/// [`SystemError::InvalidShape`] when `used` is shorter than
/// `particle_count` or 64 colors do not suffice,
/// [`SystemError::IndexOutOfRange`] / [`SystemError::SameParticle`] naming
/// the instance (its position in `items`). `colors` is written only on
/// success (`used` always).
///
/// # Examples
///
/// ```
/// use xpbd::{color_instances, Tet};
/// let tets: [Tet<f64>; 3] = [Tet { particles: [0, 1, 2, 3], ..Tet::default() },
///             Tet { particles: [4, 5, 6, 7], ..Tet::default() },
///             Tet { particles: [3, 4, 8, 9], ..Tet::default() }];
/// let (mut used, mut colors) = ([0u64; 10], [9u32; 3]);
/// assert_eq!(color_instances(&tets, 10, &mut used, &mut colors), Ok(2));
/// assert_eq!(colors, [0, 0, 1]);
/// ```
pub fn color_instances<const N: usize, K: Instance<N>>(
    items: &[K],
    particle_count: usize,
    used: &mut [u64],
    colors: &mut [u32],
) -> Result<u32, SystemError> {
    color_over(items, particle_count, used, colors, |_| false)
}

/// [`color_instances`] for a frame of
/// [`step_colored`](crate::step::step_colored): a particle whose inverse
/// mass is 0 (static for the frame: nobody writes it) is no conflict, so
/// instances sharing only static particles may take one color — tethers
/// to one pinned anchor ([`crate::tethers`]), links to a pinned particle.
/// `inverse_masses` (1/kg) gives the particle count; `used` is scratch
/// (at least one `u64` per particle, overwritten); `colors[k]` receives
/// instance `k`'s color. Returns the color count (at most
/// [`MAX_GREEDY_COLORS`]). A coloring of this function is proper for
/// `step_colored` while those particles stay static; other colored paths
/// (`SimdLinks`, `ColoredGroups`) need [`color_instances`].
///
/// # Errors
///
/// As [`color_instances`].
///
/// # Examples
///
/// ```
/// use xpbd::{color_instances, color_moving_instances, Tether};
/// // 100 tethers from particles 1..=100 to the pinned particle 0.
/// let tethers: Vec<Tether<f64>> = (1..=100)
///     .map(|p| Tether { anchor: 0, particle: p, max_distance: 1.0, ..Tether::default() })
///     .collect();
/// let mut w = vec![1.0; 101];
/// w[0] = 0.0;
/// let (mut used, mut colors) = (vec![0u64; 101], vec![0u32; 100]);
/// // Every tether shares the anchor: more than 64 colors, refused ...
/// assert!(color_instances(&tethers, 101, &mut used, &mut colors).is_err());
/// // ... but nobody writes a static anchor: one color.
/// assert_eq!(color_moving_instances(&tethers, &w, &mut used, &mut colors), Ok(1));
/// ```
pub fn color_moving_instances<const N: usize, K: Instance<N>, T: Real>(
    items: &[K],
    inverse_masses: &[T],
    used: &mut [u64],
    colors: &mut [u32],
) -> Result<u32, SystemError> {
    let is_static = |p: usize| inverse_masses.get(p).is_some_and(|w| *w == T::ZERO);
    color_over(items, inverse_masses.len(), used, colors, is_static)
}

/// [`color_instances`] with the particles `is_static` accepts left out
/// (no conflict): the body of both public colorings.
fn color_over<const N: usize, K: Instance<N>>(
    items: &[K],
    particle_count: usize,
    used: &mut [u64],
    colors: &mut [u32],
    is_static: impl Fn(usize) -> bool + Copy,
) -> Result<u32, SystemError> {
    if colors.len() < items.len() {
        return Err(SystemError::CapacityTooSmall {
            needed: items.len(),
        });
    }
    let used = used
        .get_mut(..particle_count)
        .ok_or(SystemError::InvalidShape)?;
    // Two passes of the same deterministic coloring: the first only checks
    // that it succeeds, the second writes `colors`, so `colors` is never
    // left partly written.
    greedy_pass(items, used, is_static, None)?;
    greedy_pass(items, used, is_static, Some(colors))
}

/// Writes `items` permuted into colored order: `out[c] = items[order[c]]`
/// for every colored position `c` (`order` from [`color_order`]), λ
/// included. Returns the count written (`items.len()`).
///
/// # Errors
///
/// [`SystemError::InvalidShape`] when `order` is not as long as `items` or
/// names an index `≥ items.len()`, [`SystemError::CapacityTooSmall`] when
/// `out` is shorter than `items`. Nothing is written on error.
pub fn fill_in_order<K: Copy>(
    items: &[K],
    order: &[u32],
    out: &mut [K],
) -> Result<usize, SystemError> {
    let n = items.len();
    if order.len() != n
        || order
            .iter()
            .any(|&k| usize::try_from(k).map_or(true, |k| k >= n))
    {
        return Err(SystemError::InvalidShape);
    }
    let out = out
        .get_mut(..n)
        .ok_or(SystemError::CapacityTooSmall { needed: n })?;
    for (slot, &k) in out.iter_mut().zip(order) {
        if let Some(item) = usize::try_from(k).ok().and_then(|k| items.get(k)) {
            *slot = *item;
        }
    }
    Ok(n)
}

/// Verifies that a group stored in colored order with boundaries
/// `color_starts` is a proper coloring: the boundaries start at 0, never
/// decrease and end at `items.len()` (an empty group may also have no
/// boundaries at all), every index is `< particle_count`, no instance names
/// a particle twice, and no particle appears twice within one color.
/// `stamp` is scratch (one `u32` per particle, overwritten).
///
/// # Errors
///
/// [`SystemError::IndexOutOfRange`] / [`SystemError::SameParticle`] naming
/// the instance (its colored position), or [`SystemError::InvalidShape`]
/// (bad boundaries, short scratch, or two instances of one color sharing
/// a particle).
pub fn check_instance_coloring<const N: usize, K: Instance<N>>(
    items: &[K],
    color_starts: &[usize],
    particle_count: usize,
    stamp: &mut [u32],
) -> Result<(), SystemError> {
    check_coloring_over(items, color_starts, particle_count, stamp, |_| false)
}

/// [`check_instance_coloring`], where a particle `is_static` accepts may
/// be shared within a color (nobody writes it: the frame's kernels write
/// moving particles only); `|_| false` is the strict check.
pub(crate) fn check_coloring_over<const N: usize, K: Instance<N>>(
    items: &[K],
    color_starts: &[usize],
    particle_count: usize,
    stamp: &mut [u32],
    is_static: impl Fn(usize) -> bool,
) -> Result<(), SystemError> {
    check_starts(color_starts, items.len())?;
    let stamp = stamp
        .get_mut(..particle_count)
        .ok_or(SystemError::InvalidShape)?;
    stamp.fill(0);
    for (color, w) in color_starts.windows(2).enumerate() {
        let (Some(&begin), Some(&end)) = (w.first(), w.get(1)) else {
            return Err(SystemError::InvalidShape);
        };
        let mark = u32::try_from(color)
            .map_err(|_| SystemError::InvalidShape)?
            .saturating_add(1);
        let group = items.get(begin..end).ok_or(SystemError::InvalidShape)?;
        for (k, item) in group.iter().enumerate() {
            let constraint = begin.saturating_add(k);
            let p = item.particles();
            for (a, pa) in p.iter().enumerate() {
                if p.iter().skip(a.saturating_add(1)).any(|pb| pb == pa) {
                    return Err(SystemError::SameParticle { constraint });
                }
            }
            for q in p {
                let slot = usize::try_from(q)
                    .ok()
                    .and_then(|q| stamp.get_mut(q))
                    .ok_or(SystemError::IndexOutOfRange { constraint })?;
                // (A shared particle is rare: its inverse mass is read
                // only then.)
                if *slot == mark && !usize::try_from(q).is_ok_and(&is_static) {
                    return Err(SystemError::InvalidShape);
                }
                *slot = mark;
            }
        }
    }
    Ok(())
}

/// Color boundaries of a group of `len` instances: empty (only when
/// `len == 0`), or starting at 0, non-decreasing, ending at `len`, with
/// fewer than `u32::MAX` colors.
pub(crate) fn check_starts(color_starts: &[usize], len: usize) -> Result<(), SystemError> {
    if color_starts.is_empty() && len == 0 {
        return Ok(());
    }
    if color_starts.first() != Some(&0)
        || color_starts.last() != Some(&len)
        || color_starts.windows(2).any(|w| w.first() > w.get(1))
        || u32::try_from(color_starts.len()).is_err()
    {
        return Err(SystemError::InvalidShape);
    }
    Ok(())
}

/// Stable counting sort of links by color. `colors[k]` (each `< color_count`)
/// is link `k`'s color; writes `order` (length `colors.len()`: the original
/// link index at each colored position, links of one color in their
/// original order) and `color_starts` (length `color_count + 1`: color `c`
/// occupies colored positions `color_starts[c] .. color_starts[c + 1]`).
///
/// # Errors
///
/// [`SystemError::CapacityTooSmall`] when `order` or `color_starts` is too
/// short, [`SystemError::InvalidShape`] when a color is `≥ color_count` or
/// there are more than `u32::MAX` links. Nothing is written on error.
///
/// # Examples
///
/// ```
/// let colors = [0, 1, 0, 1, 2];
/// let (mut order, mut starts) = ([0; 5], [0; 4]);
/// xpbd::color_order(&colors, 3, &mut starts, &mut order).unwrap();
/// assert_eq!(order, [0, 2, 1, 3, 4]);
/// assert_eq!(starts, [0, 2, 4, 5]);
/// ```
pub fn color_order(
    colors: &[u32],
    color_count: u32,
    color_starts: &mut [usize],
    order: &mut [u32],
) -> Result<(), SystemError> {
    let n = colors.len();
    if u32::try_from(n).is_err() {
        return Err(SystemError::InvalidShape);
    }
    let colors_usize = usize::try_from(color_count).map_err(|_| SystemError::InvalidShape)?;
    let starts_needed = colors_usize.saturating_add(1);
    if color_starts.len() < starts_needed {
        return Err(SystemError::CapacityTooSmall {
            needed: starts_needed,
        });
    }
    if order.len() < n {
        return Err(SystemError::CapacityTooSmall { needed: n });
    }
    if colors.iter().any(|&c| c >= color_count) {
        return Err(SystemError::InvalidShape);
    }
    let starts = color_starts
        .get_mut(..starts_needed)
        .ok_or(SystemError::InvalidShape)?;
    starts.fill(0);
    // Count into starts[c + 1], then prefix-sum: starts[c] = first slot of c.
    for &c in colors {
        let slot = usize::try_from(c).map_or(0, |c| c.saturating_add(1));
        if let Some(s) = starts.get_mut(slot) {
            *s = s.saturating_add(1);
        }
    }
    let mut total = 0usize;
    for s in starts.iter_mut() {
        total = total.saturating_add(*s);
        *s = total;
    }
    // Place: starts[c] is used as the cursor of color c, which leaves it at
    // the end of c (= start of c + 1); shift back afterwards.
    for (k, &c) in colors.iter().enumerate() {
        let Ok(c) = usize::try_from(c) else { continue };
        if let Some(cursor) = starts.get_mut(c) {
            if let (Some(o), Ok(k)) = (order.get_mut(*cursor), u32::try_from(k)) {
                *o = k;
            }
            *cursor = cursor.saturating_add(1);
        }
    }
    for c in (1..starts_needed).rev() {
        let prev = starts.get(c.saturating_sub(1)).copied().unwrap_or(0);
        if let Some(s) = starts.get_mut(c) {
            *s = prev;
        }
    }
    if let Some(s) = starts.first_mut() {
        *s = 0;
    }
    Ok(())
}

/// Verifies that the colored link list `i[k]`, `j[k]` with boundaries
/// `color_starts` is proper: every index `< particle_count`, `i ≠ j`, the
/// boundaries ascend from 0 to the link count, and no particle appears twice
/// within one color. `stamp` is scratch (one `u32` per particle,
/// overwritten).
///
/// # Errors
///
/// [`SystemError::IndexOutOfRange`], [`SystemError::SameParticle`], or
/// [`SystemError::InvalidShape`] (bad boundaries, short scratch, or two
/// links of one color sharing a particle; the error names nothing then).
pub fn check_coloring(
    i: &[u32],
    j: &[u32],
    color_starts: &[usize],
    particle_count: usize,
    stamp: &mut [u32],
) -> Result<(), SystemError> {
    let n = i.len();
    if j.len() != n || color_starts.first() != Some(&0) || color_starts.last() != Some(&n) {
        return Err(SystemError::InvalidShape);
    }
    if color_starts.windows(2).any(|w| w.first() > w.get(1)) {
        return Err(SystemError::InvalidShape);
    }
    if u32::try_from(color_starts.len()).is_err() {
        return Err(SystemError::InvalidShape);
    }
    let stamp = stamp
        .get_mut(..particle_count)
        .ok_or(SystemError::InvalidShape)?;
    stamp.fill(0);
    for (color, w) in color_starts.windows(2).enumerate() {
        let (Some(&begin), Some(&end)) = (w.first(), w.get(1)) else {
            return Err(SystemError::InvalidShape);
        };
        let mark = u32::try_from(color)
            .map_err(|_| SystemError::InvalidShape)?
            .saturating_add(1);
        for k in begin..end {
            let (Some(&a), Some(&b)) = (i.get(k), j.get(k)) else {
                return Err(SystemError::InvalidShape);
            };
            if a == b {
                return Err(SystemError::SameParticle { constraint: k });
            }
            for p in [a, b] {
                let slot = usize::try_from(p)
                    .ok()
                    .and_then(|p| stamp.get_mut(p))
                    .ok_or(SystemError::IndexOutOfRange { constraint: k })?;
                if *slot == mark {
                    return Err(SystemError::InvalidShape);
                }
                *slot = mark;
            }
        }
    }
    Ok(())
}
