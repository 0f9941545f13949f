//! Builders for dihedral bends ([`Bend`]): one per interior edge of a cloth
//! grid ([`bends_for_cloth`]) or of any triangle list
//! ([`bends_for_triangles`]), written into caller slices without
//! allocating, all-or-nothing, rest angles from the positions.
//!
//! # The cloth triangulation
//!
//! [`cloth`](crate::cloth) numbers a `rows × cols` grid row-major
//! (particle `r·cols + c`). The bends assume each cell
//! `a = (r, c)`, `b = (r, c+1)`, `d = (r+1, c)`, `f = (r+1, c+1)` split along
//! the diagonal `a–f` (the first shear link of `cloth`) into the triangles
//! `(a, b, f)` and `(a, f, d)`. Every edge shared by two triangles gets one
//! bend, in this order:
//!
//! | edges | count | bend `[p0, p1, p2, p3]` |
//! |---|---|---|
//! | horizontal, rows `1 … rows−2` | `(rows−2)(cols−1)` | `[(r,c), (r,c+1), (r+1,c+1), (r−1,c)]` |
//! | vertical, columns `1 … cols−2` | `(rows−1)(cols−2)` | `[(r,c), (r+1,c), (r,c−1), (r+1,c+1)]` |
//! | diagonals, cells row-major | `(rows−1)(cols−1)` | `[a, f, d, b]` |
//!
//! Each bend's triangles `(p0, p1, p2)` and `(p1, p0, p3)` keep the
//! orientation of the grid's triangles, so for a grid laid out with x
//! along the columns and y along the rows every `n1` points to +z and a
//! positive angle folds the cloth towards +z.

use crate::constraint::bend::{dihedral, Bend};
use crate::constraint::distance::index;
use crate::real::{finite_non_negative, Real};
use crate::SystemError;

/// The rest angle of a builder's bend over `p` (valid indices), or
/// [`SystemError::Degenerate`] naming it (`constraint`) when a triangle has
/// no area or the edge no length.
fn rest_angle<T: Real>(
    positions: &[[T; 3]],
    p: [u32; 4],
    constraint: usize,
) -> Result<T, SystemError> {
    let [i0, i1, i2, i3] = p.map(index);
    let (Some(&x0), Some(&x1), Some(&x2), Some(&x3)) = (
        positions.get(i0),
        positions.get(i1),
        positions.get(i2),
        positions.get(i3),
    ) else {
        return Err(SystemError::InvalidShape);
    };
    dihedral(&[x0, x1, x2, x3])
        .map(|d| d.angle)
        .ok_or(SystemError::Degenerate { constraint })
}

/// The first particle with a NaN or infinite coordinate, as an error.
fn check_finite<T: Real>(positions: &[[T; 3]]) -> Result<(), SystemError> {
    match positions
        .iter()
        .position(|p| !p.iter().all(|c| c.is_finite()))
    {
        Some(particle) => Err(SystemError::NonFinitePosition { particle }),
        None => Ok(()),
    }
}

/// The number of bends [`bends_for_cloth`] writes for a `rows × cols` grid:
/// `(rows−2)(cols−1) + (rows−1)(cols−2) + (rows−1)(cols−1)`, every interior
/// edge of the triangulation (see the module documentation). 0 when
/// `rows < 2` or `cols < 2`; saturates at `usize::MAX` (no slice reaches it).
#[must_use]
pub fn bends_count_for_cloth(rows: usize, cols: usize) -> usize {
    if rows < 2 || cols < 2 {
        return 0;
    }
    let (r1, c1) = (rows.saturating_sub(1), cols.saturating_sub(1));
    let (r2, c2) = (rows.saturating_sub(2), cols.saturating_sub(2));
    r2.saturating_mul(c1)
        .saturating_add(r1.saturating_mul(c2))
        .saturating_add(r1.saturating_mul(c1))
}

/// The particles of cloth bend `k` (in [`bends_for_cloth`]'s order) for a
/// `rows × cols` grid with `rows, cols ≥ 2`, from `k` alone.
fn cloth_bend(k: usize, rows: usize, cols: usize) -> [usize; 4] {
    let at = |r: usize, c: usize| r.saturating_mul(cols).saturating_add(c);
    // `checked_div`/`checked_rem` cannot panic; a zero divisor only occurs
    // for an empty band, which `k` never reaches.
    let split = |k: usize, d: usize| (k.checked_div(d).unwrap_or(0), k.checked_rem(d).unwrap_or(0));
    let (r1, c1) = (rows.saturating_sub(1), cols.saturating_sub(1));
    let c2 = cols.saturating_sub(2);
    let horizontal = rows.saturating_sub(2).saturating_mul(c1);
    if k < horizontal {
        let (r, c) = split(k, c1);
        let r = r.saturating_add(1);
        return [
            at(r, c),
            at(r, c.saturating_add(1)),
            at(r.saturating_add(1), c.saturating_add(1)),
            at(r.saturating_sub(1), c),
        ];
    }
    let k = k.saturating_sub(horizontal);
    let vertical = r1.saturating_mul(c2);
    if k < vertical {
        let (r, c) = split(k, c2);
        let c = c.saturating_add(1);
        return [
            at(r, c),
            at(r.saturating_add(1), c),
            at(r, c.saturating_sub(1)),
            at(r.saturating_add(1), c.saturating_add(1)),
        ];
    }
    let (r, c) = split(k.saturating_sub(vertical), c1);
    let (rn, cn) = (r.saturating_add(1), c.saturating_add(1));
    [at(r, c), at(rn, cn), at(rn, c), at(r, cn)]
}

/// Builds one bend per interior edge of the triangulated `rows × cols`
/// cloth grid of [`cloth`](crate::cloth) (particle `r·cols + c`; the
/// triangulation, the order and the orientation are in the module
/// documentation), rest angles from `positions` (m), compliance α
/// (rad²/J) for all, λ = 0. Writes `out[..n]` and returns
/// `n =` [`bends_count_for_cloth`]`(rows, cols)`.
///
/// # Errors
///
/// In the order checked: [`SystemError::InvalidShape`] unless `rows ≥ 2`,
/// `cols ≥ 2` and `positions.len() == rows·cols`;
/// [`SystemError::TooManyParticles`]; [`SystemError::InvalidCompliance`]
/// (`constraint: 0`) for a NaN, infinite or negative α;
/// [`SystemError::CapacityTooSmall`] with the bend count;
/// [`SystemError::NonFinitePosition`] naming the first such particle;
/// [`SystemError::Degenerate`] naming the first bend whose triangles have
/// no area. Nothing is written on error.
///
/// # Examples
///
/// ```
/// use xpbd::{bends_count_for_cloth, bends_for_cloth, Bend};
/// // A flat 3 × 3 grid, 0.1 m spacing: 8 triangles, 8 interior edges.
/// let x: Vec<[f64; 3]> = (0..9).map(|k| [0.1 * (k % 3) as f64, 0.1 * (k / 3) as f64, 0.0]).collect();
/// let mut bends = [Bend::default(); 8];
/// assert_eq!(bends_count_for_cloth(3, 3), 8);
/// assert_eq!(bends_for_cloth(&x, 3, 3, 1e-3, &mut bends), Ok(8));
/// assert!(bends.iter().all(|b| b.rest_angle.abs() < 1e-15));
/// ```
pub fn bends_for_cloth<T: Real>(
    positions: &[[T; 3]],
    rows: usize,
    cols: usize,
    compliance: T,
    out: &mut [Bend<T>],
) -> Result<usize, SystemError> {
    if rows < 2 || cols < 2 || rows.checked_mul(cols) != Some(positions.len()) {
        return Err(SystemError::InvalidShape);
    }
    if u32::try_from(positions.len()).is_err() {
        return Err(SystemError::TooManyParticles);
    }
    if !finite_non_negative(compliance) {
        return Err(SystemError::InvalidCompliance { constraint: 0 });
    }
    let needed = bends_count_for_cloth(rows, cols);
    if out.len() < needed {
        return Err(SystemError::CapacityTooSmall { needed });
    }
    check_finite(positions)?;
    let particles = |k: usize| cloth_bend(k, rows, cols).map(|i| u32::try_from(i).unwrap_or(0));
    // First pass: every rest angle, without writing.
    for k in 0..needed {
        rest_angle(positions, particles(k), k)?;
    }
    for (k, slot) in out.iter_mut().take(needed).enumerate() {
        let p = particles(k);
        *slot = Bend::new(p, rest_angle(positions, p, k)?, compliance);
    }
    Ok(needed)
}

/// Builds one bend per edge shared by two triangles of `triangles`
/// (particle indices into `positions`, m), rest angles from the positions,
/// compliance α (rad²/J) for all, λ = 0. Writes `out[..n]` and returns `n`.
/// No allocation: `scratch` holds the edge keys (3 per triangle).
///
/// For an edge first met, in triangle order, as `u → v` in triangle
/// `(u, v, s)` and found again in triangle `(…, z)`, the bend is
/// `[u, v, s, z]`: its `n1` is the normal of the earlier triangle as
/// listed, so for a consistently oriented mesh a positive angle folds
/// towards the mesh normal. The triangles' orientations need not agree
/// (the bend measures its own angle). Bends come out sorted by edge
/// `(min, max)` index pair; boundary edges (one triangle) get none.
///
/// Policies: an edge of three or more triangles (non-manifold) is
/// refused ([`SystemError::InvalidShape`]); so is a triangle listed twice
/// (two triangles sharing an edge and their third particle).
///
/// `scratch` needs `3·triangles.len()` entries; its contents afterwards are
/// unspecified (the sorted edge keys `[min, max, triangle]`). The bend
/// count is at most `3·triangles.len()/2`; a call with a short `out` fails
/// with the exact count, so a caller can size `out` with a first call.
///
/// # Errors
///
/// In the order checked: [`SystemError::TooManyParticles`];
/// [`SystemError::InvalidShape`] for more than `u32::MAX` triangles;
/// [`SystemError::InvalidCompliance`] (`constraint: 0`);
/// [`SystemError::IndexOutOfRange`] / [`SystemError::SameParticle`] naming
/// the first triangle with an index ≥ the particle count or a repeated
/// index; [`SystemError::NonFinitePosition`];
/// [`SystemError::CapacityTooSmall`] with `3·triangles.len()` when
/// `scratch` is short; [`SystemError::InvalidShape`] for a non-manifold
/// edge or a repeated triangle; [`SystemError::Degenerate`] naming the first
/// bend (in output order) with a triangle of no area;
/// [`SystemError::CapacityTooSmall`] with the bend count when `out` is
/// short. `out` is untouched on error.
///
/// # Examples
///
/// ```
/// use xpbd::{bends_for_triangles, Bend};
/// // Two triangles folded 90° along the edge 0–1.
/// let x = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.5, 1.0, 0.0], [0.5, 0.0, 1.0]];
/// let triangles = [[0, 1, 2], [1, 0, 3]];
/// let mut scratch = [[0u32; 3]; 6];
/// let mut bends = [Bend::default(); 1];
/// assert_eq!(bends_for_triangles(&x, &triangles, 0.0, &mut scratch, &mut bends), Ok(1));
/// assert_eq!(bends[0].particles, [0, 1, 2, 3]);
/// assert!((bends[0].rest_angle - std::f64::consts::FRAC_PI_2).abs() < 1e-15);
/// ```
pub fn bends_for_triangles<T: Real>(
    positions: &[[T; 3]],
    triangles: &[[u32; 3]],
    compliance: T,
    scratch: &mut [[u32; 3]],
    out: &mut [Bend<T>],
) -> Result<usize, SystemError> {
    if u32::try_from(positions.len()).is_err() {
        return Err(SystemError::TooManyParticles);
    }
    if u32::try_from(triangles.len()).is_err() {
        return Err(SystemError::InvalidShape);
    }
    if !finite_non_negative(compliance) {
        return Err(SystemError::InvalidCompliance { constraint: 0 });
    }
    for (constraint, tri) in triangles.iter().enumerate() {
        if tri.iter().any(|&i| positions.get(index(i)).is_none()) {
            return Err(SystemError::IndexOutOfRange { constraint });
        }
        let [a, b, c] = *tri;
        if a == b || b == c || a == c {
            return Err(SystemError::SameParticle { constraint });
        }
    }
    check_finite(positions)?;
    let needed = triangles.len().saturating_mul(3);
    let Some(keys) = scratch.get_mut(..needed) else {
        return Err(SystemError::CapacityTooSmall { needed });
    };
    for (t, (tri, slots)) in triangles.iter().zip(keys.chunks_exact_mut(3)).enumerate() {
        let t = u32::try_from(t).unwrap_or(u32::MAX);
        let [a, b, c] = *tri;
        for (slot, (u, v)) in slots.iter_mut().zip([(a, b), (b, c), (c, a)]) {
            *slot = [u.min(v), u.max(v), t];
        }
    }
    heapsort(keys);
    let keys = &*keys;
    let count = shared_edges(keys, triangles, positions, |_, _, _| {})?;
    if out.len() < count {
        return Err(SystemError::CapacityTooSmall { needed: count });
    }
    shared_edges(keys, triangles, positions, |k, p, rest| {
        if let Some(slot) = out.get_mut(k) {
            *slot = Bend::new(p, rest, compliance);
        }
    })
}

/// Walks the sorted edge keys: for every edge of exactly two triangles,
/// calls `emit(bend index, particles, rest angle)`; returns the bend count.
/// Refuses non-manifold edges, repeated triangles and degenerate bends.
fn shared_edges<T: Real>(
    keys: &[[u32; 3]],
    triangles: &[[u32; 3]],
    positions: &[[T; 3]],
    mut emit: impl FnMut(usize, [u32; 4], T),
) -> Result<usize, SystemError> {
    let mut count = 0usize;
    let mut rest = keys;
    while let Some((&[lo, hi, t1], tail)) = rest.split_first() {
        let run = tail
            .iter()
            .take_while(|&&[l, h, _]| l == lo && h == hi)
            .count();
        rest = tail.get(run..).unwrap_or(&[]);
        match (run, tail.first()) {
            (0, _) => continue,
            (1, Some(&[_, _, t2])) => {
                let p = wings(triangles, lo, hi, t1, t2).ok_or(SystemError::InvalidShape)?;
                let angle = rest_angle(positions, p, count)?;
                emit(count, p, angle);
                count = count.saturating_add(1);
            }
            _ => return Err(SystemError::InvalidShape),
        }
    }
    Ok(count)
}

/// The bend `[u, v, s, z]` over the edge `{lo, hi}` of triangles `t1`
/// (where it runs `u → v`, third particle `s`) and `t2` (third particle
/// `z`); `None` when `s = z` (the same triangle twice).
fn wings(triangles: &[[u32; 3]], lo: u32, hi: u32, t1: u32, t2: u32) -> Option<[u32; 4]> {
    let [a, b, c] = *triangles.get(index(t1))?;
    let is_edge = |u: u32, v: u32| (u == lo && v == hi) || (u == hi && v == lo);
    let [u, v, s] = [[a, b, c], [b, c, a], [c, a, b]]
        .into_iter()
        .find(|&[u, v, _]| is_edge(u, v))?;
    let z = triangles
        .get(index(t2))?
        .iter()
        .copied()
        .find(|&q| q != lo && q != hi)?;
    (z != s).then_some([u, v, s, z])
}

/// The edge keys `[min, max, element]` of every element's `edges` (pairs
/// of corner positions within an element), element by element, written to
/// the front of `scratch` and sorted ascending ([`heapsort`]): equal edges
/// end up next to each other. [`SystemError::CapacityTooSmall`] with
/// `elements.len()·edges.len()` when `scratch` is shorter (nothing
/// written). The mesh builders' one edge finder (no allocation).
pub(super) fn sorted_edge_keys<'s, const N: usize>(
    elements: &[[u32; N]],
    edges: &[[usize; 2]],
    scratch: &'s mut [[u32; 3]],
) -> Result<&'s [[u32; 3]], SystemError> {
    let needed = elements.len().saturating_mul(edges.len());
    let Some(keys) = scratch.get_mut(..needed) else {
        return Err(SystemError::CapacityTooSmall { needed });
    };
    let all = elements.iter().enumerate().flat_map(|(e, element)| {
        let e = u32::try_from(e).unwrap_or(u32::MAX);
        edges.iter().map(move |&[p, q]| {
            let u = element.get(p).copied().unwrap_or_default();
            let v = element.get(q).copied().unwrap_or_default();
            [u.min(v), u.max(v), e]
        })
    });
    for (slot, key) in keys.iter_mut().zip(all) {
        *slot = key;
    }
    heapsort(keys);
    Ok(keys)
}

/// Sorts edge keys ascending (lexicographic), in place, without
/// allocating: heapsort (O(n log n), not stable; keys are unique anyway).
fn heapsort(v: &mut [[u32; 3]]) {
    let n = v.len();
    let mut start = n / 2;
    while start > 0 {
        start -= 1;
        sift_down(v, start, n);
    }
    let mut end = n;
    while end > 1 {
        end -= 1;
        swap(v, 0, end);
        sift_down(v, 0, end);
    }
}

/// Restores the max-heap below `root` within `v[..end]`.
fn sift_down(v: &mut [[u32; 3]], mut root: usize, end: usize) {
    let at = |v: &[[u32; 3]], i: usize| v.get(i).copied().unwrap_or_default();
    loop {
        let child = root.saturating_mul(2).saturating_add(1);
        if child >= end {
            return;
        }
        let right = child.saturating_add(1);
        let big = if right < end && at(v, child) < at(v, right) {
            right
        } else {
            child
        };
        if at(v, root) >= at(v, big) {
            return;
        }
        swap(v, root, big);
        root = big;
    }
}

/// Exchanges `v[i]` and `v[j]` (nothing when either is out of range).
fn swap(v: &mut [[u32; 3]], i: usize, j: usize) {
    if let (Some(&a), Some(&b)) = (v.get(i), v.get(j)) {
        if let Some(x) = v.get_mut(i) {
            *x = b;
        }
        if let Some(x) = v.get_mut(j) {
            *x = a;
        }
    }
}
