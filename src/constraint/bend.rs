//! Dihedral bending over two triangles sharing an edge: `C = φ − φ₀` (rad).
//!
//! # The constraint
//!
//! Particles `p0, p1` (the shared edge) and `p2, p3` (the wings) in ℝ³ (m),
//! inverse masses `w_k` (1/kg), rest angle `φ₀` (rad, `|φ₀| ≤ π`),
//! compliance `α` (rad²/J = 1/(N·m)), substep `h` (s). With `e = p1 − p0`,
//! `a = p2 − p0`, `b = p3 − p0` and the unnormalised normals of the
//! triangles `(p0, p1, p2)` and `(p1, p0, p3)`,
//!
//! ```text
//! n1 = e × a          n2 = b × e
//! φ  = atan2((n2 × n1)·e, (n1·n2)|e|)   ∈ (−π, π]     (0 = flat)
//! C  = φ − φ₀, wrapped into (−π, π]               (rad)
//! ```
//!
//! - Sign: `φ > 0` when the wings fold towards the side `n1` points to
//!   (seen from that side, a valley); a flat pair has `n1 ∥ n2`, `φ = 0`.
//! - `∇_{p2} C = (|e| / |n1|²) n1`, `∇_{p3} C = (|e| / |n2|²) n2` (1/m: the
//!   reciprocal heights of the wings over the edge, along their normals);
//!   with `s2 = a·e/|e|²`, `s3 = b·e/|e|²` (where the wings' feet lie along
//!   the edge), `∇_{p0} C = −(1 − s2) ∇_{p2} C − (1 − s3) ∇_{p3} C` and
//!   `∇_{p1} C = −s2 ∇_{p2} C − s3 ∇_{p3} C`. They sum to zero (translation)
//!   and `Σ x_k × ∇_k C = 0` (rotation).
//! - `α̃ = α / h²` (1/(kg·m²)); `W = Σ_k w_k |∇_k C|²` (1/(kg·m²)), summed
//!   from the four gradients in particle order.
//! - λ (kg·m², i.e. J·s²/rad) free ([`Bound::Free`]): a bend resists folding
//!   both ways. The bending energy is `C²/(2α)`: `α = 1/k` for a hinge
//!   stiffness `k` (J/rad² = N·m/rad²).
//! - Gradients: Bridson, Marino, Fedkiw 2003, *Simulation of Clothing with
//!   Folds and Wrinkles* (SCA), §4 (the four "bending modes"); the same
//!   vectors appear in Müller et al. 2007, *Position Based Dynamics*,
//!   appendix, for `arccos(n̂1·n̂2)`. The angle from `atan2` of the triple
//!   and scalar products: Blondel, Karplus 1996, *New formulation for
//!   derivatives of torsion angles and improper torsion angles in
//!   molecular mechanics* (J. Comput. Chem. 17). XPBD update: Macklin,
//!   Müller, Chentanez 2016, eq. 18.
//!
//! # Why this formulation
//!
//! `arccos(n̂1·n̂2)` (the PBD paper's angle) is unsigned, cannot tell a
//! fold up from a fold down, and loses half its digits near 0 and π where
//! `d arccos/dx` is infinite: a cloth at rest (φ ≈ 0) is exactly where
//! it is worst. `atan2` of the sine part and the cosine part is signed,
//! well conditioned everywhere, and needs no normalisation: both arguments
//! are `sin φ` and `cos φ` times the same factor `|n1||n2||e|`, which
//! `atan2` ignores, so `n1`, `n2` and `e` stay unnormalised (one square
//! root, `|e|`, and no division before `atan2`). The gradients are the
//! closed forms above, exact derivatives of this φ (checked against finite
//! differences in `tests/bend.rs`). Wrapping `C` into `(−π, π]` makes a
//! fold near ±π correct the short way instead of unfolding through flat.
//!
//! # Degenerate geometry
//!
//! The angle and its gradient are undefined when the edge has no length
//! or a triangle no area: `|e|²`, `|n1|²` or `|n2|²` below the smallest
//! positive normal number of `T` (f64: about 2.2e-308 m² or m⁴; f32: 1.2e-38),
//! a gradient or an intermediate product that does not fit `T` (sizes
//! beyond about 1e61 m in f64, 5e7 m in f32, where `|n1||n2||e|` ∝ size⁵
//! overflows), or `W` below that number (every moving particle sits where
//! `∇C` vanishes). The instance then evaluates as
//! degenerate, never a NaN: the system's [`ZeroLength`](crate::ZeroLength)
//! policy rejects with [`SystemError::Degenerate`](crate::SystemError::Degenerate)
//! naming it, or skips and counts it. A NaN or infinite position is
//! reported as such, naming the particle.
//!
//! # Exact arithmetic and `atan2`
//!
//! Every value is computed with IEEE `+ − × ÷ sqrt` in a fixed order, no
//! fused multiply-add, so f32 and f64 give the same bits on every ISA.
//! `core` has no `atan2` without `std`, so [`atan2`] is written in `math::atan2` from
//! those operations: octant reduction, a table of `atan(k/8)`, one
//! reduction `u = (t − c)/(1 + tc)` to `|u| ≤ 1/16` and the odd series to
//! `u¹³`. Its error is below 2 ulp of the result (measured at most 1.83
//! ulp, 4.8e-16 rad, in f64 and 1.82 ulp in f32 against a 200-bit
//! reference; the analysis is in `docs/bending.md`). Bending only exists in 3D: for
//! `D ≠ 3` an instance evaluates as out of range.

use super::{
    all_finite, update, Bound, Constraint, Count, Evaluated, Evaluation, Fault, Outcome, Particles,
};
use crate::constraint::distance::index;
use crate::constraint::in_place::{gather4, write_moving, Verdict};
use crate::constraint::lanes::{Lane, LaneKind};
use crate::constraint::volume::{as3, from3};
pub use crate::math::atan2::atan2;
use crate::math::atan2::{atan2_of, atan2_select};
use crate::math::{add3 as add, cross, dot_from_zero3 as dot3, scale3 as scale, sub3 as sub};
use crate::real::{PerFormat, Real};

/// One dihedral bending constraint: triangles `(p0, p1, p2)` and
/// `(p1, p0, p3)` share the edge `p0–p1`; `p2` and `p3` are the wing
/// particles. `C = φ − φ₀` with φ the signed dihedral angle (see the
/// module documentation for φ, its sign and ∇C).
///
/// `#[repr(C)]`: this struct *is* the C type `XpbdBend` (`Bend<f64>`) and
/// `XpbdBendF32` (`Bend<f32>`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Bend<T> {
    /// `[p0, p1, p2, p3]`: the shared edge, then the two wings (indices,
    /// all distinct).
    pub particles: [u32; 4],
    /// Rest dihedral angle φ₀ (rad), finite, in `[−π, π]`; 0 is flat,
    /// positive folds the wings towards the normal of `(p0, p1, p2)`.
    pub rest_angle: T,
    /// Compliance α (rad²/J = 1/(N·m)), finite and ≥ 0; 0 is rigid. The
    /// inverse of the hinge stiffness `k` (J/rad²) of the energy
    /// `k (φ − φ₀)²/2`.
    pub compliance: T,
    /// Accumulated multiplier λ (kg·m² = J·s²/rad) of the current
    /// substep. Reset only by
    /// [`System::begin_substep`](crate::System::begin_substep).
    pub lambda: T,
}

impl<T: Real> Bend<T> {
    /// A bending constraint with λ = 0.
    #[must_use]
    pub fn new(particles: [u32; 4], rest_angle: T, compliance: T) -> Self {
        Self {
            particles,
            rest_angle,
            compliance,
            lambda: T::ZERO,
        }
    }

    /// Checks this constraint's own parameters (indices below the particle
    /// count and distinct, rest angle, compliance, `α/h²` finite).
    // Out of line at every opt-level: the kind's code keeps its name
    // (docs/code-size.md, per kind).
    #[inline(never)]
    pub(crate) fn check(&self, w: &[T], h2: T) -> Result<(), super::Invalid> {
        super::check_particles(&self.particles, w)?;
        let pi = T::from_f64(core::f64::consts::PI);
        if !self.rest_angle.is_finite() || self.rest_angle.abs() > pi {
            return Err(super::Invalid::RestValue);
        }
        super::check_compliance(self.compliance, h2)
    }

    /// The current dihedral angle φ (rad, in `(−π, π]`) of this bend's
    /// particles in `positions` (m); `None` when an index names no particle
    /// or the geometry is degenerate or not finite (see [`dihedral`]).
    #[must_use]
    pub fn angle(&self, positions: &[[T; 3]]) -> Option<T> {
        Some(dihedral(&self.gather(positions)?)?.angle)
    }

    /// The constraint value `C = φ − φ₀` (rad), wrapped into `(−π, π]`: what
    /// the solver drives to `−α̃λ`. `None` as for [`angle`](Self::angle).
    #[must_use]
    pub fn value(&self, positions: &[[T; 3]]) -> Option<T> {
        Some(wrap(self.angle(positions)? - self.rest_angle))
    }

    /// The positions of the four particles, `None` for an index out of range.
    fn gather(&self, positions: &[[T; 3]]) -> Option<[[T; 3]; 4]> {
        let [i0, i1, i2, i3] = self.particles.map(index);
        Some([
            *positions.get(i0)?,
            *positions.get(i1)?,
            *positions.get(i2)?,
            *positions.get(i3)?,
        ])
    }
}

/// A dihedral angle and its gradient, as [`dihedral`] computes them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Dihedral<T> {
    /// The signed dihedral angle φ (rad), in `(−π, π]`; 0 is flat.
    pub angle: T,
    /// `∇_{p_k} φ` for `k = 0 … 3` (1/m).
    pub gradient: [[T; 3]; 4],
}

/// The signed dihedral angle of `x = [p0, p1, p2, p3]` (m), edge `p0–p1`,
/// wings `p2` and `p3`, and its gradient (the module documentation has the
/// formulas, the sign convention and the order of operations). `None` when
/// the geometry is degenerate (an edge of no length, a triangle of no area:
/// a squared length below the smallest normal `T`), not finite, or has a
/// gradient that does not fit `T`.
///
/// # Examples
///
/// ```
/// use xpbd::constraint::bend::dihedral;
/// // The edge along x, wing p2 in the plane, wing p3 folded straight up.
/// let x = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.5, 1.0, 0.0], [0.5, 0.0, 1.0]];
/// let d = dihedral(&x).unwrap();
/// assert!((d.angle - std::f64::consts::FRAC_PI_2).abs() < 1e-15);
/// ```
#[must_use]
pub fn dihedral<T: Real>(x: &[[T; 3]; 4]) -> Option<Dihedral<T>> {
    dihedral_of(x)
}

/// [`dihedral`], inlined into the bend's evaluation (the C images hold only
/// that copy). Every vector operation is spelled out per coordinate (the
/// same operations in the same order as the formulas): at opt-level `s` a
/// loop over three coordinates keeps the vectors on the stack.
#[inline(always)]
fn dihedral_of<T: Real>(x: &[[T; 3]; 4]) -> Option<Dihedral<T>> {
    let h = hinge(x, atan2);
    if !(normal(h.ee) && normal(h.nn1) && normal(h.nn2)) {
        return None;
    }
    if !(h.sine.is_finite() && h.cosine.is_finite()) {
        return None; // |n1||n2||e| beyond T: no reliable angle
    }
    let angle = h.angle;
    // Every gradient coordinate finite: `v·0` is ±0 for a finite `v` and
    // NaN for an infinite or NaN one, so their sum is zero exactly when all
    // are finite (a check only: no result depends on it).
    let z = T::ZERO;
    let [[a0, a1, a2], [b0, b1, b2], [u0, u1, u2], [v0, v1, v2]] = h.gradient;
    let probe = z + a0 * z + a1 * z + a2 * z + b0 * z + b1 * z + b2 * z;
    let probe = probe + u0 * z + u1 * z + u2 * z + v0 * z + v1 * z + v2 * z;
    if !angle.is_finite() || probe != T::ZERO {
        return None;
    }
    Some(Dihedral {
        angle,
        gradient: h.gradient,
    })
}

/// A hinge's geometry, computed without a check: what [`dihedral_of`]
/// tests and the in-place kernel ([`solve_in_place`]) tests its own way.
struct Hinge<T> {
    /// `|e|²` (m²), `e = p1 − p0` the shared edge.
    ee: T,
    /// `|n1|²`, `n1 = e × (p2 − p0)` (m⁴).
    nn1: T,
    /// `|n2|²`, `n2 = (p3 − p0) × e` (m⁴).
    nn2: T,
    /// `sin φ · |n1||n2||e|` (m⁵).
    sine: T,
    /// `cos φ · |n1||n2||e|` (m⁵).
    cosine: T,
    /// φ (rad), `atan(sine, cosine)`.
    angle: T,
    /// `∇_k φ` (1/m).
    gradient: [[T; 3]; 4],
}

/// [`Hinge`] from the four positions: the formulas of [`dihedral`] in
/// their order. Every vector operation is spelled out per coordinate: at
/// opt-level `s` a loop over three coordinates keeps the vectors on the
/// stack.
#[inline(always)]
fn hinge<T: Real>(x: &[[T; 3]; 4], atan: impl Fn(T, T) -> T) -> Hinge<T> {
    let [p0, p1, p2, p3] = *x;
    let e = sub(&p1, &p0);
    let a = sub(&p2, &p0);
    let b = sub(&p3, &p0);
    let n1 = cross(&e, &a);
    let n2 = cross(&b, &e);
    let ee = dot3(&e, &e);
    let nn1 = dot3(&n1, &n1);
    let nn2 = dot3(&n2, &n2);
    let len = ee.sqrt();
    // sin φ and cos φ, both times |n1||n2||e|, which atan2 ignores.
    let sine = dot3(&cross(&n2, &n1), &e);
    let cosine = dot3(&n1, &n2) * len;
    let angle = atan(sine, cosine);
    let g2 = scale(&n1, len / nn1);
    let g3 = scale(&n2, len / nn2);
    let s2 = dot3(&a, &e) / ee;
    let s3 = dot3(&b, &e) / ee;
    let t2 = T::ONE - s2;
    let t3 = T::ONE - s3;
    let ([u0, u1, u2], [v0, v1, v2]) = (g2, g3);
    let g0 = [
        -(t2 * u0) - t3 * v0,
        -(t2 * u1) - t3 * v1,
        -(t2 * u2) - t3 * v2,
    ];
    let g1 = [
        -(s2 * u0) - s3 * v0,
        -(s2 * u1) - s3 * v1,
        -(s2 * u2) - s3 * v2,
    ];
    Hinge {
        ee,
        nn1,
        nn2,
        sine,
        cosine,
        angle,
        gradient: [g0, g1, g2, g3],
    }
}

/// [`dihedral`] as the bend's evaluation calls it: inlined in binary32 (the
/// Cortex-M4F's format, where the per-kind code size is counted: no copy of
/// the result), the shared out-of-line [`dihedral`] in binary64 (soft-float
/// there, where a second copy would cost 2.6 KB next to the builder's).
struct Evaluate;

impl PerFormat for Evaluate {
    type In<T: Real> = [[T; 3]; 4];
    type Out<T: Real> = Option<Dihedral<T>>;

    #[inline(always)]
    unsafe fn f32(x: [[f32; 3]; 4]) -> Option<Dihedral<f32>> {
        dihedral_of(&x)
    }

    #[inline(always)]
    unsafe fn f64(x: [[f64; 3]; 4]) -> Option<Dihedral<f64>> {
        dihedral(&x)
    }
}

/// `x.is_finite() && x ≥ MIN_POSITIVE`: a squared length that can be
/// divided by and whose root is a normal number.
#[inline(always)]
fn normal<T: Real>(x: T) -> bool {
    x.is_finite() && x >= T::MIN_POSITIVE
}

/// `C = d` wrapped into `(−π, π]` for `d = φ − φ₀ ∈ (−2π, 2π]` (π and 2π
/// the nearest `T` values): a fold past ±π is measured the short way.
#[inline(always)]
pub(crate) fn wrap<T: Real>(d: T) -> T {
    let pi = T::from_f64(core::f64::consts::PI);
    let tau = T::from_f64(core::f64::consts::TAU);
    if d > pi {
        d - tau
    } else if d <= -pi {
        d + tau
    } else {
        d
    }
}

impl<T: Real, const D: usize> Constraint<T, D, 4> for Bend<T> {
    type Shared<'s> = ();
    // The shared out-of-line update on bare metal (code size, as the
    // shared group loops: solver::groups::SHARED_LOOPS); inlined elsewhere.
    const SHARED_UPDATE: bool = cfg!(target_os = "none");

    #[inline(always)]
    fn lambda(&self) -> T {
        self.lambda
    }

    #[inline(always)]
    fn set_lambda(&mut self, lambda: T) {
        self.lambda = lambda;
    }

    #[inline(always)]
    fn bound(&self) -> Bound {
        Bound::Free
    }

    #[inline(always)]
    fn alpha(&self, _: &(), h2: T) -> T {
        self.compliance / h2
    }

    #[inline]
    fn evaluate(&self, x: &[[T; D]], w: &[T], _: &()) -> Evaluation<T, D, 4> {
        let particles = self.particles.map(index);
        let [i0, i1, i2, i3] = particles;
        let (Some(x0), Some(x1), Some(x2), Some(x3)) = (x.get(i0), x.get(i1), x.get(i2), x.get(i3))
        else {
            return Evaluation::OutOfRange;
        };
        let (Some(&w0), Some(&w1), Some(&w2), Some(&w3)) =
            (w.get(i0), w.get(i1), w.get(i2), w.get(i3))
        else {
            return Evaluation::OutOfRange;
        };
        // Bending exists in 3D only (only 3D systems hold bends).
        let (Some(p0), Some(p1), Some(p2), Some(p3)) = (as3(x0), as3(x1), as3(x2), as3(x3)) else {
            return Evaluation::OutOfRange;
        };
        let wk = [w0, w1, w2, w3];
        if wk.iter().all(|&v| v == T::ZERO) {
            return Evaluation::Static;
        }
        let geometry = [p0, p1, p2, p3];
        // SAFETY: `Evaluate`'s arms have no contract.
        let found = unsafe { T::per_format::<Evaluate>(geometry) }.and_then(|d| {
            let [g0, g1, g2, g3] = &d.gradient;
            let weight = T::ZERO + w0 * dot3(g0, g0);
            let weight = weight + w1 * dot3(g1, g1);
            let weight = weight + w2 * dot3(g2, g2);
            let weight = weight + w3 * dot3(g3, g3);
            normal(weight).then_some((d, weight))
        });
        let Some((d, weight)) = found else {
            // The rare path: name a non-finite position, else degenerate.
            return match super::non_finite_particle(x, &self.particles) {
                Some(k) => Evaluation::NonFinitePosition(k),
                None => Evaluation::Degenerate,
            };
        };
        Evaluation::Active(Evaluated {
            particles,
            x: [*x0, *x1, *x2, *x3],
            w: wk,
            gradient: d.gradient.map(from3),
            c: wrap(d.angle - self.rest_angle),
            weight,
        })
    }
}

/// One bend solved in place: the operations of `constraint::visit` and
/// `solve` for this kind (the same bits, faults and outcome), reading and
/// writing only its particles and λ, and writing nothing on a fault. The
/// kernel of the host sweep (`solver::groups`) and of the colored ranges
/// (`colored::groups`); bare metal keeps the shared path (code size).
///
/// One test decides the common case (as for tets, `volume`): `|e|²`,
/// `|n1|²`, `|n2|²` and W at least the smallest normal, and the sum of the
/// sine and cosine parts, W, λ' and every `x_k + (w_k Δλ) ∇_k C` (static
/// particles included) finite. A finite sum proves each term finite; W
/// finite proves every gradient finite (`0 · ∞` is NaN) and with them
/// `|e|²`, `|n1|²`, `|n2|²` (an infinite one makes `len/|n1|²` or
/// `len/|n2|²` zero or infinite against an infinite or non-zero normal,
/// a gradient NaN or infinite), and those prove the positions finite (a
/// non-finite coordinate of `p0 … p3` leaves `e`, `e × a` or `b × e` with
/// one), so the static particles' corrected positions (their own) are:
/// every check of `dihedral`, `evaluate` and `visit` then passes.
/// Otherwise [`settle`] decides as they would, from the positions as they
/// were: the corrected ones are written before the test and the old bits
/// put back when it fails (as for tets, `volume::solve_in_place`: the
/// stores need not wait on the test; docs/performance-kinds.md).
#[inline(always)]
pub(crate) fn solve_in_place<T: Real, const D: usize, P: Particles<T, D>, C: Count<T>>(
    b: &mut Bend<T>,
    x: &mut P,
    h2: T,
    tally: &mut C,
) -> Result<(), C::Stop> {
    let particles = b.particles.map(index);
    let Some((p, wk)) = gather4(x, &particles) else {
        return Err(tally.fault(Fault::OutOfRange));
    };
    if wk.iter().all(|&v| v == T::ZERO) {
        return tally.count(Outcome::Static);
    }
    // `dihedral_of`'s operations, its checks left to the one test.
    let r = corrected(b, &p, &wk, h2, atan2_of);
    // Written first, tested after (undone on the rare path): the stores
    // retire without waiting on the test, so the next bend's loads of a
    // shared particle are not held up by it.
    write_moving(x, &particles, &r.next, &wk);
    if !r.ok {
        write_moving(x, &particles, &p, &wk);
        if let Some(done) = settle(b, x, particles, h2).settled(tally) {
            return done;
        }
        write_moving(x, &particles, &r.next, &wk);
    }
    super::store_lambda(&mut b.lambda, r.lambda);
    tally.count(Outcome::Applied {
        c_abs: r.c_abs,
        residual: r.residual,
    })
}

/// A bend's correction from its positions `p` and inverse masses `wk`,
/// without a branch on the values (with a branch-free `atan`): `hinge`,
/// the weight, the update with `Bound::Free`, `x_k + (w_k Δλ) ∇_k C` for
/// every particle, and the one test of [`solve_in_place`] (`ok`: `|e|²`,
/// `|n1|²`, `|n2|²` and W at least the smallest normal, and the sum of
/// the corrected positions, λ', the sine and cosine parts and W finite).
/// The scalar kernel's arithmetic and the lane kernel's
/// ([`LaneKind::lane`], `constraint::lanes`).
#[inline(always)]
fn corrected<T: Real>(
    b: &Bend<T>,
    p: &[[T; 3]; 4],
    wk: &[T; 4],
    h2: T,
    atan: impl Fn(T, T) -> T,
) -> Lane<T, 4> {
    let Hinge {
        ee,
        nn1,
        nn2,
        sine,
        cosine,
        angle,
        gradient,
    } = hinge(p, atan);
    let [g0, g1, g2, g3] = gradient;
    let [w0, w1, w2, w3] = *wk;
    let weight = T::ZERO + w0 * dot3(&g0, &g0);
    let weight = weight + w1 * dot3(&g1, &g1);
    let weight = weight + w2 * dot3(&g2, &g2);
    let weight = weight + w3 * dot3(&g3, &g3);
    let u = update(
        wrap(angle - b.rest_angle),
        b.lambda,
        weight,
        b.compliance / h2,
        Bound::Free,
    );
    let gradient = [g0, g1, g2, g3];
    let mut next = *p;
    for ((xk, &wk), gk) in next.iter_mut().zip(wk).zip(&gradient) {
        let s = wk * u.delta;
        for (v, g) in xk.iter_mut().zip(gk) {
            *v = *v + s * *g;
        }
    }
    let [n0, n1, n2, n3] = &next;
    let [sx, sy, sz] = add(&add(n0, n1), &add(n2, n3));
    let sum = ((sx + sy) + (sz + u.lambda)) + ((sine + cosine) + weight);
    let least = T::MIN_POSITIVE;
    Lane {
        next,
        lambda: u.lambda,
        c_abs: u.c_abs,
        residual: u.residual,
        still: (w0 == T::ZERO) & (w1 == T::ZERO) & (w2 == T::ZERO) & (w3 == T::ZERO),
        ok: (ee >= least) & (nn1 >= least) & (nn2 >= least) & (weight >= least) & sum.is_finite(),
    }
}

impl<T: Real> LaneKind<T, 4> for Bend<T> {
    #[inline(always)]
    fn particles(&self) -> [u32; 4] {
        self.particles
    }
    #[inline(always)]
    fn values(&self) -> [T; 3] {
        [self.rest_angle, self.compliance, self.lambda]
    }
    #[inline(always)]
    fn lane(
        [rest_angle, compliance, lambda]: [T; 3],
        p: &[[T; 3]; 4],
        w: &[T; 4],
        h2: T,
    ) -> Lane<T, 4> {
        let b = Bend {
            particles: [0; 4],
            rest_angle,
            compliance,
            lambda,
        };
        corrected(&b, p, w, h2, atan2_select)
    }
    #[inline(always)]
    fn store(&mut self, lambda: T) {
        super::store_lambda(&mut self.lambda, lambda);
    }
}

/// [`solve_in_place`]'s rare path: the operations and checks of
/// `evaluate` and `visit` again from the same values (the positions as
/// they were before the bend: the kernel has put back what it wrote),
/// deciding as they do: no usable dihedral or W (a non-finite
/// position named first, else degenerate), then a non-finite corrected
/// position or λ'.
#[cold]
#[inline(never)]
fn settle<T: Real, const D: usize, P: Particles<T, D>>(
    b: &Bend<T>,
    x: &P,
    particles: [usize; 4],
    h2: T,
) -> Verdict {
    let mut p = [[T::ZERO; 3]; 4];
    let mut wk = [T::ZERO; 4];
    for ((&k, pk), wk) in particles.iter().zip(p.iter_mut()).zip(wk.iter_mut()) {
        if let Some((xk, w)) = x.get(k) {
            *pk = as3(&xk).unwrap_or(*pk);
            *wk = w;
        }
    }
    let [w0, w1, w2, w3] = wk;
    let found = dihedral_of(&p).and_then(|d| {
        let [g0, g1, g2, g3] = &d.gradient;
        let weight = T::ZERO + w0 * dot3(g0, g0);
        let weight = weight + w1 * dot3(g1, g1);
        let weight = weight + w2 * dot3(g2, g2);
        let weight = weight + w3 * dot3(g3, g3);
        normal(weight).then_some((d, weight))
    });
    let Some((d, weight)) = found else {
        for (xk, &k) in p.iter().zip(&particles) {
            if !xk.iter().all(|v| v.is_finite()) {
                return Verdict::Position(k);
            }
        }
        return Verdict::Degenerate;
    };
    let u = update(
        wrap(d.angle - b.rest_angle),
        b.lambda,
        weight,
        b.compliance / h2,
        Bound::Free,
    );
    let mut next = p;
    for ((xk, &wk), gk) in next.iter_mut().zip(&wk).zip(&d.gradient) {
        if wk == T::ZERO {
            continue;
        }
        let s = wk * u.delta;
        for (v, g) in xk.iter_mut().zip(gk) {
            *v = *v + s * *g;
        }
    }
    if all_finite(&[&[u.lambda], next.as_flattened()]) {
        Verdict::Go
    } else {
        Verdict::NonFinite
    }
}
