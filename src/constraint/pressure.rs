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
//! A particle lies in several triangles; the mesh names its distinct
//! particles once each in a list (`first_particle .. first_particle +
//! particle_count` of its group's particle array, in the order they first
//! appear in its triangles: [`mesh_volume`](crate::mesh_volume) writes it,
//! and every substep's validation checks it against the triangles). Its
//! gradient is accumulated in the group's scratch (one `[T; 3]` per
//! particle). A solve makes one pass over the triangles and three over the
//! list, O(triangles + particles):
//!
//! 1. the list: each particle's scratch entry zeroed (on bare metal, and
//!    in a measure, also whether a particle moves: a static mesh is done
//!    after pass 2);
//! 2. the triangles: `6V` and every `6∇_k V` accumulated (indices
//!    checked). A non-finite position makes `C` non-finite (some product
//!    of its triangle is), and a non-finite `C` is then diagnosed by one
//!    more pass over the list: the first non-finite position in list
//!    order, else a static mesh, else an overflow;
//! 3. the list: `∇_k V = (6∇_k V)/6` of each moving particle stored back
//!    in the scratch and `W = Σ w_k |∇_k V|²` summed in list order (on
//!    hosts, whether a particle moves found here);
//! 4. the update, then the list: every corrected position
//!    `x_k + (w_k Δλ) ∇_k V` formed and written, its entry consumed (set
//!    to zero: a particle moves once), and λ. Before writing, the
//!    corrected positions are proved finite by a bound from the `|x|`,
//!    `w` and `|∇V|` pass 3 saw (hosts) or checked one by one (nothing
//!    written yet).
//!
//! A fault writes no position and no λ; the scratch's contents after a
//! sweep (or a validation, which marks particles in it) are unspecified.
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

use super::volume::as3;
use super::{check_particles, update, Bound, Fault, Invalid, Outcome};
use crate::constraint::distance::index;
use crate::math::{cross, dot3, sub3};
use crate::real::Real;

/// One closed-mesh volume constraint over the triangles
/// `first_triangle .. first_triangle + triangle_count` of its group's
/// triangle array, whose distinct particles are
/// `first_particle .. first_particle + particle_count` of its group's
/// particle array (in the order they first appear in the triangles).
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
    /// First entry of this mesh's particle list in the group's particle
    /// array.
    pub first_particle: u32,
    /// Number of distinct particles of the triangles (the list's length).
    pub particle_count: u32,
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
/// they index (particle indices, counter-clockwise seen from outside), the
/// particle array their lists index (each mesh's distinct particles in
/// first-appearance order, as [`mesh_volume`](crate::mesh_volume) writes
/// them) and a gradient scratch of one `[T; 3]` per particle (the
/// library's during a sweep and a validation).
#[derive(Debug, Default)]
pub struct MeshVolumes<'a, T> {
    /// The volume constraints.
    pub volumes: &'a mut [MeshVolume<T>],
    /// Triangles `[a, b, c]` (particle indices).
    pub triangles: &'a [[u32; 3]],
    /// The meshes' particle lists (particle indices).
    pub particles: &'a [u32],
    /// Scratch, one entry per particle (or empty when `volumes` is).
    pub scratch: &'a mut [[T; 3]],
}

impl<T: Real> MeshVolume<T> {
    /// A mesh volume constraint over `triangle_count` triangles from
    /// `first_triangle` and the `particle_count` particles of its list from
    /// `first_particle`, with λ = 0.
    #[must_use]
    pub fn new(
        [first_triangle, triangle_count]: [u32; 2],
        [first_particle, particle_count]: [u32; 2],
        rest_volume: T,
        pressure: T,
        compliance: T,
    ) -> Self {
        Self {
            first_triangle,
            triangle_count,
            first_particle,
            particle_count,
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

/// The mark of particle `k` (the first coordinate of its scratch entry);
/// `IndexOutOfRange` for `k ≥ n` or past the scratch.
#[inline(always)]
fn mark<T>(marks: &mut [[T; 3]], k: u32, n: usize) -> Result<&mut T, Invalid> {
    match marks.get_mut(index(k)) {
        Some([m, ..]) if index(k) < n => Ok(m),
        _ => Err(Invalid::IndexOutOfRange),
    }
}

/// The error for list entry `e` found where another particle (or, for
/// `None`, the list's end) was due: [`Invalid::SameParticle`] when `e` has
/// appeared in the triangles already (it is listed twice), else
/// [`Invalid::RestValue`] (out of order, not in the triangles, or the list
/// too short).
#[inline(always)]
fn misplaced<T: Real>(marks: &mut [[T; 3]], e: Option<&u32>, n: usize) -> Invalid {
    match e.map(|&e| mark(marks, e, n)) {
        Some(Ok(m)) if *m == T::ONE => Invalid::SameParticle,
        _ => Invalid::RestValue,
    }
}

impl<T: Real> MeshVolume<T> {
    /// This mesh's particle list in the group's array (`None` when the
    /// range does not fit).
    #[inline]
    pub(crate) fn list<'p>(&self, all: &'p [u32]) -> Option<&'p [u32]> {
        let first = index(self.first_particle);
        let end = first.checked_add(index(self.particle_count))?;
        all.get(first..end)
    }

    /// Checks this mesh's particle list against its triangles (which
    /// [`check`](Self::check) accepted), marking particles in `marks` (the
    /// group's scratch, at least one entry per particle: its contents
    /// after are unspecified), in this order: the list's range inside
    /// `particles` ([`Invalid::RestValue`]); every entry below the particle
    /// count `n` ([`Invalid::IndexOutOfRange`]); then, walking the
    /// triangles' corners, the list exactly their distinct particles in the
    /// order they first appear: at the first entry that differs,
    /// [`Invalid::SameParticle`] when it names a particle that appeared
    /// already (listed twice), else [`Invalid::RestValue`] (out of order,
    /// not in the triangles, or one missing). O(triangles + particles).
    #[inline(never)]
    pub(crate) fn check_list(
        &self,
        triangles: &[[u32; 3]],
        particles: &[u32],
        n: usize,
        marks: &mut [[T; 3]],
    ) -> Result<(), Invalid> {
        let (Some(tris), Some(list)) = (self.triangles(triangles), self.list(particles)) else {
            return Err(Invalid::RestValue);
        };
        let corners = tris.as_flattened();
        // In the first coordinate of a particle's entry: 1 once it has
        // appeared in the triangles, 0 before.
        for &k in corners.iter().chain(list) {
            *mark(marks, k, n)? = T::ZERO;
        }
        // The list must be the corners' first appearances, in order.
        let mut next = list.iter();
        for &k in corners {
            let m = mark(marks, k, n)?;
            if *m != T::ONE {
                *m = T::ONE;
                match next.next() {
                    Some(&e) if e == k => {}
                    e => return Err(misplaced(marks, e, n)),
                }
            }
        }
        match next.next() {
            None => Ok(()),
            e => Err(misplaced(marks, e, n)),
        }
    }
}

/// What a non-finite `C` means: `OutOfRange` for an entry of `list`
/// naming no position or inverse mass (when `moving` is not known yet:
/// pass 1 checked them otherwise), else the first particle of `list` whose
/// position is not finite ([`Fault::NonFinitePosition`]), else an
/// overflow of a moving mesh ([`Fault::NonFinite`]), else a static mesh.
/// The rare path of [`evaluate`].
#[cfg_attr(not(target_os = "none"), cold, inline(never))]
#[cfg_attr(target_os = "none", inline(always))]
fn diagnose<T: Real, const D: usize>(
    list: &[u32],
    positions: &[[T; D]],
    inverse_masses: &[T],
    moving: Option<bool>,
) -> Settled<T> {
    let moving = match moving {
        Some(moving) => moving,
        None => {
            let mut moving = false;
            for &k in list {
                let k = index(k);
                let (Some(_), Some(&w)) = (positions.get(k), inverse_masses.get(k)) else {
                    return Err(Fault::OutOfRange);
                };
                moving |= w != T::ZERO;
            }
            moving
        }
    };
    match super::non_finite_particle(positions, list) {
        Some(k) => Err(Fault::NonFinitePosition(k)),
        None if moving => Err(Fault::NonFinite),
        None => Ok(Outcome::Static),
    }
}

/// Particle `k`'s position relative to `r`; `None` for a bad index.
#[inline(always)]
fn relative<T: Real, const D: usize>(positions: &[[T; D]], k: u32, r: &[T; 3]) -> Option<[T; 3]> {
    Some(sub3(&as3(positions.get(index(k))?)?, r))
}

/// `6V` of the triangles (relative to `r`), and, with a scratch, their
/// gradients `6∇_k V` added to it (pass 2); `None` for an index naming no
/// position or scratch entry. A non-finite position of a corner makes
/// `6V` non-finite (its triangle's term has a non-finite product). On bare
/// metal [`accumulate_turning`] (the same bits and `None`s).
#[inline(always)]
fn accumulate<T: Real, const D: usize>(
    tris: &[[u32; 3]],
    positions: &[[T; D]],
    r: &[T; 3],
    mut scratch: Option<&mut [[T; 3]]>,
) -> Option<T> {
    if cfg!(target_os = "none") {
        return accumulate_turning(tris, positions, r, scratch);
    }
    let mut six_v = T::ZERO;
    for &[a, b, c] in tris {
        let xa = relative(positions, a, r)?;
        let xb = relative(positions, b, r)?;
        let xc = relative(positions, c, r)?;
        let bc = cross(&xb, &xc);
        six_v = six_v + dot3(&xa, &bc);
        if let Some(s) = scratch.as_deref_mut() {
            add_to(s, a, &bc)?;
            add_to(s, b, &cross(&xc, &xa))?;
            add_to(s, c, &cross(&xa, &xb))?;
        }
    }
    Some(six_v)
}

/// [`accumulate`] one corner at a time (bare metal: code size): each
/// triangle turned `(a, b, c)`, `(b, c, a)`, `(c, a, b)`, the first
/// corner's gradient `x_q × x_o` formed from the other two positions
/// (relative to `r`) and added to its scratch entry, `6V` gaining
/// `x_a · (x_b × x_c)` on the first turn. The same operations in the same
/// order (positions read again), so the same bits; a bad index gives
/// `None` as there (every position of a triangle is read on its first
/// turn, before any scratch entry).
#[inline(always)]
fn accumulate_turning<T: Real, const D: usize>(
    tris: &[[u32; 3]],
    positions: &[[T; D]],
    r: &[T; 3],
    mut scratch: Option<&mut [[T; 3]]>,
) -> Option<T> {
    let mut six_v = T::ZERO;
    for &corners in tris {
        let mut turn = corners;
        for first in [true, false, false] {
            let [p, q, o] = turn;
            let g = cross(&relative(positions, q, r)?, &relative(positions, o, r)?);
            if first {
                six_v = six_v + dot3(&relative(positions, p, r)?, &g);
            }
            let Some(s) = scratch.as_deref_mut() else {
                break;
            };
            add_to(s, p, &g)?;
            turn = [q, o, p];
        }
    }
    Some(six_v)
}

/// `scratch[k] += v`; `None` for a bad index.
#[inline(always)]
fn add_to<T: Real>(scratch: &mut [[T; 3]], k: u32, v: &[T; 3]) -> Option<()> {
    let e = scratch.get_mut(index(k))?;
    let ([e0, e1, e2], [v0, v1, v2]) = (*e, *v);
    *e = [e0 + v0, e1 + v1, e2 + v2];
    Some(())
}

/// `C = V − k·V₀` from `6V`.
#[inline(always)]
fn value<T: Real>(mesh: &MeshVolume<T>, six_v: T) -> T {
    six_v / T::from_f64(6.0) - mesh.pressure * mesh.rest_volume
}

/// The mesh's triangles and particle list in its group's arrays.
#[inline(always)]
fn ranges<'t, T: Real>(
    mesh: &MeshVolume<T>,
    (triangles, particles): (&'t [[u32; 3]], &'t [u32]),
) -> Option<(&'t [[u32; 3]], &'t [u32])> {
    Some((mesh.triangles(triangles)?, mesh.list(particles)?))
}

/// A mesh settled before its update: its outcome or its fault.
type Settled<T> = Result<Outcome<T>, Fault>;

/// Passes 1 and 2, and what they settle: the mesh's triangles and list in
/// its group's arrays; the list (pass 1: every entry checked to name a
/// position and an inverse mass, with a scratch its entry zeroed there)
/// and whether any of its particles moves; then `C` over the triangles
/// (pass 2, relative to their first corner), with a scratch the gradients
/// `6∇_k V` added into it. `Ok((C, list))` for a finite `C` of a moving
/// mesh; else the mesh settled: `OutOfRange` for a range or an index
/// naming no position, inverse mass or scratch entry (or a system not
/// 3D), a non-finite `C` diagnosed by [`diagnose`] (a non-finite position,
/// else an overflow, else a static mesh), else [`Outcome::Static`].
///
/// On hosts ([`BOUND`]) the solve's pass 1 only zeroes: the inverse masses
/// are read once, by its pass 3 ([`weigh`], which checks them and finds
/// whether a particle moves; speed), `Ok` leaves a static mesh to it and
/// [`diagnose`] checks the list itself. The same outcomes and faults: no
/// fault is possible between pass 1 and pass 3 but the `OutOfRange` of
/// pass 2, and a static mesh does nothing in pass 3.
///
/// One function for the solve and the measure on bare metal (code size;
/// the kind's code keeps its name, docs/code-size.md); inlined elsewhere
/// (each caller's copy knows whether it has a scratch).
#[cfg_attr(target_os = "none", inline(never))]
#[cfg_attr(not(target_os = "none"), inline(always))]
fn evaluate<'t, T: Real, const D: usize>(
    mesh: &MeshVolume<T>,
    groups: (&'t [[u32; 3]], &'t [u32]),
    positions: &[[T; D]],
    inverse_masses: &[T],
    mut scratch: Option<&mut [[T; 3]]>,
) -> Result<(T, &'t [u32]), Settled<T>> {
    const OUT_OF_RANGE: Fault = Fault::OutOfRange;
    let (tris, list) = ranges(mesh, groups).ok_or(Err(OUT_OF_RANGE))?;
    let zero_only = BOUND && scratch.is_some();
    let mut moving = false;
    for &k in list {
        let k = index(k);
        if !zero_only {
            let (Some(_), Some(&w)) = (positions.get(k), inverse_masses.get(k)) else {
                return Err(Err(OUT_OF_RANGE));
            };
            moving |= w != T::ZERO;
        }
        if let Some(s) = scratch.as_deref_mut() {
            *s.get_mut(k).ok_or(Err(OUT_OF_RANGE))? = [T::ZERO; 3];
        }
    }
    let r = tris
        .first()
        .and_then(|&[first, _, _]| positions.get(index(first)))
        .and_then(as3)
        .ok_or(Err(OUT_OF_RANGE))?;
    let six_v = accumulate(tris, positions, &r, scratch).ok_or(Err(OUT_OF_RANGE))?;
    let c = value(mesh, six_v);
    if !c.is_finite() {
        let known = (!zero_only).then_some(moving);
        return Err(diagnose(list, positions, inverse_masses, known));
    }
    if !(moving || zero_only) {
        return Err(Ok(Outcome::Static));
    }
    Ok((c, list))
}

/// Whether [`solve_mesh`] skips the check of every corrected position
/// when [`Weighed::finite_after`] proves them finite: on every target but
/// bare metal (`target_os = "none"`, whose images keep the one check: code
/// size). The check only decides whether the mesh is written, and when
/// the bound holds it would pass: the same bits and faults either way.
const BOUND: bool = !cfg!(target_os = "none");

/// What [`weigh`] found over a mesh's list.
struct Weighed<T> {
    /// `W = Σ w_k |∇_k V|²` (m⁴/kg).
    weight: T,
    /// Whether any particle moves (`w_k ≠ 0`): on hosts ([`BOUND`]), where
    /// [`evaluate`] leaves a static mesh to the solve.
    moving: bool,
    /// On hosts ([`BOUND`]), over the moving particles: the sum of the
    /// `|x_k|` coordinates (at least the largest, and not finite when one
    /// is not), the largest `w_k` and `|∇_k V|` coordinate.
    bound: [T; 3],
}

/// Pass 3: `∇_k V = (6∇_k V) / 6` of every moving particle of `list`
/// stored back in its scratch entry, `W` summed in list order, and the
/// terms of the bound. `OutOfRange` for an index naming no position,
/// inverse mass or scratch entry.
#[inline(always)]
fn weigh<T: Real, const D: usize>(
    list: &[u32],
    scratch: &mut [[T; 3]],
    positions: &[[T; D]],
    inverse_masses: &[T],
) -> Result<Weighed<T>, Fault> {
    let six = T::from_f64(6.0);
    let mut out = Weighed {
        weight: T::ZERO,
        moving: false,
        bound: [T::ZERO; 3],
    };
    for &k in list {
        let k = index(k);
        let (Some(e), Some(&w), Some(p)) =
            (scratch.get_mut(k), inverse_masses.get(k), positions.get(k))
        else {
            return Err(Fault::OutOfRange);
        };
        if w != T::ZERO {
            out.moving = true;
            let [x, y, z] = *e;
            let g = [x / six, y / six, z / six];
            out.weight = out.weight + w * dot3(&g, &g);
            *e = g;
            if BOUND {
                let [bx, bw, bg] = &mut out.bound;
                // A sum (at least the largest term; NaN and ∞ stay).
                for &v in p {
                    *bx = *bx + v.abs();
                }
                *bw = crate::math::max(*bw, w);
                for v in g {
                    *bg = crate::math::max(*bg, v.abs());
                }
            }
        }
    }
    Ok(out)
}

impl<T: Real> Weighed<T> {
    /// Whether every corrected position `x_k + (w_k Δλ) ∇_k V` of a moving
    /// particle is finite for `delta = Δλ`, proved from the terms [`weigh`]
    /// saw, `X` (≥ every `|x|`), `W` and `G`: each `|x + (w Δλ) g|` is at most
    /// `B = X + (W |Δλ|) G` up to a few roundings of at most one ulp each
    /// (in any rounding mode). `2B` finite leaves a factor of two for
    /// them, which proves every corrected position finite. `false` (run
    /// the check) when the bound fails or is NaN (a non-finite `|x|`).
    #[inline(always)]
    fn finite_after(&self, delta: T) -> bool {
        let [x, w, g] = self.bound;
        let b = x + (w * delta.abs()) * g;
        (b + b).is_finite()
    }
}

/// Pass 4 (`write`): every moving particle of `list` moved to
/// `x_k + (w_k Δλ) ∇_k V`, its scratch entry consumed (zeroed: a particle
/// listed twice moves once). Without `write`, the same values only
/// checked finite (nothing written). `false` for a non-finite one.
#[inline(never)]
fn correct<T: Real, const D: usize>(
    list: &[u32],
    scratch: &mut [[T; 3]],
    positions: &mut [[T; D]],
    inverse_masses: &[T],
    (delta, write): (T, bool),
) -> bool {
    for &k in list {
        let k = index(k);
        let (Some(p), Some(e), Some(&w)) = (
            positions.get_mut(k),
            scratch.get_mut(k),
            inverse_masses.get(k),
        ) else {
            continue;
        };
        if w != T::ZERO {
            let s = w * delta;
            for (x, g) in p.iter_mut().zip(e.iter()) {
                let v = *x + s * *g;
                if write {
                    *x = v;
                } else if !v.is_finite() {
                    return false;
                }
            }
            if write {
                *e = [T::ZERO; 3];
            }
        }
    }
    true
}

/// Solves one mesh: evaluates `C` and its gradient (into `scratch`), the
/// one [`update`], proves or checks every corrected position finite, then
/// commits the positions and λ together, or (on a fault) nothing. The
/// passes are the module's; `positions` (m), `inverse_masses` (1/kg), `h2`
/// the substep length squared (s²). [`evaluate`] settles a static mesh, a
/// non-finite `C` (a non-finite position, the first in list order, or an
/// overflow) and a bad range or index.
#[inline(always)]
pub(crate) fn solve_mesh<T: Real, const D: usize>(
    mesh: &mut MeshVolume<T>,
    groups: (&[[u32; 3]], &[u32]),
    scratch: &mut [[T; 3]],
    positions: &mut [[T; D]],
    inverse_masses: &[T],
    h2: T,
) -> Result<Outcome<T>, Fault> {
    let (c, list) = match evaluate(mesh, groups, positions, inverse_masses, Some(scratch)) {
        Ok(found) => found,
        Err(settled) => return settled,
    };
    // Pass 1 found every entry's scratch entry (and, on bare metal, its
    // position and inverse mass, and a moving particle).
    let weighed = weigh(list, scratch, positions, inverse_masses)?;
    let weight = weighed.weight;
    if BOUND && !weighed.moving {
        return Ok(Outcome::Static);
    }
    // The positions are finite (C is): a non-finite W is an overflow.
    if !weight.is_finite() {
        return Err(Fault::NonFinite);
    }
    if weight < T::MIN_POSITIVE {
        return Ok(Outcome::Degenerate);
    }
    let u = update(c, mesh.lambda, weight, mesh.compliance / h2, Bound::Free);
    if !u.lambda.is_finite() {
        return Err(Fault::NonFinite);
    }
    // Every corrected position proved, or checked finite (`write` false),
    // before any is written; then the same operations, written once per
    // particle (one call site: code size).
    let mut write = BOUND && weighed.finite_after(u.delta);
    loop {
        if !correct(list, scratch, positions, inverse_masses, (u.delta, write)) {
            return Err(Fault::NonFinite);
        }
        if write {
            break;
        }
        write = true;
    }
    super::store_lambda(&mut mesh.lambda, u.lambda);
    Ok(Outcome::Applied {
        c_abs: u.c_abs,
        residual: u.residual,
    })
}

/// What [`solve_mesh`] would count, writing nothing: `|C|` and
/// `|C + α̃λ|` when a particle of the mesh moves (counted as applied
/// without forming the gradient, so a degenerate mesh counts as applied
/// here), static otherwise; the faults of [`solve_mesh`]'s [`evaluate`].
#[inline(always)]
pub(crate) fn visit_mesh<T: Real, const D: usize>(
    mesh: &MeshVolume<T>,
    groups: (&[[u32; 3]], &[u32]),
    positions: &[[T; D]],
    inverse_masses: &[T],
    h2: T,
) -> Result<Outcome<T>, Fault> {
    match evaluate(mesh, groups, positions, inverse_masses, None) {
        Ok((c, _)) => {
            // The update's own |C| and |C + α̃λ| (they do not depend on W).
            let u = update(c, mesh.lambda, T::ONE, mesh.compliance / h2, Bound::Free);
            Ok(Outcome::Applied {
                c_abs: u.c_abs,
                residual: u.residual,
            })
        }
        Err(settled) => settled,
    }
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
    Some(accumulate(tris, positions, &r, None)? / T::from_f64(6.0))
}

#[cfg(test)]
#[allow(clippy::indexing_slicing, clippy::unwrap_used, clippy::panic)]
mod tests {
    use super::*;

    /// The tet mesh's particles in first-appearance order.
    const LIST: [u32; 4] = [0, 2, 1, 3];

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
        let mut mesh = MeshVolume::new([0, 4], [0, 4], 1.0 / 6.0, 2.0, 0.0);
        let mut scratch = [[7.0; 3]; 4];
        let before = x;
        let out = solve_mesh(&mut mesh, (&tris, &LIST), &mut scratch, &mut x, &w, 1.0).unwrap();
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
        let mut mesh = MeshVolume::new([0, 4], [0, 4], 1.0, 1.0, 0.0);
        let mut s = [[0.0; 3]; 4];
        let mut y = x;
        let out = solve_mesh(&mut mesh, (&tris, &LIST), &mut s, &mut y, &[0.0; 4], 1.0);
        assert_eq!(out, Ok(Outcome::Static));
        let mut point = [[0.25; 3]; 4];
        let out = solve_mesh(
            &mut mesh,
            (&tris, &LIST),
            &mut s,
            &mut point,
            &[1.0; 4],
            1.0,
        );
        assert_eq!(out, Ok(Outcome::Degenerate));
        assert_eq!(point, [[0.25; 3]; 4]);
        let mut bad = x;
        bad[3][1] = f64::NAN;
        let out = solve_mesh(&mut mesh, (&tris, &LIST), &mut s, &mut bad, &[1.0; 4], 1.0);
        assert_eq!(out, Err(Fault::NonFinitePosition(3)));
        let mut huge = x.map(|p| p.map(|c| c * 1e300));
        let keep = huge;
        let out = solve_mesh(&mut mesh, (&tris, &LIST), &mut s, &mut huge, &[1.0; 4], 1.0);
        assert_eq!(out, Err(Fault::NonFinite));
        assert_eq!(huge, keep);
        assert_eq!(mesh.lambda, 0.0);
        // A non-finite C diagnosed: static (finite positions, nothing
        // moves), or an entry naming no inverse mass (before the NaN).
        let zero = [0.0; 4];
        let out = solve_mesh(&mut mesh, (&tris, &LIST), &mut s, &mut huge, &zero, 1.0);
        assert_eq!(out, Ok(Outcome::Static));
        assert_eq!(visit_mesh(&mesh, (&tris, &LIST), &huge, &zero, 1.0), out);
        let short = [1.0; 3];
        let out = solve_mesh(&mut mesh, (&tris, &LIST), &mut s, &mut bad, &short, 1.0);
        assert_eq!(out, Err(Fault::OutOfRange));
        assert_eq!(visit_mesh(&mesh, (&tris, &LIST), &bad, &short, 1.0), out);
        assert_eq!(
            visit_mesh(&mesh, (&tris, &LIST), &bad, &[1.0; 4], 1.0),
            Err(Fault::NonFinitePosition(3))
        );
        let out = solve_mesh(
            &mut mesh,
            (&tris, &LIST),
            &mut s[..3],
            &mut y,
            &[1.0; 4],
            1.0,
        );
        assert_eq!(out, Err(Fault::OutOfRange));
        let mut flat = [[0.0; 2]; 4];
        let out = solve_mesh(&mut mesh, (&tris, &LIST), &mut s, &mut flat, &[1.0; 4], 1.0);
        assert_eq!(out, Err(Fault::OutOfRange));
        let far = MeshVolume::new([1, 4], [0, 4], 1.0, 1.0, 0.0);
        assert_eq!(
            visit_mesh(&far, (&tris, &LIST), &x, &[1.0; 4], 1.0),
            Err(Fault::OutOfRange)
        );
    }

    /// `accumulate` (the host path) and `accumulate_turning` (bare metal)
    /// on a perturbed octahedron: the same `6V` and scratch, bit for bit,
    /// and the same `None` for an index past the positions or the scratch.
    fn turning_matches<T: Real>() {
        let tris: [[u32; 3]; 8] = [
            [0, 2, 4],
            [2, 1, 4],
            [1, 3, 4],
            [3, 0, 4],
            [2, 0, 5],
            [1, 2, 5],
            [3, 1, 5],
            [0, 3, 5],
        ];
        let mut seed = 0x9e37_79b9_u32;
        let mut x = [[T::ZERO; 3]; 6];
        for (k, p) in x.iter_mut().enumerate() {
            for (i, c) in p.iter_mut().enumerate() {
                seed ^= seed << 13;
                seed ^= seed >> 17;
                seed ^= seed << 5;
                let axis = match (i == k / 2, k % 2) {
                    (true, 0) => 1.0,
                    (true, _) => -1.0,
                    _ => 0.0,
                };
                *c = T::from_f64(axis + f64::from(seed) / 2f64.powi(32) * 0.4 - 0.2 + 3.0);
            }
        }
        let r = x[0];
        let bits = |v: &dyn core::fmt::Debug| format!("{v:?}");
        let (mut s1, mut s2) = ([[T::from_f64(0.5); 3]; 6], [[T::from_f64(0.5); 3]; 6]);
        let v1 = accumulate(&tris, &x, &r, Some(&mut s1));
        let v2 = accumulate_turning(&tris, &x, &r, Some(&mut s2));
        assert!(v1.is_some_and(|v| v != T::ZERO));
        assert_eq!(bits(&(v1, s1)), bits(&(v2, s2)));
        let none = accumulate_turning(&tris, &x, &r, None);
        assert_eq!(bits(&accumulate(&tris, &x, &r, None)), bits(&none));
        assert_eq!(bits(&none), bits(&v1));
        assert_eq!(accumulate_turning(&tris, &x[..5], &r, None), None);
        assert_eq!(accumulate_turning(&tris, &x, &r, Some(&mut s2[..5])), None);
        assert_eq!(accumulate(&tris, &x, &r, Some(&mut s1[..5])), None);
    }

    #[test]
    fn turning_accumulation_gives_the_same_bits() {
        turning_matches::<f32>();
        turning_matches::<f64>();
    }

    #[test]
    fn forged_lists_are_rejected() {
        let (_, tris) = tet_mesh();
        let mesh = MeshVolume::new([0, 4], [0, 4], 1.0, 1.0, 0.0);
        let mut marks = [[9.0; 3]; 5];
        let check = |list: &[u32], marks: &mut [[f64; 3]]| mesh.check_list(&tris, list, 5, marks);
        assert_eq!(check(&LIST, &mut marks), Ok(()));
        assert_eq!(check(&[0, 2, 1, 3, 4], &mut marks), Ok(()), "first 4 only");
        assert_eq!(check(&[0, 2, 1], &mut marks), Err(Invalid::RestValue));
        assert_eq!(
            check(&[0, 2, 1, 5], &mut marks),
            Err(Invalid::IndexOutOfRange)
        );
        assert_eq!(check(&[0, 2, 1, 1], &mut marks), Err(Invalid::SameParticle));
        assert_eq!(check(&[0, 1, 2, 3], &mut marks), Err(Invalid::RestValue));
        assert_eq!(check(&[0, 2, 1, 4], &mut marks), Err(Invalid::RestValue));
        let longer = MeshVolume::new([0, 4], [0, 5], 1.0, 1.0, 0.0);
        let extra = longer.check_list(&tris, &[0, 2, 1, 3, 4], 5, &mut marks);
        assert_eq!(
            extra,
            Err(Invalid::RestValue),
            "an entry not in the triangles"
        );
        let short = longer.check_list(&tris, &[0, 2, 1, 3, 4], 5, &mut marks[..4]);
        assert_eq!(short, Err(Invalid::IndexOutOfRange));
    }

    #[test]
    fn a_repeated_entry_moves_its_particle_once() {
        let (x0, tris) = tet_mesh();
        let w = [1.0; 4];
        let (mut x, mut y) = (x0, x0);
        let mut m1 = MeshVolume::new([0, 4], [0, 4], 1.0 / 6.0, 2.0, 0.0);
        let mut m2 = MeshVolume::new([0, 4], [0, 5], 1.0 / 6.0, 2.0, 0.0);
        let mut s = [[0.0; 3]; 4];
        solve_mesh(&mut m1, (&tris, &LIST), &mut s, &mut x, &w, 1.0).unwrap();
        let forged = [0, 2, 1, 3, 3];
        solve_mesh(&mut m2, (&tris, &forged), &mut s, &mut y, &w, 1.0).unwrap();
        // W counts particle 3 twice (a forged list is wrong physics), but
        // no particle moves twice: particle 3 moves along its gradient once.
        assert!(y.iter().flatten().all(|c| c.is_finite()));
        assert!(m2.lambda.abs() < m1.lambda.abs());
    }
}
