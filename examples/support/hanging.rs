//! The hanging-rope experiment shared by `examples/hanging_rope.rs` (which
//! prints and plots it) and `tests/hanging_rope.rs` (which asserts it): a 3D
//! rope pinned at one end, simulated until it rests, with λ kept or reset
//! before every iteration. The substep loop is written out with the `System`
//! API because the bug variant needs an iteration loop that `xpbd::step`
//! makes impossible on purpose.

#![allow(dead_code)]

use xpbd::{rope, Link, System};

pub const N: usize = 21; // particles: 20 links of 5 cm, a 1 m rope
pub const REST: f64 = 0.05; // m
pub const INV_MASS: f64 = 100.0; // 1/kg: 10 g per particle
pub const COMPLIANCE: f64 = 1e-2; // m/N
pub const G: f64 = 9.81; // m/s²
pub const FRAME: f64 = 1.0 / 60.0; // s
pub const SUBSTEPS: usize = 10;
pub const FRAMES: usize = 900; // 15 s: enough to come to rest with damping
pub const DAMPING: f64 = 2.0; // 1/s, v ← v·(1 − c h): only to reach rest
pub const BUDGETS: [usize; 4] = [1, 5, 20, 100];

/// Rest shapes for one budget: (iterations, λ kept, λ reset).
pub type Shapes = (usize, Vec<[f64; 3]>, Vec<[f64; 3]>);

/// Simulates the rope; returns the rest positions.
pub fn simulate(iterations: usize, reset_each_iteration: bool) -> Vec<[f64; 3]> {
    // Start horizontal along x, slightly tilted in z so the motion is 3D.
    let mut x: Vec<[f64; 3]> = (0..N)
        .map(|k| [REST * k as f64, 0.0, 0.01 * k as f64 * REST])
        .collect();
    let mut links = vec![Link::default(); N - 1];
    rope(&x, COMPLIANCE, &mut links).expect("valid rope");
    // Rest lengths exactly REST (the tilt is only in the start pose).
    for l in &mut links {
        l.rest = REST;
    }
    let mut w = vec![INV_MASS; N];
    w[0] = 0.0; // pinned
    let mut v = vec![[0.0; 3]; N];
    let mut prev = x.clone();
    let h = FRAME / SUBSTEPS as f64;
    let mut system = System::new(&mut x, &w, &mut links).expect("valid system");
    for _ in 0..FRAMES * SUBSTEPS {
        prev.copy_from_slice(system.positions());
        for ((p, vel), wi) in system.positions_mut().iter_mut().zip(&v).zip(&w) {
            if *wi > 0.0 {
                p[0] += h * vel[0];
                p[1] += h * vel[1] - h * h * G;
                p[2] += h * vel[2];
            }
        }
        if reset_each_iteration {
            for _ in 0..iterations {
                // The bug, on purpose: λ = 0 before every sweep.
                system
                    .begin_substep(h)
                    .expect("valid")
                    .iterate()
                    .expect("finite");
            }
        } else {
            let mut substep = system.begin_substep(h).expect("valid");
            for _ in 0..iterations {
                substep.iterate().expect("finite");
            }
        }
        let keep = 1.0 - DAMPING * h;
        for ((vel, p), q) in v.iter_mut().zip(system.positions()).zip(&prev) {
            for k in 0..3 {
                vel[k] = (p[k] - q[k]) / h * keep;
            }
        }
    }
    system.positions().to_vec()
}

pub fn sag(x: &[[f64; 3]]) -> f64 {
    -x.iter().map(|p| p[1]).fold(f64::INFINITY, f64::min)
}
