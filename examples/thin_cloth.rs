//! Thin cloth on an engine's terrain and bodies (issue 36, first stage:
//! heightfield and signed distance field colliders, fixed and moving).
//! Every run takes one substep (of 10 iterations) per frame at 60 Hz
//! (r = 5 mm particles 2 cm apart, 20 g each, structural and shear links
//! of compliance 1e-6 m/N), and after every frame the example checks every particle
//! against its own evaluation of the field (bilinear heights, trilinear
//! distances, written out here from the formulas of
//! `src/constraint/field.rs`, not the solver's code):
//!
//! 1. **Heightfield 256²**: a 40 × 40 cloth thrown down at 10 m/s onto a
//!    rolling terrain of 256 × 256 heights (sum of sines, 8 m × 8 m,
//!    μ_s 0.5, μ_k 0.4), 300 frames: no particle over the footprint is
//!    below the surface by more than r + 1e-6 m.
//! 2. **SDF 64³**: the same cloth thrown down at 10 m/s onto a sphere of
//!    radius 0.5 m given as a 64³ signed distance field (distances exact
//!    at the nodes), 300 frames: φ ≥ −(r + 1e-6 m) at every particle.
//! 3. **Moving SDF**: a 30 × 30 cloth hanging from its pinned top row,
//!    hit by the same sphere moving horizontally at 10 m/s, 60 frames:
//!    the same check against the body where it is at each frame's end.
//! 4. **Elevator**: the terrain rising at 10 m/s under a falling 40 × 40
//!    cloth for 30 frames, then stopping (the cloth flies on and lands
//!    back), 180 frames: the same check as 1 against the moved terrain.
//!
//! Both fields read one shared sample array (the terrain's heights, then
//! the sphere's distances: `first` names where each begins). Prints each
//! check's figure and `ok`/`FAILED` (exit status 1 on a failure), the
//! largest link stretch at each run's end (not checked), and writes
//! `target/plots/thin_cloth.svg` (side views).
//!
//! Run: `cargo run --release --example thin_cloth`.

use std::fmt::Write as _;
use std::fs;

use xpbd::step::{scratch_len, step, Colliders, Contact, Heightfield, Sdf, StepConfig, World};
use xpbd::{cloth, cloth_link_count, Link};

/// Particle radius (m).
const R: f64 = 0.005;
/// Particle spacing in the rest shape (m).
const SPACING: f64 = 0.02;
/// Inverse mass of a free particle (1/kg): 20 g.
const W: f64 = 50.0;
/// Link compliance (m/N).
const COMPLIANCE: f64 = 1e-6;
/// Frame length (s), one substep per frame.
const DT: f64 = 1.0 / 60.0;
/// Sweeps per substep: with one substep per frame, one sweep would let a
/// 40-particle cloth stretch to several times its size (a link's
/// stiffness per frame is bound to the sweeps); ten keep it within tens
/// of per cent.
const ITERATIONS: u32 = 10;
const G: f64 = 9.81;
/// How far behind a surface a particle's centre may be: r + 1e-6 m.
const LIMIT: f64 = R + 1e-6;

/// The terrain: 256 × 256 heights over [−4, 4]² m.
const TERRAIN_NODES: u32 = 256;
const TERRAIN_HALF: f64 = 4.0;
/// The sphere: radius 0.5 m on 64³ nodes over ±0.65 m.
const SPHERE_RADIUS: f64 = 0.5;
const SDF_NODES: u32 = 64;
const SDF_HALF: f64 = 0.65;

/// A cloth's buffers.
struct Cloth {
    x: Vec<[f64; 3]>,
    v: Vec<[f64; 3]>,
    w: Vec<f64>,
    links: Vec<Link<f64>>,
    contacts: Vec<Contact<f64>>,
    scratch: Vec<[f64; 3]>,
}

impl Cloth {
    /// A `side × side` cloth from the rest positions `x` (row-major, rows
    /// of `side`), moving at `v`, with the particles of `pinned` fixed.
    fn new(x: Vec<[f64; 3]>, side: usize, v: [f64; 3], pinned: impl Fn(usize) -> bool) -> Self {
        let n = x.len();
        let mut links = vec![Link::default(); cloth_link_count(side, side, true).expect("count")];
        cloth(&x, side, side, true, COMPLIANCE, &mut links).expect("cloth");
        let w = (0..n).map(|k| if pinned(k) { 0.0 } else { W }).collect();
        Self {
            v: vec![v; n],
            w,
            contacts: vec![Contact::default(); 2 * n],
            scratch: vec![[0.0; 3]; scratch_len(n, links.len())],
            links,
            x,
        }
    }

    /// Flat (in the xz plane) at height `y`, centred on (cx, cz).
    fn flat(side: usize, cx: f64, y: f64, cz: f64, v: [f64; 3]) -> Self {
        let half = (side - 1) as f64 * SPACING / 2.0;
        let x = (0..side * side)
            .map(|k| {
                let (r, c) = (k / side, k % side);
                [
                    cx - half + c as f64 * SPACING,
                    y,
                    cz - half + r as f64 * SPACING,
                ]
            })
            .collect();
        Self::new(x, side, v, |_| false)
    }

    /// Hanging in the xy plane (z = 0) from its top row at height `top`,
    /// pinned (w = 0), centred on x = 0.
    fn hanging(side: usize, top: f64) -> Self {
        let half = (side - 1) as f64 * SPACING / 2.0;
        let x = (0..side * side)
            .map(|k| {
                let (r, c) = (k / side, k % side);
                [-half + c as f64 * SPACING, top - r as f64 * SPACING, 0.0]
            })
            .collect();
        Self::new(x, side, [0.0; 3], |k| k < side)
    }

    /// One frame of one substep against `heightfields` and `sdfs`.
    fn step(
        &mut self,
        heightfields: &[Heightfield<f64, 3>],
        sdfs: &[Sdf<f64, 3>],
        samples: &[f64],
    ) {
        let mut config = StepConfig::new([0.0, -G, 0.0]);
        config.substeps = 1;
        config.particle_radius = R;
        config.iterations = ITERATIONS;
        let mut world = World::new(
            &mut self.x,
            &mut self.v,
            &self.w,
            &mut self.contacts,
            &mut self.scratch,
        );
        world.links = &mut self.links;
        world.colliders = Some(Colliders {
            heightfields,
            sdfs,
            samples,
            ..Default::default()
        });
        step(&mut world, DT, &config).expect("step");
    }

    /// The largest relative stretch of a link, |l/l₀ − 1|.
    fn stretch(&self) -> f64 {
        self.links
            .iter()
            .map(|l| {
                let (a, b) = (self.x[l.i as usize], self.x[l.j as usize]);
                let d = [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
                (dot(d, d).sqrt() / l.rest - 1.0).abs()
            })
            .fold(0.0, f64::max)
    }
}

/// The terrain's height (m) at (x, z): a sum of sines, sampled at the
/// nodes only.
fn rolling(x: f64, z: f64) -> f64 {
    0.25 * (0.9 * x + 0.3).sin() * (0.7 * z - 0.2).cos()
        + 0.1 * (2.1 * x - 1.3 * z).sin()
        + 0.04 * (4.3 * z + 0.5 * x + 1.0).sin()
}

/// The terrain's samples (node (i, j) is entry j·256 + i) and its
/// heightfield from sample `first` (μ_s 0.5, μ_k 0.4).
fn terrain(first: usize) -> (Heightfield<f64, 3>, Vec<f64>) {
    let n = TERRAIN_NODES;
    let spacing = 2.0 * TERRAIN_HALF / f64::from(n - 1);
    let mut samples = Vec::with_capacity((n * n) as usize);
    for j in 0..n {
        for i in 0..n {
            let (x, z) = (
                -TERRAIN_HALF + spacing * f64::from(i),
                -TERRAIN_HALF + spacing * f64::from(j),
            );
            samples.push(rolling(x, z));
        }
    }
    let mut f = Heightfield::new(
        [-TERRAIN_HALF, 0.0, -TERRAIN_HALF],
        [spacing, spacing],
        [n, n],
        first,
    );
    (f.static_friction, f.dynamic_friction) = (0.5, 0.4);
    (f, samples)
}

/// The sphere's samples (node (i, j, k) is entry i + 64 (j + 64 k), its
/// exact distance to the sphere) and its field from sample `first`
/// (μ_s 0.5, μ_k 0.4), centred on the local origin.
fn sphere(first: usize) -> (Sdf<f64, 3>, Vec<f64>) {
    let n = SDF_NODES;
    let cell = 2.0 * SDF_HALF / f64::from(n - 1);
    let mut samples = Vec::with_capacity((n * n * n) as usize);
    for k in 0..n {
        for j in 0..n {
            for i in 0..n {
                let p = [i, j, k].map(|c| -SDF_HALF + cell * f64::from(c));
                samples.push((p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt() - SPHERE_RADIUS);
            }
        }
    }
    let mut f = Sdf::new([-SDF_HALF; 3], cell, [n; 3], first);
    (f.static_friction, f.dynamic_friction) = (0.5, 0.4);
    (f, samples)
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// World point `p` in a field's local frame at `center` with `axes`, less
/// `offset`.
fn local(p: [f64; 3], center: [f64; 3], axes: &[[f64; 3]; 3], offset: [f64; 3]) -> [f64; 3] {
    let d = [p[0] - center[0], p[1] - center[1], p[2] - center[2]];
    [0, 1, 2].map(|k| dot(d, axes[k]) - offset[k])
}

/// The grid cell of grid coordinate `u` on an axis of `count` nodes: the
/// node below the clamped coordinate (at most count − 2) and the fraction
/// past it.
fn cell_of(u: f64, count: u32) -> (usize, f64) {
    let top = f64::from(count - 1);
    let clamped = u.clamp(0.0, top);
    let below = (clamped.floor() as usize).min(count as usize - 2);
    (below, (clamped - below as f64).clamp(0.0, 1.0))
}

/// How far world point `p` is below the surface of heightfield `f` when
/// its centre is at `center` (m; negative above), or `None` outside the
/// footprint. The doc's surface: node (i, j) at local
/// `offset + (i·spacing[0], height_scale·h_ij, j·spacing[1])`, bilinear
/// in the cell below the point.
fn depth_below(
    f: &Heightfield<f64, 3>,
    center: [f64; 3],
    samples: &[f64],
    p: [f64; 3],
) -> Option<f64> {
    let q = local(p, center, &f.axes, f.offset);
    let (u, v) = (q[0] / f.spacing[0], q[2] / f.spacing[1]);
    let inside = |t: f64, count: u32| (0.0..=f64::from(count - 1)).contains(&t);
    if !inside(u, f.counts[0]) || !inside(v, f.counts[1]) {
        return None;
    }
    let ((i, a), (j, b)) = (cell_of(u, f.counts[0]), cell_of(v, f.counts[1]));
    let row = f.counts[0] as usize;
    let h = |i: usize, j: usize| samples[f.first + j * row + i];
    let low = h(i, j) + (h(i + 1, j) - h(i, j)) * a;
    let high = h(i, j + 1) + (h(i + 1, j + 1) - h(i, j + 1)) * a;
    Some(f.height_scale * (low + (high - low) * b) - q[1])
}

/// The signed distance (m) of world point `p` to field `f` when its
/// centre is at `center`: trilinear in the point's cell; outside the
/// grid, the clamped point's value plus the distance to the grid.
fn phi(f: &Sdf<f64, 3>, center: [f64; 3], samples: &[f64], p: [f64; 3]) -> f64 {
    let q = local(p, center, &f.axes, f.offset);
    let mut node = [0usize; 3];
    let mut t = [0.0; 3];
    let mut out2 = 0.0;
    for d in 0..3 {
        let u = q[d] / f.cell;
        (node[d], t[d]) = cell_of(u, f.counts[d]);
        let past = (u - u.clamp(0.0, f64::from(f.counts[d] - 1))) * f.cell;
        out2 += past * past;
    }
    let [nx, ny] = [f.counts[0] as usize, f.counts[1] as usize];
    let mut value = 0.0;
    for corner in 0..8 {
        let mut index = [0usize; 3];
        let mut weight = 1.0;
        for d in 0..3 {
            let up = corner >> d & 1 == 1;
            index[d] = node[d] + usize::from(up);
            weight *= if up { t[d] } else { 1.0 - t[d] };
        }
        value += weight * samples[f.first + index[0] + nx * (index[1] + ny * index[2])];
    }
    value + out2.sqrt()
}

/// A check's verdict as printed.
fn verdict(ok: bool) -> &'static str {
    if ok {
        "ok"
    } else {
        "FAILED"
    }
}

/// Run 1: the cloth thrown onto the terrain. Returns the deepest depth
/// over all frames, the particles resting within 2r of the surface at
/// the end, the largest link stretch then, and the final shape.
fn terrain_drop(f: &Heightfield<f64, 3>, samples: &[f64]) -> (f64, usize, f64, Vec<[f64; 3]>) {
    let mut c = Cloth::flat(40, 0.3, 1.2, -0.4, [0.5, -10.0, 0.3]);
    let mut deepest = f64::NEG_INFINITY;
    for _ in 0..300 {
        c.step(&[*f], &[], samples);
        for p in &c.x {
            if let Some(d) = depth_below(f, f.center, samples, *p) {
                deepest = deepest.max(d);
            }
        }
    }
    let resting =
        c.x.iter()
            .filter(|p| depth_below(f, f.center, samples, **p).is_some_and(|d| d > -2.0 * R))
            .count();
    (deepest, resting, c.stretch(), c.x)
}

/// Run 2: the cloth thrown onto the sphere. Returns the smallest φ over
/// all frames, the particles within 2r of the surface at the end, the
/// largest link stretch then, and the final shape.
fn sphere_drop(f: &Sdf<f64, 3>, samples: &[f64]) -> (f64, usize, f64, Vec<[f64; 3]>) {
    let mut c = Cloth::flat(40, 0.02, 0.9, 0.01, [0.0, -10.0, 0.0]);
    let mut smallest = f64::INFINITY;
    for _ in 0..300 {
        c.step(&[], &[*f], samples);
        for p in &c.x {
            smallest = smallest.min(phi(f, f.center, samples, *p));
        }
    }
    let resting =
        c.x.iter()
            .filter(|p| phi(f, f.center, samples, **p) < 2.0 * R)
            .count();
    (smallest, resting, c.stretch(), c.x)
}

/// Where the sphere of run 3 starts (its centre, m) and its velocity
/// (m/s): below the pinned row, so that it passes under it.
const SWEEP_START: [f64; 3] = [0.0, 0.3, -1.0];
const SWEEP_VELOCITY: [f64; 3] = [0.0, 0.0, 10.0];
/// The frames of run 3 drawn in the plot.
const SWEEP_SHOTS: [usize; 5] = [3, 6, 9, 14, 59];

/// A frame of run 3: its number, the sphere's centre at its end and the
/// cloth's shape.
type Shot = (usize, [f64; 3], Vec<[f64; 3]>);

/// Run 3: the sphere swept through the hanging cloth. Returns the
/// smallest φ over all frames, how many particles it carried more than
/// 5 cm ahead of the cloth's plane, the largest link stretch at the end,
/// and the shapes (with the sphere's centre) at the frames of
/// `SWEEP_SHOTS`.
fn sweep(f: &Sdf<f64, 3>, samples: &[f64]) -> (f64, usize, f64, Vec<Shot>) {
    let mut c = Cloth::hanging(30, 1.0);
    let mut body = *f;
    body.center = SWEEP_START;
    body.velocity = SWEEP_VELOCITY;
    let mut smallest = f64::INFINITY;
    let mut carried = vec![false; c.x.len()];
    let mut shots = Vec::new();
    for frame in 0..60 {
        c.step(&[], &[body], samples);
        // Where the body is at the frame's end: the next frame's start.
        body.center = [0, 1, 2].map(|k| body.center[k] + body.velocity[k] * DT);
        for (p, carried) in c.x.iter().zip(&mut carried) {
            smallest = smallest.min(phi(&body, body.center, samples, *p));
            *carried |= p[2] > 0.05;
        }
        if SWEEP_SHOTS.contains(&frame) {
            shots.push((frame, body.center, c.x.clone()));
        }
    }
    (
        smallest,
        carried.iter().filter(|c| **c).count(),
        c.stretch(),
        shots,
    )
}

/// Run 4: the terrain rising at 10 m/s for 30 frames under a cloth, then
/// at rest. Returns the deepest depth over all frames, the highest the
/// cloth's lowest particle went (y, m), the particles resting within 2r
/// of the surface at the end, and the largest link stretch then.
fn elevator(f: &Heightfield<f64, 3>, samples: &[f64]) -> (f64, f64, usize, f64) {
    let mut c = Cloth::flat(40, -1.5, 0.6, 1.5, [0.0; 3]);
    let mut lift = *f;
    lift.center = [0.0, -1.0, 0.0];
    let mut deepest = f64::NEG_INFINITY;
    let mut highest = f64::NEG_INFINITY;
    for frame in 0..180 {
        lift.velocity = if frame < 30 {
            [0.0, 10.0, 0.0]
        } else {
            [0.0; 3]
        };
        c.step(&[lift], &[], samples);
        lift.center = [0, 1, 2].map(|k| lift.center[k] + lift.velocity[k] * DT);
        for p in &c.x {
            if let Some(d) = depth_below(&lift, lift.center, samples, *p) {
                deepest = deepest.max(d);
            }
        }
        let lowest = c.x.iter().map(|p| p[1]).fold(f64::INFINITY, f64::min);
        highest = highest.max(lowest);
    }
    let resting =
        c.x.iter()
            .filter(|p| depth_below(&lift, lift.center, samples, **p).is_some_and(|d| d > -2.0 * R))
            .count();
    (deepest, highest, resting, c.stretch())
}

fn main() {
    // One sample array: the terrain's heights, then the sphere's distances.
    let (ground, mut samples) = terrain(0);
    let (ball, distances) = sphere(samples.len());
    samples.extend(&distances);
    println!(
        "Thin cloth on field colliders (issue 36, first stage): r = {R} m particles {SPACING} m \
         apart, 20 g each, links α = {COMPLIANCE:e} m/N, one substep of {ITERATIONS} \
         iterations per frame at 60 Hz; limit r + 1e-6 = {LIMIT} m behind a surface."
    );
    println!(
        "shared samples: {} terrain heights (256², {:.6} m apart) + {} sphere distances (64³, \
         cell {:.6} m)",
        ground.sample_count().expect("count"),
        ground.spacing[0],
        ball.sample_count().expect("count"),
        ball.cell
    );
    let mut all = true;

    let (deepest, resting, stretch, terrain_final) = terrain_drop(&ground, &samples);
    let ok = deepest <= LIMIT && resting > 0;
    all &= ok;
    println!(
        "1. heightfield 256² (8 m × 8 m rolling terrain, μ_s 0.5, μ_k 0.4): a 40 × 40 cloth \
         thrown down at 10 m/s, 300 frames"
    );
    println!(
        "   largest depth (terrain height − y) over the footprint: {deepest:.9} m (limit \
         {LIMIT} m): {}",
        verdict(ok)
    );
    println!(
        "   within 2r of the terrain at the end: {resting} of 1600 particles; largest link \
         stretch then {:.1} %",
        100.0 * stretch
    );

    let (smallest, resting, stretch, sphere_final) = sphere_drop(&ball, &samples);
    let ok = smallest >= -LIMIT && resting > 0;
    all &= ok;
    println!(
        "2. SDF 64³ (a sphere of radius {SPHERE_RADIUS} m, μ_s 0.5, μ_k 0.4): a 40 × 40 cloth \
         thrown down at 10 m/s, 300 frames"
    );
    println!(
        "   smallest φ (trilinear): {smallest:.9} m (limit −{LIMIT} m): {}",
        verdict(ok)
    );
    println!(
        "   within 2r of the surface at the end: {resting} of 1600 particles; largest link \
         stretch then {:.1} %",
        100.0 * stretch
    );

    let (smallest, carried, stretch, shots) = sweep(&ball, &samples);
    let ok = smallest >= -LIMIT && carried > 0;
    all &= ok;
    println!(
        "3. moving SDF: the sphere at 10 m/s horizontally through a 30 × 30 cloth hanging from \
         its pinned top row, 60 frames"
    );
    println!(
        "   smallest φ (trilinear, the body at each frame's end): {smallest:.9} m (limit \
         −{LIMIT} m): {}",
        verdict(ok)
    );
    println!(
        "   carried more than 5 cm ahead: {carried} of 900 particles; largest link stretch at \
         the end {:.1} %",
        100.0 * stretch
    );

    let (deepest, highest, resting, stretch) = elevator(&ground, &samples);
    let ok = deepest <= LIMIT && resting > 0;
    all &= ok;
    println!(
        "4. elevator: the terrain rising at 10 m/s for 30 frames, then at rest, under a falling \
         40 × 40 cloth, 180 frames"
    );
    println!(
        "   largest depth (terrain height − y, the terrain at each frame's end): {deepest:.9} m \
         (limit {LIMIT} m): {}",
        verdict(ok)
    );
    println!(
        "   the cloth's lowest particle thrown up to y = {highest:.6} m; within 2r of the \
         terrain at the end: {resting} of 1600 particles; largest link stretch then {:.1} %",
        100.0 * stretch
    );

    println!(
        "not yet in this build: triangle-level self-collision, cloth–cloth, triangle meshes, \
         coupling (issue 36, later stages)"
    );
    fs::create_dir_all("target/plots").expect("create target/plots");
    fs::write(
        "target/plots/thin_cloth.svg",
        plot(&ground, &samples, &terrain_final, &sphere_final, &shots),
    )
    .expect("write the plot");
    println!("wrote target/plots/thin_cloth.svg");
    if all {
        println!("all checks passed");
    } else {
        println!("some checks FAILED");
        std::process::exit(1);
    }
}

/// A panel: a world window (horizontal from `h0`, vertical from `v0`, `span`
/// m square) drawn in a `size` px square at (`ox`, `oy`).
struct Panel {
    ox: f64,
    oy: f64,
    size: f64,
    h0: f64,
    v0: f64,
    span: f64,
}

impl Panel {
    fn at(&self, h: f64, v: f64) -> (f64, f64) {
        let k = self.size / self.span;
        (
            self.ox + k * (h - self.h0),
            self.oy + self.size - k * (v - self.v0),
        )
    }

    fn scale(&self) -> f64 {
        self.size / self.span
    }
}

const COLORS: [&str; 5] = ["#e41a1c", "#ff7f00", "#4daf4a", "#377eb8", "#984ea3"];

/// Side views: the terrain run (x–y, the terrain's height along the
/// cloth's middle row), the sphere run (x–y, the sphere's outline) and
/// the swept sphere (z–y, a few frames, the sphere's outline at each).
fn plot(
    ground: &Heightfield<f64, 3>,
    samples: &[f64],
    terrain_final: &[[f64; 3]],
    sphere_final: &[[f64; 3]],
    shots: &[Shot],
) -> String {
    let (size, margin) = (340.0, 30.0);
    let width = 3.0 * size + 4.0 * margin;
    let height = size + 2.0 * margin + 20.0;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let panel = |p: usize, h0: f64, v0: f64, span: f64| Panel {
        ox: margin + p as f64 * (size + margin),
        oy: margin + 10.0,
        size,
        h0,
        v0,
        span,
    };
    // The panel's frame and title, and a group clipped to it (closed by
    // the caller).
    let frame = |s: &mut String, q: &Panel, id: usize, title: &str| {
        let _ = writeln!(
            s,
            r##"<rect x="{}" y="{}" width="{size}" height="{size}" fill="none" stroke="#999"/><text x="{}" y="{}" text-anchor="middle" font-weight="bold">{title}</text>"##,
            q.ox,
            q.oy,
            q.ox + size / 2.0,
            q.oy - 8.0
        );
        let _ = writeln!(
            s,
            r#"<clipPath id="panel{id}"><rect x="{}" y="{}" width="{size}" height="{size}"/></clipPath><g clip-path="url(#panel{id})">"#,
            q.ox, q.oy
        );
    };
    let dots = |s: &mut String, q: &Panel, x: &[[f64; 3]], h: usize, color: &str| {
        for p in x {
            let (a, b) = q.at(p[h], p[1]);
            let _ = writeln!(
                s,
                r#"<circle cx="{a:.1}" cy="{b:.1}" r="{:.1}" fill="{color}" fill-opacity="0.5"/>"#,
                (q.scale() * R).max(0.8)
            );
        }
    };

    // 1: the terrain along the middle row's z (mean), under the cloth's
    // final shape (its middle row dark).
    let n = terrain_final.len();
    let side = (n as f64).sqrt() as usize;
    let middle = &terrain_final[side * (side / 2)..side * (side / 2 + 1)];
    let z = middle.iter().map(|p| p[2]).sum::<f64>() / side as f64;
    let cx = middle.iter().map(|p| p[0]).sum::<f64>() / side as f64;
    let cy = middle.iter().map(|p| p[1]).sum::<f64>() / side as f64;
    let q = panel(0, cx - 0.7, cy - 0.7, 1.4);
    frame(&mut s, &q, 1, "1. cloth on the terrain (x–y)");
    let mut line = String::new();
    // The depth below the surface of a point at y = 0 is the surface's y.
    for k in 0..=280 {
        let x = q.h0 + q.span * f64::from(k) / 280.0;
        if let Some(d) = depth_below(ground, ground.center, samples, [x, 0.0, z]) {
            let (a, b) = q.at(x, d);
            let _ = write!(line, "{a:.1},{b:.1} ");
        }
    }
    let _ = writeln!(
        s,
        r##"<polyline points="{line}" fill="none" stroke="#8c6d31" stroke-width="2"/>"##
    );
    dots(&mut s, &q, terrain_final, 0, "#9ecae1");
    dots(&mut s, &q, middle, 0, "#08306b");
    let _ = writeln!(
        s,
        r##"<text x="{}" y="{}" fill="#8c6d31">terrain at z = {z:.3} m (the middle row, dark)</text>"##,
        q.ox + 6.0,
        q.oy + size - 6.0
    );
    s.push_str("</g>\n");

    // 2: the sphere's outline (its section at z = 0) and the cloth draped
    // on it (its middle row dark).
    let q = panel(1, -0.8, -0.8, 1.6);
    frame(&mut s, &q, 2, "2. cloth on the SDF sphere (x–y)");
    let (a, b) = q.at(0.0, 0.0);
    let _ = writeln!(
        s,
        r##"<circle cx="{a:.1}" cy="{b:.1}" r="{:.1}" fill="none" stroke="#8c6d31" stroke-width="2"/>"##,
        q.scale() * SPHERE_RADIUS
    );
    dots(&mut s, &q, sphere_final, 0, "#9ecae1");
    dots(
        &mut s,
        &q,
        &sphere_final[side * (side / 2)..side * (side / 2 + 1)],
        0,
        "#08306b",
    );
    s.push_str("</g>\n");

    // 3: the swept sphere at a few frames (z–y).
    let q = panel(2, -1.2, -0.6, 2.8);
    frame(
        &mut s,
        &q,
        3,
        "3. SDF at 10 m/s through a hanging cloth (z–y)",
    );
    for (k, (frame, center, x)) in shots.iter().enumerate() {
        let color = COLORS[k % COLORS.len()];
        let (a, b) = q.at(center[2], center[1]);
        let _ = writeln!(
            s,
            r#"<circle cx="{a:.1}" cy="{b:.1}" r="{:.1}" fill="none" stroke="{color}" stroke-dasharray="4 3"/>"#,
            q.scale() * SPHERE_RADIUS
        );
        dots(&mut s, &q, x, 2, color);
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" fill="{color}">frame {frame}</text>"#,
            q.ox + 6.0,
            q.oy + 16.0 + 14.0 * k as f64
        );
    }
    s.push_str("</g>\n");
    s.push_str("</svg>\n");
    s
}
