//! The seed's point on many links: a pre-stretched 3D chain solved for one
//! substep with iteration budgets 1, 2, 5, 10, 50, with λ kept (the XPBD
//! lifecycle) and with λ reset every iteration (the bug).
//!
//! Run with `cargo run --release --example chain`.
//!
//! With λ kept, once the budget suffices the stretch stops changing: the soft
//! links settle at C + α̃λ = 0. With λ reset, every extra iteration pulls the
//! chain tighter: the budget has become a stiffness.

use xpbd::{rope, Link, System};

const PARTICLES: usize = 11;
const H: f64 = 1.0 / 60.0; // substep length (s)
const COMPLIANCE: f64 = 1e-3; // m/N: α̃ = α/h² = 3.6 /kg

/// A chain along a 3D diagonal, particle 0 pinned, rest 0.1 m per link,
/// stretched to 0.15 m per link.
fn setup() -> (Vec<[f64; 3]>, Vec<f64>, Vec<Link<f64>>) {
    let dir = [2.0 / 3.0, 1.0 / 3.0, 2.0 / 3.0];
    let at = |k: usize, spacing: f64| dir.map(|d| d * spacing * k as f64);
    let rest_shape: Vec<[f64; 3]> = (0..PARTICLES).map(|k| at(k, 0.1)).collect();
    let mut links = vec![Link::default(); PARTICLES - 1];
    rope(&rest_shape, COMPLIANCE, &mut links).expect("valid rope");
    let stretched = (0..PARTICLES).map(|k| at(k, 0.15)).collect();
    let w = (0..PARTICLES)
        .map(|k| if k == 0 { 0.0 } else { 1.0 })
        .collect();
    (stretched, w, links)
}

/// Total length minus total rest length (m) after one substep.
fn stretch(x: &[[f64; 3]], links: &[Link<f64>]) -> f64 {
    links
        .iter()
        .map(|l| {
            let (a, b) = (x[l.i as usize], x[l.j as usize]);
            let d: f64 = (0..3).map(|k| (b[k] - a[k]) * (b[k] - a[k])).sum();
            d.sqrt() - l.rest
        })
        .sum()
}

fn main() {
    println!("xpbd chain: {} links, rest 0.1 m each, stretched to 0.15 m, h = 1/60 s, α = {COMPLIANCE} m/N", PARTICLES - 1);
    println!();
    println!("| iterations | stretch, λ kept (m) | residual max abs(C + α̃λ) (m) | stretch, λ reset each iteration (m) |");
    println!("|-----------:|--------------------:|-----------------------------:|------------------------------------:|");
    for budget in [1, 2, 5, 10, 50] {
        let (mut x, w, mut links) = setup();
        let mut system = System::new(&mut x, &w, &mut links).expect("valid system");
        let mut substep = system.begin_substep(H).expect("valid substep");
        for _ in 0..budget {
            substep.iterate().expect("finite sweep");
        }
        let residual = substep.measure().expect("finite").max_residual;
        let kept = stretch(substep.positions(), substep.links());

        let (mut y, w, mut links) = setup();
        let mut system = System::new(&mut y, &w, &mut links).expect("valid system");
        for _ in 0..budget {
            // The bug, on purpose: a new "substep" (λ = 0) before every sweep.
            system
                .begin_substep(H)
                .expect("valid")
                .iterate()
                .expect("finite sweep");
        }
        let reset = stretch(system.positions(), system.links());
        println!("| {budget:>10} | {kept:>19.6} | {residual:>28.3e} | {reset:>35.6} |");
    }
}
