//! A fixed 1D chain: [`PARTICLES`] particles on a line, a
//! [`DistanceConstraint`] between each pair of neighbours, particle 0 pinned,
//! gravity pulling along the line (+x), stepped with the XPBD substep loop.
//!
//! It stands in for "a fixed rope simulation" until the 3D rope system
//! lands; then the hash scenario should append (or switch to) the 3D rope.
//!
//! One frame of length [`FRAME`] is [`SUBSTEPS`] substeps of `h = FRAME /
//! SUBSTEPS`; each substep:
//!
//! 1. `v += g h` for every free particle (explicit gravity);
//! 2. `x_prev = x`, `x += v h` (prediction);
//! 3. `begin_substep` on every link (λ ← 0, the only reset);
//! 4. [`ITERATIONS`] Gauss-Seidel sweeps over the links, in index order,
//!    each calling `solve` with the real substep `h`;
//! 5. `v = (x − x_prev) / h`.
//!
//! Every operation is an IEEE-754 basic operation in a fixed order, so the
//! result is bit-identical on every conforming platform.

use xpbd::{DistanceConstraint, Real};

/// Particles in the chain.
pub const PARTICLES: usize = 16;
/// Links (neighbour pairs).
pub const LINKS: usize = PARTICLES - 1;
/// Substeps per frame.
pub const SUBSTEPS: usize = 4;
/// Gauss-Seidel iterations per substep.
pub const ITERATIONS: usize = 4;
/// Frame length (s).
pub const FRAME: f64 = 1.0 / 60.0;
/// Gravity along the line (m/s²).
pub const GRAVITY: f64 = 9.81;

/// The chain's state: positions, velocities, inverse masses, and one
/// constraint (one λ) per link.
#[derive(Debug, Clone)]
pub struct Chain<T: Real> {
    /// Positions (m), strictly increasing along the chain.
    pub x: [T; PARTICLES],
    /// Velocities (m/s).
    pub v: [T; PARTICLES],
    /// Inverse masses (1/kg); particle 0 is pinned (0).
    pub w: [T; PARTICLES],
    /// Rest lengths (m).
    pub rest: [T; LINKS],
    /// Compliances (m/N): rigid, soft and softer links mixed.
    pub compliance: [T; LINKS],
    /// One constraint per link: each owns its λ.
    pub links: [DistanceConstraint<T>; LINKS],
    /// Failed solves so far (status < 0); zero in the fixed scenario.
    pub errors: u32,
    /// Skipped solves so far (both endpoints static); zero here.
    pub skipped: u32,
}

impl<T: Real> Default for Chain<T> {
    fn default() -> Self {
        Self::new()
    }
}

#[allow(clippy::cast_precision_loss)] // small indices: exact
fn f(i: usize) -> f64 {
    i as f64
}

impl<T: Real> Chain<T> {
    /// The fixed initial state: particles at rest length spacing, at rest.
    #[must_use]
    pub fn new() -> Self {
        let mut c = Self {
            x: [T::ZERO; PARTICLES],
            v: [T::ZERO; PARTICLES],
            w: [T::ZERO; PARTICLES],
            rest: [T::ZERO; LINKS],
            compliance: [T::ZERO; LINKS],
            links: [DistanceConstraint::new(); LINKS],
            errors: 0,
            skipped: 0,
        };
        let mut x = 0.0;
        for i in 0..PARTICLES {
            c.x[i] = T::from_f64(x);
            // Masses 1, 2, 3, 4 kg repeating; particle 0 pinned.
            c.w[i] = if i == 0 {
                T::ZERO
            } else {
                T::from_f64(1.0 / (1.0 + f(i % 4)))
            };
            if i < LINKS {
                let rest = 0.1 + 0.01 * f(i % 3);
                c.rest[i] = T::from_f64(rest);
                c.compliance[i] = T::from_f64([0.0, 1e-6, 1e-5][i % 3]);
                x += rest;
            }
        }
        c
    }

    /// The substep length h = FRAME / SUBSTEPS, rounded once to `T`.
    #[must_use]
    pub fn h() -> T {
        T::from_f64(FRAME) / T::from_f64(f(SUBSTEPS))
    }

    /// One frame: [`SUBSTEPS`] substeps of predict, solve, update velocity.
    pub fn step(&mut self) {
        let h = Self::h();
        let g = T::from_f64(GRAVITY);
        for _ in 0..SUBSTEPS {
            let prev = self.x;
            for ((x, v), w) in self.x.iter_mut().zip(&mut self.v).zip(&self.w) {
                if *w > T::ZERO {
                    *v = *v + g * h;
                }
                *x = *x + *v * h;
            }
            for link in &mut self.links {
                link.begin_substep();
            }
            for _ in 0..ITERATIONS {
                for i in 0..LINKS {
                    let (mut a, mut b) = (self.x[i], self.x[i + 1]);
                    match self.links[i].solve(
                        &mut a,
                        &mut b,
                        self.w[i],
                        self.w[i + 1],
                        self.rest[i],
                        self.compliance[i],
                        h,
                    ) {
                        Ok(true) => {
                            self.x[i] = a;
                            self.x[i + 1] = b;
                        }
                        Ok(false) => self.skipped += 1,
                        Err(_) => self.errors += 1,
                    }
                }
            }
            for ((v, x), p) in self.v.iter_mut().zip(&self.x).zip(&prev) {
                *v = (*x - *p) / h;
            }
        }
    }

    /// A velocity kick: the tip half of the chain gets `dv` (m/s) added.
    pub fn kick(&mut self, dv: T) {
        for v in self.v.iter_mut().skip(PARTICLES / 2) {
            *v = *v + dv;
        }
    }

    /// The stretch of the whole chain, `x[last] − x[0] − Σ rest` (m).
    #[must_use]
    pub fn stretch(&self) -> T {
        let mut s = self.x[PARTICLES - 1] - self.x[0];
        for r in self.rest {
            s = s - r;
        }
        s
    }
}
