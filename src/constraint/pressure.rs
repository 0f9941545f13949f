//! Closed-mesh volume (pressure): `C = V − k·V₀` over a closed triangle
//! mesh, λ free.
//!
//! # The constraint
//!
//! A closed, consistently oriented triangle mesh (each triangle `(a, b, c)`
//! counter-clockwise seen from outside) over particles `x_k ∈ ℝ³` (m) with
//! inverse masses `w_k` (1/kg), rest volume `V₀` (m³, > 0), pressure
//! (inflation) factor `k` (> 0), compliance `α` (m⁶/J = m³/Pa), substep `h`
//! (s). With every position taken relative to `r`, the position of the
//! first corner of the mesh's first triangle (the enclosed volume of a
//! closed mesh does not depend on the origin; a nearby one keeps the
//! products small and the cancellation low):
//!
//! - `V = Σ_tri (x_a − r) · ((x_b − r) × (x_c − r)) / 6` (m³), summed in
//!   triangle order: the enclosed volume (divergence theorem).
//! - `C = V − k·V₀` (m³): `k = 1` keeps the rest volume, `k > 1` inflates
//!   (overpressure), `k < 1` deflates.
//! - `∇_k C = Σ_{tri ∋ k} (the cross product of the other two corners) / 6`
//!   (m²): for a triangle `(a, b, c)` it adds `x_b × x_c` to `a`,
//!   `x_c × x_a` to `b` and `x_a × x_b` to `c` (relative to `r`). The sum
//!   is a third of the area-weighted normals around the particle, pointing
//!   out of the mesh.
//! - `W = Σ_k w_k |∇_k C|²` (m⁴/kg) over the distinct particles of the mesh,
//!   in the order they first appear in its triangles; `α̃ = α / h²`
//!   (m⁴/kg); then the one XPBD update (`constraint::update`) with
//!   [`Bound::Free`].
//! - λ (kg/m) free: `λ/h²` is the gauge pressure (Pa) the mesh exerts, a
//!   positive λ pushing out.
//! - Müller, Heidelberger, Hennix, Ratcliff 2007, *Position Based
//!   Dynamics*, §4.4 (closed meshes, overpressure `k_pressure`), with the
//!   XPBD update (Macklin, Müller, Chentanez 2016, eq. 18).
//!
//! # Units of α
//!
//! The energy is `C² / (2α)` (J), so α is in m⁶/J = m³/Pa. A gas of bulk
//! modulus `K` (Pa) held at the target volume `kV₀` stores
//! `K (V − kV₀)² / (2kV₀)`: this constraint with `α = kV₀ / K` (for an
//! isothermal ideal gas at absolute pressure `p`, `K = p`). `α = 0` keeps
//! the volume exactly.
//!
//! # One correction per particle
//!
//! A particle lies in several triangles; its gradient is accumulated in the
//! group's scratch (one `[T; 3]` per particle: the mesh's entries are
//! zeroed first), and every pass that must see each particle once consumes
//! its entry (sets it to zero after use: a particle with a zero gradient
//! has nothing to add to W nor to correct). A solve makes these passes over
//! the triangles' corners, O(triangles) whatever the particle numbering:
//! check indices and positions; zero and accumulate `V` and `∇C`; sum `W`
//! (consuming); the update; zero and accumulate `∇C` again (the same
//! operations, the same bits); form every corrected position
//! `x_k + (w_k Δλ) ∇_k C` and check it finite (nothing written yet); write
//! them (consuming, so each particle once) and λ. A fault writes no
//! position and no λ; the scratch's contents after a sweep are unspecified.
//!
//! # Degenerate meshes
//!
//! When `W` is below the smallest positive normal number of `T` while a
//! particle of the mesh moves (the mesh collapsed to a point, a line or a
//! doubly covered sheet) the correction direction is undefined: the mesh is
//! degenerate, and the sweep's [`ZeroLength`](crate::ZeroLength) policy
//! rejects it ([`SystemError::Degenerate`](crate::SystemError::Degenerate))
//! or skips and counts it. Never a NaN. A mesh that is not closed or not
//! consistently oriented is not detected: its "volume" depends on `r`.
//! Only 3D systems hold meshes; in any other dimension a mesh is out of
//! range.

use super::volume::{as3, cross, dot3, sub3};
use super::{check_particles, update, Bound, Fault, Invalid, Outcome};
use crate::constraint::distance::index;
use crate::real::Real;

/// One closed-mesh volume constraint over the triangles
/// `first_triangle .. first_triangle + triangle_count` of its group's
/// triangle array.
///
/// `#[repr(C)]`: this struct *is* the C type `XpbdMeshVolume`
/// (`MeshVolume<f64>`) and `XpbdMeshVolumeF32` (`MeshVolume<f32>`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct MeshVolume<T> {
    /// First triangle of this mesh in the group's triangle array.
    pub first_triangle: u32,
    /// Number of triangles (≥ 4 for a closed mesh).
    pub triangle_count: u32,
    /// Rest volume V₀ (m³), finite and > 0.
    pub rest_volume: T,
    /// Pressure (inflation) factor k: the target volume is `k·V₀`; finite
    /// and > 0 (1 keeps the rest volume), with `k·V₀` finite.
    pub pressure: T,
    /// Compliance α (m⁶/J = m³/Pa of `C = V − kV₀`), finite and ≥ 0; 0
    /// keeps the volume exactly. For a gas of bulk modulus `K` (Pa),
    /// `α = kV₀ / K`.
    pub compliance: T,
    /// Accumulated multiplier λ (kg/m) of the current substep (`λ/h²` is
    /// the gauge pressure, Pa). Reset only by
    /// [`System::begin_substep`](crate::System::begin_substep).
    pub lambda: T,
}

/// The closed meshes of a system: their constraints, the triangle array
/// they index (particle indices, counter-clockwise seen from outside) and
/// a gradient scratch of one `[T; 3]` per particle (the library's during a
/// sweep).
#[derive(Debug, Default)]
pub struct MeshVolumes<'a, T> {
    /// The volume constraints.
    pub volumes: &'a mut [MeshVolume<T>],
    /// Triangles `[a, b, c]` (particle indices).
    pub triangles: &'a [[u32; 3]],
    /// Scratch, one entry per particle (or empty when `volumes` is).
    pub scratch: &'a mut [[T; 3]],
}

impl<T: Real> MeshVolume<T> {
    /// A mesh volume constraint over `triangle_count` triangles from
    /// `first_triangle`, with λ = 0.
    #[must_use]
    pub fn new(
        first_triangle: u32,
        triangle_count: u32,
        rest_volume: T,
        pressure: T,
        compliance: T,
    ) -> Self {
        Self {
            first_triangle,
            triangle_count,
            rest_volume,
            pressure,
            compliance,
            lambda: T::ZERO,
        }
    }

    /// This mesh's triangles in the group's array (`None` when the range
    /// does not fit).
    #[inline]
    pub(crate) fn triangles<'t>(&self, all: &'t [[u32; 3]]) -> Option<&'t [[u32; 3]]> {
        let first = index(self.first_triangle);
        let end = first.checked_add(index(self.triangle_count))?;
        all.get(first..end)
    }

    /// This mesh's triangles, checked against `particles` (one entry per
    /// particle: the inverse masses, or the positions): the range inside
    /// `triangles` and at least 4 triangles ([`Invalid::RestValue`]), then
    /// every index below the particle count and each triangle's three
    /// distinct ([`Invalid::IndexOutOfRange`], [`Invalid::SameParticle`]).
    #[inline(always)]
    pub(crate) fn topology<'t, P>(
        &self,
        triangles: &'t [[u32; 3]],
        particles: &[P],
    ) -> Result<&'t [[u32; 3]], Invalid> {
        let Some(tris) = self.triangles(triangles) else {
            return Err(Invalid::RestValue);
        };
        if tris.len() < 4 {
            return Err(Invalid::RestValue);
        }
        for t in tris {
            check_particles(t, particles)?;
        }
        Ok(tris)
    }

    /// Checks this constraint's own parameters against its group, in this
    /// order: the triangle range inside `triangles` and at least 4
    /// triangles ([`Invalid::RestValue`]); every triangle's indices below
    /// the particle count (`w.len()`) and distinct
    /// ([`Invalid::IndexOutOfRange`], [`Invalid::SameParticle`]); the rest
    /// volume finite and > 0, the pressure factor finite and > 0 with
    /// `k·V₀` finite ([`Invalid::RestValue`]); the compliance.
    // Out of line at every opt-level: the kind's code keeps its name
    // (docs/code-size.md, per kind).
    #[inline(never)]
    pub(crate) fn check(&self, triangles: &[[u32; 3]], w: &[T], h2: T) -> Result<(), Invalid> {
        self.topology(triangles, w)?;
        if !crate::real::finite_positive(self.rest_volume)
            || !crate::real::finite_positive(self.pressure)
            || !(self.pressure * self.rest_volume).is_finite()
        {
            return Err(Invalid::RestValue);
        }
        super::check_compliance(self.compliance, h2)
    }
}

/// Checks every corner of `tris`: an index naming a position, an inverse
/// mass (and a scratch entry when `scratch` is given, its length), the
/// system 3D, the position finite. Returns the reference point `r` and
/// whether any particle moves.
#[inline(always)]
fn inspect<T: Real, const D: usize>(
    tris: &[[u32; 3]],
    positions: &[[T; D]],
    inverse_masses: &[T],
    scratch: Option<usize>,
) -> Result<([T; 3], bool), Fault> {
    let mut moving = false;
    for &k in tris.as_flattened() {
        let k = index(k);
        let (Some(p), Some(&w)) = (positions.get(k), inverse_masses.get(k)) else {
            return Err(Fault::OutOfRange);
        };
        if scratch.is_some_and(|n| k >= n) {
            return Err(Fault::OutOfRange);
        }
        let Some(p) = as3(p) else {
            return Err(Fault::OutOfRange);
        };
        if !p.iter().all(|c| c.is_finite()) {
            return Err(Fault::NonFinitePosition(k));
        }
        moving |= w != T::ZERO;
    }
    let r = tris
        .first()
        .and_then(|&[first, _, _]| positions.get(index(first)))
        .and_then(as3)
        .ok_or(Fault::OutOfRange)?;
    Ok((r, moving))
}

/// Particle `k`'s position relative to `r` (for a bad index, which
/// [`inspect`] has excluded, `r − r`).
#[inline(always)]
fn relative<T: Real, const D: usize>(positions: &[[T; D]], k: u32, r: &[T; 3]) -> [T; 3] {
    let p = positions.get(index(k)).and_then(as3).unwrap_or(*r);
    sub3(&p, r)
}

/// `6V` of the triangles (relative to `r`), and, with a scratch, their
/// gradients `6∇_k V` accumulated into it after zeroing the mesh's entries.
fn accumulate<T: Real, const D: usize>(
    tris: &[[u32; 3]],
    positions: &[[T; D]],
    r: &[T; 3],
    mut scratch: Option<&mut [[T; 3]]>,
) -> T {
    if let Some(s) = scratch.as_deref_mut() {
        for &k in tris.as_flattened() {
            if let Some(e) = s.get_mut(index(k)) {
                *e = [T::ZERO; 3];
            }
        }
    }
    let mut six_v = T::ZERO;
    for &[a, b, c] in tris {
        let (xa, xb, xc) = (
            relative(positions, a, r),
            relative(positions, b, r),
            relative(positions, c, r),
        );
        let bc = cross(&xb, &xc);
        six_v = six_v + dot3(&xa, &bc);
        if let Some(s) = scratch.as_deref_mut() {
            add_to(s, a, &bc);
            add_to(s, b, &cross(&xc, &xa));
            add_to(s, c, &cross(&xa, &xb));
        }
    }
    six_v
}

/// `scratch[k] += v`.
#[inline(always)]
fn add_to<T: Real>(scratch: &mut [[T; 3]], k: u32, v: &[T; 3]) {
    if let Some(e) = scratch.get_mut(index(k)) {
        let ([e0, e1, e2], [v0, v1, v2]) = (*e, *v);
        *e = [e0 + v0, e1 + v1, e2 + v2];
    }
}

/// `∇_k V = (6∇_k V) / 6`, coordinate by coordinate.
#[inline(always)]
fn gradient<T: Real>(six_grad: &[T; 3]) -> [T; 3] {
    let six = T::from_f64(6.0);
    let [x, y, z] = *six_grad;
    [x / six, y / six, z / six]
}

/// `C = V − k·V₀` from `6V`.
#[inline(always)]
fn value<T: Real>(mesh: &MeshVolume<T>, six_v: T) -> T {
    six_v / T::from_f64(6.0) - mesh.pressure * mesh.rest_volume
}

/// The start [`solve_mesh`] and [`visit_mesh`] share: the mesh's triangles,
/// [`inspect`] (with the scratch's length when given), then, when a
/// particle moves, `C` from [`accumulate`] (the gradients into `scratch`
/// when given). `None` when every particle is static.
#[inline(never)]
#[allow(clippy::type_complexity)]
fn begin<'t, T: Real, const D: usize>(
    mesh: &MeshVolume<T>,
    triangles: &'t [[u32; 3]],
    positions: &[[T; D]],
    inverse_masses: &[T],
    scratch: Option<&mut [[T; 3]]>,
) -> Result<Option<(&'t [[u32; 3]], [T; 3], T)>, Fault> {
    let tris = mesh.triangles(triangles).ok_or(Fault::OutOfRange)?;
    let (r, moving) = inspect(
        tris,
        positions,
        inverse_masses,
        scratch.as_ref().map(|s| s.len()),
    )?;
    if !moving {
        return Ok(None);
    }
    let c = value(mesh, accumulate(tris, positions, &r, scratch));
    Ok(Some((tris, r, c)))
}

/// What one [`pass`] over the corners of a mesh does.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pass {
    /// `W = Σ w_k |∇_k V|²` over the moving particles, one term per
    /// particle (its scratch entry consumed: zeroed).
    Weight,
    /// Every corrected position `x_k + (w_k Δλ) ∇_k V` of a moving corner
    /// checked finite; nothing written.
    Check,
    /// The corrected positions written, once per particle (its scratch
    /// entry consumed).
    Write,
}

/// What [`Corners::pass`] reads and writes: a mesh's triangles, the
/// positions, the gradients `6∇_k V` in `scratch` and the inverse masses
/// (every corner's position, inverse mass and scratch entry exist:
/// [`inspect`] checked them).
struct Corners<'a, T, const D: usize> {
    tris: &'a [[u32; 3]],
    positions: &'a mut [[T; D]],
    scratch: &'a mut [[T; 3]],
    inverse_masses: &'a [T],
    /// On hosts ([`BOUND`]), what [`Pass::Weight`] saw of the terms it
    /// summed: the largest `|x_k|` coordinate, `w_k` and `|6∇_k V|`
    /// coordinate (see [`Corners::finite_after`]).
    bound: [T; 3],
}

/// Whether [`solve_mesh`] skips [`Pass::Check`] when
/// [`Corners::finite_after`] proves every corrected position finite: on
/// every target but bare metal (`target_os = "none"`, whose images keep
/// the one check: code size). The check only decides whether the mesh is
/// written, and when the bound holds it would pass: the same bits and
/// faults either way.
const BOUND: bool = !cfg!(target_os = "none");

impl<T: Real, const D: usize> Corners<'_, T, D> {
    /// One pass of [`solve_mesh`] over the corners. Returns `W` for
    /// [`Pass::Weight`] (zero otherwise); `None` from [`Pass::Check`] for
    /// a corrected position that is not finite. One function for the three passes (code size);
    /// each keeps its own operations.
    #[inline(never)]
    fn pass(&mut self, delta: T, pass: Pass) -> Option<T> {
        let Self {
            tris,
            positions,
            scratch,
            inverse_masses,
            ..
        } = self;
        let mut weight = T::ZERO;
        for &k in tris.as_flattened() {
            let k = index(k);
            let (Some(p), Some(e), Some(&w)) = (
                positions.get_mut(k),
                scratch.get_mut(k),
                inverse_masses.get(k),
            ) else {
                continue;
            };
            // A consumed (or zero) entry adds nothing and writes nothing; the
            // check covers every moving corner.
            let [e0, e1, e2] = *e;
            let zero = e0 == T::ZERO && e1 == T::ZERO && e2 == T::ZERO;
            if w != T::ZERO && (pass == Pass::Check || !zero) {
                let g = gradient(e);
                if pass == Pass::Weight {
                    weight = weight + w * dot3(&g, &g);
                    if BOUND {
                        let [bx, bw, be] = &mut self.bound;
                        for &v in p.iter() {
                            *bx = super::max(*bx, v.abs());
                        }
                        *bw = super::max(*bw, w.abs());
                        *be = super::max(*be, super::max(e0.abs(), super::max(e1.abs(), e2.abs())));
                    }
                } else {
                    let s = w * delta;
                    for (x, g) in p.iter_mut().zip(&g) {
                        let v = *x + s * *g;
                        if pass == Pass::Write {
                            *x = v;
                        } else if !v.is_finite() {
                            return None;
                        }
                    }
                }
            }
            if pass != Pass::Check {
                *e = [T::ZERO; 3];
            }
        }
        Some(weight)
    }

    /// Whether every corrected position `x_k + (w_k Δλ) ∇_k V` of a moving
    /// corner is finite for `delta = Δλ`, proved from the largest terms
    /// [`Pass::Weight`] saw, `X`, `W` and `E` (every moving particle with
    /// a non-zero gradient; the others keep `x_k + s·0 = x_k` for a finite
    /// `s`): `|e/6| ≤ |e|`, so each `|x + (w Δλ)(e/6)|` is at most
    /// `B = X + (W |Δλ|) E` up to a few roundings of at most one ulp each
    /// (in any rounding mode). `2B` finite leaves a factor of two for
    /// them, which proves every corrected position finite. `false` (run
    /// the check) when the bound fails or is NaN.
    #[inline(always)]
    fn finite_after(&self, delta: T) -> bool {
        let [x, w, e] = self.bound;
        let b = x + (w * delta.abs()) * e;
        (b + b).is_finite()
    }
}

/// Solves one mesh: evaluates `C` and its gradient (into `scratch`), the
/// one [`update`], forms and checks every corrected position, then commits
/// the positions and λ together, or (on a fault) nothing. The passes are
/// the module's; `positions` (m), `inverse_masses` (1/kg), `h2` the
/// substep length squared (s²).
#[inline(always)]
pub(crate) fn solve_mesh<T: Real, const D: usize>(
    mesh: &mut MeshVolume<T>,
    triangles: &[[u32; 3]],
    scratch: &mut [[T; 3]],
    positions: &mut [[T; D]],
    inverse_masses: &[T],
    h2: T,
) -> Result<Outcome<T>, Fault> {
    let start = begin(
        mesh,
        triangles,
        positions,
        inverse_masses,
        Some(&mut *scratch),
    )?;
    let Some((tris, r, c)) = start else {
        return Ok(Outcome::Static);
    };
    let mut corners = Corners {
        tris,
        positions,
        scratch,
        inverse_masses,
        bound: [T::ZERO; 3],
    };
    let weight = corners
        .pass(T::ZERO, Pass::Weight)
        .ok_or(Fault::NonFinite)?;
    // The positions are finite: a non-finite W or C is an overflow.
    if !weight.is_finite() || !c.is_finite() {
        return Err(Fault::NonFinite);
    }
    if weight < T::MIN_POSITIVE {
        return Ok(Outcome::Degenerate);
    }
    let u = update(c, mesh.lambda, weight, mesh.compliance / h2, Bound::Free);
    if !u.lambda.is_finite() {
        return Err(Fault::NonFinite);
    }
    accumulate(tris, corners.positions, &r, Some(&mut *corners.scratch));
    // Every corrected position, checked before any is written; then the
    // same operations, written once per particle.
    if !(BOUND && corners.finite_after(u.delta)) {
        corners.pass(u.delta, Pass::Check).ok_or(Fault::NonFinite)?;
    }
    corners.pass(u.delta, Pass::Write).ok_or(Fault::NonFinite)?;
    mesh.lambda = u.lambda;
    Ok(Outcome::Applied {
        c_abs: u.c_abs,
        residual: u.residual,
    })
}

/// What [`solve_mesh`] would count, writing nothing: `|C|` and
/// `|C + α̃λ|` when a particle of the mesh moves (counted as applied
/// without forming the gradient, so a degenerate mesh counts as applied
/// here), static otherwise; the faults of [`solve_mesh`].
#[inline(always)]
pub(crate) fn visit_mesh<T: Real, const D: usize>(
    mesh: &MeshVolume<T>,
    triangles: &[[u32; 3]],
    positions: &[[T; D]],
    inverse_masses: &[T],
    h2: T,
) -> Result<Outcome<T>, Fault> {
    let Some((_, _, c)) = begin(mesh, triangles, positions, inverse_masses, None)? else {
        return Ok(Outcome::Static);
    };
    if !c.is_finite() {
        return Err(Fault::NonFinite);
    }
    // The update's own |C| and |C + α̃λ| (they do not depend on W).
    let u = update(c, mesh.lambda, T::ONE, mesh.compliance / h2, Bound::Free);
    Ok(Outcome::Applied {
        c_abs: u.c_abs,
        residual: u.residual,
    })
}

/// The enclosed volume `V` (m³) of closed triangles over `positions`, with
/// the solver's operations; `None` for a bad index, a non-finite position
/// or an empty list.
pub(crate) fn enclosed<T: Real>(tris: &[[u32; 3]], positions: &[[T; 3]]) -> Option<T> {
    for &k in tris.as_flattened() {
        if !positions.get(index(k))?.iter().all(|c| c.is_finite()) {
            return None;
        }
    }
    let &[first, _, _] = tris.first()?;
    let r = *positions.get(index(first))?;
    Some(accumulate(tris, positions, &r, None) / T::from_f64(6.0))
}

#[cfg(test)]
#[allow(clippy::indexing_slicing, clippy::unwrap_used, clippy::panic)]
mod tests {
    use super::*;

    /// A unit right tetrahedron as a closed mesh (outward triangles).
    fn tet_mesh() -> ([[f64; 3]; 4], [[u32; 3]; 4]) {
        (
            [
                [0.0, 0.0, 0.0],
                [1.0, 0.0, 0.0],
                [0.0, 1.0, 0.0],
                [0.0, 0.0, 1.0],
            ],
            [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
        )
    }

    #[test]
    fn volume_gradient_and_one_correction_per_particle() {
        let (mut x, tris) = tet_mesh();
        assert_eq!(enclosed(&tris, &x), Some(1.0 / 6.0));
        let w = [1.0, 1.0, 0.0, 1.0];
        let mut mesh = MeshVolume::new(0, 4, 1.0 / 6.0, 2.0, 0.0);
        let mut scratch = [[7.0; 3]; 4];
        let before = x;
        let out = solve_mesh(&mut mesh, &tris, &mut scratch, &mut x, &w, 1.0).unwrap();
        // C = 1/6 − 2/6; ∇V per particle as for the tet kind, over 6.
        let Outcome::Applied { c_abs, .. } = out else {
            panic!("{out:?}")
        };
        assert!((c_abs - 1.0 / 6.0).abs() < 1e-15);
        let g = [
            [-1.0, -1.0, -1.0],
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.0, 0.0, 1.0],
        ]
        .map(|v: [f64; 3]| v.map(|c| c / 6.0));
        let weight: f64 = g.iter().zip(&w).map(|(g, w)| w * dot3(g, g)).sum();
        let delta = (1.0 / 6.0) / weight;
        assert!((mesh.lambda - delta).abs() < 1e-12);
        for k in 0..4 {
            for i in 0..3 {
                let expect = before[k][i] + w[k] * delta * g[k][i];
                assert!((x[k][i] - expect).abs() < 1e-12, "{k} {i}");
            }
        }
        assert_eq!(x[2], before[2], "static particle keeps its bits");
    }

    #[test]
    fn static_degenerate_and_faults_write_nothing() {
        let (x, tris) = tet_mesh();
        let mut mesh = MeshVolume::new(0, 4, 1.0, 1.0, 0.0);
        let mut s = [[0.0; 3]; 4];
        let mut y = x;
        let out = solve_mesh(&mut mesh, &tris, &mut s, &mut y, &[0.0; 4], 1.0);
        assert_eq!(out, Ok(Outcome::Static));
        let mut point = [[0.25; 3]; 4];
        let out = solve_mesh(&mut mesh, &tris, &mut s, &mut point, &[1.0; 4], 1.0);
        assert_eq!(out, Ok(Outcome::Degenerate));
        assert_eq!(point, [[0.25; 3]; 4]);
        let mut bad = x;
        bad[3][1] = f64::NAN;
        let out = solve_mesh(&mut mesh, &tris, &mut s, &mut bad, &[1.0; 4], 1.0);
        assert_eq!(out, Err(Fault::NonFinitePosition(3)));
        let mut huge = x.map(|p| p.map(|c| c * 1e300));
        let keep = huge;
        let out = solve_mesh(&mut mesh, &tris, &mut s, &mut huge, &[1.0; 4], 1.0);
        assert_eq!(out, Err(Fault::NonFinite));
        assert_eq!(huge, keep);
        assert_eq!(mesh.lambda, 0.0);
        let out = solve_mesh(&mut mesh, &tris, &mut s[..3], &mut y, &[1.0; 4], 1.0);
        assert_eq!(out, Err(Fault::OutOfRange));
        let mut flat = [[0.0; 2]; 4];
        let out = solve_mesh(&mut mesh, &tris, &mut s, &mut flat, &[1.0; 4], 1.0);
        assert_eq!(out, Err(Fault::OutOfRange));
        let far = MeshVolume::new(1, 4, 1.0, 1.0, 0.0);
        assert_eq!(
            visit_mesh(&far, &tris, &x, &[1.0; 4], 1.0),
            Err(Fault::OutOfRange)
        );
    }
}
