//! Living in an engine's world (issue 16): three scenes an engine drives
//! through `xpbd::step`, printing what it would read back, and a plot in
//! `target/plots/engine_coupling.svg`.
//!
//! 1. **A rope on a moving hand**: 21 particles (10 g, 5 cm rigid links)
//!    whose top particle is attached (rigid [`Attachment`]) to a hand
//!    moving on a circle of radius 1 m at 10 m/s, 8 substeps at 60 Hz.
//!    The attachment's force is what the engine applies (reversed) to the
//!    hand; it matches the rope's weight plus the centripetal force of its
//!    centre of mass, `M (a_com − g)`.
//! 2. **A cloth hit by a swept capsule**: a 16 × 16 cloth hanging from its
//!    top row, a capsule (radius 4 cm) swept through it at 5 m/s; no
//!    particle is ever inside it.
//! 3. **A tearing sheet**: a 6 × 10 sheet held by two columns of
//!    attachments moving apart; links over their maximum force tear.
//!
//! Run: `cargo run --release --example engine_coupling`.

use std::fmt::Write as _;
use std::fs;

use xpbd::step::{scratch_len, step, Capsule, Colliders, Contact, StepConfig, Tearing, World};
use xpbd::{cloth, cloth_link_count, rope, Attachment, Constraints, Link};

const G: f64 = 9.81;
const DT: f64 = 1.0 / 60.0;

fn norm(a: [f64; 3]) -> f64 {
    (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt()
}

/// Scene 1; returns the hand's path, the rope's last shape, and per frame
/// (|F|, |M (a_com − g)|).
#[allow(clippy::type_complexity)]
fn rope_on_hand() -> (Vec<[f64; 3]>, Vec<[f64; 3]>, Vec<(f64, f64)>, f64) {
    const N: usize = 21;
    let (radius, omega, m) = (1.0, 10.0, 0.01);
    let at = |t: f64| [radius * (omega * t).cos(), 0.0, radius * (omega * t).sin()];
    let mut x: Vec<[f64; 3]> = (0..N).map(|k| [radius, -0.05 * k as f64, 0.0]).collect();
    let mut v = vec![[0.0; 3]; N];
    let w = vec![1.0 / m; N];
    let mut links = vec![Link::default(); N - 1];
    rope(&x, 0.0, &mut links).expect("rope");
    let mut contacts: [Contact<f64>; 0] = [];
    let mut scratch = vec![[0.0; 3]; scratch_len(N, links.len())];
    let mut hand = [Attachment::new(0, at(0.0), 0.0)];
    let mut config = StepConfig::new([0.0, -G, 0.0]);
    config.substeps = 8;
    let mass = m * N as f64;
    let mean = |p: &[[f64; 3]]| {
        p.iter()
            .fold([0.0; 3], |c, p| [c[0] + p[0], c[1] + p[1], c[2] + p[2]])
            .map(|c| c / N as f64)
    };
    let (mut path, mut forces, mut error) = (Vec::new(), Vec::new(), 0.0f64);
    let mut com0 = mean(&x);
    for frame in 1..=1200 {
        let target = at(frame as f64 * DT);
        hand[0].target = target;
        let mut world = World::new(&mut x, &mut v, &w, &mut contacts, &mut scratch);
        world.links = &mut links;
        world.groups = Some(Constraints {
            attachments: &mut hand,
            ..Constraints::default()
        });
        step(&mut world, DT, &config).expect("step");
        error = error.max(norm([
            x[0][0] - target[0],
            x[0][1] - target[1],
            x[0][2] - target[2],
        ]));
        // Steady rotation about y: a_com = −ω² r û (û the frame's mid
        // direction of the centre of mass), so F = M (a_com − g).
        let com = mean(&x);
        let r = com[0].hypot(com[2]);
        let mid = [com0[0] + com[0], com0[2] + com[2]];
        let u = [mid[0] / mid[0].hypot(mid[1]), mid[1] / mid[0].hypot(mid[1])];
        let expected = [
            -mass * omega * omega * r * u[0],
            mass * G,
            -mass * omega * omega * r * u[1],
        ];
        com0 = com;
        forces.push((norm(hand[0].force), norm(expected)));
        path.push(target);
    }
    (path, x, forces, error)
}

/// Scene 2; returns the cloth at a few frames, the capsule's centres then,
/// and the smallest gap between a particle and the capsule's surface (m).
#[allow(clippy::type_complexity)]
fn cloth_and_capsule() -> (Vec<(Vec<[f64; 3]>, [f64; 3])>, f64, usize) {
    let (rows, cols, spacing) = (16, 16, 0.04);
    let mut x = Vec::new();
    let mut w = Vec::new();
    for i in 0..rows {
        for k in 0..cols {
            x.push([(k as f64 - 7.5) * spacing, -(i as f64) * spacing, 0.0]);
            w.push(if i == 0 { 0.0 } else { 100.0 });
        }
    }
    let mut links = vec![Link::default(); cloth_link_count(rows, cols, true).expect("count")];
    cloth(&x, rows, cols, true, 1e-7, &mut links).expect("cloth");
    let n = x.len();
    let mut v = vec![[0.0; 3]; n];
    let mut contacts = vec![Contact::default(); 2 * n];
    let mut scratch = vec![[0.0; 3]; scratch_len(n, links.len())];
    let mut config = StepConfig::new([0.0, -G, 0.0]);
    config.particle_radius = 0.003;
    config.damping = 1.0;
    let (radius, half, speed) = (0.04, [0.0, 0.12, 0.0], 5.0);
    let mut center = [0.05, -0.3, -0.3];
    let (mut snapshots, mut gap, mut most) = (Vec::new(), f64::INFINITY, 0);
    for frame in 0..30 {
        let mut capsule = Capsule::new(center, half, radius);
        capsule.velocity = [0.0, 0.0, speed];
        capsule.dynamic_friction = 0.2;
        let mut world = World::new(&mut x, &mut v, &w, &mut contacts, &mut scratch);
        world.links = &mut links;
        world.colliders = Some(Colliders {
            capsules: core::slice::from_ref(&capsule),
            ..Default::default()
        });
        let stats = step(&mut world, DT, &config).expect("step");
        most = most.max(stats.max_contacts);
        center[2] += speed * DT;
        for p in &x {
            let d = [p[0] - center[0], p[1] - center[1], p[2] - center[2]];
            let s = (d[1] / half[1]).clamp(-1.0, 1.0);
            let e = [d[0], d[1] - s * half[1], d[2]];
            gap = gap.min(norm(e) - radius);
        }
        if frame % 3 == 2 && frame < 15 {
            snapshots.push((x.clone(), center));
        }
    }
    (snapshots, gap, most)
}

/// Scene 3; returns the sheet's last positions, its links and the frames
/// each link tore in.
#[allow(clippy::type_complexity)]
fn tearing_sheet() -> (Vec<[f64; 3]>, Vec<Link<f64>>, Vec<(usize, u32)>) {
    let (rows, cols, spacing) = (6, 10, 0.05);
    let mut x = Vec::new();
    for i in 0..rows {
        for k in 0..cols {
            x.push([k as f64 * spacing, -(i as f64) * spacing, 0.0]);
        }
    }
    let n = x.len();
    let mut links = vec![Link::default(); cloth_link_count(rows, cols, false).expect("count")];
    cloth(&x, rows, cols, false, 1e-4, &mut links).expect("cloth");
    // A perforation between columns 4 and 5: weaker links, weakest on top.
    let max_force: Vec<f64> = links
        .iter()
        .map(|l| {
            let (a, b) = (l.i as usize, l.j as usize);
            let across = (a % cols == 4 && b % cols == 5) || (a % cols == 5 && b % cols == 4);
            if across {
                20.0 + 1.5 * (a / cols) as f64
            } else {
                60.0
            }
        })
        .collect();
    let mut hands: Vec<Attachment<f64>> = (0..rows)
        .flat_map(|r| [r * cols, r * cols + cols - 1])
        .map(|p| Attachment::new(p as u32, x[p], 1e-6))
        .collect();
    let mut v = vec![[0.0; 3]; n];
    let w = vec![50.0; n];
    let mut contacts: [Contact<f64>; 0] = [];
    let mut scratch = vec![[0.0; 3]; scratch_len(n, links.len())];
    let mut torn = vec![0u32; links.len()];
    let mut config = StepConfig::new([0.0, -G, 0.0]);
    config.substeps = 8;
    let mut events = Vec::new();
    for frame in 1..=90 {
        for a in &mut hands {
            let dir = if a.particle as usize % cols == 0 {
                -1.0
            } else {
                1.0
            };
            a.target[0] += dir * 0.002;
        }
        let mut world = World::new(&mut x, &mut v, &w, &mut contacts, &mut scratch);
        world.links = &mut links;
        world.tearing = Some(Tearing {
            max_force: &max_force,
            torn: &mut torn,
        });
        world.groups = Some(Constraints {
            attachments: &mut hands,
            ..Constraints::default()
        });
        let stats = step(&mut world, DT, &config).expect("step");
        for &k in torn.iter().take(stats.torn) {
            events.push((frame, k));
        }
    }
    (x, links, events)
}

fn main() {
    let (path, rope_x, forces, error) = rope_on_hand();
    let last = &forces[forces.len() - 60..];
    let worst = last
        .iter()
        .map(|(f, e)| (f - e).abs() / e)
        .fold(0.0f64, f64::max);
    let (f, e) = forces[forces.len() - 1];
    println!("1. rope on a hand moving on a 1 m circle at 10 m/s (8 substeps, 20 s):");
    println!("   attachment error (max)        {error:.2e} m");
    println!("   force on the hand (last)      {f:.4} N   expected M(a_com − g) {e:.4} N");
    println!(
        "   |F| vs expected, last second  within {:.3} %",
        100.0 * worst
    );

    let (snapshots, gap, most) = cloth_and_capsule();
    println!("2. capsule (r = 4 cm) swept through a 16 × 16 cloth at 5 m/s (20 substeps):");
    println!(
        "   smallest particle–surface gap {:.3} mm (never inside)",
        1e3 * gap
    );
    println!("   most contacts in a substep    {most}");

    let (sheet, links, events) = tearing_sheet();
    println!("3. sheet pulled apart by two columns of attachments:");
    println!("   torn links {}: {:?}", events.len(), events);

    assert!(error < 0.01 && worst < 0.01, "rope: {error} m, {worst}");
    assert!(gap >= -1e-9, "capsule: a particle {gap} m inside");
    assert!(!events.is_empty(), "the sheet did not tear");

    fs::create_dir_all("target/plots").expect("create target/plots");
    let svg = plot(&path, &rope_x, &forces, &snapshots, &sheet, &links);
    fs::write("target/plots/engine_coupling.svg", svg).expect("write the plot");
    println!("wrote target/plots/engine_coupling.svg");
}

/// Three panels: the rope and the hand's circle (top view), the cloth
/// and the capsule (side view, z right, y up), the torn sheet (front
/// view, torn links red).
fn plot(
    path: &[[f64; 3]],
    rope_x: &[[f64; 3]],
    forces: &[(f64, f64)],
    snapshots: &[(Vec<[f64; 3]>, [f64; 3])],
    sheet: &[[f64; 3]],
    links: &[Link<f64>],
) -> String {
    let (panel, margin) = (300.0, 30.0);
    let width = 3.0 * panel + 4.0 * margin;
    let height = panel + 2.0 * margin + 30.0;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let titles = [
        "1. rope on a moving hand (top view)",
        "2. swept capsule through cloth (side)",
        "3. tearing sheet (front)",
    ];
    for (p, title) in titles.iter().enumerate() {
        let ox = margin + p as f64 * (panel + margin);
        let _ = writeln!(
            s,
            r##"<rect x="{ox}" y="{}" width="{panel}" height="{panel}" fill="none" stroke="#999"/><text x="{}" y="{}" text-anchor="middle" font-weight="bold">{title}</text>"##,
            margin + 10.0,
            ox + panel / 2.0,
            margin
        );
    }
    let oy = margin + 10.0;
    // Panel 1: x right, z down; 1 m = 100 px; the rope's last shape.
    let (cx, cy, k) = (margin + panel / 2.0, oy + panel / 2.0, 100.0);
    let pts = |ps: &[[f64; 3]], f: &dyn Fn([f64; 3]) -> (f64, f64)| {
        ps.iter()
            .map(|q| {
                let (a, b) = f(*q);
                format!("{a:.1},{b:.1}")
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    let top = |q: [f64; 3]| (cx + k * q[0], cy + k * q[2]);
    let _ = writeln!(
        s,
        r##"<polyline points="{}" fill="none" stroke="#bbb"/><polyline points="{}" fill="none" stroke="#1b9e77" stroke-width="2"/>"##,
        pts(&path[path.len() - 40..], &top),
        pts(rope_x, &top)
    );
    let (f, e) = forces[forces.len() - 1];
    let _ = writeln!(
        s,
        r#"<text x="{}" y="{}">|F| = {f:.2} N (expected {e:.2} N)</text>"#,
        margin + 8.0,
        oy + panel - 8.0
    );
    // Panel 2: z right, y up; 1 m = 300 px.
    let ox = 2.0 * margin + panel;
    let (cx, cy, k) = (ox + 110.0, oy + 60.0, 250.0);
    let side = |q: [f64; 3]| (cx + k * q[2], cy - k * q[1]);
    let colors = ["#d95f02", "#7570b3", "#e7298a", "#66a61e", "#1b9e77"];
    for ((x, c), color) in snapshots.iter().zip(colors) {
        let _ = writeln!(
            s,
            r##"<polyline points="{}" fill="none" stroke="{color}" stroke-width="1.5"/><circle cx="{:.1}" cy="{:.1}" r="{:.1}" fill="none" stroke="{color}" stroke-dasharray="3 2"/>"##,
            pts(&x[x.len() - 16 * 8..x.len() - 16 * 7], &side),
            cx + k * c[2],
            cy - k * c[1],
            0.04 * k
        );
    }
    // Panel 3: x right, y up; 1 m = 450 px; torn links red.
    let ox = 3.0 * margin + 2.0 * panel;
    let (cx, cy, k) = (ox + 40.0, oy + 60.0, 450.0);
    for l in links {
        let (a, b) = (sheet[l.i as usize], sheet[l.j as usize]);
        let color = if l.is_disabled() {
            "#e41a1c"
        } else {
            "#377eb8"
        };
        let dash = if l.is_disabled() {
            r#" stroke-dasharray="2 2""#
        } else {
            ""
        };
        let _ = writeln!(
            s,
            r#"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="{color}"{dash}/>"#,
            cx + k * a[0],
            cy - k * a[1],
            cx + k * b[0],
            cy - k * b[1]
        );
    }
    s.push_str("</svg>\n");
    s
}
