//! The SPEC's fixed and randomized checks of the 1D seed solver, shared by
//! `examples/seed.rs` (which prints them) and `tests/seed_figures.rs` (which
//! asserts them).
//!
//! Random generator: SplitMix64 (Steele, Lea, Flood 2014), seeded with 71104;
//! a uniform double in [0, 1) is the top 53 bits of a draw times 2^-53, and a
//! value in [lo, hi) is `lo + (hi - lo) * u`. Each case draws, in this order:
//! a, gap, rest, wa, wb, compliance, dt.

#![allow(dead_code)]

use xpbd::DistanceConstraint;

/// The SPEC's fixed case: a = 0, b = 2, wa = wb = 1, rest = 1, α = 0.01.
pub const FIXED: (f64, f64, f64, f64, f64, f64) = (0.0, 2.0, 1.0, 1.0, 1.0, 0.01);
/// Seed of the randomized check.
pub const SEED: u64 = 71104;
/// Number of random cases.
pub const CASES: usize = 10_000;

/// SplitMix64: a tiny, documented, portable generator.
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// A uniform double in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
    /// A uniform double in [lo, hi).
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }
}

/// C = b − a − rest after `n` solves of the fixed case with substep `dt`;
/// `reset_each_iteration` reproduces the bug (λ reset before every solve).
pub fn fixed_residual(n: usize, reset_each_iteration: bool, dt: f64) -> f64 {
    let (mut a, mut b, wa, wb, rest, compliance) = FIXED;
    let mut link = DistanceConstraint::<f64>::new();
    link.begin_substep();
    for _ in 0..n {
        if reset_each_iteration {
            link.begin_substep();
        }
        let applied = link.solve(&mut a, &mut b, wa, wb, rest, compliance, dt);
        assert_eq!(applied, Ok(true));
    }
    b - a - rest
}

/// The four golden figures of docs/spec.md, computed.
pub struct Figures {
    /// C after one solve.
    pub first_residual: f64,
    /// C after 10 solves, λ kept.
    pub retained_10: f64,
    /// C after 10 solves, λ reset every time.
    pub wrong_reset_10: f64,
    /// C after one solve with dt = 0.05.
    pub half_dt_residual: f64,
}

/// Computes the golden figures.
pub fn figures() -> Figures {
    Figures {
        first_residual: fixed_residual(1, false, 0.1),
        retained_10: fixed_residual(10, false, 0.1),
        wrong_reset_10: fixed_residual(10, true, 0.1),
        half_dt_residual: fixed_residual(1, false, 0.05),
    }
}

/// Maxima over the randomized cases.
#[derive(Debug, Default, Clone, Copy)]
pub struct RandomMaxima {
    /// Cases run.
    pub count: usize,
    /// max |C + α̃λ| after one solve (m).
    pub residual: f64,
    /// max |Δ(a/wa + b/wb)| over one solve (m·kg).
    pub center: f64,
    /// max |Δ(b − a)| over five more solves (m).
    pub iterations: f64,
}

/// Runs the SPEC's randomized check with `cases` cases from `seed`.
pub fn random_maxima(seed: u64, cases: usize) -> RandomMaxima {
    let mut rng = SplitMix64(seed);
    let mut m = RandomMaxima {
        count: cases,
        ..RandomMaxima::default()
    };
    for _ in 0..cases {
        let a0 = rng.range(0.0, 10.0);
        let gap = rng.range(1.0, 5.0);
        let rest = rng.range(0.2, 1.0);
        let wa = rng.range(0.1, 3.1);
        let wb = rng.range(0.1, 3.1);
        let compliance = rng.range(0.0, 0.05);
        let dt = rng.range(0.01, 0.1);
        let (mut a, mut b) = (a0, a0 + gap);
        let center_before = a / wa + b / wb;
        let mut link = DistanceConstraint::<f64>::new();
        link.begin_substep();
        assert_eq!(
            link.solve(&mut a, &mut b, wa, wb, rest, compliance, dt),
            Ok(true)
        );
        let alpha_tilde = compliance / (dt * dt);
        let c = b - a - rest;
        m.residual = m.residual.max((c + alpha_tilde * link.lambda()).abs());
        m.center = m.center.max((a / wa + b / wb - center_before).abs());
        let distance = b - a;
        for _ in 0..5 {
            assert_eq!(
                link.solve(&mut a, &mut b, wa, wb, rest, compliance, dt),
                Ok(true)
            );
        }
        m.iterations = m.iterations.max(((b - a) - distance).abs());
    }
    m
}
