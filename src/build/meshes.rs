//! Links from any triangle or tet mesh: one link per distinct edge, the
//! edges found by sorting their keys in a caller scratch (no heap).
//! Positions first, as every builder.

use super::bends::sorted_edge_keys;
use super::volumes::{rest, rest_volume};
use crate::constraint::distance::{index, Link};
use crate::constraint::volume::Tet;
use crate::constraint::{check_particles, Invalid};
use crate::real::{finite_non_negative, Real};
use crate::SystemError;

/// The corner pairs of a triangle's edges.
const TRIANGLE_EDGES: [[usize; 2]; 3] = [[0, 1], [1, 2], [2, 0]];

/// The corner pairs of a tet's edges.
const TET_EDGES: [[usize; 2]; 6] = [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]];

/// The checks every mesh builder makes before it looks at edges, in this
/// order: [`SystemError::TooManyParticles`], [`SystemError::InvalidShape`]
/// (more than `u32::MAX` elements), [`SystemError::InvalidCompliance`]
/// (constraint 0), [`SystemError::IndexOutOfRange`] /
/// [`SystemError::SameParticle`] naming the first bad element,
/// [`SystemError::NonFinitePosition`] naming the first such particle.
fn check_mesh<T: Real, const N: usize>(
    positions: &[[T; 3]],
    elements: &[[u32; N]],
    compliance: T,
) -> Result<(), SystemError> {
    if u32::try_from(positions.len()).is_err() {
        return Err(SystemError::TooManyParticles);
    }
    if u32::try_from(elements.len()).is_err() {
        return Err(SystemError::InvalidShape);
    }
    if !finite_non_negative(compliance) {
        return Err(SystemError::InvalidCompliance { constraint: 0 });
    }
    for (constraint, element) in elements.iter().enumerate() {
        check_particles(element, positions).map_err(|e| match e {
            Invalid::SameParticle => SystemError::SameParticle { constraint },
            _ => SystemError::IndexOutOfRange { constraint },
        })?;
    }
    match positions
        .iter()
        .position(|p| !p.iter().all(|c| c.is_finite()))
    {
        Some(particle) => Err(SystemError::NonFinitePosition { particle }),
        None => Ok(()),
    }
}

/// Walks sorted edge keys ([`sorted_edge_keys`]): one link per distinct
/// `(min, max)` pair, in key order, rest length from `x` (valid indices,
/// finite positions), written to `out` when given; returns the count or
/// [`SystemError::InvalidRestLength`] naming the first coincident pair.
fn edge_links<T: Real>(
    keys: &[[u32; 3]],
    x: &[[T; 3]],
    compliance: T,
    mut out: Option<&mut [Link<T>]>,
) -> Result<usize, SystemError> {
    let mut count = 0usize;
    let mut previous = None;
    for &[lo, hi, _] in keys {
        if previous == Some([lo, hi]) {
            continue;
        }
        previous = Some([lo, hi]);
        let len = rest(x, index(lo), index(hi), count)?;
        if let Some(slot) = out.as_deref_mut().and_then(|o| o.get_mut(count)) {
            *slot = Link::new(lo, hi, len, compliance);
        }
        count = count.saturating_add(1);
    }
    Ok(count)
}

/// The links along the distinct edges of `elements`: the body of
/// [`links_for_triangles`] and [`links_for_tets`](super::links_for_tets).
fn mesh_links<T: Real, const N: usize>(
    positions: &[[T; 3]],
    elements: &[[u32; N]],
    edges: &[[usize; 2]],
    compliance: T,
    scratch: &mut [[u32; 3]],
    out: &mut [Link<T>],
) -> Result<usize, SystemError> {
    check_mesh(positions, elements, compliance)?;
    let keys = sorted_edge_keys(elements, edges, scratch)?;
    let needed = edge_links(keys, positions, compliance, None)?;
    if out.len() < needed {
        return Err(SystemError::CapacityTooSmall { needed });
    }
    edge_links(keys, positions, compliance, Some(out))
}

/// Builds one link per distinct edge of `triangles` (3 particle indices
/// into `positions`, m, each; any mesh: open or closed, any orientation,
/// edges shared by any number of triangles), rest length from the
/// positions, compliance `compliance` (m/N) for all, λ = 0. Link `(i, j)`
/// has `i < j`; the links come out sorted by `(i, j)`. Writes `out[..n]`
/// and returns `n` (at most `3·triangles.len()`). No allocation: `scratch`
/// holds the edge keys, `3·triangles.len()` entries (its contents after
/// are unspecified: the sorted keys `[i, j, triangle]`). A short `out`
/// fails with the exact count, so a first call can size it.
///
/// [`surface_links`](super::surface_links) is the scratch-free form for closed, consistently
/// oriented meshes (there every edge runs once each way); this one finds
/// the edges of any triangle list. A triangle of no area whose corners
/// are distinct still gives valid links (the bends of
/// [`bends_for_triangles`](super::bends_for_triangles) refuse it).
///
/// # Errors
///
/// In the order checked: [`SystemError::TooManyParticles`] past `u32`
/// indices; [`SystemError::InvalidShape`] for more than `u32::MAX`
/// triangles; [`SystemError::InvalidCompliance`] (`constraint: 0`) for a
/// NaN, infinite or negative α; [`SystemError::IndexOutOfRange`] /
/// [`SystemError::SameParticle`] naming the first triangle with an index ≥
/// the particle count or a repeated one;
/// [`SystemError::NonFinitePosition`] naming the first such particle (of
/// all of `positions`); [`SystemError::CapacityTooSmall`] with
/// `3·triangles.len()` for a short `scratch`;
/// [`SystemError::InvalidRestLength`] naming the first link (in output
/// order) whose particles coincide; [`SystemError::CapacityTooSmall`] with
/// the link count for a short `out`. `out` is untouched on error.
///
/// # Examples
///
/// ```
/// use xpbd::{links_for_triangles, Link};
/// // Two triangles sharing the edge 0–1: five distinct edges.
/// let x = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.5, 1.0, 0.0], [0.5, -1.0, 0.0]];
/// let mut scratch = [[0u32; 3]; 6];
/// let mut links = [Link::default(); 5];
/// assert_eq!(links_for_triangles(&x, &[[0, 1, 2], [1, 0, 3]], 0.0, &mut scratch, &mut links), Ok(5));
/// let pairs: Vec<_> = links.iter().map(|l| (l.i, l.j)).collect();
/// assert_eq!(pairs, [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3)]);
/// ```
pub fn links_for_triangles<T: Real>(
    positions: &[[T; 3]],
    triangles: &[[u32; 3]],
    compliance: T,
    scratch: &mut [[u32; 3]],
    out: &mut [Link<T>],
) -> Result<usize, SystemError> {
    mesh_links(
        positions,
        triangles,
        &TRIANGLE_EDGES,
        compliance,
        scratch,
        out,
    )
}

/// Builds one link per distinct edge of `tets` (4 particle indices into
/// `positions`, m, each), as [`links_for_triangles`] does for triangles:
/// `i < j`, sorted by `(i, j)`, rest length from the positions, compliance
/// `compliance` (m/N), λ = 0; at most `6·tets.len()` links; `scratch`
/// holds `6·tets.len()` edge keys. For a [`tet_block`](super::tet_block) these are the edges
/// of [`tet_block_links`](super::tet_block_links), in another order. A flat tet whose corners are
/// distinct still gives valid links ([`tets_for_mesh`] refuses it).
///
/// # Errors
///
/// As [`links_for_triangles`], naming tets: [`SystemError::TooManyParticles`],
/// [`SystemError::InvalidShape`], [`SystemError::InvalidCompliance`],
/// [`SystemError::IndexOutOfRange`] / [`SystemError::SameParticle`] (the
/// tet), [`SystemError::NonFinitePosition`],
/// [`SystemError::CapacityTooSmall`] with `6·tets.len()` (scratch),
/// [`SystemError::InvalidRestLength`] (the link),
/// [`SystemError::CapacityTooSmall`] with the link count (`out`). `out` is
/// untouched on error.
pub fn links_for_tets<T: Real>(
    positions: &[[T; 3]],
    tets: &[[u32; 4]],
    compliance: T,
    scratch: &mut [[u32; 3]],
    out: &mut [Link<T>],
) -> Result<usize, SystemError> {
    mesh_links(positions, tets, &TET_EDGES, compliance, scratch, out)
}

/// Builds one tet per entry of `tets` (4 particle indices into
/// `positions`, m, each), in order, keeping its particles as listed, with
/// its rest volume the signed [`tet_volume`](super::tet_volume) at `positions` (m³; negative
/// for a tet listed with the other orientation, which the constraint then
/// holds), compliance `compliance` (m⁶/J), λ = 0. Writes `out[..n]` and
/// returns `n = tets.len()`. A general tet mesh's [`tet_block`](super::tet_block); its links
/// are [`links_for_tets`](super::links_for_tets).
///
/// # Errors
///
/// In the order checked: [`SystemError::TooManyParticles`] past `u32`
/// indices; [`SystemError::InvalidShape`] for more than `u32::MAX` tets;
/// [`SystemError::InvalidCompliance`] (`constraint: 0`) for a NaN,
/// infinite or negative α; [`SystemError::IndexOutOfRange`] /
/// [`SystemError::SameParticle`] naming the first tet with an index ≥ the
/// particle count or a repeated one; [`SystemError::NonFinitePosition`]
/// naming the first such particle (of all of `positions`);
/// [`SystemError::InvalidRestValue`] naming the first tet whose volume is
/// zero (flat) or overflows; [`SystemError::CapacityTooSmall`] with
/// `tets.len()`. Nothing is written on error.
///
/// # Examples
///
/// ```
/// use xpbd::{tets_for_mesh, Tet};
/// let x = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
/// let mut tets = [Tet::default(); 1];
/// assert_eq!(tets_for_mesh(&x, &[[0, 1, 2, 3]], 1e-6, &mut tets), Ok(1));
/// assert_eq!(tets[0].rest_volume, 1.0 / 6.0);
/// ```
pub fn tets_for_mesh<T: Real>(
    positions: &[[T; 3]],
    tets: &[[u32; 4]],
    compliance: T,
    out: &mut [Tet<T>],
) -> Result<usize, SystemError> {
    check_mesh(positions, tets, compliance)?;
    for (constraint, &p) in tets.iter().enumerate() {
        rest_volume(positions, p, constraint)?;
    }
    let needed = tets.len();
    if out.len() < needed {
        return Err(SystemError::CapacityTooSmall { needed });
    }
    for (constraint, (&p, slot)) in tets.iter().zip(out.iter_mut()).enumerate() {
        *slot = Tet::new(p, rest_volume(positions, p, constraint)?, compliance);
    }
    Ok(needed)
}
