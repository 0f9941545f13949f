//! Field colliders: the engine's terrain and bodies as a grid of samples,
//! a heightfield or a signed distance field (SDF), moving over the frame
//! like a box ([`moving`](super::moving)).
//!
//! # The constraint
//!
//! The contact is the moving colliders' separating plane (see
//! [`moving`](super::moving)): the particle's substep start `x_prev` is
//! carried with the collider to `x̂` at the substep's end; the field gives
//! the surface point `s` and the outward unit normal `n̂` belonging to `x̂`;
//! then
//!
//! ```text
//! C = n̂·(x − s) − r ≥ 0,   ∇C = n̂,   α̃ = α/h² (1/kg),   W = w,   λ ≥ 0
//! ```
//!
//! with `r` the particle radius (m), α the contact compliance (m/N) and
//! λ in kg·m, solved by the one update of every kind (Macklin, Müller,
//! Chentanez 2016, *XPBD*, eq. 18), with static friction at the position
//! level and dynamic friction on velocities (Müller et al. 2020,
//! *Detailed Rigid Body Simulation with Extended Position Based
//! Dynamics*, §3.5-3.6). The plane depends on where the particle started,
//! not on where it is: the particle cannot pass through the surface
//! nearest its start however fast it or the collider moves (no
//! tunnelling within a substep); see docs/collision.md for what that does
//! not cover.
//!
//! # The surface of a heightfield
//!
//! In the collider's local frame (axis 1 up), node `(i, j)` is at
//! `offset + (i·spacing[0], height_scale·h_ij, j·spacing[1])` (3D; in 2D
//! `(i·spacing[0], height_scale·h_i)`). The height `H(u, v)` at a local
//! point is bilinear in the cell below it (linear in 2D), the normal is
//! `n̂ = (−∂H/∂u, 1, −∂H/∂v)/|…|`, and `s` the point of the surface
//! straight above or below `x̂`. Everything below the surface is solid; a
//! point outside the grid's footprint has no surface (no contact).
//!
//! # The surface of a signed distance field
//!
//! Node `k` (per axis) is at `offset + cell·k` in the local frame and
//! holds the signed distance `φ` (m; negative inside). `φ` at a local
//! point is the multilinear interpolation of the `2^D` nodes of its cell
//! (trilinear in 3D), its gradient that interpolant's exact gradient,
//! `n̂ = ∇φ/|∇φ|` and `s = x̂ − φ n̂`. Outside the grid the point is
//! clamped into it and `φ` grows by the distance to the grid (the grid
//! should enclose the surface with a margin). Where the gradient vanishes
//! the normal is the local axis 1.
//!
//! # Samples
//!
//! Both kinds read their samples from one shared array
//! ([`Colliders::samples`](crate::step::Colliders::samples)): node
//! `(i, j)` of a heightfield is entry `first + j·counts[0] + i`, node
//! `(i, j, k)` of an SDF entry `first + i + counts[0]·(j + counts[1]·k)`.
//! The step checks every sample a field names (finite) once per frame.

use crate::math::{add_scaled, dot, max, sub, unit};
use crate::real::{finite_non_negative, finite_positive, Real};

/// A heightfield: a grid of heights over local axes 0 and 2 (axis 1 up),
/// moving with `velocity` and `angular_velocity` over the frame.
///
/// `#[repr(C)]`: `Heightfield<f64, 3>` is the C type `XpbdHeightfield3`,
/// `Heightfield<f32, 3>` is `XpbdHeightfield3F32`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Heightfield<T, const D: usize> {
    /// The local frame's origin at the frame's start (m); it turns about
    /// this point.
    pub center: [T; D],
    /// The local frame's axes in world coordinates at the frame's start,
    /// unit length and pairwise orthogonal within 1e-3 (as a box's
    /// `axes`); axis 1 is up.
    pub axes: [[T; D]; D],
    /// Linear velocity of `center` over the frame (m/s).
    pub velocity: [T; D],
    /// Angular velocity about `center` over the frame (rad/s; in 2D only
    /// the z component, `[2]`, is used).
    pub angular_velocity: [T; 3],
    /// Local coordinates of node `(0, 0)` at height 0 (m).
    pub offset: [T; D],
    /// Node spacing along local axes 0 and 2 (m), finite and > 0 (in 2D
    /// `spacing[1]` is not used).
    pub spacing: [T; 2],
    /// Height of a sample value of 1 (m per unit), finite.
    pub height_scale: T,
    /// Nodes along local axes 0 and 2: `counts[0] ≥ 2`; `counts[1] ≥ 2`
    /// in 3D, `= 1` in 2D.
    pub counts: [u32; 2],
    /// The first sample's index in the colliders' `samples`.
    pub first: usize,
    /// Static friction coefficient μ_s against it, finite and ≥ 0.
    pub static_friction: T,
    /// Dynamic friction coefficient μ_k against it, finite and ≥ 0.
    pub dynamic_friction: T,
}

/// A signed distance field on a regular grid in its local frame, moving
/// with `velocity` and `angular_velocity` over the frame.
///
/// `#[repr(C)]`: `Sdf<f64, 3>` is the C type `XpbdSdf3`, `Sdf<f32, 3>` is
/// `XpbdSdf3F32`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sdf<T, const D: usize> {
    /// The local frame's origin at the frame's start (m); it turns about
    /// this point.
    pub center: [T; D],
    /// The local frame's axes in world coordinates at the frame's start,
    /// unit length and pairwise orthogonal within 1e-3.
    pub axes: [[T; D]; D],
    /// Linear velocity of `center` over the frame (m/s).
    pub velocity: [T; D],
    /// Angular velocity about `center` over the frame (rad/s; in 2D only
    /// the z component, `[2]`, is used).
    pub angular_velocity: [T; 3],
    /// Local coordinates of node `(0, 0, 0)` (m).
    pub offset: [T; D],
    /// Node spacing along every local axis (m), finite and > 0.
    pub cell: T,
    /// Nodes along each local axis, each ≥ 2.
    pub counts: [u32; D],
    /// The first sample's index in the colliders' `samples`.
    pub first: usize,
    /// Static friction coefficient μ_s against it, finite and ≥ 0.
    pub static_friction: T,
    /// Dynamic friction coefficient μ_k against it, finite and ≥ 0.
    pub dynamic_friction: T,
}

/// The field colliders of a step: heightfields, then signed distance
/// fields (collider indices after the boxes), and the samples they read.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Fields<'a, T, const D: usize> {
    /// Heightfields.
    pub(crate) heightfields: &'a [Heightfield<T, D>],
    /// Signed distance fields (indices after the heightfields).
    pub(crate) sdfs: &'a [Sdf<T, D>],
    /// The samples both read.
    pub(crate) samples: &'a [T],
}

impl<T, const D: usize> Default for Fields<'_, T, D> {
    fn default() -> Self {
        Self {
            heightfields: &[],
            sdfs: &[],
            samples: &[],
        }
    }
}

/// A field's shape.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Shape<'a, T, const D: usize> {
    /// A heightfield.
    Heightfield(&'a Heightfield<T, D>),
    /// A signed distance field.
    Sdf(&'a Sdf<T, D>),
}

/// What the moving colliders' code reads of a field: its pose, its
/// friction and its shape.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Field<'a, T, const D: usize> {
    pub(crate) center: &'a [T; D],
    pub(crate) velocity: &'a [T; D],
    pub(crate) angular_velocity: &'a [T; 3],
    pub(crate) axes: &'a [[T; D]; D],
    pub(crate) offset: &'a [T; D],
    pub(crate) static_friction: T,
    pub(crate) dynamic_friction: T,
    pub(crate) shape: Shape<'a, T, D>,
}

impl<'a, T: Real, const D: usize> Fields<'a, T, D> {
    /// The number of fields.
    pub(crate) fn len(&self) -> usize {
        self.heightfields.len().saturating_add(self.sdfs.len())
    }

    /// Field `k` (heightfields, then signed distance fields).
    pub(crate) fn get(&self, k: usize) -> Option<Field<'a, T, D>> {
        if let Some(f) = self.heightfields.get(k) {
            return Some(Field {
                center: &f.center,
                velocity: &f.velocity,
                angular_velocity: &f.angular_velocity,
                axes: &f.axes,
                offset: &f.offset,
                static_friction: f.static_friction,
                dynamic_friction: f.dynamic_friction,
                shape: Shape::Heightfield(f),
            });
        }
        let f = self.sdfs.get(k.checked_sub(self.heightfields.len())?)?;
        Some(Field {
            center: &f.center,
            velocity: &f.velocity,
            angular_velocity: &f.angular_velocity,
            axes: &f.axes,
            offset: &f.offset,
            static_friction: f.static_friction,
            dynamic_friction: f.dynamic_friction,
            shape: Shape::Sdf(f),
        })
    }

    /// The index of the first field that is not valid
    /// ([`heightfield_valid`], [`sdf_valid`]), if any.
    pub(crate) fn first_invalid(&self) -> Option<usize> {
        let s = self.samples;
        match self
            .heightfields
            .iter()
            .position(|f| !heightfield_valid(f, s))
        {
            Some(k) => Some(k),
            None => self
                .sdfs
                .iter()
                .position(|f| !sdf_valid(f, s))
                .map(|k| k.saturating_add(self.heightfields.len())),
        }
    }
}

impl<T: Real, const D: usize> Field<'_, T, D> {
    /// A bound on the distance from `center` to the surface's part that
    /// can touch a particle (m), or `None` when there is none (a
    /// heightfield: its heights are not bounded without reading them).
    pub(crate) fn bound(&self) -> Option<T> {
        match self.shape {
            Shape::Heightfield(_) => None,
            Shape::Sdf(f) => {
                // The grid's farthest corner from the local origin.
                let mut far2 = T::ZERO;
                for (o, c) in f.offset.iter().zip(&f.counts) {
                    let span = f.cell * T::from_f64(f64::from(c.saturating_sub(1)));
                    let e = max(o.abs(), (*o + span).abs());
                    far2 = far2 + e * e;
                }
                Some(far2.sqrt())
            }
        }
    }
}

/// The identity axes (`D` × `D`).
pub(crate) fn identity<T: Real, const D: usize>() -> [[T; D]; D] {
    let mut axes = [[T::ZERO; D]; D];
    for (k, a) in axes.iter_mut().enumerate() {
        if let Some(v) = a.get_mut(k) {
            *v = T::ONE;
        }
    }
    axes
}

impl<T: Real, const D: usize> Heightfield<T, D> {
    /// A heightfield at rest with world axes and no friction: `counts`
    /// nodes `spacing` apart (m) from `offset` (local = world coordinates
    /// from the origin), heights in m (`height_scale` 1) from sample
    /// `first`.
    #[must_use]
    pub fn new(offset: [T; D], spacing: [T; 2], counts: [u32; 2], first: usize) -> Self {
        Self {
            center: [T::ZERO; D],
            axes: identity(),
            velocity: [T::ZERO; D],
            angular_velocity: [T::ZERO; 3],
            offset,
            spacing,
            height_scale: T::ONE,
            counts,
            first,
            static_friction: T::ZERO,
            dynamic_friction: T::ZERO,
        }
    }

    /// The number of samples it reads (`None` on overflow).
    #[must_use]
    pub fn sample_count(&self) -> Option<usize> {
        let [a, b] = self.counts;
        usize::try_from(a)
            .ok()?
            .checked_mul(usize::try_from(b).ok()?)
    }
}

impl<T: Real, const D: usize> Sdf<T, D> {
    /// A signed distance field at rest with world axes and no friction:
    /// `counts` nodes `cell` apart (m) from `offset`, from sample `first`.
    #[must_use]
    pub fn new(offset: [T; D], cell: T, counts: [u32; D], first: usize) -> Self {
        Self {
            center: [T::ZERO; D],
            axes: identity(),
            velocity: [T::ZERO; D],
            angular_velocity: [T::ZERO; 3],
            offset,
            cell,
            counts,
            first,
            static_friction: T::ZERO,
            dynamic_friction: T::ZERO,
        }
    }

    /// The number of samples it reads (`None` on overflow).
    #[must_use]
    pub fn sample_count(&self) -> Option<usize> {
        self.counts
            .iter()
            .try_fold(1usize, |n, &c| n.checked_mul(usize::try_from(c).ok()?))
    }
}

/// Whether axes are unit length and pairwise orthogonal within 1e-3 (and
/// finite).
pub(crate) fn axes_valid<T: Real, const D: usize>(axes: &[[T; D]; D]) -> bool {
    let tolerance = T::from_f64(1e-3);
    let mut ok = true;
    for (i, ai) in axes.iter().enumerate() {
        ok = ok && ai.iter().all(|v| v.is_finite());
        for (j, aj) in axes.iter().enumerate() {
            let off = if i == j {
                dot(ai, ai).sqrt() - T::ONE
            } else {
                dot(ai, aj)
            };
            ok = ok && off.abs() <= tolerance;
        }
    }
    ok
}

/// The samples `first .. first + count` of `samples` when every one is
/// finite.
fn finite_range<T: Real>(samples: &[T], first: usize, count: Option<usize>) -> Option<&[T]> {
    let end = first.checked_add(count?)?;
    let s = samples.get(first..end)?;
    s.iter().all(|v| v.is_finite()).then_some(s)
}

/// Checks a heightfield: its pose and friction finite, axes orthonormal,
/// spacing > 0, the counts, and its samples within `samples` and finite.
pub(crate) fn heightfield_valid<T: Real, const D: usize>(
    f: &Heightfield<T, D>,
    samples: &[T],
) -> bool {
    let finite = |v: &[T]| v.iter().all(|x| x.is_finite());
    let [a, b] = f.counts;
    let counts = a >= 2 && if D == 2 { b == 1 } else { b >= 2 };
    let spacing = finite_positive(f.spacing[0]) && (D == 2 || finite_positive(f.spacing[1]));
    counts
        && spacing
        && finite(&f.center)
        && finite(&f.velocity)
        && finite(&f.angular_velocity)
        && finite(&f.offset)
        && f.height_scale.is_finite()
        && finite_non_negative(f.static_friction)
        && finite_non_negative(f.dynamic_friction)
        && axes_valid(&f.axes)
        && finite_range(samples, f.first, f.sample_count()).is_some()
}

/// Checks a signed distance field as [`heightfield_valid`]: each count
/// ≥ 2, `cell` > 0.
pub(crate) fn sdf_valid<T: Real, const D: usize>(f: &Sdf<T, D>, samples: &[T]) -> bool {
    let finite = |v: &[T]| v.iter().all(|x| x.is_finite());
    f.counts.iter().all(|&c| c >= 2)
        && finite_positive(f.cell)
        && finite(&f.center)
        && finite(&f.velocity)
        && finite(&f.angular_velocity)
        && finite(&f.offset)
        && finite_non_negative(f.static_friction)
        && finite_non_negative(f.dynamic_friction)
        && axes_valid(&f.axes)
        && finite_range(samples, f.first, f.sample_count()).is_some()
}

/// The grid cell of grid coordinate `u` (in cells) on an axis of `count`
/// ≥ 2 nodes: the node below the clamped coordinate (at most
/// `count − 2`) and the fraction past it, in [0, 1]. A NaN clamps to 0.
#[inline]
#[allow(clippy::as_conversions, clippy::cast_possible_truncation)]
fn cell_of<T: Real>(u: T, count: u32) -> (usize, T) {
    let top = T::from_f64(f64::from(count.saturating_sub(1)));
    let clamped = if u > T::ZERO {
        if u < top {
            u
        } else {
            top
        }
    } else {
        T::ZERO
    };
    // A non-negative f64 → usize saturates; the value is below 2^32.
    let below =
        (clamped.to_f64() as usize).min(usize::try_from(count.saturating_sub(2)).unwrap_or(0));
    // `below` < 2^32 is exact in f64; in f32 past 2^24 it rounds, and the
    // fraction is clamped.
    let f = clamped - T::from_f64(f64::from(u32::try_from(below).unwrap_or(0)));
    let f = if f > T::ONE {
        T::ONE
    } else if f > T::ZERO {
        f
    } else {
        T::ZERO
    };
    (below, f)
}

/// The surface of heightfield `f` belonging to local point `q` (m, from
/// the local origin less `offset`: from node `(0, 0)` at height 0): the
/// local surface point straight above or below `q` and the local outward
/// unit normal; `None` outside the grid's footprint (or a sample missing:
/// the step validated them).
#[inline(never)]
pub(crate) fn heightfield_surface<T: Real, const D: usize>(
    f: &Heightfield<T, D>,
    samples: &[T],
    q: &[T; D],
) -> Option<([T; D], [T; D])> {
    let three = D >= 3;
    let [ca, cb] = f.counts;
    let u = *q.first()? / f.spacing[0];
    let v = if three {
        *q.get(2)? / f.spacing[1]
    } else {
        T::ZERO
    };
    let outside =
        |t: T, count: u32| !(t >= T::ZERO && t <= T::from_f64(f64::from(count.saturating_sub(1))));
    if outside(u, ca) || (three && outside(v, cb)) {
        return None;
    }
    let (i, fu) = cell_of(u, ca);
    let (j, fv) = if three { cell_of(v, cb) } else { (0, T::ZERO) };
    let row = usize::try_from(ca).ok()?;
    let at = |a: usize, b: usize| -> Option<T> {
        let k = f.first.checked_add(b.checked_mul(row)?.checked_add(a)?)?;
        samples.get(k).copied()
    };
    let (h00, h10) = (at(i, j)?, at(i.checked_add(1)?, j)?);
    let (h01, h11) = if three {
        (
            at(i, j.checked_add(1)?)?,
            at(i.checked_add(1)?, j.checked_add(1)?)?,
        )
    } else {
        (h00, h10)
    };
    let one = T::ONE;
    let s = f.height_scale;
    // Bilinear height and its slopes (m/m) along local axes 0 and 2.
    let low = h00 + (h10 - h00) * fu;
    let high = h01 + (h11 - h01) * fu;
    let h = (low + (high - low) * fv) * s;
    let du = ((h10 - h00) * (one - fv) + (h11 - h01) * fv) * s / f.spacing[0];
    let dv = if three {
        (high - low) * s / f.spacing[1]
    } else {
        T::ZERO
    };
    let mut n = [T::ZERO; D];
    *n.first_mut()? = -du;
    *n.get_mut(1)? = one;
    if let Some(z) = n.get_mut(2) {
        *z = -dv;
    }
    let n = unit(&n)?;
    let mut point = *q;
    *point.get_mut(1)? = h;
    Some((point, n))
}

/// The surface of signed distance field `f` belonging to local point `q`
/// (m, from the local origin less `offset`: from node 0): `q − φ n̂` and the local outward unit normal `n̂`; `None` when a
/// sample is missing (the step validated them) or a value overflows.
#[inline(never)]
pub(crate) fn sdf_surface<T: Real, const D: usize>(
    f: &Sdf<T, D>,
    samples: &[T],
    q: &[T; D],
) -> Option<([T; D], [T; D])> {
    // Per axis: the cell, the fraction, the node stride, and how far the
    // point lies outside the grid (m).
    let mut base = f.first;
    let mut frac = [T::ZERO; D];
    let mut stride = [0usize; D];
    let mut out2 = T::ZERO;
    let mut step = 1usize;
    for d in 0..D {
        let count = *f.counts.get(d)?;
        let u = *q.get(d)? / f.cell;
        let (i, t) = cell_of(u, count);
        let top = T::from_f64(f64::from(count.saturating_sub(1)));
        let past = if u < T::ZERO {
            -u
        } else if u > top {
            u - top
        } else {
            T::ZERO
        };
        let past = past * f.cell;
        out2 = out2 + past * past;
        base = base.checked_add(i.checked_mul(step)?)?;
        *frac.get_mut(d)? = t;
        *stride.get_mut(d)? = step;
        step = step.checked_mul(usize::try_from(count).ok()?)?;
    }
    // The 2^D corners: value and gradient (per grid unit) of the
    // multilinear interpolant.
    let mut phi = T::ZERO;
    let mut grad = [T::ZERO; D];
    // 2^D (a D of 64 or more has no grid here: no surface).
    let corners = u32::try_from(D).ok().and_then(|d| 1usize.checked_shl(d))?;
    for corner in 0..corners {
        let mut index = base;
        let mut weight = T::ONE;
        for d in 0..D {
            let t = *frac.get(d)?;
            if corner >> d & 1 == 1 {
                index = index.checked_add(*stride.get(d)?)?;
                weight = weight * t;
            } else {
                weight = weight * (T::ONE - t);
            }
        }
        let value = *samples.get(index)?;
        phi = phi + weight * value;
        for (d, g) in grad.iter_mut().enumerate() {
            // The product of the other axes' weights, signed by this
            // axis's side.
            let mut w = T::ONE;
            for e in 0..D {
                if e == d {
                    continue;
                }
                let t = *frac.get(e)?;
                w = w * if corner >> e & 1 == 1 { t } else { T::ONE - t };
            }
            let side = if corner >> d & 1 == 1 { w } else { -w };
            *g = *g + side * value;
        }
    }
    let phi = phi + out2.sqrt();
    let n = match unit(&grad) {
        Some(n) => n,
        None => {
            let mut up = [T::ZERO; D];
            *up.get_mut(1)? = T::ONE;
            up
        }
    };
    let point = add_scaled(q, &n, -phi);
    point.iter().all(|v| v.is_finite()).then_some((point, n))
}

/// Local coordinates of world point `x` for a frame at `center` with
/// (world) `axes`, less `offset`.
#[inline]
pub(crate) fn to_local<T: Real, const D: usize>(
    x: &[T; D],
    center: &[T; D],
    axes: &[[T; D]; D],
    offset: &[T; D],
) -> [T; D] {
    let d = sub(x, center);
    let mut q = [T::ZERO; D];
    for ((qk, a), o) in q.iter_mut().zip(axes).zip(offset) {
        *qk = dot(&d, a) - *o;
    }
    q
}

/// World coordinates of local point `q` (less `offset`) and of local
/// direction `n` for a frame at `center` with (world) `axes`.
#[inline]
pub(crate) fn to_world<T: Real, const D: usize>(
    q: &[T; D],
    n: &[T; D],
    center: &[T; D],
    axes: &[[T; D]; D],
    offset: &[T; D],
) -> ([T; D], [T; D]) {
    let mut point = *center;
    let mut normal = [T::ZERO; D];
    for ((a, qk), (nk, o)) in axes.iter().zip(q).zip(n.iter().zip(offset)) {
        point = add_scaled(&point, a, *qk + *o);
        normal = add_scaled(&normal, a, *nk);
    }
    (point, normal)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)] // a test fails by panicking
mod tests {
    use super::*;

    /// A sphere of radius 1 about (2, 2, 2) on a 5³ grid of cell 1.
    fn sphere_sdf() -> (Sdf<f64, 3>, Vec<f64>) {
        let mut samples = Vec::new();
        for k in 0..5 {
            for j in 0..5 {
                for i in 0..5 {
                    let d = [f64::from(i) - 2.0, f64::from(j) - 2.0, f64::from(k) - 2.0];
                    samples.push(dot(&d, &d).sqrt() - 1.0);
                }
            }
        }
        (Sdf::new([0.0; 3], 1.0, [5, 5, 5], 0), samples)
    }

    #[test]
    fn sdf_of_a_plane_is_exact_and_a_sphere_points_out() {
        // φ = x − 2.5 on a 5³ grid of cell 1: the interpolant is exact.
        let mut plane = Vec::new();
        for _k in 0..5 {
            for _j in 0..5 {
                for i in 0..5 {
                    plane.push(f64::from(i) - 2.5);
                }
            }
        }
        let f = Sdf::<f64, 3>::new([0.0; 3], 1.0, [5, 5, 5], 0);
        let (p, n) = sdf_surface(&f, &plane, &[3.75, 1.25, 2.5]).unwrap();
        assert_eq!((p, n), ([2.5, 1.25, 2.5], [1.0, 0.0, 0.0]));
        // Outside the grid: clamped, the distance to the grid added.
        let (p, n) = sdf_surface(&f, &plane, &[6.0, 2.0, 2.0]).unwrap();
        assert_eq!((p, n), ([2.5, 2.0, 2.0], [1.0, 0.0, 0.0]));
        // A sphere: below its centre the normal points down and the
        // surface point lies between the node inside and the one outside.
        let (f, s) = sphere_sdf();
        let (p, n) = sdf_surface(&f, &s, &[2.0, 0.5, 2.0]).unwrap();
        assert!(
            n[1] < -0.9 && n[0] > 0.0 && (n[0] - n[2]).abs() < 1e-15,
            "{n:?}"
        );
        assert!(p[1] > 0.5 && p[1] < 1.5, "{p:?}");
        // A missing sample (the step validates them): no surface.
        assert!(sdf_surface(&f, &s[..100], &[2.0, 0.5, 3.5]).is_none());
    }

    #[test]
    fn heightfield_is_bilinear_with_its_slope_as_normal() {
        // A ramp h = 0.5 x over a 3 × 2 grid of spacing 2 (x) and 1 (z).
        let samples = [0.0, 1.0, 2.0, 0.0, 1.0, 2.0];
        let mut f = Heightfield::<f64, 3>::new([0.0; 3], [2.0, 1.0], [3, 2], 0);
        let (p, n) = heightfield_surface(&f, &samples, &[1.0, 3.0, 0.5]).unwrap();
        assert_eq!(p, [1.0, 0.5, 0.5]);
        let k = 1.0 / 1.25f64.sqrt();
        assert!((n[0] + 0.5 * k).abs() < 1e-15 && (n[1] - k).abs() < 1e-15 && n[2] == 0.0);
        // Outside the footprint: no surface.
        assert!(heightfield_surface(&f, &samples, &[4.5, 0.0, 0.5]).is_none());
        assert!(heightfield_surface(&f, &samples, &[1.0, 0.0, -0.1]).is_none());
        // The scale multiplies every height.
        f.height_scale = 2.0;
        let (p, _) = heightfield_surface(&f, &samples, &[1.0, 3.0, 0.5]).unwrap();
        assert_eq!(p[1], 1.0);
    }

    #[test]
    fn validation_names_every_bad_field() {
        let (f, s) = sphere_sdf();
        assert!(sdf_valid(&f, &s));
        let mut nan = s.clone();
        nan[62] = f64::NAN;
        assert!(!sdf_valid(&f, &nan));
        assert!(!sdf_valid(&f, &s[..124]));
        assert!(!sdf_valid(
            &Sdf {
                counts: [5, 1, 5],
                ..f
            },
            &s
        ));
        assert!(!sdf_valid(&Sdf { cell: 0.0, ..f }, &s));
        assert!(!sdf_valid(
            &Sdf {
                first: usize::MAX,
                ..f
            },
            &s
        ));
        assert!(!sdf_valid(
            &Sdf {
                counts: [u32::MAX; 3],
                ..f
            },
            &s
        ));
        let mut turned = f;
        turned.axes[0] = [1.0, 0.1, 0.0];
        assert!(!sdf_valid(&turned, &s));
        let h = Heightfield::<f64, 3>::new([0.0; 3], [1.0, 1.0], [2, 2], 0);
        assert!(heightfield_valid(&h, &[0.0; 4]));
        assert!(!heightfield_valid(&h, &[0.0; 3]));
        assert!(!heightfield_valid(
            &Heightfield {
                height_scale: f64::INFINITY,
                ..h
            },
            &[0.0; 4]
        ));
        assert!(!heightfield_valid(
            &Heightfield {
                counts: [2, 1],
                ..h
            },
            &[0.0; 4]
        ));
        let flat = Heightfield::<f64, 2>::new([0.0; 2], [1.0, 0.0], [2, 1], 0);
        assert!(heightfield_valid(&flat, &[0.0; 2]));
    }
}
