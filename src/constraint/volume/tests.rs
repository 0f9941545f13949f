//! Unit tests of the tet kernels: the in-place kernel against `solve`,
//! the pair kernel against two scalar calls.

#![allow(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::panic,
    clippy::as_conversions,
    clippy::cast_precision_loss,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss
)]

use super::*;

fn eval<const D: usize>(t: &Tet<f64>, x: &[[f64; D]], w: &[f64]) -> Evaluation<f64, D, 4> {
    Constraint::<f64, D, 4>::evaluate(t, x, w, &())
}

#[test]
fn unit_tet_value_gradients_and_weight() {
    let x = [
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.0, 0.0, 1.0],
    ];
    let t = Tet::new([0, 1, 2, 3], 0.5 / 6.0, 0.0);
    let Evaluation::Active(e) = eval(&t, &x, &[1.0, 2.0, 0.0, 1.0]) else {
        panic!("active");
    };
    // 6V = 1, 6V₀ = 0.5.
    assert_eq!(e.c, 0.5);
    assert_eq!(
        e.gradient,
        [
            [-1.0, -1.0, -1.0],
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.0, 0.0, 1.0]
        ]
    );
    assert_eq!(e.weight, 3.0 + 2.0 + 0.0 + 1.0);
}

#[test]
fn static_degenerate_non_finite_and_out_of_range() {
    let t = Tet::new([0, 1, 2, 3], 1.0, 0.0);
    let x = [[0.5; 3]; 4];
    assert!(matches!(eval(&t, &x, &[0.0; 4]), Evaluation::Static));
    assert!(matches!(eval(&t, &x, &[1.0; 4]), Evaluation::Degenerate));
    let line = [[0.0; 3], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0], [3.0, 0.0, 0.0]];
    assert!(matches!(eval(&t, &line, &[1.0; 4]), Evaluation::Degenerate));
    let mut bad = line;
    bad[2][1] = f64::NAN;
    assert!(matches!(
        eval(&t, &bad, &[1.0; 4]),
        Evaluation::NonFinitePosition(2)
    ));
    bad[2][1] = 0.0;
    bad[3][2] = f64::INFINITY;
    assert!(matches!(
        eval(&t, &bad, &[1.0; 4]),
        Evaluation::NonFinitePosition(3)
    ));
    assert!(matches!(
        eval(&t, &line[..3], &[1.0; 3]),
        Evaluation::OutOfRange
    ));
    let flat = [[0.0; 2]; 4];
    assert!(matches!(eval(&t, &flat, &[1.0; 4]), Evaluation::OutOfRange));
}

use crate::constraint::InPlace;
/// A sweep's counting as a log: every outcome counted (with the
/// instance's index and its values' bits), and the stops.
struct Log {
    index: usize,
    reject: bool,
    seen: Vec<(usize, u8, u64, u64)>,
}

/// A stop: the instance and why (`None`: degenerate, rejected).
type Stop = (usize, Option<Fault>);

impl Count<f64> for Log {
    type Stop = Stop;
    fn count(&mut self, outcome: Outcome<f64>) -> Result<(), Stop> {
        let (kind, c, r) = match outcome {
            Outcome::Static => (0, 0, 0),
            Outcome::Degenerate => (1, 0, 0),
            Outcome::Idle => (2, 0, 0),
            Outcome::Applied { c_abs, residual } => (3, c_abs.to_bits(), residual.to_bits()),
        };
        self.seen.push((self.index, kind, c, r));
        if kind == 1 && self.reject {
            return Err((self.index, None));
        }
        Ok(())
    }
    fn fault(&self, fault: Fault) -> Stop {
        (self.index, Some(fault))
    }
}

/// What a pair of tets leaves: positions' and λs' bits, the two
/// results, the counted outcomes.
type Outcome2 = (Vec<u64>, [Result<(), Stop>; 2], Vec<(usize, u8, u64, u64)>);

fn leaves(x: &[[f64; 3]], t: &[Tet<f64>; 2], r: [Result<(), Stop>; 2], log: Log) -> Outcome2 {
    let mut bits: Vec<u64> = x.as_flattened().iter().map(|v| v.to_bits()).collect();
    bits.extend(t.iter().map(|t| t.lambda.to_bits()));
    (bits, r, log.seen)
}

/// Two scalar calls, `a` then `b`.
fn scalar(x: &[[f64; 3]], w: &[f64], t: [Tet<f64>; 2], h2: f64, reject: bool) -> Outcome2 {
    let (mut x, mut t) = (x.to_vec(), t);
    let mut log = Log {
        index: 0,
        reject,
        seen: vec![],
    };
    let mut p = InPlace::new(&mut x, w);
    let [a, b] = &mut t;
    let ra = solve_in_place(a, &mut p, h2, &mut log);
    log.index = 1;
    let rb = solve_in_place(b, &mut p, h2, &mut log);
    leaves(&x, &t, [ra, rb], log)
}

/// The pair kernel as the colored range uses it (both counted, or
/// nothing written and two scalar calls); whether it took the fast
/// path.
fn paired(x: &[[f64; 3]], w: &[f64], t: [Tet<f64>; 2], h2: f64, reject: bool) -> (Outcome2, bool) {
    let (mut xs, mut ts) = (x.to_vec(), t);
    let mut log = Log {
        index: 0,
        reject,
        seen: vec![],
    };
    let mut p = InPlace::new(&mut xs, w);
    let [a, b] = &mut ts;
    if let Some([oa, ob]) = solve_pair_in_place(a, b, &mut p, h2) {
        let ra = log.count(oa);
        log.index = 1;
        let rb = log.count(ob);
        return (leaves(&xs, &ts, [ra, rb], log), true);
    }
    let untouched = xs
        .as_flattened()
        .iter()
        .zip(x.as_flattened())
        .all(|(u, v)| u.to_bits() == v.to_bits());
    assert!(untouched && ts == t, "the fallback wrote nothing");
    (scalar(x, w, t, h2, reject), false)
}

/// xorshift64*, uniform in [-1, 1).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let u = self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11;
        u as f64 / (1u64 << 52) as f64 - 1.0
    }
}

/// Eight particles (tet a: 0..4, b: 4..8, shuffled per case) with
/// random positions, inverse masses (some 0), compliance (some 0), λ.
fn random_case(r: &mut Rng) -> (Vec<[f64; 3]>, Vec<f64>, [Tet<f64>; 2]) {
    let x: Vec<[f64; 3]> = (0..8).map(|_| [r.next(), r.next(), r.next()]).collect();
    let w: Vec<f64> = (0..8)
        .map(|_| {
            let v = r.next();
            if v < -0.5 {
                0.0
            } else {
                v.abs() * 3.0
            }
        })
        .collect();
    let mut order: [u32; 8] = [0, 1, 2, 3, 4, 5, 6, 7];
    for k in (1..8).rev() {
        let j = ((r.next() + 1.0) * 0.5 * (k + 1) as f64) as usize;
        order.swap(k, j.min(k));
    }
    let tet = |r: &mut Rng, p: &[u32]| {
        let mut t = Tet::new(
            [p[0], p[1], p[2], p[3]],
            r.next() * 0.2 + 0.01,
            if r.next() < -0.3 {
                0.0
            } else {
                r.next().abs() * 1e-3
            },
        );
        t.lambda = r.next() * 0.5;
        t
    };
    let a = tet(r, &order[..4]);
    let b = tet(r, &order[4..]);
    (x, w, [a, b])
}

// Safe Rust only: natively (the interpreter adds nothing here).
#[test]
#[cfg_attr(miri, ignore)]
fn pair_kernel_has_the_bits_of_two_scalar_calls() {
    let mut r = Rng(0x9e37_79b9_7f4a_7c15);
    let mut fast = 0;
    let cases = if cfg!(miri) { 40 } else { 4000 };
    for case in 0..cases {
        let (x, w, t) = random_case(&mut r);
        let h2 = [1e-4, 1.0 / 3600.0, 0.5][case % 3];
        let (got, took) = paired(&x, &w, t, h2, false);
        assert_eq!(got, scalar(&x, &w, t, h2, false), "case {case}");
        fast += usize::from(took);
    }
    // The fast path is the common one (both tets static: 1/256 of the
    // cases at most, with a fourth of the masses 0).
    assert!(fast * 10 > cases * 9, "{fast} of {cases} on the fast path");
}

// Safe Rust only: natively (the interpreter adds nothing here).
#[test]
#[cfg_attr(miri, ignore)]
fn pair_kernel_falls_back_on_every_rare_case_of_either_tet() {
    let mut r = Rng(7);
    let (x, _, t) = random_case(&mut r);
    let w = vec![1.0; 8];
    let h2 = 1e-4;
    let [a, b] = t;
    // Each rare case, put on tet a's or tet b's particles.
    type Spoil = fn(&mut Vec<[f64; 3]>, &mut Vec<f64>, &mut Tet<f64>);
    let spoils: [(&str, Spoil); 7] = [
        ("static", |_, w, t| {
            for p in t.particles {
                w[p as usize] = 0.0;
            }
        }),
        ("a point", |x, _, t| {
            let at = x[t.particles[0] as usize];
            for p in t.particles {
                x[p as usize] = at;
            }
        }),
        ("on a line", |x, _, t| {
            for (k, p) in t.particles.into_iter().enumerate() {
                x[p as usize] = [k as f64, 2.0 * k as f64, 0.5];
            }
        }),
        ("NaN", |x, _, t| x[t.particles[2] as usize][1] = f64::NAN),
        ("infinite", |x, _, t| {
            x[t.particles[3] as usize][0] = f64::NEG_INFINITY;
        }),
        ("out of range", |_, _, t| t.particles[1] = 8),
        ("overflow", |x, _, t| {
            // Finite positions whose correction overflows.
            for p in t.particles {
                x[p as usize] = x[p as usize].map(|v| v * 1e110);
            }
        }),
    ];
    for policy in [false, true] {
        for (name, spoil) in spoils {
            for (lane, both) in [(0, false), (1, false), (0, true)] {
                let (mut x, mut w, mut t) = (x.clone(), w.clone(), [a, b]);
                for (k, tk) in t.iter_mut().enumerate() {
                    if k == lane || both {
                        spoil(&mut x, &mut w, tk);
                    }
                }
                let want = scalar(&x, &w, t, h2, policy);
                let (got, took) = paired(&x, &w, t, h2, policy);
                assert!(!took, "{name}, lane {lane}, both {both}");
                assert_eq!(got, want, "{name}, lane {lane}, both {both}");
                // The rare case really is one: not a plain applied pair.
                let applied = want.2.iter().filter(|s| s.1 == 3).count();
                let ordinary = want.1 == [Ok(()), Ok(())] && applied == 2;
                assert!(!ordinary, "{name}, lane {lane}: {want:?}");
            }
        }
    }
}

#[test]
fn pair_kernel_falls_back_when_the_tets_share_a_particle() {
    let mut r = Rng(11);
    let (x, w, [a, mut b]) = random_case(&mut r);
    let w: Vec<f64> = w.iter().map(|v| v + 1.0).collect();
    b.particles[2] = a.particles[1];
    let (got, took) = paired(&x, &w, [a, b], 1e-4, false);
    assert!(!took);
    assert_eq!(got, scalar(&x, &w, [a, b], 1e-4, false));
}
