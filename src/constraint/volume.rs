//! Tetrahedral volume: `C = 6(V − V₀)`, λ free.
//!
//! # The constraint
//!
//! Particles `x_0 … x_3 ∈ ℝ³` (m), inverse masses `w_0 … w_3` (1/kg), rest
//! volume `V₀` (m³, signed), compliance `α` (m⁶/J), substep `h` (s). With
//! the edges `e_1 = x_1 − x_0`, `e_2 = x_2 − x_0`, `e_3 = x_3 − x_0`:
//!
//! - `V = (e_1 × e_2) · e_3 / 6` (m³), signed: positive when `x_3` lies on
//!   the side of the triangle `(x_0, x_1, x_2)` its counter-clockwise normal
//!   points to.
//! - `C = 6V − 6V₀ = (e_1 × e_2) · e_3 − 6 V₀` (m³): the factor 6 spares a
//!   division and scales α (below).
//! - `∇_1 C = e_2 × e_3`, `∇_2 C = e_3 × e_1`, `∇_3 C = e_1 × e_2`,
//!   `∇_0 C = (x_3 − x_1) × (x_2 − x_1)` (m²): each gradient is normal to
//!   the face opposite the particle, towards the particle (moving it along
//!   the gradient grows the volume), with twice that face's area as its
//!   length. They sum to zero; `∇_0` is formed from its own face, not as
//!   minus the others' sum, so every particle gets the same treatment.
//! - `W = Σ_k w_k |∇_k C|²` (m⁴/kg), summed `k = 0 … 3`, each squared length
//!   `x² + y² + z²` in that order; `α̃ = α / h²` (m⁴/kg).
//! - λ (kg/m) free ([`Bound::Free`]): the volume is held from both sides.
//!   `6λ/h²` is the pressure (Pa) the constraint exerts on the tet.
//! - Macklin, Müller, Chentanez 2016, *XPBD: Position-Based Simulation of
//!   Compliant Constrained Dynamics*, eq. 18; the volume constraint of
//!   Müller et al. 2007 (*Position Based Dynamics*) and of Ten Minute
//!   Physics 10, *Soft Bodies* (which uses `C = V − V₀` with the gradients
//!   divided by 6: the same correction with `α_TMP = α / 36`).
//!
//! # Units of α
//!
//! The energy is `C² / (2α)` (J), so α is in m⁶/J = m⁵/N = m⁴·s²/kg. A
//! material of bulk modulus `K` (Pa) stores `K (V − V₀)² / (2 V₀)` in a tet,
//! which is this constraint with `α = 36 V₀ / K`. `α = 0` keeps the volume
//! exactly.
//!
//! # Inverted tets
//!
//! The volume is signed and so is the constraint: a tet turned inside out
//! (`V < 0` while `V₀ > 0`) has `C < 0` and is pushed back *through* zero
//! volume towards `V₀` — flipped tets recover. A flat tet (`V = 0`, its
//! particles coplanar but not collinear) still has a gradient, normal to
//! its plane, and is corrected like any other. A rest volume of the other
//! sign (`V₀ < 0`) describes a tet whose particles are listed in the other
//! order; it is held at its own negative volume.
//!
//! # Degenerate tets
//!
//! When `W` is below the smallest positive normal number of `T` while a
//! particle moves (every gradient zero: all four particles coincident or
//! on one line, or the moving ones have zero gradients) the correction
//! direction is undefined: the instance evaluates as degenerate and the
//! sweep's [`ZeroLength`](crate::ZeroLength) policy rejects it
//! ([`SystemError::Degenerate`](crate::SystemError::Degenerate)) or skips
//! and counts it. Never a NaN.
//!
//! Only 3D systems hold tets; in any other dimension an instance evaluates
//! as out of range.

use super::{
    all_finite, update, Bound, Constraint, Count, Evaluated, Evaluation, Fault, Outcome, Particles,
};
use crate::constraint::distance::index;
use crate::constraint::in_place::{gather4, write_moving, Verdict};
use crate::math::{cross, dot3, sub3};
use crate::real::Real;

/// One tetrahedral volume constraint over particles `p0..p3`, with
/// `V = ((x1 − x0) × (x2 − x0)) · (x3 − x0) / 6` (signed, m³).
///
/// `#[repr(C)]`: this struct *is* the C type `XpbdTet` (`Tet<f64>`) and
/// `XpbdTetF32` (`Tet<f32>`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Tet<T> {
    /// The four particles (indices, all distinct).
    pub particles: [u32; 4],
    /// Rest volume V₀ (m³, signed as `V` above), finite and non-zero, with
    /// `6·V₀` finite.
    pub rest_volume: T,
    /// Compliance α (m⁶/J = m⁵/N of the constraint `6(V − V₀)`), finite
    /// and ≥ 0; 0 keeps the volume exactly. For a bulk modulus `K` (Pa),
    /// `α = 36 V₀ / K`.
    pub compliance: T,
    /// Accumulated multiplier λ (kg/m) of the current substep. Reset only by
    /// [`System::begin_substep`](crate::System::begin_substep).
    pub lambda: T,
}

impl<T: Real> Tet<T> {
    /// A tet constraint with λ = 0.
    #[must_use]
    pub fn new(particles: [u32; 4], rest_volume: T, compliance: T) -> Self {
        Self {
            particles,
            rest_volume,
            compliance,
            lambda: T::ZERO,
        }
    }

    /// Checks this constraint's own parameters (indices below the particle
    /// count and distinct, rest volume finite and non-zero with `6·V₀`
    /// finite, compliance finite and ≥ 0, `α/h²` finite).
    // Out of line at every opt-level: the kind's code keeps its name
    // (docs/code-size.md, per kind).
    #[inline(never)]
    pub(crate) fn check(&self, w: &[T], h2: T) -> Result<(), super::Invalid> {
        super::check_particles(&self.particles, w)?;
        if !self.rest_volume.is_finite()
            || self.rest_volume == T::ZERO
            || !(six::<T>() * self.rest_volume).is_finite()
        {
            return Err(super::Invalid::RestValue);
        }
        super::check_compliance(self.compliance, h2)
    }
}

/// 6 in `T` (exact).
#[inline(always)]
fn six<T: Real>() -> T {
    T::from_f64(6.0)
}

/// A `[T; D]` position as `[T; 3]`: `None` unless `D = 3`.
#[inline(always)]
pub(crate) fn as3<T: Real, const D: usize>(p: &[T; D]) -> Option<[T; 3]> {
    match p.as_slice() {
        [x, y, z] => Some([*x, *y, *z]),
        _ => None,
    }
}

/// A `[T; 3]` vector as `[T; D]` (the first `min(D, 3)` coordinates; only
/// called with `D = 3`).
#[inline(always)]
pub(crate) fn from3<T: Real, const D: usize>(v: [T; 3]) -> [T; D] {
    // Element by element, not `try_from(v.as_slice())`: a slice is memory,
    // so that copy kept `v` on the stack and wrote it there as `x` and
    // `(y, z)`, read back as `(x, y)` and `z` — a failed store forward on
    // every stored position of the sweeps. This stays in registers.
    let mut out = [T::ZERO; D];
    for (o, c) in out.iter_mut().zip(v) {
        *o = c;
    }
    out
}

/// `6V = ((x1 − x0) × (x2 − x0)) · (x3 − x0)` (m³), the operations of
/// [`Tet`]'s evaluation.
#[inline(always)]
pub(crate) fn six_volume<T: Real>(x: &[[T; 3]; 4]) -> T {
    let [x0, x1, x2, x3] = x;
    dot3(&cross(&sub3(x1, x0), &sub3(x2, x0)), &sub3(x3, x0))
}

/// The gradients `∇_k (6V)` (m²) of a tet at `x`, as the module documents.
#[inline(always)]
pub(crate) fn six_volume_gradients<T: Real>(x: &[[T; 3]; 4]) -> [[T; 3]; 4] {
    let [x0, x1, x2, x3] = x;
    let e1 = sub3(x1, x0);
    let e2 = sub3(x2, x0);
    let e3 = sub3(x3, x0);
    [
        cross(&sub3(x3, x1), &sub3(x2, x1)),
        cross(&e2, &e3),
        cross(&e3, &e1),
        cross(&e1, &e2),
    ]
}

impl<T: Real, const D: usize> Constraint<T, D, 4> for Tet<T> {
    type Shared<'s> = ();
    // The shared out-of-line update on every target: code size on bare
    // metal (as the shared group loops, solver::groups::SHARED_LOOPS); on
    // the host the inlined copy measured no faster in the sequential sweep
    // and slower in the colored one (docs/performance-kinds.md).
    const SHARED_UPDATE: bool = true;

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

    #[inline(always)]
    fn evaluate(&self, x: &[[T; D]], w: &[T], _: &()) -> Evaluation<T, D, 4> {
        let particles = self.particles.map(index);
        let mut p = [[T::ZERO; 3]; 4];
        let mut wk = [T::ZERO; 4];
        for ((&k, pk), wk) in particles.iter().zip(p.iter_mut()).zip(wk.iter_mut()) {
            let (Some(xk), Some(&w)) = (x.get(k), w.get(k)) else {
                return Evaluation::OutOfRange;
            };
            let Some(xk) = as3(xk) else {
                return Evaluation::OutOfRange;
            };
            *pk = xk;
            *wk = w;
        }
        if wk.iter().all(|&v| v == T::ZERO) {
            return Evaluation::Static;
        }
        let gradient = six_volume_gradients(&p);
        let weight = wk
            .iter()
            .zip(&gradient)
            .fold(T::ZERO, |acc, (&wk, g)| acc + wk * dot3(g, g));
        let c = six_volume(&p) - six::<T>() * self.rest_volume;
        // The rare path: no usable gradient, or a non-finite value. A
        // non-finite coordinate (set by a C caller after the substep's
        // validation) is named; with finite positions a non-finite W or C
        // is an overflow, left to the finite check of the result (`visit`).
        if !weight.is_finite() || !c.is_finite() || weight < T::MIN_POSITIVE {
            if let Some(k) = super::non_finite_particle(x, &self.particles) {
                return Evaluation::NonFinitePosition(k);
            }
            if weight < T::MIN_POSITIVE {
                return Evaluation::Degenerate;
            }
        }
        Evaluation::Active(Evaluated {
            particles,
            x: p.map(from3),
            w: wk,
            gradient: gradient.map(from3),
            c,
            weight,
        })
    }
}

/// One tet solved in place: the operations of `constraint::visit` and
/// `solve` for this kind (the same bits, faults and outcome), reading and
/// writing only its particles and λ, and writing nothing on a fault. The
/// kernel of the host sweep (`solver::groups`) and of the colored ranges
/// (`colored::groups`); bare metal keeps the shared path (code size).
///
/// One test decides the common case: `W ≥ MIN_POSITIVE` and the sum of
/// `W`, λ' and every `x_k + (w_k Δλ) ∇_k C` (static particles included)
/// finite. A finite sum proves each term finite (no finite terms add up
/// to ±∞ or NaN, and no ∞ is cancelled by finite terms); λ' finite
/// proves `C` finite, so the positions are (`C` is the triple product of
/// their differences: a non-finite coordinate leaves it non-finite), so
/// the static particles' corrected positions (their own, `evaluate`'s
/// `next`) are, and `W` finite proves every gradient finite (`0 · ∞` is
/// NaN). Everything `evaluate`'s rare path and the finite check of the
/// result would test then passes. Otherwise [`settle`] decides as they
/// would (a non-finite position named, then degenerate, then a
/// non-finite result), from the positions as they were.
///
/// The corrected positions are written *before* that test, and the old
/// bits put back when it fails (so a fault still leaves every byte as
/// it was): the stores then retire without waiting on the test's chain
/// of additions, and the next tet's loads of a shared particle are not
/// held up behind it (docs/performance-kinds.md, "Writing before the
/// finite test").
#[inline(always)]
pub(crate) fn solve_in_place<T: Real, const D: usize, P: Particles<T, D>, C: Count<T>>(
    t: &mut Tet<T>,
    x: &mut P,
    h2: T,
    tally: &mut C,
) -> Result<(), C::Stop> {
    let particles = t.particles.map(index);
    let Some((p, wk)) = gather4(x, &particles) else {
        return Err(tally.fault(Fault::OutOfRange));
    };
    if wk.iter().all(|&v| v == T::ZERO) {
        return tally.count(Outcome::Static);
    }
    let Corrected {
        next, u, weight, ..
    } = corrected(&p, &wk, t, h2);
    write_moving(x, &particles, &next, &wk);
    // Summed per particle first, then across: the order that costs least
    // here (sequential sweep 0.84 → 0.94 of the C reference's speed
    // against coordinate-wise sums); any order proves the same.
    let [s0, s1, s2, s3] = next.map(|[a, b, c]| (a + b) + c);
    let sum = ((s0 + s1) + (s2 + s3)) + (u.lambda + weight);
    if !(weight >= T::MIN_POSITIVE && sum.is_finite()) {
        write_moving(x, &particles, &p, &wk);
        if let Some(done) = settle(t, x, particles, h2).settled(tally) {
            return done;
        }
    }
    super::store_lambda(&mut t.lambda, u.lambda);
    tally.count(Outcome::Applied {
        c_abs: u.c_abs,
        residual: u.residual,
    })
}

/// One tet's correction from its positions `p` and inverse masses `w`:
/// what [`solve_in_place`] writes and [`settle`] decides on, computed by
/// both from the same values (so with the same bits).
struct Corrected<T> {
    /// `x_k + (w_k Δλ) ∇_k C` for every particle (static ones included).
    next: [[T; 3]; 4],
    /// The XPBD update.
    u: super::Update<T>,
    /// `W = Σ w_k |∇_k C|²`.
    weight: T,
    /// `C = 6V − 6V₀`.
    c: T,
}

/// `six_volume_gradients` and `six_volume` (whose cross product is the
/// last gradient's) spelled out, the update and the corrected positions.
#[inline(always)]
fn corrected<T: Real>(p: &[[T; 3]; 4], wk: &[T; 4], t: &Tet<T>, h2: T) -> Corrected<T> {
    let [x0, x1, x2, x3] = p;
    let e1 = sub3(x1, x0);
    let e2 = sub3(x2, x0);
    let e3 = sub3(x3, x0);
    let g3 = cross(&e1, &e2);
    let gradient = [
        cross(&sub3(x3, x1), &sub3(x2, x1)),
        cross(&e2, &e3),
        cross(&e3, &e1),
        g3,
    ];
    let weight = wk
        .iter()
        .zip(&gradient)
        .fold(T::ZERO, |acc, (&wk, g)| acc + wk * dot3(g, g));
    let c = dot3(&g3, &e3) - six::<T>() * t.rest_volume;
    let u = update(c, t.lambda, weight, t.compliance / h2, Bound::Free);
    let mut next = *p;
    for ((xk, &wk), gk) in next.iter_mut().zip(wk).zip(&gradient) {
        let s = wk * u.delta;
        for (v, g) in xk.iter_mut().zip(gk) {
            *v = *v + s * *g;
        }
    }
    Corrected { next, u, weight, c }
}

/// Two tets of one color solved at once, lane-wise: tet `a` in lane 0 of
/// every `[T; 2]`, tet `b` in lane 1. Each lane is [`solve_in_place`]'s
/// hot path, operation for operation and in the same order (IEEE `+`,
/// `−`, `×`, `÷` and `|·|` are correctly rounded per lane, so a lane has
/// the bits of the scalar code; no fused multiply-add). Same operation on
/// both lanes is what LLVM's SLP vectoriser packs (`addpd`, `mulpd`,
/// `divpd`): two independent chains per instruction, the latency of one.
///
/// The fast path only: it writes anything only when both tets are
/// ordinary — every index names a particle (of `D = 3`), no particle of
/// `a` is one of `b`'s (a color of a proper coloring; an improper one,
/// which `Substep::iterate_colored` accepts, must see `a`'s writes), and
/// each passes [`solve_in_place`]'s one test (`W ≥ MIN_POSITIVE` and the
/// finite sum; an all-static tet has `W = 0` and fails it). Then it
/// writes `a`'s particles and λ, then `b`'s (each moving particle, in the
/// tet's order, as the scalar kernel), and returns both outcomes for the
/// caller to count in that order (`Applied`: finite values). Otherwise it
/// returns `None` having written nothing, and the caller solves `a`, then
/// `b`, with [`solve_in_place`]: every rare decision (out of range,
/// static, degenerate, a non-finite position or result) and its fault
/// and statistics are the scalar kernel's. Hosts only (the colored
/// ranges of `colored::groups`); bare metal never instantiates it.
#[inline(always)]
pub(crate) fn solve_pair_in_place<T: Real, const D: usize, P: Particles<T, D>>(
    a: &mut Tet<T>,
    b: &mut Tet<T>,
    x: &mut P,
    h2: T,
) -> Option<[Outcome<T>; 2]> {
    let [a0, a1, a2, a3] = a.particles;
    let mut shared = false;
    for q in b.particles {
        shared |= (q == a0) | (q == a1) | (q == a2) | (q == a3);
    }
    if shared {
        return None;
    }
    let pa = a.particles.map(index);
    let pb = b.particles.map(index);
    let mut p = [[[T::ZERO; 2]; 3]; 4];
    let mut wk = [[T::ZERO; 2]; 4];
    for (((&ka, &kb), pk), wk) in pa.iter().zip(&pb).zip(p.iter_mut()).zip(wk.iter_mut()) {
        let (Some((xa, wa)), Some((xb, wb))) = (x.get(ka), x.get(kb)) else {
            return None;
        };
        let ([xa, ya, za], [xb, yb, zb]) = (as3(&xa)?, as3(&xb)?);
        *pk = [[xa, xb], [ya, yb], [za, zb]];
        *wk = [wa, wb];
    }
    let [x0, x1, x2, x3] = &p;
    let e1 = sub3x2(x1, x0);
    let e2 = sub3x2(x2, x0);
    let e3 = sub3x2(x3, x0);
    let g3 = cross_x2(&e1, &e2);
    let gradient = [
        cross_x2(&sub3x2(x3, x1), &sub3x2(x2, x1)),
        cross_x2(&e2, &e3),
        cross_x2(&e3, &e1),
        g3,
    ];
    let weight = wk
        .iter()
        .zip(&gradient)
        .fold([T::ZERO; 2], |acc, (&wk, g)| {
            add2(acc, mul2(wk, dot3x2(g, g)))
        });
    let six = [six::<T>(); 2];
    let c = sub2(dot3x2(&g3, &e3), mul2(six, [a.rest_volume, b.rest_volume]));
    // The one `update` (λ free) for each lane.
    let [alpha_a, alpha_b] = div2([a.compliance, b.compliance], [h2; 2]);
    let ([c_a, c_b], [weight_a, weight_b]) = (c, weight);
    let ua = update(c_a, a.lambda, weight_a, alpha_a, Bound::Free);
    let ub = update(c_b, b.lambda, weight_b, alpha_b, Bound::Free);
    let delta = [ua.delta, ub.delta];
    let lambda = [ua.lambda, ub.lambda];
    let mut next = p;
    for ((xk, &wk), gk) in next.iter_mut().zip(&wk).zip(&gradient) {
        let s = mul2(wk, delta);
        for (v, &g) in xk.iter_mut().zip(gk) {
            *v = add2(*v, mul2(s, g));
        }
    }
    // A hint for the SLP vectoriser, not for correctness: without it the
    // stores of each particle's `x, y, z` seed its trees, which then pack
    // one tet's `x` and `y` and shuffle at every step (~297 instructions
    // a tet in the colored bench, as scalar); through memory the lanes
    // (`[a, b]`) seed them (~270, packed). `black_box` returns its
    // argument unchanged, so the bits are the same either way.
    let next = core::hint::black_box(next);
    let [s0, s1, s2, s3] = next.map(|[a, b, c]| add2(add2(a, b), c));
    let [sa, sb] = add2(add2(add2(s0, s1), add2(s2, s3)), add2(lambda, weight));
    let [wa, wb] = weight;
    // `&`, not `&&`: both lanes' tests, one branch.
    if !((wa >= T::MIN_POSITIVE) & (wb >= T::MIN_POSITIVE) & sa.is_finite() & sb.is_finite()) {
        return None;
    }
    let [la, lb] = lambda;
    for ((&k, xk), &[w, _]) in pa.iter().zip(&next).zip(&wk) {
        let [[u, _], [v, _], [z, _]] = *xk;
        if w != T::ZERO {
            x.set(k, from3([u, v, z]));
        }
    }
    super::store_lambda(&mut a.lambda, la);
    for ((&k, xk), &[_, w]) in pb.iter().zip(&next).zip(&wk) {
        let [[_, u], [_, v], [_, z]] = *xk;
        if w != T::ZERO {
            x.set(k, from3([u, v, z]));
        }
    }
    super::store_lambda(&mut b.lambda, lb);
    Some([
        Outcome::Applied {
            c_abs: ua.c_abs,
            residual: ua.residual,
        },
        Outcome::Applied {
            c_abs: ub.c_abs,
            residual: ub.residual,
        },
    ])
}

/// `a + b` per lane.
#[inline(always)]
fn add2<T: Real>(a: [T; 2], b: [T; 2]) -> [T; 2] {
    let [a0, a1] = a;
    let [b0, b1] = b;
    [a0 + b0, a1 + b1]
}

/// `a − b` per lane.
#[inline(always)]
fn sub2<T: Real>(a: [T; 2], b: [T; 2]) -> [T; 2] {
    let [a0, a1] = a;
    let [b0, b1] = b;
    [a0 - b0, a1 - b1]
}

/// `a × b` per lane.
#[inline(always)]
fn mul2<T: Real>(a: [T; 2], b: [T; 2]) -> [T; 2] {
    let [a0, a1] = a;
    let [b0, b1] = b;
    [a0 * b0, a1 * b1]
}

/// `a ÷ b` per lane.
#[inline(always)]
fn div2<T: Real>(a: [T; 2], b: [T; 2]) -> [T; 2] {
    let [a0, a1] = a;
    let [b0, b1] = b;
    [a0 / b0, a1 / b1]
}

/// [`sub3`] per lane.
#[inline(always)]
fn sub3x2<T: Real>(a: &[[T; 2]; 3], b: &[[T; 2]; 3]) -> [[T; 2]; 3] {
    let [ax, ay, az] = *a;
    let [bx, by, bz] = *b;
    [sub2(ax, bx), sub2(ay, by), sub2(az, bz)]
}

/// [`cross`] per lane.
#[inline(always)]
fn cross_x2<T: Real>(a: &[[T; 2]; 3], b: &[[T; 2]; 3]) -> [[T; 2]; 3] {
    let [ax, ay, az] = *a;
    let [bx, by, bz] = *b;
    [
        sub2(mul2(ay, bz), mul2(az, by)),
        sub2(mul2(az, bx), mul2(ax, bz)),
        sub2(mul2(ax, by), mul2(ay, bx)),
    ]
}

/// [`dot3`] per lane.
#[inline(always)]
fn dot3x2<T: Real>(a: &[[T; 2]; 3], b: &[[T; 2]; 3]) -> [T; 2] {
    let [ax, ay, az] = *a;
    let [bx, by, bz] = *b;
    add2(add2(mul2(ax, bx), mul2(ay, by)), mul2(az, bz))
}

/// [`solve_in_place`]'s rare path, deciding as `evaluate` and `visit` do:
/// when W or C is not finite or W is below the smallest normal, the first
/// non-finite position (in the tet's order) is named, else W below the
/// smallest normal is degenerate; then every corrected position
/// (`next_k` for a moving particle, its own position for a static one)
/// and λ' must be finite. The positions and inverse masses are read again
/// from `x` (as they were before the tet) and the correction computed
/// again from them ([`corrected`], the same bits); on [`Verdict::Go`] the
/// moving particles' corrected positions are written here.
#[cold]
#[inline(never)]
fn settle<T: Real, const D: usize, P: Particles<T, D>>(
    t: &Tet<T>,
    x: &mut P,
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
    let Corrected { next, u, weight, c } = corrected(&p, &wk, t, h2);
    if !(weight.is_finite() && c.is_finite() && weight >= T::MIN_POSITIVE) {
        for (xk, &k) in p.iter().zip(&particles) {
            if !xk.iter().all(|v| v.is_finite()) {
                return Verdict::Position(k);
            }
        }
        if weight < T::MIN_POSITIVE {
            return Verdict::Degenerate;
        }
    }
    // A static particle keeps its own position (its `next` may be
    // `x + 0·∞`, NaN, which is never written).
    let mut kept = next;
    for ((nk, pk), &w) in kept.iter_mut().zip(&p).zip(&wk) {
        if w == T::ZERO {
            *nk = *pk;
        }
    }
    if all_finite(&[&[u.lambda], kept.as_flattened()]) {
        write_moving(x, &particles, &next, &wk);
        Verdict::Go
    } else {
        Verdict::NonFinite
    }
}

#[cfg(test)]
mod tests;
