//! Two soft bodies dropped 20 cm onto a plane, for 5, 20 and 100
//! iterations per substep, with λ kept (the XPBD lifecycle) and with λ
//! reset before every iteration (the bug): a cube of tets (`Tet`,
//! `C = 6(V − V₀)`) with edge links, and a pressurised balloon (one
//! `MeshVolume`, `C = V − k·V₀` with k = 1.2, over a geodesic sphere) with
//! surface links. Prints the volume ratio V/V₀ (mean over each range of 30
//! frames) and the resting height per budget.
//!
//! Run with `cargo run --release --example soft_body`.
//!
//! The frame loop is written out with the `System` API (prediction,
//! substep, plane, velocity) because the bug variant needs an iteration
//! loop that `xpbd::step` makes impossible on purpose. The plane `y ≥ 0`
//! is a projection after each substep's iterations (a `Substep` lends no
//! positions between them).

use xpbd::{
    enclosed_volume, icosphere, icosphere_counts, mesh_volume, surface_links, tet_block,
    tet_block_counts, tet_block_link_count, tet_block_links, tet_volume, Constraints, Link,
    MeshParticles, MeshVolume, MeshVolumes, System, Tet,
};

const G: f64 = 9.81; // m/s²
const FRAME: f64 = 1.0 / 60.0; // s
const SUBSTEPS: usize = 5;
const FRAMES: usize = 120; // 2 s
const RANGE: usize = 30; // frames per printed range
const DAMPING: f64 = 5.0; // 1/s, v ← v·(1 − c h): to come to rest
const DROP: f64 = 0.2; // m
const BUDGETS: [usize; 3] = [5, 20, 100];

/// A body: particles, links, and its volume constraints.
#[derive(Clone)]
struct Body {
    x: Vec<[f64; 3]>,
    w: Vec<f64>,
    links: Vec<Link<f64>>,
    tets: Vec<Tet<f64>>,
    meshes: Vec<MeshVolume<f64>>,
    triangles: Vec<[u32; 3]>,
    /// The meshes' particle lists.
    particles: Vec<u32>,
}

impl Body {
    /// V/V₀ of the body at `x`: the tets' total, or the mesh's.
    fn ratio(&self, x: &[[f64; 3]]) -> f64 {
        if let Some(m) = self.meshes.first() {
            return enclosed_volume(x, &self.triangles).expect("closed mesh") / m.rest_volume;
        }
        let v: f64 = self
            .tets
            .iter()
            .map(|t| tet_volume(x, t.particles).expect("valid tet"))
            .sum();
        v / self.tets.iter().map(|t| t.rest_volume).sum::<f64>()
    }
}

/// A 30 cm foam cube (3³ cubes of 10 cm, 100 kg/m³: 2.7 kg), 6 tets per
/// cube with α = 1e-5 m⁶/J (K = 36 V₀/α = 600 Pa), edge links of
/// α = 1e-2 m/N.
fn cube() -> Body {
    let n = 3;
    let (np, nt) = tet_block_counts(n, n, n).expect("small block");
    let mut x = vec![[0.0; 3]; np];
    let mut tets = vec![Tet::default(); nt];
    tet_block(n, n, n, 0.1, [-0.15, DROP, -0.15], &mut x, &mut tets, 1e-5).expect("block");
    let mut links = vec![Link::default(); tet_block_link_count(n, n, n).expect("links")];
    tet_block_links(&x, n, n, n, 1e-2, &mut links).expect("links");
    Body {
        w: vec![np as f64 / 2.7; np],
        x,
        links,
        tets,
        meshes: vec![],
        triangles: vec![],
        particles: vec![],
    }
}

/// A 50 cm balloon of 1 kg (a frequency-3 geodesic sphere: 92 particles,
/// 180 triangles, 270 links of α = 0.05 m/N), inflated to k = 1.2 with
/// α = 2e-4 m³/Pa (a gas of K = kV₀/α ≈ 390 Pa).
fn balloon() -> Body {
    let (np, nt) = icosphere_counts(3).expect("small sphere");
    let mut x = vec![[0.0; 3]; np];
    let mut triangles = vec![[0; 3]; nt];
    icosphere(3, 0.25, [0.0, 0.25 + DROP, 0.0], &mut x, &mut triangles).expect("sphere");
    let mut links = vec![Link::default(); 3 * nt / 2];
    surface_links(&x, &triangles, 0.05, &mut links).expect("links");
    let count = u32::try_from(nt).expect("few triangles");
    // The mesh's particles once each (first-appearance order), written by
    // the builder; the marks go in a scratch like the solver's.
    let mut particles = vec![0; np];
    let mut marks = vec![[0.0; 3]; np];
    let list = MeshParticles {
        particles: &mut particles,
        first: 0,
        scratch: &mut marks,
    };
    let mesh = mesh_volume(&x, &triangles, 0, count, 1.2, 2e-4, list).expect("closed mesh");
    particles.truncate(mesh.particle_count as usize);
    Body {
        w: vec![np as f64; np],
        x,
        links,
        tets: vec![],
        meshes: vec![mesh],
        triangles,
        particles,
    }
}

/// Simulates `FRAMES` frames; returns V/V₀ after every frame and the
/// resting height (the highest particle at the end, m).
fn simulate(body: &Body, iterations: usize, reset: bool) -> (Vec<f64>, f64) {
    let b = body.clone();
    let (mut x, mut links, mut tets, mut meshes) = (b.x, b.links, b.tets, b.meshes);
    let mut scratch = vec![[0.0; 3]; x.len()];
    let h = FRAME / SUBSTEPS as f64;
    let mut v = vec![[0.0; 3]; x.len()];
    let mut prev = x.clone();
    let mut ratios = Vec::with_capacity(FRAMES);
    let mut system = System::new(&mut x, &body.w, &mut links)
        .expect("valid system")
        .with_constraints(Constraints {
            tets: &mut tets,
            meshes: MeshVolumes {
                volumes: &mut meshes,
                triangles: &body.triangles,
                particles: &body.particles,
                scratch: &mut scratch,
            },
            ..Default::default()
        });
    for _ in 0..FRAMES {
        for _ in 0..SUBSTEPS {
            prev.copy_from_slice(system.positions());
            for (p, vel) in system.positions_mut().iter_mut().zip(&mut v) {
                vel[1] -= G * h;
                for (c, dv) in p.iter_mut().zip(vel.iter()) {
                    *c += dv * h;
                }
            }
            if reset {
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
            for p in system.positions_mut() {
                p[1] = p[1].max(0.0);
            }
            let keep = 1.0 - DAMPING * h;
            for ((vel, p), q) in v.iter_mut().zip(system.positions()).zip(&prev) {
                for ((dv, a), b) in vel.iter_mut().zip(p).zip(q) {
                    *dv = (a - b) / h * keep;
                }
            }
        }
        ratios.push(body.ratio(system.positions()));
    }
    let height = system
        .positions()
        .iter()
        .map(|p| p[1])
        .fold(f64::MIN, f64::max);
    (ratios, height)
}

fn main() {
    println!(
        "xpbd soft bodies: dropped {DROP} m onto y = 0, {SUBSTEPS} substeps per 1/60 s frame, \
         {FRAMES} frames, damping {DAMPING}/s"
    );
    for (name, body) in [
        ("tet cube (3³ cubes × 6 tets, α = 1e-5 m⁶/J)", cube()),
        ("balloon (1 mesh, k = 1.2, α = 2e-4 m³/Pa)", balloon()),
    ] {
        println!();
        println!("## {name}: mean V/V₀ per frame range");
        println!();
        let ranges: Vec<String> = (0..FRAMES / RANGE)
            .map(|r| format!("frames {}–{}", r * RANGE, (r + 1) * RANGE))
            .collect();
        println!(
            "| iterations | λ | {} | rest height (m) |",
            ranges.join(" | ")
        );
        println!("|---:|---|{}---:|", "---:|".repeat(ranges.len()));
        for reset in [false, true] {
            for &k in &BUDGETS {
                let (ratios, height) = simulate(&body, k, reset);
                let means: Vec<String> = ratios
                    .chunks(RANGE)
                    .map(|c| format!("{:.6}", c.iter().sum::<f64>() / c.len() as f64))
                    .collect();
                println!(
                    "| {k} | {} | {} | {height:.6} |",
                    if reset { "reset" } else { "kept" },
                    means.join(" | ")
                );
            }
        }
    }
}
