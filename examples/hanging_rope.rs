//! A 3D rope pinned at one end, simulated until it rests, for several
//! iteration budgets, with λ kept (the XPBD lifecycle) and with λ reset
//! before every iteration (the bug). Prints the rest sag per budget and
//! writes `target/plots/hanging_rope.svg` with the rest shapes.
//!
//! Run with `cargo run --release --example hanging_rope`.
//!
//! The experiment itself is in `examples/support/hanging.rs`, shared with
//! `tests/hanging_rope.rs`.

use std::fmt::Write as _;
use std::fs;

#[path = "support/hanging.rs"]
mod hanging;

use hanging::{sag, simulate, Shapes, BUDGETS, COMPLIANCE, FRAMES, N, REST, SUBSTEPS};

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
