//! Builders for volumes: tet blocks (particles, tets, edge links), rest
//! volumes, closed-mesh volume constraints, geodesic spheres and their
//! surface links; and the volume measures the constraints use. Everything
//! is written into caller slices, all-or-nothing: on error nothing is
//! written.

use crate::constraint::distance::{index, Link};
use crate::constraint::pressure::{enclosed, MeshVolume};
use crate::constraint::volume::{six_volume, Tet};
use crate::constraint::{check_particles, Invalid};
use crate::math::length_squared;
use crate::real::{finite_non_negative, finite_positive, Real};
use crate::SystemError;

/// `k` as `T` (exact for `k < 2^24` in f32 and `k < 2^53` in f64; the
/// builders' indices stay below `2^32`).
#[inline]
fn real<T: Real>(k: usize) -> T {
    T::from_f64(u32::try_from(k).map_or(f64::MAX, f64::from))
}

/// The particle and tet counts of [`tet_block`]:
/// `((nx + 1)(ny + 1)(nz + 1), 6·nx·ny·nz)`; `None` when a dimension is 0
/// or a count overflows `usize`.
#[must_use]
pub fn tet_block_counts(nx: usize, ny: usize, nz: usize) -> Option<(usize, usize)> {
    if nx == 0 || ny == 0 || nz == 0 {
        return None;
    }
    let particles = nx
        .checked_add(1)?
        .checked_mul(ny.checked_add(1)?)?
        .checked_mul(nz.checked_add(1)?)?;
    let tets = nx.checked_mul(ny)?.checked_mul(nz)?.checked_mul(6)?;
    Some((particles, tets))
}

/// The link count of [`tet_block_links`]: one link per pair of grid
/// points `p`, `p + d` with `d ∈ {0, 1}³ \ {0}` (the 3 axis edges, 3 face
/// diagonals and the body diagonal of every cube, shared ones once);
/// `None` as for [`tet_block_counts`].
#[must_use]
pub fn tet_block_link_count(nx: usize, ny: usize, nz: usize) -> Option<usize> {
    tet_block_counts(nx, ny, nz)?;
    let mut total: usize = 0;
    for d in DIRECTIONS {
        let mut n: usize = 1;
        for (&da, &na) in d.iter().zip(&[nx, ny, nz]) {
            n = n.checked_mul(na.checked_add(1)?.checked_sub(da)?)?;
        }
        total = total.checked_add(n)?;
    }
    Some(total)
}

/// The edge directions of a block's tets, in the order [`tet_block_links`]
/// writes them at each grid point.
const DIRECTIONS: [[usize; 3]; 7] = [
    [1, 0, 0],
    [0, 1, 0],
    [0, 0, 1],
    [1, 1, 0],
    [1, 0, 1],
    [0, 1, 1],
    [1, 1, 1],
];

/// The six tets of a cube (Freudenthal–Kuhn): for each order `(a, b, c)`
/// of the axes the path corner 000 → `+e_a` → `+e_b` → 111, as bit masks
/// (x = 1, y = 2, z = 4). The first three orders are even permutations
/// (positive volume as listed); the last three are odd, listed with their
/// second and third corners swapped, so all six are positive.
const CUBE_TETS: [[usize; 4]; 6] = [
    [0, 1, 3, 7], // x, y, z
    [0, 2, 6, 7], // y, z, x
    [0, 4, 5, 7], // z, x, y
    [0, 5, 1, 7], // x, z, y (swapped)
    [0, 3, 2, 7], // y, x, z (swapped)
    [0, 6, 4, 7], // z, y, x (swapped)
];

/// A box of tets for [`tet_block`], its grid point indices and positions.
struct Block<T> {
    n: [usize; 3],
    spacing: T,
    origin: [T; 3],
}

impl<T: Real> Block<T> {
    /// The particle index of grid point `(i, j, k)`:
    /// `i + (nx + 1)(j + (ny + 1) k)` (fits: the count was checked).
    fn id(&self, p: [usize; 3]) -> usize {
        let [nx, ny, _] = self.n;
        let [i, j, k] = p;
        i.wrapping_add(
            nx.wrapping_add(1)
                .wrapping_mul(j.wrapping_add(ny.wrapping_add(1).wrapping_mul(k))),
        )
    }

    /// The grid point of particle `id` (the inverse of [`Block::id`]).
    fn point(&self, id: usize) -> [usize; 3] {
        let [nx, ny, _] = self.n;
        let (sx, sy) = (nx.wrapping_add(1), ny.wrapping_add(1));
        let i = id.checked_rem(sx).unwrap_or(0);
        let rest = id.checked_div(sx).unwrap_or(0);
        [
            i,
            rest.checked_rem(sy).unwrap_or(0),
            rest.checked_div(sy).unwrap_or(0),
        ]
    }

    /// `origin + spacing·(i, j, k)` (m), coordinate by coordinate.
    fn position(&self, p: [usize; 3]) -> [T; 3] {
        let mut x = self.origin;
        for (x, &i) in x.iter_mut().zip(&p) {
            *x = *x + self.spacing * real::<T>(i);
        }
        x
    }

    /// The particles of tet `t` (cube `t / 6` in x-fastest order, then its
    /// `t % 6`-th tet of [`CUBE_TETS`]).
    fn tet(&self, t: usize) -> [usize; 4] {
        let [nx, ny, _] = self.n;
        let cube = t / 6;
        let which = t % 6;
        // Checked forms (nx, ny ≥ 1 here): no division-by-zero panic path.
        let i = cube.checked_rem(nx).unwrap_or(0);
        let row = cube.checked_div(nx).unwrap_or(0);
        let j = row.checked_rem(ny).unwrap_or(0);
        let k = row.checked_div(ny).unwrap_or(0);
        let corners = CUBE_TETS.get(which).copied().unwrap_or([0; 4]);
        corners.map(|m| {
            self.id([
                i.wrapping_add(m & 1),
                j.wrapping_add((m >> 1) & 1),
                k.wrapping_add((m >> 2) & 1),
            ])
        })
    }
}

/// Builds a box-shaped block of `nx × ny × nz` cubes of side `spacing`
/// (m) from `origin` (its minimum corner, m): `(nx + 1)(ny + 1)(nz + 1)`
/// particles at `origin + spacing·(i, j, k)`, index `i + (nx + 1)(j +
/// (ny + 1) k)`, and **6 tets per cube** (the Freudenthal–Kuhn split along
/// the cube's main diagonal, the same in every cube, so neighbouring cubes
/// share their face diagonals), each with positive volume and its rest
/// volume computed from the positions, compliance `compliance` (m⁶/J),
/// λ = 0. Writes `positions[..particles]` and `tets[..tets]` and returns
/// `(particles, tets)` ([`tet_block_counts`]). The tets alone resist only
/// volume change; add [`tet_block_links`] for shape.
///
/// # Errors
///
/// In this order: [`SystemError::InvalidShape`] for a zero dimension or a
/// count overflow, [`SystemError::TooManyParticles`] past `u32` indices,
/// [`SystemError::InvalidShape`] for a spacing that is not finite and
/// positive, [`SystemError::InvalidCompliance`] (constraint 0),
/// [`SystemError::CapacityTooSmall`] with the particle count, then with
/// the tet count, [`SystemError::NonFinitePosition`] for the first
/// particle whose position is not finite (an origin or block too large),
/// [`SystemError::InvalidRestValue`] for the first tet whose volume
/// rounds to zero or overflows (a spacing too small for the origin).
/// Nothing is written on error.
#[allow(clippy::too_many_arguments)]
pub fn tet_block<T: Real>(
    nx: usize,
    ny: usize,
    nz: usize,
    spacing: T,
    origin: [T; 3],
    positions: &mut [[T; 3]],
    tets: &mut [Tet<T>],
    compliance: T,
) -> Result<(usize, usize), SystemError> {
    let (particles, count) = tet_block_counts(nx, ny, nz).ok_or(SystemError::InvalidShape)?;
    if u32::try_from(particles).is_err() {
        return Err(SystemError::TooManyParticles);
    }
    if !finite_positive(spacing) {
        return Err(SystemError::InvalidShape);
    }
    if !finite_non_negative(compliance) {
        return Err(SystemError::InvalidCompliance { constraint: 0 });
    }
    if positions.len() < particles {
        return Err(SystemError::CapacityTooSmall { needed: particles });
    }
    if tets.len() < count {
        return Err(SystemError::CapacityTooSmall { needed: count });
    }
    let block = Block {
        n: [nx, ny, nz],
        spacing,
        origin,
    };
    for particle in 0..particles {
        if !block
            .position(block.point(particle))
            .iter()
            .all(|c| c.is_finite())
        {
            return Err(SystemError::NonFinitePosition { particle });
        }
    }
    let volume = |t: usize| {
        let p = block.tet(t).map(|id| block.position(block.point(id)));
        six_volume(&p)
    };
    for constraint in 0..count {
        let six_v = volume(constraint);
        if !finite_positive(six_v) || !finite_positive(six_v / T::from_f64(6.0)) {
            return Err(SystemError::InvalidRestValue { constraint });
        }
    }
    for (id, slot) in positions.iter_mut().take(particles).enumerate() {
        *slot = block.position(block.point(id));
    }
    for (t, slot) in tets.iter_mut().take(count).enumerate() {
        let ids = block.tet(t).map(|id| u32::try_from(id).unwrap_or(u32::MAX));
        *slot = Tet::new(ids, volume(t) / T::from_f64(6.0), compliance);
    }
    Ok((particles, count))
}

/// The rest length `|x_j − x_i|` of a builder's link.
pub(super) fn rest<T: Real>(
    x: &[[T; 3]],
    i: usize,
    j: usize,
    constraint: usize,
) -> Result<T, SystemError> {
    let (Some(xi), Some(xj)) = (x.get(i), x.get(j)) else {
        return Err(SystemError::InvalidShape);
    };
    for (particle, p) in [(i, xi), (j, xj)] {
        if !p.iter().all(|c| c.is_finite()) {
            return Err(SystemError::NonFinitePosition { particle });
        }
    }
    let len2 = length_squared(xi, xj);
    let len = len2.sqrt();
    if !len.is_finite() || len <= T::ZERO || len2 < T::MIN_POSITIVE {
        return Err(SystemError::InvalidRestLength { constraint });
    }
    Ok(len)
}

/// The links of a block's tet edges: for every grid point `p` of a
/// [`tet_block`] with dimensions `nx, ny, nz` (in particle order) and each
/// direction `d` of `(1,0,0), (0,1,0), (0,0,1), (1,1,0), (1,0,1),
/// (0,1,1), (1,1,1)` with `p + d` in the block, the link `(p, p + d)` with
/// its rest length from `positions` and compliance `compliance` (m/N).
/// These are exactly the edges of the block's tets, each once. Writes
/// `out[..n]` and returns `n` ([`tet_block_link_count`]).
///
/// # Errors
///
/// [`SystemError::InvalidShape`] for a zero dimension, an overflow or a
/// `positions` length other than the block's particle count,
/// [`SystemError::InvalidCompliance`] (constraint 0),
/// [`SystemError::CapacityTooSmall`], [`SystemError::NonFinitePosition`],
/// [`SystemError::InvalidRestLength`] naming the link. Nothing is written
/// on error.
pub fn tet_block_links<T: Real>(
    positions: &[[T; 3]],
    nx: usize,
    ny: usize,
    nz: usize,
    compliance: T,
    out: &mut [Link<T>],
) -> Result<usize, SystemError> {
    let (particles, _) = tet_block_counts(nx, ny, nz).ok_or(SystemError::InvalidShape)?;
    let needed = tet_block_link_count(nx, ny, nz).ok_or(SystemError::InvalidShape)?;
    if positions.len() != particles || u32::try_from(particles).is_err() {
        return Err(SystemError::InvalidShape);
    }
    if !finite_non_negative(compliance) {
        return Err(SystemError::InvalidCompliance { constraint: 0 });
    }
    if out.len() < needed {
        return Err(SystemError::CapacityTooSmall { needed });
    }
    let block = Block {
        n: [nx, ny, nz],
        spacing: T::ONE,
        origin: [T::ZERO; 3],
    };
    let pairs = (0..particles).flat_map(|id| {
        let p = block.point(id);
        let block = &block;
        DIRECTIONS.iter().filter_map(move |d| {
            let mut q = p;
            for ((q, d), n) in q.iter_mut().zip(d).zip(&block.n) {
                *q = q.wrapping_add(*d);
                if *q > *n {
                    return None;
                }
            }
            Some((id, block.id(q)))
        })
    });
    for (constraint, (i, j)) in pairs.clone().enumerate() {
        rest(positions, i, j, constraint)?;
    }
    for (constraint, ((i, j), slot)) in pairs.zip(out.iter_mut()).enumerate() {
        let len = rest(positions, i, j, constraint)?;
        let (Ok(i), Ok(j)) = (u32::try_from(i), u32::try_from(j)) else {
            return Err(SystemError::TooManyParticles);
        };
        *slot = Link::new(i, j, len, compliance);
    }
    Ok(needed)
}

/// The signed volume `V = ((x1 − x0) × (x2 − x0)) · (x3 − x0) / 6` (m³) of
/// the tet over `particles` at `x`, with the solver's operations; `None`
/// for an index out of range or a non-finite position.
#[must_use]
pub fn tet_volume<T: Real>(x: &[[T; 3]], particles: [u32; 4]) -> Option<T> {
    let mut p = [[T::ZERO; 3]; 4];
    for (pk, &k) in p.iter_mut().zip(&particles) {
        *pk = *x.get(index(k))?;
        if !pk.iter().all(|c| c.is_finite()) {
            return None;
        }
    }
    Some(six_volume(&p) / T::from_f64(6.0))
}

/// Sets every tet's rest volume to its volume at `x` ([`tet_volume`]),
/// keeping its particles, compliance and λ.
///
/// # Errors
///
/// The first failing tet, checked in order: [`SystemError::IndexOutOfRange`],
/// [`SystemError::SameParticle`] (naming the tet),
/// [`SystemError::NonFinitePosition`] (naming the particle),
/// [`SystemError::InvalidRestValue`] for a volume that is zero (a flat or
/// collapsed tet) or whose six-fold is not finite. Nothing is written on
/// error.
pub fn tet_rest_volumes<T: Real>(x: &[[T; 3]], tets: &mut [Tet<T>]) -> Result<(), SystemError> {
    let volume = |constraint: usize, t: &Tet<T>| -> Result<T, SystemError> {
        check_particles(&t.particles, x).map_err(|e| match e {
            Invalid::SameParticle => SystemError::SameParticle { constraint },
            _ => SystemError::IndexOutOfRange { constraint },
        })?;
        for &k in &t.particles {
            let particle = index(k);
            if !x
                .get(particle)
                .is_some_and(|p| p.iter().all(|c| c.is_finite()))
            {
                return Err(SystemError::NonFinitePosition { particle });
            }
        }
        rest_volume(x, t.particles, constraint)
    };
    for (constraint, t) in tets.iter().enumerate() {
        volume(constraint, t)?;
    }
    for (constraint, t) in tets.iter_mut().enumerate() {
        t.rest_volume = volume(constraint, t)?;
    }
    Ok(())
}

/// The rest volume of a builder's tet over `particles` (valid indices,
/// finite positions): its [`tet_volume`] at `x`, or
/// [`SystemError::InvalidRestValue`] naming it (`constraint`) for a volume
/// that is zero (a flat or collapsed tet) or whose six-fold is not finite.
pub(super) fn rest_volume<T: Real>(
    x: &[[T; 3]],
    particles: [u32; 4],
    constraint: usize,
) -> Result<T, SystemError> {
    let v = tet_volume(x, particles).unwrap_or(T::ZERO);
    if v == T::ZERO || !v.is_finite() || !(v * T::from_f64(6.0)).is_finite() {
        return Err(SystemError::InvalidRestValue { constraint });
    }
    Ok(v)
}

/// The enclosed volume `V = Σ (x_a − r)·((x_b − r) × (x_c − r)) / 6` (m³)
/// of closed, counter-clockwise (seen from outside) `triangles` at `x`,
/// `r` the first corner: the value [`MeshVolume`] constrains, with the
/// solver's operations; `None` for an empty list, an index out of range or
/// a non-finite position.
#[must_use]
pub fn enclosed_volume<T: Real>(x: &[[T; 3]], triangles: &[[u32; 3]]) -> Option<T> {
    enclosed(triangles, x)
}

/// Where [`mesh_volume`] writes a mesh's particle list (the mesh's
/// distinct particles once each, in the order they first appear in its
/// triangles): `particles[first ..]`, finding them with marks in `scratch`
/// (the mesh group's scratch: its contents after are unspecified).
#[derive(Debug)]
pub struct MeshParticles<'a, T> {
    /// The group's particle array (particle indices); the list is written
    /// from index `first`.
    pub particles: &'a mut [u32],
    /// Index in `particles` of the list's first entry (the next mesh's
    /// list can start at `first + particle_count`).
    pub first: u32,
    /// Scratch for the marks, at least one entry per particle of `x`.
    pub scratch: &'a mut [[T; 3]],
}

/// The distinct particles of `tris` in first-appearance order, counted
/// and, with `out`, written to it, marking them in `marks`; `None` for an
/// index naming no mark or a short `out`.
fn distinct<T: Real>(
    tris: &[[u32; 3]],
    marks: &mut [[T; 3]],
    mut out: Option<&mut [u32]>,
) -> Option<usize> {
    let seen = [T::ONE, T::ZERO, T::ZERO];
    for &k in tris.as_flattened() {
        *marks.get_mut(index(k))? = [T::ZERO; 3];
    }
    let mut m = 0usize;
    for &k in tris.as_flattened() {
        let e = marks.get_mut(index(k))?;
        if *e != seen {
            *e = seen;
            if let Some(o) = out.as_deref_mut() {
                *o.get_mut(m)? = k;
            }
            m = m.saturating_add(1);
        }
    }
    Some(m)
}

/// A closed-mesh volume constraint over `triangles[first .. first + count]`
/// with its rest volume V₀ the mesh's [`enclosed_volume`] at `x`, pressure
/// factor `pressure` (the target volume is `pressure·V₀`) and compliance
/// `compliance` (m³/Pa), λ = 0; its particle list written into
/// `list.particles` from `list.first` (O(triangles); no allocation).
///
/// # Errors
///
/// In this order: [`SystemError::InvalidShape`] when the range is not
/// inside `triangles` or holds fewer than 4 triangles,
/// [`SystemError::IndexOutOfRange`] / [`SystemError::SameParticle`]
/// (constraint 0: the mesh built) for a triangle naming no particle of `x`
/// or one twice, [`SystemError::NonFinitePosition`],
/// [`SystemError::InvalidRestValue`] (constraint 0) for a volume that is not
/// finite and positive (a clockwise mesh has a negative one) or a pressure
/// factor that is not finite and positive (or `pressure·V₀` overflows),
/// [`SystemError::InvalidCompliance`] (constraint 0),
/// [`SystemError::CapacityTooSmall`] for a scratch shorter than `x` or a
/// particle array shorter than `first` + the mesh's particle count (naming
/// the length needed). On error no particle entry is written (the scratch
/// may be).
pub fn mesh_volume<T: Real>(
    x: &[[T; 3]],
    triangles: &[[u32; 3]],
    first: u32,
    count: u32,
    pressure: T,
    compliance: T,
    list: MeshParticles<'_, T>,
) -> Result<MeshVolume<T>, SystemError> {
    let mut mesh = MeshVolume::new(
        [first, count],
        [list.first, 0],
        T::ONE,
        pressure,
        compliance,
    );
    let tris = mesh.topology(triangles, x).map_err(|e| match e {
        Invalid::IndexOutOfRange => SystemError::IndexOutOfRange { constraint: 0 },
        Invalid::SameParticle => SystemError::SameParticle { constraint: 0 },
        _ => SystemError::InvalidShape,
    })?;
    if let Some(particle) = tris
        .iter()
        .flatten()
        .map(|&k| index(k))
        .find(|&k| !x.get(k).is_some_and(|p| p.iter().all(|c| c.is_finite())))
    {
        return Err(SystemError::NonFinitePosition { particle });
    }
    let v = enclosed(tris, x).unwrap_or(T::ZERO);
    if !finite_positive(v) || !finite_positive(pressure) || !(pressure * v).is_finite() {
        return Err(SystemError::InvalidRestValue { constraint: 0 });
    }
    if !finite_non_negative(compliance) {
        return Err(SystemError::InvalidCompliance { constraint: 0 });
    }
    let needed = SystemError::CapacityTooSmall { needed: x.len() };
    if list.scratch.len() < x.len() {
        return Err(needed);
    }
    let m = distinct(tris, list.scratch, None).ok_or(needed)?;
    let start = index(list.first);
    let end = start.saturating_add(m);
    let out = list
        .particles
        .get_mut(start..end)
        .ok_or(SystemError::CapacityTooSmall { needed: end })?;
    distinct(tris, list.scratch, Some(out)).ok_or(needed)?;
    mesh.particle_count = u32::try_from(m).map_err(|_| SystemError::TooManyParticles)?;
    mesh.rest_volume = v;
    Ok(mesh)
}

/// The particle and triangle counts of [`icosphere`]: `(10f² + 2, 20f²)`
/// for frequency `f`; `None` for `f = 0` or an overflow.
#[must_use]
pub fn icosphere_counts(frequency: usize) -> Option<(usize, usize)> {
    if frequency == 0 {
        return None;
    }
    let f2 = frequency.checked_mul(frequency)?;
    Some((f2.checked_mul(10)?.checked_add(2)?, f2.checked_mul(20)?))
}

/// The regular icosahedron: vertices `(0, ±1, ±φ)` and their cyclic
/// permutations, as `(x, y, z)` in units of (1, φ) — `[a, b, c]` with
/// each entry `±1`, `±2` (meaning `±φ`) or 0.
const ICO_VERTICES: [[i8; 3]; 12] = [
    [-1, 2, 0],
    [1, 2, 0],
    [-1, -2, 0],
    [1, -2, 0],
    [0, -1, 2],
    [0, 1, 2],
    [0, -1, -2],
    [0, 1, -2],
    [2, 0, -1],
    [2, 0, 1],
    [-2, 0, -1],
    [-2, 0, 1],
];

/// The icosahedron's faces, counter-clockwise seen from outside.
const ICO_FACES: [[u8; 3]; 20] = [
    [0, 11, 5],
    [0, 5, 1],
    [0, 1, 7],
    [0, 7, 10],
    [0, 10, 11],
    [1, 5, 9],
    [5, 11, 4],
    [11, 10, 2],
    [10, 7, 6],
    [7, 1, 8],
    [3, 9, 4],
    [3, 4, 2],
    [3, 2, 6],
    [3, 6, 8],
    [3, 8, 9],
    [4, 9, 5],
    [2, 4, 11],
    [6, 2, 10],
    [8, 6, 7],
    [9, 8, 1],
];

/// A geodesic sphere for [`icosphere`]: the icosahedron's edges and the
/// numbering of the subdivided points.
struct Geodesic<T> {
    n: usize,
    edges: [[u8; 2]; 30],
    corners: [[T; 3]; 12],
}

impl<T: Real> Geodesic<T> {
    fn new(n: usize) -> Self {
        let phi = (T::ONE + T::from_f64(5.0).sqrt()) / T::from_f64(2.0);
        let corners = ICO_VERTICES.map(|v| {
            v.map(|c| match c {
                2 => phi,
                -2 => -phi,
                c => T::from_f64(f64::from(c)),
            })
        });
        let mut edges = [[0u8; 2]; 30];
        let mut count = 0;
        for [a, b, c] in ICO_FACES {
            for (p, q) in [(a, b), (b, c), (c, a)] {
                let e = [p.min(q), p.max(q)];
                if !edges.iter().take(count).any(|&x| x == e) {
                    if let Some(slot) = edges.get_mut(count) {
                        *slot = e;
                    }
                    count += 1;
                }
            }
        }
        Self { n, edges, corners }
    }

    fn corner(&self, v: u8) -> [T; 3] {
        self.corners
            .get(usize::from(v))
            .copied()
            .unwrap_or([T::ZERO; 3])
    }

    /// The index of the point `t / n` of the way from corner `p` to `q`.
    fn on_edge(&self, p: u8, q: u8, t: usize) -> usize {
        let e = [p.min(q), p.max(q)];
        let k = self.edges.iter().position(|&x| x == e).unwrap_or(0);
        let t = if p < q { t } else { self.n - t };
        12 + k * (self.n - 1) + (t - 1)
    }

    /// The index of point `(i, j)` of face `f` (`A + (B − A) i/n + (C − A) j/n`).
    fn point(&self, f: usize, i: usize, j: usize) -> usize {
        let n = self.n;
        let [a, b, c] = ICO_FACES.get(f).copied().unwrap_or([0; 3]);
        match (i, j) {
            (0, 0) => usize::from(a),
            _ if j == 0 && i == n => usize::from(b),
            _ if i == 0 && j == n => usize::from(c),
            _ if j == 0 => self.on_edge(a, b, i),
            _ if i == 0 => self.on_edge(a, c, j),
            _ if i + j == n => self.on_edge(b, c, j),
            _ => {
                let per_face = (n - 1) * (n - 2) / 2;
                let before = (j - 1) * (n - 1) - (j - 1) * j / 2;
                12 + 30 * (n - 1) + f * per_face + before + (i - 1)
            }
        }
    }

    /// `a + (b − a)·s + (c − a)·t`, coordinate by coordinate.
    fn blend(a: &[T; 3], b: &[T; 3], c: &[T; 3], s: T, t: T) -> [T; 3] {
        let mut out = *a;
        for (((o, a), b), c) in out.iter_mut().zip(a).zip(b).zip(c) {
            *o = *a + (*b - *a) * s + (*c - *a) * t;
        }
        out
    }

    /// Every point in index order, projected: `center + radius · p/|p|`.
    fn points(&self, radius: T, center: [T; 3]) -> impl Iterator<Item = [T; 3]> + '_ {
        let n = self.n;
        let f = move |k: usize| real::<T>(k) / real::<T>(n);
        let corners = (0..12u8).map(move |v| self.corner(v));
        let on_edges = self.edges.iter().flat_map(move |&[p, q]| {
            (1..n).map(move |t| {
                let (a, b) = (self.corner(p), self.corner(q));
                Self::blend(&a, &b, &a, f(t), T::ZERO)
            })
        });
        let inside = ICO_FACES.iter().flat_map(move |&[a, b, c]| {
            (1..n).flat_map(move |j| {
                (1..n.saturating_sub(j)).map(move |i| {
                    let (a, b, c) = (self.corner(a), self.corner(b), self.corner(c));
                    Self::blend(&a, &b, &c, f(i), f(j))
                })
            })
        });
        corners.chain(on_edges).chain(inside).map(move |p| {
            let len = crate::math::dot(&p, &p).sqrt();
            let mut out = center;
            for (o, c) in out.iter_mut().zip(&p) {
                *o = *o + radius * (*c / len);
            }
            out
        })
    }

    /// Every triangle: for each face, its `n²` small triangles row by row,
    /// counter-clockwise seen from outside as the face.
    fn triangles(&self) -> impl Iterator<Item = [usize; 3]> + '_ {
        let n = self.n;
        (0..20).flat_map(move |f| {
            (0..n).flat_map(move |j| {
                (0..n - j).flat_map(move |i| {
                    let up = [
                        self.point(f, i, j),
                        self.point(f, i + 1, j),
                        self.point(f, i, j + 1),
                    ];
                    let down = (i + j + 1 < n).then(|| {
                        [
                            self.point(f, i + 1, j),
                            self.point(f, i + 1, j + 1),
                            self.point(f, i, j + 1),
                        ]
                    });
                    core::iter::once(up).chain(down)
                })
            })
        })
    }
}

/// Builds a geodesic sphere (a class I icosphere): every edge of the
/// regular icosahedron split into `frequency` segments, each face into
/// `frequency²` triangles, every point projected onto the sphere of radius
/// `radius` (m) about `center` (m). Frequency `2^s` has the topology of `s`
/// recursive midpoint subdivisions. Writes `positions[..particles]` (the 12
/// corners first, then the points inside the 30 edges, then those inside
/// the 20 faces) and `triangles[..count]` (counter-clockwise seen from
/// outside, as [`MeshVolume`] needs; each face's triangles together) and
/// returns `(particles, count)` ([`icosphere_counts`]): a closed mesh for
/// [`mesh_volume`] and [`surface_links`].
///
/// # Errors
///
/// [`SystemError::InvalidShape`] for frequency 0, an overflow, a radius
/// that is not finite and positive, or a centre that is not finite or too
/// large for the radius; [`SystemError::TooManyParticles`] past `u32`
/// indices; [`SystemError::CapacityTooSmall`] with the particle count, then
/// the triangle count. Nothing is written on error.
pub fn icosphere<T: Real>(
    frequency: usize,
    radius: T,
    center: [T; 3],
    positions: &mut [[T; 3]],
    triangles: &mut [[u32; 3]],
) -> Result<(usize, usize), SystemError> {
    let (particles, count) = icosphere_counts(frequency).ok_or(SystemError::InvalidShape)?;
    if !finite_positive(radius) || !center.iter().all(|c| (c.abs() + radius).is_finite()) {
        return Err(SystemError::InvalidShape);
    }
    if u32::try_from(particles).is_err() {
        return Err(SystemError::TooManyParticles);
    }
    if positions.len() < particles {
        return Err(SystemError::CapacityTooSmall { needed: particles });
    }
    if triangles.len() < count {
        return Err(SystemError::CapacityTooSmall { needed: count });
    }
    let g = Geodesic::<T>::new(frequency);
    for (slot, p) in positions.iter_mut().zip(g.points(radius, center)) {
        *slot = p;
    }
    for (slot, t) in triangles.iter_mut().zip(g.triangles()) {
        *slot = t.map(|k| u32::try_from(k).unwrap_or(u32::MAX));
    }
    Ok((particles, count))
}

/// The links along the edges of a closed mesh: for every triangle, in
/// order, each of its edges `(a, b)` (as `a→b`, `b→c`, `c→a`) with `a < b`,
/// rest length from `x`, compliance `compliance` (m/N). In a closed,
/// consistently oriented mesh every edge is traversed once each way, so
/// this is every edge exactly once. Writes `out[..n]` and returns `n`.
///
/// # Errors
///
/// [`SystemError::InvalidShape`] for a triangle naming no particle of `x`,
/// [`SystemError::InvalidCompliance`] (constraint 0),
/// [`SystemError::CapacityTooSmall`], [`SystemError::NonFinitePosition`],
/// [`SystemError::InvalidRestLength`] naming the link (coincident
/// particles). Nothing is written on error.
pub fn surface_links<T: Real>(
    x: &[[T; 3]],
    triangles: &[[u32; 3]],
    compliance: T,
    out: &mut [Link<T>],
) -> Result<usize, SystemError> {
    if triangles
        .iter()
        .flatten()
        .any(|&k| x.get(index(k)).is_none())
    {
        return Err(SystemError::InvalidShape);
    }
    if !finite_non_negative(compliance) {
        return Err(SystemError::InvalidCompliance { constraint: 0 });
    }
    let pairs = triangles
        .iter()
        .flat_map(|&[a, b, c]| [(a, b), (b, c), (c, a)])
        .filter(|(a, b)| a < b);
    let needed = pairs.clone().count();
    if out.len() < needed {
        return Err(SystemError::CapacityTooSmall { needed });
    }
    for (constraint, (a, b)) in pairs.clone().enumerate() {
        rest(x, index(a), index(b), constraint)?;
    }
    for (constraint, ((a, b), slot)) in pairs.zip(out.iter_mut()).enumerate() {
        *slot = Link::new(a, b, rest(x, index(a), index(b), constraint)?, compliance);
    }
    Ok(needed)
}
