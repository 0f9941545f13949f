//! The lane kernel against its kind's scalar kernel (bends), instance by
//! instance: the same positions, λ and outcomes, bit for bit, at every
//! vector level this CPU has; on every rare case (a degenerate instance,
//! a non-finite position, an index past the particles) nothing written
//! and `None`.

#![allow(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::as_conversions,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::cast_precision_loss
)]

use super::*;
use crate::constraint::lanes::LaneKind;
use crate::constraint::{bend, Count, Fault, InPlace};
use crate::Bend;

/// Counts outcomes with their values' bits.
struct Log(Vec<(u8, u64, u64)>);

impl Count<f64> for Log {
    type Stop = Option<Fault>;
    fn count(&mut self, outcome: Outcome<f64>) -> Result<(), Self::Stop> {
        self.0.push(match outcome {
            Outcome::Static => (0, 0, 0),
            Outcome::Degenerate => (1, 0, 0),
            Outcome::Idle => (2, 0, 0),
            Outcome::Applied { c_abs, residual } => (3, c_abs.to_bits(), residual.to_bits()),
        });
        Ok(())
    }
    fn fault(&self, fault: Fault) -> Self::Stop {
        Some(fault)
    }
}

/// Positions' bits, the instances, the outcomes.
type Left<K> = (Vec<u64>, [K; LANES], Vec<(u8, u64, u64)>);

/// A kind under test: its scalar kernel on one instance.
type One<K> = fn(&mut K, &mut InPlace<'_, f64, 3>, f64, &mut Log) -> Result<(), Option<Fault>>;

fn bits(x: &[[f64; 3]]) -> Vec<u64> {
    x.as_flattened().iter().map(|v| v.to_bits()).collect()
}

fn scalar<K: Copy>(x: &[[f64; 3]], w: &[f64], k: [K; LANES], h2: f64, one: One<K>) -> Left<K> {
    let (mut x, mut k) = (x.to_vec(), k);
    let mut log = Log(vec![]);
    let mut p = InPlace::new(&mut x, w);
    for k in &mut k {
        one(k, &mut p, h2, &mut log).unwrap();
    }
    (bits(&x), k, log.0)
}

/// The lane kernel at `isa`; `None` when it declined (then it must have
/// written nothing).
fn lanes<K, const N: usize>(
    x: &[[f64; 3]],
    w: &[f64],
    k: [K; LANES],
    h2: f64,
    isa: Isa,
) -> Option<Left<K>>
where
    K: LaneKind<f64, N> + Copy + PartialEq + core::fmt::Debug,
{
    let (mut xs, mut ks) = (x.to_vec(), k);
    let mut p = InPlace::new(&mut xs, w);
    let Some(outcomes) = solve_lanes_in_place(&mut ks, &mut p, h2, isa) else {
        assert!(
            bits(&xs) == bits(x) && ks == k,
            "a declined run wrote nothing"
        );
        return None;
    };
    let mut log = Log(vec![]);
    for o in outcomes {
        log.count(o).unwrap();
    }
    Some((bits(&xs), ks, log.0))
}

/// Every vector level this CPU has, each once (under Miri, which runs
/// no `cpuid`, the baseline alone).
fn levels() -> Vec<Isa> {
    let all = Isa::detect();
    let mut levels = vec![
        Isa::BASELINE,
        all.restrict(Isa::AVX2_BIT | Isa::NEON_BIT),
        all,
    ];
    levels.dedup();
    levels
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
    /// A compliance: 0 for about a third, else up to `scale`.
    fn compliance(&mut self, scale: f64) -> f64 {
        if self.next() < -0.3 {
            0.0
        } else {
            self.next().abs() * scale
        }
    }
}

/// 32 particles (a fifth of them static) and a shuffled order of them:
/// lane `i`'s instance takes `order[N i ..]`, so no particle is shared.
fn particles(r: &mut Rng) -> (Vec<[f64; 3]>, Vec<f64>, Vec<u32>) {
    let x: Vec<[f64; 3]> = (0..32).map(|_| [r.next(), r.next(), r.next()]).collect();
    let w: Vec<f64> = (0..32)
        .map(|_| {
            let v = r.next();
            if v < -0.6 {
                0.0
            } else {
                v.abs() * 3.0
            }
        })
        .collect();
    let mut order: Vec<u32> = (0..32).collect();
    for k in (1..32).rev() {
        let j = ((r.next() + 1.0) * 0.5 * (k + 1) as f64) as usize;
        order.swap(k, j.min(k));
    }
    (x, w, order)
}

fn random_bend(r: &mut Rng, p: &[u32]) -> Bend<f64> {
    let c = r.compliance(10.0);
    let mut b = Bend::new([p[0], p[1], p[2], p[3]], r.next() * 3.0, c);
    b.lambda = r.next() * 0.1;
    b
}

fn one_bend(
    b: &mut Bend<f64>,
    x: &mut InPlace<'_, f64, 3>,
    h2: f64,
    l: &mut Log,
) -> Result<(), Option<Fault>> {
    bend::solve_in_place(b, x, h2, l)
}

/// Random runs of one kind: every run the lanes take has the scalar
/// bits, and they take nearly all.
fn same_bits<K, const N: usize>(seed: u64, make: fn(&mut Rng, &[u32]) -> K, one: One<K>)
where
    K: LaneKind<f64, N> + Copy + PartialEq + core::fmt::Debug,
{
    let mut r = Rng(seed);
    let cases = if cfg!(miri) { 4 } else { 2000 };
    let (mut taken, mut runs) = (0, 0);
    for c in 0..cases {
        let (x, w, order) = particles(&mut r);
        let k: [K; LANES] = core::array::from_fn(|i| make(&mut r, &order[N * i..N * i + N]));
        let h2 = [1e-4, 1.0 / 3600.0, 0.5][c % 3];
        let want = scalar(&x, &w, k, h2, one);
        for isa in levels() {
            runs += 1;
            if let Some(got) = lanes(&x, &w, k, h2, isa) {
                assert_eq!(got, want, "case {c}, {}", isa.kernel_name());
                taken += 1;
            }
        }
    }
    assert!(taken * 10 > runs * 9, "{taken} of {runs} runs on the lanes");
}

#[test]
fn bend_lanes_have_the_scalar_bits() {
    same_bits::<_, 4>(0x9e37_79b9_7f4a_7c15, random_bend, one_bend);
}

/// With every particle moving: the lanes take the run; a lane whose
/// particles are all static is counted static and left alone; a
/// degenerate lane (`degenerate` moves lane 5's particles), an infinite
/// position, a coordinate whose products overflow and an index past the
/// particles are declined.
fn rare_cases<K, const N: usize>(
    make: fn(&mut Rng, &[u32]) -> K,
    one: One<K>,
    degenerate: fn(&mut [[f64; 3]], [usize; N]),
) where
    K: LaneKind<f64, N> + Copy + PartialEq + core::fmt::Debug,
{
    let mut r = Rng(5);
    let (x, _, order) = particles(&mut r);
    let w = vec![1.0; 32];
    let k: [K; LANES] = core::array::from_fn(|i| make(&mut r, &order[N * i..N * i + N]));
    let at = |i: usize| k[i].particles().map(|p| p as usize);
    let h2 = 1e-4;
    for isa in levels() {
        assert!(lanes(&x, &w, k, h2, isa).is_some());
        let mut ws = w.clone();
        for p in at(3) {
            ws[p] = 0.0;
        }
        let got = lanes(&x, &ws, k, h2, isa).unwrap();
        assert_eq!(got, scalar(&x, &ws, k, h2, one));
        assert_eq!(got.2[3], (0, 0, 0));
        let mut flat = x.clone();
        degenerate(&mut flat, at(5));
        assert!(lanes(&flat, &w, k, h2, isa).is_none());
        let mut far = x.clone();
        far[at(6)[1]][2] = f64::INFINITY;
        assert!(lanes(&far, &w, k, h2, isa).is_none());
        let mut wide = x.clone();
        wide[at(0)[0]][0] = 1e300;
        assert!(lanes(&wide, &w, k, h2, isa).is_none());
        let mut past = k;
        let mut i = at(7).map(|p| p as u32);
        i[N - 1] = 32;
        past[7] = make(&mut Rng(1), &i);
        assert!(lanes(&x, &w, past, h2, isa).is_none());
    }
}

#[test]
fn lanes_decline_every_rare_case() {
    // A bend's wing on its hinge's edge.
    rare_cases::<_, 4>(random_bend, one_bend, |x, [p0, p1, p2, _]| {
        x[p2] = [
            0.5 * (x[p0][0] + x[p1][0]),
            0.5 * (x[p0][1] + x[p1][1]),
            0.5 * (x[p0][2] + x[p1][2]),
        ];
    });
}
