//! Cloth that does not pass through itself (issue 18): a 50 × 50 cloth
//! (r = 5 mm particles, 1 cm apart) dropped folded in two onto the ground,
//! and a 30 × 30 cloth dropped onto a sphere, with self-collision
//! (`World::self_collision`: a spatial hash over caller memory, λ ≥ 0
//! particle–particle contacts with friction). Prints the smallest distance
//! between two particles that may collide and the contact counts per range
//! of frames; writes `target/plots/self_collision.svg` (side views).
//!
//! The folded cloth is stepped in colored order (`step_colored`) on a
//! two-thread job system (a small persistent pool: the shape an engine's
//! own job system plugs in through `xpbd::step::Jobs`) and again on one
//! thread; the example checks that both give the same bits.
//!
//! Run: `cargo run --release --example self_collision`.

use std::fmt::Write as _;
use std::fs;

use xpbd::step::{
    scratch_len, self_collision_adjacency_len, self_collision_table_len, step, step_colored,
    Colliders, Contact, Jobs, OneThread, ParticleContact, Plane, SelfCollision, Sphere, StepConfig,
    World,
};
use xpbd::{cloth, cloth_link_count, color_instances, color_order, fill_in_order};
use xpbd::{GroupColors, Link};

const R: f64 = 0.005;
const SPACING: f64 = 0.01;
const DT: f64 = 1.0 / 60.0;

#[path = "support/pool.rs"]
mod pool;
use pool::Pool;

/// One run's record: per frame (min pair distance, most pairs, clamps),
/// and snapshots of the cloth.
struct Run {
    frames: Vec<(f64, usize, usize)>,
    shots: Vec<Vec<[f64; 3]>>,
}

/// The smallest distance between two particles that may collide: not
/// joined by a link, not closer than 2r in the rest shape. Exact: the
/// pairs closer than a cell (2 cm) are found through a uniform grid; if
/// there is none, every pair is tried (brute force).
fn min_pair_distance(x: &[[f64; 3]], rest: &[[f64; 3]], links: &[Link<f64>]) -> f64 {
    use std::collections::{HashMap, HashSet};
    let linked: HashSet<(u32, u32)> = links.iter().map(|l| (l.i.min(l.j), l.i.max(l.j))).collect();
    let d2 = |a: [f64; 3], b: [f64; 3]| {
        (a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)
    };
    let mut best = f64::INFINITY;
    let try_pair = |i: usize, j: usize, best: &mut f64| {
        let d = d2(x[i], x[j]);
        if d >= *best * *best || linked.contains(&(i.min(j) as u32, i.max(j) as u32)) {
            return;
        }
        if d2(rest[i], rest[j]) < 4.0 * R * R {
            return;
        }
        *best = d.sqrt();
    };
    let cell = 2.0 * SPACING;
    let key = |p: [f64; 3]| p.map(|c| (c / cell).floor() as i64);
    let mut grid: HashMap<[i64; 3], Vec<usize>> = HashMap::new();
    for (i, p) in x.iter().enumerate() {
        grid.entry(key(*p)).or_default().push(i);
    }
    for (i, p) in x.iter().enumerate() {
        let k = key(*p);
        for dx in -1..=1 {
            for dy in -1..=1 {
                for dz in -1..=1 {
                    for &j in grid
                        .get(&[k[0] + dx, k[1] + dy, k[2] + dz])
                        .into_iter()
                        .flatten()
                    {
                        if j > i {
                            try_pair(i, j, &mut best);
                        }
                    }
                }
            }
        }
    }
    if best >= cell {
        for i in 0..x.len() {
            for j in i + 1..x.len() {
                try_pair(i, j, &mut best);
            }
        }
    }
    best
}

/// A `n × n` cloth, flat in the rest shape (xz plane), starting `folded`
/// (its far half laid back over its near half, 2r above it) or flat, at
/// height `y0`; dropped onto `planes` and `spheres` for `frames` frames,
/// by `step`, or by `step_colored` on `jobs` (links in colored order).
fn drop_cloth(
    n: usize,
    folded: bool,
    y0: f64,
    spheres: &[Sphere<f64, 3>],
    frames: usize,
    jobs: Option<&dyn Jobs>,
) -> Run {
    let rest: Vec<[f64; 3]> = (0..n * n)
        .map(|k| [(k % n) as f64 * SPACING, 0.0, (k / n) as f64 * SPACING])
        .collect();
    let half = (n / 2) as f64 * SPACING;
    let mut x: Vec<[f64; 3]> = rest
        .iter()
        .map(|p| {
            let (cx, cz) = (p[0] - half, p[2] - half);
            if folded && p[2] > half - SPACING / 2.0 {
                // Folded back over the near half, one layer 2.5r higher.
                [cx, y0 + 2.5 * R, -cz + SPACING]
            } else {
                [cx, y0, cz]
            }
        })
        .collect();
    let mut links = vec![Link::default(); cloth_link_count(n, n, true).expect("count")];
    cloth(&rest, n, n, true, 1e-6, &mut links).expect("cloth");
    let count = x.len();
    // Colored order for step_colored: greedy colors, links sorted by color.
    let mut used = vec![0u64; count];
    let mut color = vec![0u32; links.len()];
    let colors = color_instances(&links, count, &mut used, &mut color).expect("colors");
    let mut starts = vec![0usize; colors as usize + 1];
    let mut order = vec![0u32; links.len()];
    color_order(&color, colors, &mut starts, &mut order).expect("order");
    let unsorted = links.clone();
    fill_in_order(&unsorted, &order, &mut links).expect("fill");
    let mut stamp = vec![0u32; count];
    let mut v = vec![[0.0; 3]; count];
    let w = vec![1.0 / 0.001; count];
    let mut contacts = vec![Contact::default(); 2 * count];
    let mut scratch = vec![[0.0; 3]; scratch_len(count, links.len())];
    let mut pairs = vec![ParticleContact::default(); 16 * count];
    let mut table = vec![0u32; self_collision_table_len(count)];
    let mut ids = vec![0u32; count];
    let mut keys = vec![0u32; self_collision_adjacency_len(count, links.len())];
    let ground = [Plane {
        normal: [0.0, 1.0, 0.0],
        offset: 0.0,
    }];
    let mut config = StepConfig::new([0.0, -9.81, 0.0]);
    config.particle_radius = R;
    config.iterations = 1;
    config.damping = 1.0;
    config.static_friction = 0.3;
    config.dynamic_friction = 0.3;
    let mut run = Run {
        frames: Vec::new(),
        shots: Vec::new(),
    };
    for frame in 0..frames {
        let mut world = World::new(&mut x, &mut v, &w, &mut contacts, &mut scratch);
        world.links = &mut links;
        world.colliders = Some(Colliders {
            planes: &ground,
            spheres,
            ..Default::default()
        });
        world.self_collision = Some(SelfCollision {
            pairs: &mut pairs,
            table: &mut table,
            ids: &mut ids,
            adjacency: &mut keys,
            rest: &rest,
        });
        let stats = match jobs {
            None => step(&mut world, DT, &config),
            Some(jobs) => {
                let colors = GroupColors {
                    links: &starts,
                    ..Default::default()
                };
                step_colored(&mut world, &colors, &mut stamp, DT, &config, jobs)
            }
        }
        .expect("step");
        let d = if frame % 60 == 59 {
            min_pair_distance(&x, &rest, &links)
        } else {
            f64::NAN
        };
        run.frames.push((d, stats.max_pairs, stats.clamped));
        if frame % 150 == 0 || frame + 1 == frames {
            run.shots.push(x.clone());
        }
    }
    run
}

fn report(name: &str, run: &Run) -> f64 {
    println!("{name}");
    println!("| frames | min pair distance (m) | most pairs in a substep | clamped |");
    println!("|---|---:|---:|---:|");
    let mut worst = f64::INFINITY;
    for (k, chunk) in run.frames.chunks(60).enumerate() {
        let d = chunk
            .iter()
            .map(|c| c.0)
            .filter(|d| !d.is_nan())
            .fold(f64::INFINITY, f64::min);
        let most = chunk.iter().map(|c| c.1).max().unwrap_or(0);
        let clamped: usize = chunk.iter().map(|c| c.2).sum();
        worst = worst.min(d);
        println!(
            "| {}–{} | {d:.7} | {most} | {clamped} |",
            60 * k,
            60 * k + 59
        );
    }
    println!("smallest distance {worst:.7} m (2r = {} m)", 2.0 * R);
    worst
}

fn main() {
    let pool = Pool::new();
    let folded = drop_cloth(50, true, 0.05, &[], 600, Some(&pool));
    drop(pool);
    let a = report(
        "50 × 50 cloth dropped folded onto the ground (600 frames, colored, 2 threads):",
        &folded,
    );
    // The same cloth on one thread for its first 150 frames (the fall,
    // the landing and the most pairs; CI time): the snapshots of frames 0
    // and 150 against the two-thread run's. `tests/colored_step.rs`
    // checks 1, 2, 3 and 7 threads frame by frame.
    let alone = drop_cloth(50, true, 0.05, &[], 151, Some(&OneThread));
    let bits = |x: Option<&Vec<[f64; 3]>>| -> Vec<u64> {
        x.into_iter()
            .flatten()
            .flatten()
            .map(|c| c.to_bits())
            .collect()
    };
    let same = !bits(alone.shots.get(1)).is_empty()
        && (0..2).all(|k| bits(folded.shots.get(k)) == bits(alone.shots.get(k)));
    println!(
        "the same cloth on one thread, frames 0–150: bit-identical to two threads: {}",
        if same { "yes" } else { "NO" }
    );
    assert!(same, "one and two threads differ");
    let sphere = [Sphere {
        center: [0.0, 0.1, 0.0],
        radius: 0.06,
    }];
    let draped = drop_cloth(30, false, 0.2, &sphere, 240, None);
    let b = report("30 × 30 cloth dropped onto a sphere (240 frames):", &draped);
    assert!(a >= 2.0 * R - 1e-6, "folded cloth: {a} m");
    assert!(b >= 2.0 * R - 1e-6, "draped cloth: {b} m");
    fs::create_dir_all("target/plots").expect("create target/plots");
    fs::write("target/plots/self_collision.svg", plot(&folded, &draped)).expect("write the plot");
    println!("wrote target/plots/self_collision.svg");
}

/// Side views (x right, y up) of both cloths at their last frame.
fn plot(folded: &Run, draped: &Run) -> String {
    let (panel, margin, k) = (360.0, 30.0, 1200.0);
    let width = 2.0 * panel + 3.0 * margin;
    let height = panel + 2.0 * margin;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    for (p, (run, title)) in [
        (folded, "folded cloth on the ground"),
        (draped, "cloth on a sphere"),
    ]
    .iter()
    .enumerate()
    {
        let ox = margin + p as f64 * (panel + margin);
        let (cx, cy) = (ox + panel / 2.0, margin + panel - 40.0);
        let _ = writeln!(
            s,
            r##"<rect x="{ox}" y="{margin}" width="{panel}" height="{panel}" fill="none" stroke="#999"/><text x="{}" y="{}" text-anchor="middle" font-weight="bold">{title}</text>"##,
            ox + panel / 2.0,
            margin + 16.0
        );
        if let Some(x) = run.shots.last() {
            for q in x {
                let _ = writeln!(
                    s,
                    r##"<circle cx="{:.1}" cy="{:.1}" r="{:.1}" fill="#377eb8" fill-opacity="0.3"/>"##,
                    cx + k * 0.25 * q[0],
                    cy - k * q[1],
                    k * R
                );
            }
        }
    }
    s.push_str("</svg>\n");
    s
}
