//! Skinned constraints eight at a time (issue 34, seventh stage): the
//! SoA frame's run of [`LANES`] consecutive instances on distinct
//! particles, each lane the operations of [`Lagged::visit`] and its
//! commit (`solve_lagged`) without a branch on the values (selects
//! only), so the instances' square roots and divisions overlap. A run in
//! which any lane would leave the common path (a static particle, a
//! non-finite position or result, a difference that overflows, a
//! direction too short or too long for `unit`, a backstop normal that
//! needs `unit_any`'s rare path) writes nothing and goes to the scalar
//! path one instance at a time, which gives the same bits and names the
//! fault.
//!
//! [`Lagged::visit`]: super::super::lagged::Lagged::visit

use super::SkinConstraint;
use crate::constraint::lagged::Motion;
use crate::constraint::lanes::{get, put, Widen, LANES, V};
use crate::constraint::{update, Bound, Outcome};
use crate::math::{dot_from_zero3 as dot, max};
use crate::real::Real;

/// One lane's result: the particle's position (m), λ (kg·m), the
/// statistics (m), and whether the scalar path would write it (`ok`).
#[derive(Clone, Copy)]
struct Out<T> {
    x: [T; 3],
    lambda: [T; 2],
    c_abs: T,
    residual: T,
    ok: bool,
}

/// `unit`'s common path: `v / |v|` and whether it applies (`|v|²`
/// finite and at least the smallest positive normal number).
#[inline(always)]
fn unit<T: Real>(v: &[T; 3]) -> ([T; 3], bool) {
    let len2 = dot(v, v);
    let ok = len2.is_finite() & (len2 >= T::MIN_POSITIVE);
    let len = len2.sqrt();
    ([v[0] / len, v[1] / len, v[2] / len], ok)
}

/// `between`'s operations for a `lag` the caller tested against 0.
#[inline(always)]
fn lagged<T: Real>(previous: &[T; 3], target: &[T; 3], lag: T, moving: bool) -> [T; 3] {
    let mut p = *target;
    for (v, q) in p.iter_mut().zip(previous) {
        let blend = *v + (*q - *v) * lag;
        *v = if moving { blend } else { *v };
    }
    p
}

/// One limit `C = |x − c| − r` on a particle of inverse mass `w ≠ 0`
/// (`Limit::evaluate`, `update`, the correction and its finite test):
/// the position and λ after it, its statistics, and whether the scalar
/// path would take it without a rare case. `on`: the limit exists (else
/// nothing changes); `pull`: λ ≤ 0 (the max distance), else λ ≥ 0.
#[inline(always)]
#[allow(clippy::too_many_arguments)] // one limit's values, as `Limit` holds them
fn limit<T: Real>(
    x: [T; 3],
    w: T,
    center: &[T; 3],
    radius: T,
    compliance: T,
    lambda: T,
    h2: T,
    (on, pull): (bool, bool),
) -> ([T; 3], T, T, T, bool) {
    let v = [x[0] - center[0], x[1] - center[1], x[2] - center[2]];
    let finite_v = v[0].is_finite() & v[1].is_finite() & v[2].is_finite();
    let (g, long) = unit(&v);
    let length = dot(&v, &g);
    let c = length - radius;
    // The one update, its bound known here (selects, no branch, once
    // inlined).
    let bound = if pull {
        Bound::NonPositive
    } else {
        Bound::NonNegative
    };
    let u = update(c, lambda, w, compliance / h2, bound);
    let (delta, next_lambda, idle) = (u.delta, u.lambda, u.idle);
    let (c_abs, residual) = (u.c_abs, u.residual);
    let s = w * delta;
    let next = [x[0] + s * g[0], x[1] + s * g[1], x[2] + s * g[2]];
    let finite =
        next_lambda.is_finite() & next[0].is_finite() & next[1].is_finite() & next[2].is_finite();
    let apply = on & !idle;
    let ok = !on | (finite_v & long & (idle | finite));
    let pick = |a: T, b: T| if apply { a } else { b };
    (
        [
            pick(next[0], x[0]),
            pick(next[1], x[1]),
            pick(next[2], x[2]),
        ],
        pick(next_lambda, lambda),
        pick(c_abs, T::ZERO),
        pick(residual, T::ZERO),
        ok,
    )
}

/// One instance at position `x` (finite) with inverse mass `w ≠ 0`.
#[inline(always)]
fn lane<T: Real>(s: &SkinConstraint<T>, x: [T; 3], w: T, at: Motion<T>, h2: T) -> Out<T> {
    let moving = at.lag != T::ZERO;
    let point = lagged(&s.previous, &s.target, at.lag, moving);
    let backstop = s.backstop_radius > T::ZERO;
    let blend = lagged(&s.previous_normal, &s.target_normal, at.lag, moving);
    let (n, found) = unit(&blend);
    let reach = s.max_distance;
    let (x1, l0, c0, r0, ok0) = limit(
        x,
        w,
        &point,
        reach * at.scale,
        s.compliance,
        s.lambda[0],
        h2,
        (reach.is_finite(), true),
    );
    let behind = s.backstop_distance + s.backstop_radius;
    let center = [
        point[0] - n[0] * behind,
        point[1] - n[1] * behind,
        point[2] - n[2] * behind,
    ];
    let (x2, l1, c1, r1, ok1) = limit(
        x1,
        w,
        &center,
        s.backstop_radius,
        s.backstop_compliance,
        s.lambda[1],
        h2,
        (backstop, false),
    );
    Out {
        x: x2,
        lambda: [l0, l1],
        c_abs: max(max(T::ZERO, c0), c1),
        residual: max(max(T::ZERO, r0), r1),
        ok: ok0 & ok1 & (found | !backstop),
    }
}

/// A run's instances and particles, one array per value and lane.
#[derive(Clone, Copy)]
pub(crate) struct Gathered<T> {
    previous: [V<T>; 3],
    target: [V<T>; 3],
    previous_normal: [V<T>; 3],
    target_normal: [V<T>; 3],
    max_distance: V<T>,
    backstop_distance: V<T>,
    backstop_radius: V<T>,
    compliance: V<T>,
    backstop_compliance: V<T>,
    lambda: [V<T>; 2],
    x: [V<T>; 3],
    w: V<T>,
}

/// What the lanes computed, one array per quantity.
pub(crate) struct Solved<T> {
    x: [V<T>; 3],
    lambda: [V<T>; 2],
    c_abs: V<T>,
    residual: V<T>,
    ok: [bool; LANES],
}

/// Lane `i` of each of the three arrays.
#[inline(always)]
fn lane3<T: Real>(v: &[V<T>; 3], i: usize) -> [T; 3] {
    let [a, b, c] = v;
    [get(a, i), get(b, i), get(c, i)]
}

/// [`lane`] on every lane, in one loop of a constant count without a
/// branch on the values, which the compiler widens at the level a
/// [`Widen`] compiles it for (measured: `vsqrtpd` on eight f64 lanes at
/// AVX-512, `vsqrtps` on eight f32 lanes).
#[inline(always)]
pub(crate) fn compute<T: Real>(g: &Gathered<T>, at: Motion<T>, h2: T) -> Solved<T> {
    let zero = [T::ZERO; LANES];
    let mut s = Solved {
        x: [zero; 3],
        lambda: [zero; 2],
        c_abs: zero,
        residual: zero,
        ok: [false; LANES],
    };
    let [l0, l1] = &g.lambda;
    for i in 0..LANES {
        let item = SkinConstraint {
            particle: 0,
            previous: lane3(&g.previous, i),
            target: lane3(&g.target, i),
            previous_normal: lane3(&g.previous_normal, i),
            target_normal: lane3(&g.target_normal, i),
            max_distance: get(&g.max_distance, i),
            backstop_distance: get(&g.backstop_distance, i),
            backstop_radius: get(&g.backstop_radius, i),
            compliance: get(&g.compliance, i),
            backstop_compliance: get(&g.backstop_compliance, i),
            lambda: [get(l0, i), get(l1, i)],
        };
        let x = lane3(&g.x, i);
        let w = get(&g.w, i);
        let mut o = lane(&item, x, w, at, h2);
        let finite = x[0].is_finite() & x[1].is_finite() & x[2].is_finite();
        o.ok &= finite & (w != T::ZERO);
        for (c, v) in s.x.iter_mut().zip(o.x) {
            put(c, i, v);
        }
        for (c, v) in s.lambda.iter_mut().zip(o.lambda) {
            put(c, i, v);
        }
        put(&mut s.c_abs, i, o.c_abs);
        put(&mut s.residual, i, o.residual);
        put(&mut s.ok, i, o.ok);
    }
    s
}

/// Solves the first [`LANES`] instances of `items` over the coordinate
/// arrays `x`, `y`, `z` with inverse masses `w` (1/kg) in the substep
/// `at` with `h2`, the lanes at the vector level of `widen`: their
/// outcomes in order, the positions and λ written; or `None` having
/// written nothing (fewer instances, particles not strictly increasing or
/// out of range, or a lane off the common path).
pub(crate) fn run<T: Real, W: Widen>(
    items: &mut [SkinConstraint<T>],
    [x, y, z]: [&mut [T]; 3],
    w: &[T],
    (at, h2): (Motion<T>, T),
    widen: &W,
) -> Option<[Outcome<T>; LANES]> {
    let items = items.get_mut(..LANES)?;
    let zero = [T::ZERO; LANES];
    let mut g = Gathered {
        previous: [zero; 3],
        target: [zero; 3],
        previous_normal: [zero; 3],
        target_normal: [zero; 3],
        max_distance: zero,
        backstop_distance: zero,
        backstop_radius: zero,
        compliance: zero,
        backstop_compliance: zero,
        lambda: [zero; 2],
        x: [zero; 3],
        w: zero,
    };
    let mut p = [0usize; LANES];
    let mut last: Option<usize> = None;
    for (k, s) in items.iter().enumerate() {
        let i = usize::try_from(s.particle).ok()?;
        if last.is_some_and(|l| i <= l) {
            return None;
        }
        last = Some(i);
        put(&mut p, k, i);
        let (Some(&a), Some(&b), Some(&c), Some(&wi)) = (x.get(i), y.get(i), z.get(i), w.get(i))
        else {
            return None;
        };
        let put3 = |v: &mut [V<T>; 3], u: [T; 3]| {
            for (c, u) in v.iter_mut().zip(u) {
                put(c, k, u);
            }
        };
        put3(&mut g.previous, s.previous);
        put3(&mut g.target, s.target);
        put3(&mut g.previous_normal, s.previous_normal);
        put3(&mut g.target_normal, s.target_normal);
        put3(&mut g.x, [a, b, c]);
        put(&mut g.max_distance, k, s.max_distance);
        put(&mut g.backstop_distance, k, s.backstop_distance);
        put(&mut g.backstop_radius, k, s.backstop_radius);
        put(&mut g.compliance, k, s.compliance);
        put(&mut g.backstop_compliance, k, s.backstop_compliance);
        let [l0, l1] = &mut g.lambda;
        let [s0, s1] = s.lambda;
        put(l0, k, s0);
        put(l1, k, s1);
        put(&mut g.w, k, wi);
    }
    let s = widen.skin(&g, at, h2);
    if !s.ok.iter().all(|&ok| ok) {
        return None;
    }
    let mut outcomes = [Outcome::Static; LANES];
    for (k, (item, out)) in items.iter_mut().zip(&mut outcomes).enumerate() {
        let i = get(&p, k);
        let (Some(a), Some(b), Some(c)) = (x.get_mut(i), y.get_mut(i), z.get_mut(i)) else {
            return None;
        };
        [*a, *b, *c] = lane3(&s.x, k);
        let [l0, l1] = &s.lambda;
        crate::constraint::store_lambda(&mut item.lambda, [get(l0, k), get(l1, k)]);
        *out = Outcome::Applied {
            c_abs: get(&s.c_abs, k),
            residual: get(&s.residual, k),
        };
    }
    Some(outcomes)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::as_conversions)]
pub(crate) mod tests {
    use super::*;
    use crate::constraint::lagged::solve_lagged_one;

    /// [`compute`] as compiled here.
    pub(crate) struct Baseline;

    impl Widen for Baseline {
        fn skin<T: Real>(&self, g: &Gathered<T>, at: Motion<T>, h2: T) -> Solved<T> {
            compute(g, at, h2)
        }
    }

    /// xorshift64*.
    struct Rng(core::cell::Cell<u64>);

    impl Rng {
        fn next(&self) -> u64 {
            let mut x = self.0.get();
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            self.0.set(x);
            x.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
        /// In [-1, 1).
        fn unit(&self) -> f64 {
            (self.next() >> 11) as f64 / (1u64 << 52) as f64 - 1.0
        }
        fn one_in(&self, n: u64) -> bool {
            self.next() % n == 0
        }
        fn vec(&self, scale: f64) -> [f64; 3] {
            [
                self.unit() * scale,
                self.unit() * scale,
                self.unit() * scale,
            ]
        }
    }

    /// A value, now and then a special one.
    fn rare<T: Real>(r: &Rng, v: f64) -> T {
        let specials = [
            0.0,
            -0.0,
            f64::INFINITY,
            f64::NAN,
            1e300,
            1e-300,
            f64::MIN_POSITIVE,
        ];
        if r.one_in(40) {
            T::from_f64(specials[(r.next() % specials.len() as u64) as usize])
        } else {
            T::from_f64(v)
        }
    }

    fn v3<T: Real>(r: &Rng, v: [f64; 3]) -> [T; 3] {
        v.map(|c| rare(r, c))
    }

    /// Runs of random instances (special values now and then, λ of both
    /// signs, lagged points, scaled reaches, static particles, backstops on
    /// and off, zero normals) against `solve_lagged_one` one at a time:
    /// a run that takes the lane path gives the same positions, λ and
    /// outcomes bit for bit; one that does not writes nothing.
    pub(crate) fn agrees<T: Real, W: Widen>(isa: W) {
        let r = Rng(core::cell::Cell::new(0x9e37_79b9_7f4a_7c15));
        let (mut taken, mut declined) = (0, 0);
        let rounds = 20_000;
        for round in 0..rounds {
            let n = 12;
            let coords: [Vec<T>; 3] =
                core::array::from_fn(|_| (0..n).map(|_| rare(&r, r.unit() * 0.3)).collect());
            let w: Vec<T> = (0..n)
                .map(|_| {
                    if r.one_in(60) {
                        T::ZERO
                    } else {
                        T::from_f64(1.0 + r.unit())
                    }
                })
                .collect();
            let mut particle = r.next() % 3;
            let mut items: Vec<SkinConstraint<T>> = (0..LANES)
                .map(|_| {
                    let p = particle as u32;
                    particle += 1 + u64::from(r.one_in(5));
                    if r.one_in(200) {
                        particle -= 1; // a repeated particle: declined
                    }
                    let at = r.vec(0.3);
                    let mut s = SkinConstraint::new(p, v3(&r, at), v3(&r, r.vec(1.0)));
                    s.previous = v3(&r, [at[0] + 0.05 * r.unit(), at[1], at[2]]);
                    s.previous_normal = v3(&r, r.vec(1.0));
                    if r.one_in(50) {
                        s.target_normal = [T::ZERO; 3];
                    }
                    s.max_distance = if r.one_in(4) {
                        T::from_f64(f64::INFINITY)
                    } else {
                        rare(&r, 0.1 * (r.unit() + 1.0))
                    };
                    if !r.one_in(3) {
                        s.backstop_radius = rare(&r, 0.2 * (r.unit() + 1.0));
                        s.backstop_distance = rare(&r, 0.05 * r.unit());
                    }
                    s.compliance = if r.one_in(2) {
                        T::ZERO
                    } else {
                        T::from_f64(1e-6)
                    };
                    s.backstop_compliance = if r.one_in(2) {
                        T::ZERO
                    } else {
                        T::from_f64(1e-5)
                    };
                    s.lambda = [rare(&r, 0.01 * r.unit()), rare(&r, 0.01 * r.unit())];
                    s
                })
                .collect();
            if items.iter().any(|s| s.particle as usize >= n) {
                continue;
            }
            let lag = if round % 3 == 0 {
                0.0
            } else {
                0.25 * (r.unit() + 1.0)
            };
            let at = Motion {
                lag: T::from_f64(lag),
                scale: T::from_f64(if r.one_in(4) { 0.5 } else { 1.0 }),
            };
            let h2 = T::from_f64(1e-4);
            // The reference: one at a time.
            let (mut want_x, mut want_items) = (coords.clone(), items.clone());
            let mut want = Vec::new();
            for s in want_items.iter_mut() {
                let i = s.particle as usize;
                let mut x = [want_x[0][i], want_x[1][i], want_x[2][i]];
                want.push(solve_lagged_one(s, &mut x, w[i], at, h2));
                for (c, v) in want_x.iter_mut().zip(x) {
                    c[i] = v;
                }
            }
            let mut got_x = coords.clone();
            let [a, b, c] = &mut got_x;
            let got = run(&mut items, [a, b, c], &w, (at, h2), &isa);
            let bits = |v: &[Vec<T>; 3]| -> Vec<u64> {
                v.iter().flatten().map(|c| c.to_f64().to_bits()).collect()
            };
            let lambdas = |v: &[SkinConstraint<T>]| -> Vec<u64> {
                v.iter()
                    .flat_map(|s| s.lambda)
                    .map(|c| c.to_f64().to_bits())
                    .collect()
            };
            match got {
                Some(outcomes) => {
                    taken += 1;
                    let want: Vec<_> = want.into_iter().map(|o| o.unwrap()).collect();
                    assert_eq!(outcomes.to_vec(), want, "round {round}");
                    assert_eq!(bits(&got_x), bits(&want_x), "round {round}");
                    assert_eq!(lambdas(&items), lambdas(&want_items), "round {round}");
                }
                None => {
                    declined += 1;
                    assert_eq!(bits(&got_x), bits(&coords), "round {round}");
                }
            }
        }
        // Both paths are exercised.
        assert!(
            taken > rounds / 20 && declined > rounds / 20,
            "{taken} / {declined}"
        );
    }

    #[test]
    #[cfg_attr(miri, ignore)] // safe Rust only
    fn a_run_is_eight_scalar_solves_or_writes_nothing() {
        // Compiled at the baseline here; every vector level in
        // `colored::groups::lagged`'s test.
        agrees::<f64, _>(Baseline);
        agrees::<f32, _>(Baseline);
    }
}
