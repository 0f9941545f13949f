//! A square cloth with dihedral bending drops onto a sphere, for several
//! iteration budgets, with λ kept across iterations (XPBD) and with λ
//! reset before every iteration (the bug). Prints the sag and the bending
//! residual per budget and writes `target/plots/cloth_drape.svg` (a side
//! view of the draped cloth's middle row per budget).
//!
//! Run with `cargo run --release --example cloth_drape`.
//!
//! The scene: a 16 × 16 grid, 3.5 cm spacing, 2 g per particle, links
//! from `cloth` (with shear) and one bend per interior edge from
//! `bends_for_cloth`, starting flat 5 cm above a sphere of radius 0.15 m,
//! centred over it, under gravity −z, 1 s at 3 substeps per 1/60 s frame.
//! The bends are soft (α = 30 rad²/J, α̃ = α/h² ≈ 1e6 /(kg·m²), the
//! order of their W): the regime where the multiplier matters, so the
//! λ-reset bug shows. (16 × 16 rather than 24 × 24 keeps the six runs,
//! 100 sweeps per substep included, within a few seconds.) The frame loop
//! is written out here (prediction, substep, velocity) because the bug
//! variant needs an iteration loop that `xpbd::step` makes impossible on
//! purpose.
//!
//! The sphere collision is the simplest that works and is the example's
//! own: after each substep's sweeps, every particle inside the sphere
//! (radius plus a 5 mm skin) is put on its surface, radially below where
//! it started the substep (a contact that sticks: the simplest friction;
//! without any the cloth slides off). The velocity update then sees the
//! projection. It is a position projection outside the λ lifecycle, and
//! it runs after the sweeps, not between them: a `Substep` borrows the
//! system, so no caller code can move a particle inside a substep.
//! (`xpbd::step` has real contacts, with λ and friction.)

use std::fmt::Write as _;
use std::fs;

use xpbd::{
    bends_count_for_cloth, bends_for_cloth, cloth, cloth_link_count, Bend, Constraints, Link,
    System,
};

const N: usize = 16; // particles per side
const SPACING: f64 = 0.035; // m
const INV_MASS: f64 = 500.0; // 1/kg: 2 g per particle
const LINK_COMPLIANCE: f64 = 1e-3; // m/N
const BEND_COMPLIANCE: f64 = 30.0; // rad²/J
const RADIUS: f64 = 0.15; // m, the sphere (centre at the origin)
const SKIN: f64 = 0.005; // m, kept between cloth and sphere
const DROP: f64 = 0.05; // m, start height above the sphere's top
const G: f64 = 9.81; // m/s²
const FRAME: f64 = 1.0 / 60.0; // s
const SUBSTEPS: usize = 3;
const FRAMES: usize = 60; // 1 s
const DAMPING: f64 = 3.0; // 1/s, v ← v(1 − c h)
const BUDGETS: [usize; 3] = [5, 20, 100];

/// The final state of one run.
struct Run {
    x: Vec<[f64; 3]>,
    bends: Vec<Bend<f64>>,
}

impl Run {
    /// How far the lowest particle hangs below the sphere's top (m).
    fn sag(&self) -> f64 {
        RADIUS - self.x.iter().map(|p| p[2]).fold(f64::INFINITY, f64::min)
    }

    /// `max |C|` over the bends (rad): how far the cloth is from its rest
    /// angles (all 0: it was built flat).
    fn bending(&self) -> f64 {
        self.bends
            .iter()
            .map(|b| b.value(&self.x).expect("non-degenerate").abs())
            .fold(0.0, f64::max)
    }
}

/// Every particle that ended the substep inside the sphere (plus skin) is
/// put on the surface, radially below where it started the substep: a
/// contact that does not slide (full static friction, the simplest
/// friction there is; without it the cloth slides off the sphere).
fn collide(x: &mut [[f64; 3]], start: &[[f64; 3]]) {
    let r = RADIUS + SKIN;
    let length = |p: &[f64; 3]| (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt();
    for (p, q) in x.iter_mut().zip(start) {
        if length(p) < r {
            let from = if length(q) > 0.0 { *q } else { *p };
            let s = r / length(&from);
            *p = from.map(|c| c * s);
        }
    }
}

fn simulate(iterations: usize, reset_each_iteration: bool) -> Run {
    let half = SPACING * (N - 1) as f64 / 2.0;
    let mut x: Vec<[f64; 3]> = (0..N * N)
        .map(|k| {
            let (r, c) = (k / N, k % N);
            [
                SPACING * c as f64 - half,
                SPACING * r as f64 - half,
                RADIUS + DROP,
            ]
        })
        .collect();
    let mut links = vec![Link::default(); cloth_link_count(N, N, true).expect("a grid")];
    cloth(&x, N, N, true, LINK_COMPLIANCE, &mut links).expect("valid cloth");
    let mut bends = vec![Bend::default(); bends_count_for_cloth(N, N)];
    bends_for_cloth(&x, N, N, BEND_COMPLIANCE, &mut bends).expect("valid bends");
    let w = vec![INV_MASS; N * N];
    let mut v = vec![[0.0; 3]; N * N];
    let mut prev = x.clone();
    let h = FRAME / SUBSTEPS as f64;
    let groups = Constraints {
        bends: &mut bends,
        ..Default::default()
    };
    let mut system = System::new(&mut x, &w, &mut links)
        .expect("valid system")
        .with_constraints(groups);
    for _ in 0..FRAMES * SUBSTEPS {
        prev.copy_from_slice(system.positions());
        for (p, vel) in system.positions_mut().iter_mut().zip(&mut v) {
            vel[2] -= G * h;
            for k in 0..3 {
                p[k] += h * vel[k];
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
        // After the substep's sweeps: a `Substep` borrows the system, so
        // nothing (this projection included) can move a particle between
        // two sweeps of one substep — the lifecycle rule by construction.
        collide(system.positions_mut(), &prev);
        let keep = 1.0 - DAMPING * h;
        for ((vel, p), q) in v.iter_mut().zip(system.positions()).zip(&prev) {
            for k in 0..3 {
                vel[k] = (p[k] - q[k]) / h * keep;
            }
        }
    }
    let x = system.positions().to_vec();
    Run { x, bends }
}

fn main() {
    println!(
        "xpbd cloth drape: {N} × {N} particles, {SPACING} m spacing, 2 g each, links α = {LINK_COMPLIANCE} m/N, bends α = {BEND_COMPLIANCE} rad²/J, sphere r = {RADIUS} m, {SUBSTEPS} substeps per 1/60 s frame, {FRAMES} frames"
    );
    println!();
    println!("| sweeps per substep | sag, λ kept (m) | max abs(C) bends, λ kept (rad) | sag, λ reset (m) | max abs(C) bends, λ reset (rad) |");
    println!("|---:|---:|---:|---:|---:|");
    let mut runs = vec![];
    for &k in &BUDGETS {
        let kept = simulate(k, false);
        let reset = simulate(k, true);
        println!(
            "| {k} | {:.4} | {:.4} | {:.4} | {:.4} |",
            kept.sag(),
            kept.bending(),
            reset.sag(),
            reset.bending()
        );
        runs.push((k, kept, reset));
    }
    println!();
    fs::create_dir_all("target/plots").expect("create target/plots");
    fs::write("target/plots/cloth_drape.svg", plot(&runs)).expect("write the plot");
    println!("wrote target/plots/cloth_drape.svg");
}

/// Two panels (λ kept, λ reset), side view (x right, z up): the sphere
/// and, per budget, the cloth's middle row.
fn plot(runs: &[(usize, Run, Run)]) -> String {
    let colors = ["#1b9e77", "#d95f02", "#7570b3"];
    let (panel, margin, scale) = (360.0, 40.0, 600.0); // px, px, px per m
    let width = 2.0 * panel + 3.0 * margin;
    let height = panel + 2.0 * margin + 40.0;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="13">"#
    );
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let row = N / 2;
    for (p, title) in [
        "λ kept across iterations (XPBD)",
        "λ reset every iteration (bug)",
    ]
    .iter()
    .enumerate()
    {
        let ox = margin + p as f64 * (panel + margin);
        let oy = margin + 20.0;
        // World (x, z) → panel pixels; the sphere's centre at 60 % height.
        let cx = ox + panel / 2.0;
        let cz = oy + 0.6 * panel;
        let _ = writeln!(
            s,
            r##"<rect x="{ox}" y="{oy}" width="{panel}" height="{panel}" fill="none" stroke="#999"/>"##
        );
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" text-anchor="middle" font-weight="bold">{title}</text>"#,
            ox + panel / 2.0,
            oy - 8.0
        );
        let _ = writeln!(
            s,
            r##"<circle cx="{cx}" cy="{cz}" r="{}" fill="#eee" stroke="#bbb"/>"##,
            RADIUS * scale
        );
        for ((k, kept, reset), color) in runs.iter().zip(colors) {
            let run = if p == 0 { kept } else { reset };
            let points: Vec<String> = (0..N)
                .map(|c| {
                    let q = run.x[row * N + c];
                    format!("{:.1},{:.1}", cx + q[0] * scale, cz - q[2] * scale)
                })
                .collect();
            let _ = writeln!(
                s,
                r#"<polyline points="{}" fill="none" stroke="{color}" stroke-width="2"><title>{k} sweeps</title></polyline>"#,
                points.join(" ")
            );
        }
    }
    // Legend.
    let ly = height - 18.0;
    for (i, ((k, _, _), color)) in runs.iter().zip(colors).enumerate() {
        let lx = margin + 160.0 * i as f64;
        let _ = writeln!(
            s,
            r#"<line x1="{lx}" y1="{ly}" x2="{}" y2="{ly}" stroke="{color}" stroke-width="3"/><text x="{}" y="{}">{k} sweeps per substep</text>"#,
            lx + 24.0,
            lx + 30.0,
            ly + 4.0
        );
    }
    s.push_str("</svg>\n");
    s
}
