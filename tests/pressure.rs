//! Closed-mesh volume (pressure) constraints (`MeshVolume`,
//! `C = V − k·V₀`): the enclosed volume against analytic figures, the
//! gradient against finite differences and a re-derivation of the
//! overpressure constraint of Müller et al. 2007, one correction per
//! particle, the lifecycle in one substep and on a balloon resting on a
//! plane (5, 20, 100 iterations, λ kept or reset), inflation, degenerate
//! meshes, the builders' rejections writing nothing (a substep's are in
//! tests/pressure_checks.rs), and the sphere builder.

use std::collections::HashMap;
use xpbd::{
    enclosed_volume, icosphere, icosphere_counts, mesh_volume, surface_links, Constraints, Link,
    MeshParticles, MeshVolume, MeshVolumes, Real, System, SystemError, ZeroLength,
};

#[path = "support/mesh.rs"]
mod mesh;
use mesh::{sphere, with_list};

const G: f64 = 9.81; // m/s²

/// `mesh_volume` with the particle list discarded (`with_list` sets it
/// where the mesh is used).
fn build<T: Real>(
    tris: &[[u32; 3]],
    first: u32,
    count: u32,
    x: &[[T; 3]],
    k: T,
    c: T,
) -> Result<MeshVolume<T>, SystemError> {
    let mut list = vec![0; x.len()];
    let mut marks = vec![[T::ZERO; 3]; x.len()];
    let out = MeshParticles {
        particles: &mut list,
        first: 0,
        scratch: &mut marks,
    };
    mesh_volume(x, tris, first, count, k, c, out)
}

/// A small deterministic generator (SplitMix64), uniform in [−1, 1).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// The test's own enclosed volume: `Σ (x_a × x_b) · x_c / 6` about the
/// origin (Müller et al. 2007's form, not the library's `x_a · (x_b × x_c)`
/// about the first corner).
fn volume_ref(tris: &[[u32; 3]], x: &[[f64; 3]]) -> f64 {
    tris.iter()
        .map(|t| dot(cross(x[t[0] as usize], x[t[1] as usize]), x[t[2] as usize]))
        .sum::<f64>()
        / 6.0
}

/// Müller et al. 2007 (§4.4) re-derived: `C = Σ (x_a × x_b)·x_c − k·6V₀`,
/// `∇_k C = Σ_{tri ∋ k}` of the cross product of the other two corners
/// (in the triangle's order), `s = C / Σ w_k |∇_k C|²`,
/// `Δx_k = −s w_k ∇_k C`: rigid (α = 0), as a first XPBD iteration.
fn pbd_solve(tris: &[[u32; 3]], x: &mut [[f64; 3]], w: &[f64], rest: f64, k: f64) {
    let mut grad = vec![[0.0; 3]; x.len()];
    for t in tris {
        let [a, b, c] = t.map(|i| i as usize);
        for (p, q, r) in [(a, b, c), (b, c, a), (c, a, b)] {
            let g = cross(x[q], x[r]);
            for i in 0..3 {
                grad[p][i] += g[i];
            }
        }
    }
    let c = 6.0 * volume_ref(tris, x) - k * 6.0 * rest;
    let weight: f64 = grad.iter().zip(w).map(|(g, w)| w * dot(*g, *g)).sum();
    let s = c / weight;
    for ((p, g), w) in x.iter_mut().zip(&grad).zip(w) {
        for i in 0..3 {
            p[i] -= s * w * g[i];
        }
    }
}

/// `x` after one iteration of a fresh substep over `meshes` (no links),
/// and the meshes' λ.
fn one_iteration(
    x: &[[f64; 3]],
    w: &[f64],
    tris: &[[u32; 3]],
    meshes: &[MeshVolume<f64>],
    h: f64,
) -> (Vec<[f64; 3]>, Vec<f64>) {
    let mut y = x.to_vec();
    let mut volumes = meshes.to_vec();
    let mut scratch = vec![[0.0; 3]; x.len()];
    let particles = with_list(tris, &mut volumes);
    let mut system = System::new(&mut y, w, &mut [])
        .unwrap()
        .with_constraints(Constraints {
            meshes: MeshVolumes {
                volumes: &mut volumes,
                triangles: tris,
                particles: &particles,
                scratch: &mut scratch,
            },
            ..Default::default()
        });
    system.begin_substep(h).unwrap().iterate().unwrap();
    (y, volumes.iter().map(|m| m.lambda).collect())
}

#[test]
fn icosphere_is_closed_oriented_outwards_and_on_the_sphere() {
    assert_eq!(icosphere_counts(1), Some((12, 20)));
    assert_eq!(icosphere_counts(4), Some((162, 320)));
    assert_eq!(icosphere_counts(0), None);
    assert_eq!(icosphere_counts(usize::MAX), None);
    let center = [0.5, -1.0, 2.0];
    for f in if cfg!(miri) {
        vec![1, 2]
    } else {
        vec![1, 2, 3, 5, 8]
    } {
        let (x, tris) = sphere(f, 0.7, center);
        for p in &x {
            let r = dot(sub(*p, center), sub(*p, center)).sqrt();
            assert!((r - 0.7).abs() < 1e-14, "on the sphere: {r}");
        }
        // Every directed edge once and its reverse once: closed, oriented.
        let mut directed: HashMap<(u32, u32), usize> = HashMap::new();
        for t in &tris {
            assert!(t[0] != t[1] && t[1] != t[2] && t[0] != t[2]);
            for (a, b) in [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])] {
                *directed.entry((a, b)).or_default() += 1;
            }
            // Outward: the normal points away from the centre.
            let [a, b, c] = t.map(|i| x[i as usize]);
            let n = cross(sub(b, a), sub(c, a));
            assert!(dot(n, sub(a, center)) > 0.0);
        }
        assert!(directed.values().all(|&n| n == 1));
        assert!(directed
            .keys()
            .all(|&(a, b)| directed.contains_key(&(b, a))));
        let edges = directed.len() / 2;
        assert_eq!(x.len() + tris.len(), edges + 2, "Euler: V − E + F = 2");
        let mut links = vec![Link::default(); edges + 1];
        assert_eq!(surface_links(&x, &tris, 0.1, &mut links), Ok(edges));
        let mut seen: Vec<_> = links[..edges].iter().map(|l| (l.i, l.j)).collect();
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), edges, "each edge once");
        assert_eq!(links[edges], Link::default());
        // The volume approaches the ball's from below as f grows.
        let v = enclosed_volume(&x, &tris).unwrap();
        let ball = 4.0 / 3.0 * std::f64::consts::PI * 0.7_f64.powi(3);
        println!("frequency {f}: V / (4/3 π r³) = {:.6}", v / ball);
        assert!(v < ball && (f < 8 || v > 0.99 * ball));
    }
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

#[test]
fn enclosed_volume_of_known_solids() {
    // The regular icosahedron of circumradius R: V = (5/12)(3 + √5) a³
    // with edge a = R / sin(2π/5).
    let (x, tris) = sphere(1, 2.0, [1.0, 1.0, 1.0]);
    let a = 2.0 / (2.0 * std::f64::consts::PI / 5.0).sin();
    let exact = 5.0 / 12.0 * (3.0 + 5.0_f64.sqrt()) * a * a * a;
    let v = enclosed_volume(&x, &tris).unwrap();
    assert!((v - exact).abs() < 1e-14 * exact, "{v} vs {exact}");
    assert!((v - volume_ref(&tris, &x)).abs() < 1e-13);
    // A unit right tetrahedron as a surface.
    let y = [[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    let t = [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]];
    assert_eq!(enclosed_volume(&y, &t), Some(1.0 / 6.0));
    // Inside out: negative.
    let flipped: Vec<_> = t.iter().map(|&[a, b, c]| [a, c, b]).collect();
    assert_eq!(enclosed_volume(&y, &flipped), Some(-1.0 / 6.0));
    assert_eq!(enclosed_volume::<f64>(&y, &[]), None);
    assert_eq!(enclosed_volume(&y, &[[0, 1, 4]]), None);
}

#[test]
fn gradient_matches_finite_differences_and_each_particle_moves_once() {
    let mut rng = Rng(11);
    // Under Miri (safe Rust, CI time) one case on the icosahedron: the
    // finite differences take two volumes per coordinate of every particle.
    let (cases, frequency) = if cfg!(miri) { (1, 1) } else { (50, 2) };
    let mut worst: f64 = 0.0;
    for case in 0..cases {
        let (mut x, tris) = sphere(frequency, 1.0, [0.0; 3]);
        for p in &mut x {
            for c in p.iter_mut() {
                *c += 0.2 * rng.next();
            }
        }
        let v = volume_ref(&tris, &x);
        let w: Vec<f64> = (0..x.len())
            .map(|k| {
                if k % 7 == 3 {
                    0.0
                } else {
                    1.0 + 0.5 * rng.next()
                }
            })
            .collect();
        let mesh = MeshVolume::new(
            [0, tris.len() as u32],
            [0, 0],
            v,
            0.8 + 0.01 * (case % 10) as f64,
            0.0,
        );
        let (y, lambda) = one_iteration(&x, &w, &tris, &[mesh], 0.01);
        let lambda = lambda[0];
        let mut weight = 0.0;
        // Σ_k ∇_k V = 0 (a translation keeps the volume): the solver's
        // gradients of the moving particles plus the static ones'.
        let mut total = [0.0; 3];
        for k in 0..x.len() {
            let mut g = [0.0; 3];
            for i in 0..3 {
                // ∂V/∂x_ki: V is linear in x_ki, the difference is exact
                // up to rounding.
                let d = 1e-3;
                let (mut p, mut m) = (x.clone(), x.clone());
                p[k][i] += d;
                m[k][i] -= d;
                g[i] = (volume_ref(&tris, &p) - volume_ref(&tris, &m)) / (2.0 * d);
                if w[k] == 0.0 {
                    assert_eq!(
                        y[k][i].to_bits(),
                        x[k][i].to_bits(),
                        "static keeps its bits"
                    );
                    total[i] += g[i];
                    continue;
                }
                // A particle corrected twice would move twice as far.
                let from_solver = (y[k][i] - x[k][i]) / (w[k] * lambda);
                worst = worst.max((from_solver - g[i]).abs() / (1.0 + g[i].abs()));
                total[i] += from_solver;
            }
            weight += w[k] * dot(g, g);
        }
        let c = v - mesh.pressure * v;
        assert!((lambda + c / weight).abs() <= 1e-10 * (c / weight).abs());
        for t in total {
            assert!(t.abs() < 1e-10, "Σ ∇V = {total:?}");
        }
    }
    println!("mesh gradient vs finite differences: max relative difference {worst:.2e}");
    assert!(worst < 1e-9, "{worst}");
}

#[test]
fn one_iteration_matches_the_overpressure_constraint_of_muller_2007() {
    let mut rng = Rng(5);
    let cases = if cfg!(miri) { 1 } else { 200 };
    let mut worst: f64 = 0.0;
    for _ in 0..cases {
        let (mut x, tris) = sphere(2, 0.5, [0.0; 3]);
        for p in &mut x {
            for c in p.iter_mut() {
                *c += 0.1 * rng.next();
            }
        }
        let w: Vec<f64> = (0..x.len()).map(|_| 1.0 + 0.9 * rng.next()).collect();
        let rest = volume_ref(&tris, &x);
        let k = 1.0 + 0.3 * rng.next();
        let mut expect = x.clone();
        pbd_solve(&tris, &mut expect, &w, rest, k);
        let mesh = MeshVolume::new([0, tris.len() as u32], [0, 0], rest, k, 0.0);
        let (got, _) = one_iteration(&x, &w, &tris, &[mesh], 0.01);
        for (g, e) in got.iter().zip(&expect) {
            for i in 0..3 {
                worst = worst.max((g[i] - e[i]).abs());
            }
        }
    }
    println!("vs Müller et al. 2007 (origin-based, α = 0): max position difference {worst:.2e} m");
    assert!(worst < 1e-13, "{worst}");
}

#[test]
fn lifecycle_one_and_twenty_iterations_agree_and_h_scales_alpha() {
    // One free particle: V is linear in it, so the substep's equilibrium is
    // C = C₀ α̃ / (W + α̃) with W = w |∇V|².
    let (x, tris) = sphere(1, 1.0, [0.0; 3]);
    let mut w = vec![0.0; x.len()];
    w[5] = 3.0;
    let v0 = enclosed_volume(&x, &tris).unwrap();
    let grad = {
        let mut g = [0.0; 3];
        for t in tris.iter().filter(|t| t.contains(&5)) {
            let r = t.iter().position(|&k| k == 5).unwrap();
            let (q, s) = (t[(r + 1) % 3] as usize, t[(r + 2) % 3] as usize);
            let c = cross(x[q], x[s]);
            for i in 0..3 {
                g[i] += c[i] / 6.0;
            }
        }
        g
    };
    let weight = 3.0 * dot(grad, grad);
    let (k, compliance) = (1.2, 1e-5);
    let c0 = v0 - k * v0;
    // Under Miri (safe Rust, CI time) one substep length.
    let hs: &[f64] = if cfg!(miri) { &[0.01] } else { &[0.01, 0.005] };
    for &h in hs {
        let alpha = compliance / (h * h);
        let expected = c0 * alpha / (weight + alpha);
        let mut shapes = vec![];
        for iterations in [1, 20] {
            let mut y = x.clone();
            let mut volumes = [MeshVolume::new([0, 20], [0, 0], v0, k, compliance)];
            let mut scratch = vec![[0.0; 3]; x.len()];
            let particles = with_list(&tris, &mut volumes);
            let mut system =
                System::new(&mut y, &w, &mut [])
                    .unwrap()
                    .with_constraints(Constraints {
                        meshes: MeshVolumes {
                            volumes: &mut volumes,
                            triangles: &tris,
                            particles: &particles,
                            scratch: &mut scratch,
                        },
                        ..Default::default()
                    });
            let mut sub = system.begin_substep(h).unwrap();
            for _ in 0..iterations {
                sub.iterate().unwrap();
            }
            let stats = sub.measure().unwrap();
            assert_eq!(stats.applied, 1);
            assert!(stats.max_residual < 1e-14 * c0.abs(), "{stats:?}");
            let c = enclosed_volume(&y, &tris).unwrap() - k * v0;
            assert!((c + alpha * volumes[0].lambda).abs() < 1e-14 * c0.abs());
            assert!(
                (c - expected).abs() < 1e-14 * c0.abs(),
                "h {h}: {c} vs {expected}"
            );
            shapes.push(y);
        }
        // 1 and 20 iterations: the same shape to rounding (the first lands
        // on the equilibrium, the others only correct its rounding).
        let d = shapes[0]
            .iter()
            .flatten()
            .zip(shapes[1].iter().flatten())
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        assert!(d < 1e-15, "{d}");
    }
}

#[test]
#[cfg_attr(
    miri,
    ignore = "safe-Rust simulation: minutes in the interpreter (CI budget)"
)]
fn two_meshes_in_one_group_inflate_to_their_own_targets() {
    // Two spheres side by side in one triangle array; rigid (α = 0),
    // inflated by 1.5 and deflated to 0.7, every particle free, no links.
    let (mut x, mut tris) = sphere(2, 0.5, [0.0; 3]);
    let (x2, t2) = sphere(1, 0.3, [2.0, 0.0, 0.0]);
    let base = x.len() as u32;
    let first2 = tris.len() as u32;
    x.extend(x2);
    tris.extend(t2.iter().map(|t| t.map(|k| k + base)));
    let m1 = build(&tris, 0, first2, &x, 1.5, 0.0).unwrap();
    let m2 = build(&tris, first2, 20, &x, 0.7, 0.0).unwrap();
    let mut volumes = [m1, m2];
    let mut scratch = vec![[0.0; 3]; x.len()];
    let w = vec![1.0; x.len()];
    let particles = with_list(&tris, &mut volumes);
    let mut system = System::new(&mut x, &w, &mut [])
        .unwrap()
        .with_constraints(Constraints {
            meshes: MeshVolumes {
                volumes: &mut volumes,
                triangles: &tris,
                particles: &particles,
                scratch: &mut scratch,
            },
            ..Default::default()
        });
    let mut sub = system.begin_substep(0.01).unwrap();
    for _ in 0..30 {
        sub.iterate().unwrap();
    }
    let x = system.positions();
    let v1 = enclosed_volume(x, &tris[..first2 as usize]).unwrap();
    let v2 = enclosed_volume(x, &tris[first2 as usize..]).unwrap();
    assert!(
        (v1 / m1.rest_volume - 1.5).abs() < 1e-12,
        "{}",
        v1 / m1.rest_volume
    );
    assert!(
        (v2 / m2.rest_volume - 0.7).abs() < 1e-12,
        "{}",
        v2 / m2.rest_volume
    );
}

#[test]
fn degenerate_and_static_meshes() {
    let (x, tris) = sphere(1, 1.0, [0.0; 3]);
    let v0 = enclosed_volume(&x, &tris).unwrap();
    for (name, shape) in [
        ("point", vec![[0.5; 3]; 12]),
        (
            "line",
            (0..12)
                .map(|k| [k as f64, 2.0 * k as f64, 0.0])
                .collect::<Vec<_>>(),
        ),
    ] {
        // One link and one tet-free group: the mesh is constraint 1.
        let mut y = shape.clone();
        y.push([9.0; 3]);
        y.push([10.0, 9.0, 9.0]);
        let mut links = [Link::new(12, 13, 1.0, 0.0)];
        let mut volumes = [MeshVolume::new([0, 20], [0, 0], v0, 1.0, 0.0)];
        let mut scratch = vec![[0.0; 3]; y.len()];
        let w = vec![1.0; y.len()];
        let particles = with_list(&tris, &mut volumes);
        let mut system = System::new(&mut y, &w, &mut links)
            .unwrap()
            .with_constraints(Constraints {
                meshes: MeshVolumes {
                    volumes: &mut volumes,
                    triangles: &tris,
                    particles: &particles,
                    scratch: &mut scratch,
                },
                ..Default::default()
            });
        let err = system.begin_substep(0.01).unwrap().iterate().unwrap_err();
        assert_eq!(err, SystemError::Degenerate { constraint: 1 }, "{name}");
        assert_eq!(
            &system.positions()[..12],
            &shape[..],
            "{name}: nothing written"
        );
        let mut system = system.with_zero_length(ZeroLength::Skip);
        let stats = system.begin_substep(0.01).unwrap().iterate().unwrap();
        assert_eq!(stats.skipped_zero_length, 1, "{name}");
        assert_eq!(&system.positions()[..12], &shape[..]);
        assert_eq!(system.constraints().meshes.volumes[0].lambda, 0.0);
    }
    let mut y = x.clone();
    let mut volumes = [MeshVolume::new([0, 20], [0, 0], v0, 2.0, 0.0)];
    let mut scratch = vec![[0.0; 3]; 12];
    let w = [0.0; 12];
    let particles = with_list(&tris, &mut volumes);
    let mut system = System::new(&mut y, &w, &mut [])
        .unwrap()
        .with_constraints(Constraints {
            meshes: MeshVolumes {
                volumes: &mut volumes,
                triangles: &tris,
                particles: &particles,
                scratch: &mut scratch,
            },
            ..Default::default()
        });
    let stats = system.begin_substep(0.01).unwrap().iterate().unwrap();
    assert_eq!((stats.skipped_static, stats.applied), (1, 0));
    assert_eq!(system.positions(), &x[..]);
}

#[test]
fn builders_reject_precisely_and_write_nothing() {
    let (x, tris) = sphere(1, 1.0, [0.0; 3]);
    let ok = build(&tris, 0, 20, &x, 1.25, 1e-4).unwrap();
    assert_eq!(
        ok,
        MeshVolume::new(
            [0, 20],
            [0, 12],
            enclosed_volume(&x, &tris).unwrap(),
            1.25,
            1e-4
        )
    );
    let mut bad_tris = tris.clone();
    bad_tris[3] = [0, 1, 40];
    let mut same = tris.clone();
    same[3] = [0, 1, 0];
    let flipped: Vec<_> = tris.iter().map(|&[a, b, c]| [a, c, b]).collect();
    let mut nan = x.clone();
    nan[4][2] = f64::NAN;
    assert_eq!(
        build(&tris, 1, 20, &x, 1.0, 0.0),
        Err(SystemError::InvalidShape)
    );
    assert_eq!(
        build(&tris, 0, 3, &x, 1.0, 0.0),
        Err(SystemError::InvalidShape)
    );
    assert_eq!(
        build(&bad_tris, 0, 20, &x, 1.0, 0.0),
        Err(SystemError::IndexOutOfRange { constraint: 0 })
    );
    assert_eq!(
        build(&same, 0, 20, &x, 1.0, 0.0),
        Err(SystemError::SameParticle { constraint: 0 })
    );
    assert_eq!(
        build(&tris, 0, 20, &nan, 1.0, 0.0),
        Err(SystemError::NonFinitePosition { particle: 4 })
    );
    for (t, k) in [(&flipped, 1.0), (&tris, 0.0), (&tris, f64::NAN)] {
        assert_eq!(
            build(t, 0, 20, &x, k, 0.0),
            Err(SystemError::InvalidRestValue { constraint: 0 })
        );
    }
    assert_eq!(
        build(&tris, 0, 20, &x, 1.0, -1.0),
        Err(SystemError::InvalidCompliance { constraint: 0 })
    );
    // The sphere builder.
    let mut p = vec![[7.0; 3]; 42];
    let mut t = vec![[7; 3]; 80];
    let cases = [
        (0, 1.0, [0.0; 3], 42, 80, SystemError::InvalidShape),
        (2, 0.0, [0.0; 3], 42, 80, SystemError::InvalidShape),
        (
            2,
            f64::INFINITY,
            [0.0; 3],
            42,
            80,
            SystemError::InvalidShape,
        ),
        (
            2,
            1.0,
            [f64::NAN, 0.0, 0.0],
            42,
            80,
            SystemError::InvalidShape,
        ),
        (
            2,
            f64::MAX,
            [f64::MAX, 0.0, 0.0],
            42,
            80,
            SystemError::InvalidShape,
        ),
        (
            2,
            1.0,
            [0.0; 3],
            41,
            80,
            SystemError::CapacityTooSmall { needed: 42 },
        ),
        (
            2,
            1.0,
            [0.0; 3],
            42,
            79,
            SystemError::CapacityTooSmall { needed: 80 },
        ),
        (
            1 << 20,
            1.0,
            [0.0; 3],
            42,
            80,
            SystemError::TooManyParticles,
        ),
    ];
    for (f, r, c, np, nt, error) in cases {
        assert_eq!(icosphere(f, r, c, &mut p[..np], &mut t[..nt]), Err(error));
        assert!(p.iter().all(|q| *q == [7.0; 3]) && t.iter().all(|q| *q == [7; 3]));
    }
    let mut links = vec![Link::default(); 30];
    assert_eq!(
        surface_links(&x, &bad_tris, 0.0, &mut links),
        Err(SystemError::InvalidShape)
    );
    assert_eq!(
        surface_links(&x, &tris, 0.0, &mut links[..29]),
        Err(SystemError::CapacityTooSmall { needed: 30 })
    );
    assert_eq!(
        surface_links(&nan, &tris, 0.0, &mut links),
        Err(SystemError::NonFinitePosition { particle: 4 })
    );
    assert!(links.iter().all(|l| *l == Link::default()));
}

/// A balloon: a geodesic sphere of `mass` (kg) lumped equally on its
/// particles, standing on y = 0, with surface links and one mesh volume.
struct Balloon {
    x: Vec<[f64; 3]>,
    w: Vec<f64>,
    links: Vec<Link<f64>>,
    tris: Vec<[u32; 3]>,
    mesh: MeshVolume<f64>,
}

fn balloon(frequency: usize, radius: f64, mass: f64, k: f64, mesh_c: f64, link_c: f64) -> Balloon {
    let (x, tris) = sphere(frequency, radius, [0.0, radius, 0.0]);
    let mut links = vec![Link::default(); 3 * tris.len() / 2];
    assert_eq!(
        surface_links(&x, &tris, link_c, &mut links),
        Ok(links.len())
    );
    let mesh = build(&tris, 0, tris.len() as u32, &x, k, mesh_c).unwrap();
    Balloon {
        w: vec![x.len() as f64 / mass; x.len()],
        x,
        links,
        tris,
        mesh,
    }
}

/// As `tests/volume.rs`'s `simulate`: per substep `v += g h; x += v h`,
/// the substep's iterations (with `reset`, each in a fresh substep:
/// `begin_substep` resets λ, the bug), the plane `y ← max(y, 0)` after
/// them (a `Substep` lends no positions between iterations), then
/// `v = (x − x_prev)/h · (1 − c h)`. Returns the shape and V/V₀.
fn simulate(
    b: &Balloon,
    frames: usize,
    substeps: usize,
    iterations: usize,
    reset: bool,
    damping: f64,
) -> (Vec<[f64; 3]>, f64) {
    let mut x = b.x.clone();
    let mut links = b.links.clone();
    let mut volumes = [b.mesh];
    let mut scratch = vec![[0.0; 3]; x.len()];
    let h = 1.0 / 60.0 / substeps as f64;
    let mut v = vec![[0.0; 3]; x.len()];
    let mut prev = x.clone();
    let particles = with_list(&b.tris, &mut volumes);
    let mut system = System::new(&mut x, &b.w, &mut links)
        .unwrap()
        .with_constraints(Constraints {
            meshes: MeshVolumes {
                volumes: &mut volumes,
                triangles: &b.tris,
                particles: &particles,
                scratch: &mut scratch,
            },
            ..Default::default()
        });
    for _ in 0..frames * substeps {
        prev.copy_from_slice(system.positions());
        for (p, vel) in system.positions_mut().iter_mut().zip(&mut v) {
            vel[1] -= G * h;
            for k in 0..3 {
                p[k] += vel[k] * h;
            }
        }
        if reset {
            for _ in 0..iterations {
                system.begin_substep(h).unwrap().iterate().unwrap();
            }
        } else {
            let mut sub = system.begin_substep(h).unwrap();
            for _ in 0..iterations {
                sub.iterate().unwrap();
            }
        }
        for p in system.positions_mut() {
            p[1] = p[1].max(0.0);
        }
        let keep = 1.0 - damping * h;
        for ((vel, p), q) in v.iter_mut().zip(system.positions()).zip(&prev) {
            for k in 0..3 {
                vel[k] = (p[k] - q[k]) / h * keep;
            }
        }
    }
    let ratio = enclosed_volume(system.positions(), &b.tris).unwrap() / b.mesh.rest_volume;
    (system.positions().to_vec(), ratio)
}

fn max_diff(a: &[[f64; 3]], b: &[[f64; 3]]) -> f64 {
    a.iter()
        .zip(b)
        .flat_map(|(p, q)| (0..3).map(move |k| (p[k] - q[k]).abs()))
        .fold(0.0, f64::max)
}

#[test]
#[cfg_attr(miri, ignore = "thousands of substeps: too slow for the interpreter")]
fn balloon_on_a_plane_rests_in_the_same_shape_for_5_20_100_iterations() {
    // A 50 cm balloon of 1 kg (frequency 3: 92 particles, 270 links of
    // α = 0.05 m/N), inflated to k = 1.1 with α = 2e-4 m³/Pa (a gas of
    // K = kV₀/α ≈ 360 Pa), 5 substeps per frame, 2 s.
    let b = balloon(3, 0.25, 1.0, 1.1, 2e-4, 0.05);
    let run = |iterations, reset| simulate(&b, 120, 5, iterations, reset, 20.0);
    let height = |x: &[[f64; 3]]| x.iter().map(|p| p[1]).fold(f64::MIN, f64::max);
    let kept: Vec<_> = [5, 20, 100].iter().map(|&k| run(k, false)).collect();
    let reset: Vec<_> = [5, 100].iter().map(|&k| run(k, true)).collect();
    let scale = max_diff(&kept[2].0, &b.x);
    for (k, (x, ratio)) in [5, 20, 100].iter().zip(&kept) {
        println!(
            "λ kept, {k:>3} iterations: height {:.9} m, V/V₀ {ratio:.9}, shape vs 100: {:.2e}",
            height(x),
            max_diff(x, &kept[2].0) / scale
        );
    }
    for (k, (x, ratio)) in [5, 100].iter().zip(&reset) {
        println!(
            "λ reset, {k:>3} iterations: height {:.9} m, V/V₀ {ratio:.9}",
            height(x)
        );
    }
    for (x, ratio) in &kept[..2] {
        assert!(max_diff(x, &kept[2].0) / scale < 1e-6);
        assert!((ratio - kept[2].1).abs() < 1e-6 * (kept[2].1 - 1.0).abs());
    }
    let differ = max_diff(&reset[0].0, &reset[1].0) / max_diff(&reset[1].0, &b.x);
    println!(
        "λ reset: shapes at 5 and 100 iterations differ by {:.0} %",
        100.0 * differ
    );
    assert!(differ > 0.1);
}

#[test]
#[cfg_attr(
    miri,
    ignore = "safe-Rust simulation: minutes in the interpreter (CI budget)"
)]
fn f32_balloon_inflates() {
    let (np, nt) = icosphere_counts(2).unwrap();
    let mut x = vec![[0.0_f32; 3]; np];
    let mut tris = vec![[0; 3]; nt];
    icosphere(2, 0.5_f32, [0.0; 3], &mut x, &mut tris).unwrap();
    let mut volumes = [build(&tris, 0, nt as u32, &x, 1.3_f32, 0.0).unwrap()];
    let mut links = vec![Link::default(); 3 * nt / 2];
    surface_links(&x, &tris, 1e-3_f32, &mut links).unwrap();
    let mut scratch = vec![[0.0_f32; 3]; np];
    let w = vec![1.0_f32; np];
    let particles = with_list(&tris, &mut volumes);
    let mut system = System::new(&mut x, &w, &mut links)
        .unwrap()
        .with_constraints(Constraints {
            meshes: MeshVolumes {
                volumes: &mut volumes,
                triangles: &tris,
                particles: &particles,
                scratch: &mut scratch,
            },
            ..Default::default()
        });
    for _ in 0..if cfg!(miri) { 2 } else { 30 } {
        let mut sub = system.begin_substep(0.01_f32).unwrap();
        for _ in 0..10 {
            sub.iterate().unwrap();
        }
    }
    let rest = system.constraints().meshes.volumes[0].rest_volume;
    let ratio = enclosed_volume(system.positions(), &tris).unwrap() / rest;
    println!("f32 balloon: V/V₀ = {ratio}");
    assert!(system.positions().iter().flatten().all(|c| c.is_finite()));
    assert!((ratio - 1.3).abs() < 1e-3, "{ratio}");
}
