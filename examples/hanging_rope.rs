//! A 3D rope pinned at one end, simulated until it rests, for several
//! iteration budgets, with λ kept (the XPBD lifecycle) and with λ reset
//! before every iteration (the bug). Prints the rest sag per budget and
//! writes `target/plots/hanging_rope.svg` with the rest shapes.
//!
//! Run with `cargo run --release --example hanging_rope`.
//!
//! The substep loop is written out here with the `System` API (prediction,
//! substep, iterations, velocity update), because the bug variant needs an
//! iteration loop that `xpbd::step` makes impossible on purpose.

use std::fmt::Write as _;
use std::fs;

use xpbd::{rope, Link, System};

const N: usize = 21; // particles: 20 links of 5 cm, a 1 m rope
const REST: f64 = 0.05; // m
const INV_MASS: f64 = 100.0; // 1/kg: 10 g per particle
const COMPLIANCE: f64 = 1e-2; // m/N
const G: f64 = 9.81; // m/s²
const FRAME: f64 = 1.0 / 60.0; // s
const SUBSTEPS: usize = 10;
const FRAMES: usize = 900; // 15 s: enough to come to rest with damping
const DAMPING: f64 = 2.0; // 1/s, v ← v·(1 − c h): only to reach rest
const BUDGETS: [usize; 4] = [1, 5, 20, 100];

/// Rest shapes for one budget: (iterations, λ kept, λ reset).
type Shapes = (usize, Vec<[f64; 3]>, Vec<[f64; 3]>);

/// Simulates the rope; returns the rest positions.
fn simulate(iterations: usize, reset_each_iteration: bool) -> Vec<[f64; 3]> {
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

fn sag(x: &[[f64; 3]]) -> f64 {
    -x.iter().map(|p| p[1]).fold(f64::INFINITY, f64::min)
}

fn main() {
    println!(
        "xpbd hanging rope: {} links × {REST} m, 10 g per particle, α = {COMPLIANCE} m/N, {SUBSTEPS} substeps per 1/60 s frame, {FRAMES} frames",
        N - 1
    );
    println!();
    println!(
        "| iterations per substep | rest sag, λ kept (m) | rest sag, λ reset each iteration (m) |"
    );
    println!(
        "|-----------------------:|---------------------:|-------------------------------------:|"
    );
    let mut shapes = vec![];
    for &k in &BUDGETS {
        let kept = simulate(k, false);
        let reset = simulate(k, true);
        println!("| {k:>22} | {:>20.4} | {:>36.4} |", sag(&kept), sag(&reset));
        shapes.push((k, kept, reset));
    }
    let svg = plot(&shapes);
    fs::create_dir_all("target/plots").expect("create target/plots");
    fs::write("target/plots/hanging_rope.svg", svg).expect("write the plot");
    println!();
    println!("wrote target/plots/hanging_rope.svg");
}

/// Two panels (λ kept, λ reset), side view (x right, y up); in each panel
/// one rope per budget, hanging from its own pin, so lengths compare at a
/// glance.
fn plot(shapes: &[Shapes]) -> String {
    let colors = ["#1b9e77", "#d95f02", "#7570b3", "#e7298a"];
    let (panel_w, panel_h, margin) = (400.0, 400.0, 40.0);
    let scale = 260.0; // px per m
    let column = panel_w / shapes.len() as f64;
    let mut s = String::new();
    let width = 2.0 * panel_w + 3.0 * margin;
    let height = panel_h + 2.0 * margin + 30.0;
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="13">"#
    );
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    for (panel, title) in [
        "λ kept across iterations (XPBD)",
        "λ reset every iteration (bug)",
    ]
    .iter()
    .enumerate()
    {
        let ox = margin + panel as f64 * (panel_w + margin);
        let oy = margin + 20.0;
        let top = oy + 20.0;
        let _ = writeln!(
            s,
            r##"<rect x="{ox}" y="{oy}" width="{panel_w}" height="{panel_h}" fill="none" stroke="#999"/>"##
        );
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" text-anchor="middle" font-weight="bold">{title}</text>"#,
            ox + panel_w / 2.0,
            oy - 8.0
        );
        for (depth, label) in [(1.0, "1.0 m"), (1.2, "1.2 m")] {
            let y = top + depth * scale;
            let _ = writeln!(
                s,
                r##"<line x1="{ox}" y1="{y}" x2="{}" y2="{y}" stroke="#ccc" stroke-dasharray="4 3"/><text x="{}" y="{}" fill="#888" font-size="11">{label}</text>"##,
                ox + panel_w,
                ox + 3.0,
                y - 3.0
            );
        }
        for (idx, (k, kept, reset)) in shapes.iter().enumerate() {
            let x = if panel == 0 { kept } else { reset };
            let pin_x = ox + column * (idx as f64 + 0.5);
            let pts: Vec<String> = x
                .iter()
                .map(|p| format!("{:.2},{:.2}", pin_x + p[0] * scale, top - p[1] * scale))
                .collect();
            let color = colors[idx % colors.len()];
            let _ = writeln!(
                s,
                r#"<polyline points="{}" fill="none" stroke="{color}" stroke-width="3"/><circle cx="{pin_x}" cy="{top}" r="4" fill="black"/>"#,
                pts.join(" ")
            );
            let label_y = oy + panel_h - 26.0;
            let _ = writeln!(
                s,
                r#"<text x="{pin_x}" y="{label_y}" text-anchor="middle" fill="{color}">{k} it.</text><text x="{pin_x}" y="{}" text-anchor="middle" fill="{color}">{:.3} m</text>"#,
                label_y + 16.0,
                sag(x)
            );
        }
    }
    let _ = writeln!(
        s,
        r##"<text x="{}" y="{}" text-anchor="middle" fill="#444">20-link rope at rest (10 g particles, α = 0.01 m/N, 10 substeps per frame): sag per iteration budget</text>"##,
        width / 2.0,
        height - 12.0
    );
    s.push_str("</svg>\n");
    s
}
