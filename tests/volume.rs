//! Tetrahedral volume constraints (`Tet`, `C = 6(V − V₀)`): the value and
//! gradient against finite differences and a re-derivation of Ten Minute
//! Physics' soft-body solve, the lifecycle (stiffness from α and h, not the
//! iteration count) in one substep and on a soft cube resting on a plane,
//! volume conservation of a 10×10×10 block at α = 0, inverted tets
//! recovering, degenerate tets under both policies, every rejection
//! writing nothing, and the block builders.

use std::collections::{HashMap, HashSet};
use xpbd::{
    tet_block, tet_block_counts, tet_block_link_count, tet_block_links, tet_rest_volumes,
    tet_volume, Constraints, Link, System, SystemError, Tet, ZeroLength,
};

const G: f64 = 9.81; // m/s²

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

    fn point(&mut self) -> [f64; 3] {
        [self.next(), self.next(), self.next()]
    }
}

/// The test's own signed volume: the determinant of the edge matrix by
/// cofactor expansion along its first row (not the library's cross-dot).
fn volume_ref(x: &[[f64; 3]; 4]) -> f64 {
    let e = |k: usize| [x[k][0] - x[0][0], x[k][1] - x[0][1], x[k][2] - x[0][2]];
    let (a, b, c) = (e(1), e(2), e(3));
    // Rows a, b, c: det = a·(b×c).
    (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0])
        + a[2] * (b[0] * c[1] - b[1] * c[0]))
        / 6.0
}

/// One tet's positions, corrected by one iteration of a fresh substep
/// (λ = 0 at entry), and its λ after it.
fn one_iteration(x: [[f64; 3]; 4], w: [f64; 4], tet: Tet<f64>, h: f64) -> ([[f64; 3]; 4], f64) {
    let mut x = x;
    let mut tets = [tet];
    let mut system = System::new(&mut x, &w, &mut [])
        .unwrap()
        .with_constraints(Constraints {
            tets: &mut tets,
            ..Default::default()
        });
    system.begin_substep(h).unwrap().iterate().unwrap();
    (x, tets[0].lambda)
}

#[test]
fn gradient_matches_finite_differences_sums_to_zero_and_grows_the_volume() {
    let mut rng = Rng(1);
    let cases = if cfg!(miri) { 8 } else { 500 };
    let mut worst: f64 = 0.0;
    for _ in 0..cases {
        let x = [rng.point(), rng.point(), rng.point(), rng.point()];
        let v = volume_ref(&x);
        if v.abs() < 1e-3 {
            continue;
        }
        // Rest volume half the current one: C = 3V, α = 0, every w = 1,
        // so Δx_k = λ ∇_k C with λ = −C / W.
        let tet = Tet::new([0, 1, 2, 3], 0.5 * v, 0.0);
        let (y, lambda) = one_iteration(x, [1.0; 4], tet, 0.01);
        let mut weight = 0.0;
        let mut sum = [0.0; 3];
        for k in 0..4 {
            for i in 0..3 {
                // ∂(6V)/∂x_ki by a central difference of the test's own
                // volume (exact up to rounding: V is linear in x_ki).
                let d = 1e-3;
                let (mut p, mut m) = (x, x);
                p[k][i] += d;
                m[k][i] -= d;
                let fd = 6.0 * (volume_ref(&p) - volume_ref(&m)) / (2.0 * d);
                let from_solver = (y[k][i] - x[k][i]) / lambda;
                worst = worst.max((from_solver - fd).abs() / (1.0 + fd.abs()));
                weight += fd * fd;
                sum[i] += from_solver;
            }
        }
        // λ = −C / W with W from the finite-difference gradients.
        let c = 6.0 * (v - 0.5 * v);
        assert!((lambda + c / weight).abs() <= 1e-9 * (c / weight).abs());
        for s in sum {
            assert!(s.abs() < 1e-9, "gradients sum to {sum:?}");
        }
        // Moving any particle along its gradient grows the signed volume.
        for k in 0..4 {
            let mut z = x;
            let g: Vec<f64> = (0..3).map(|i| (y[k][i] - x[k][i]) / lambda).collect();
            for i in 0..3 {
                z[k][i] += 1e-4 * g[i];
            }
            assert!(volume_ref(&z) > v);
        }
    }
    println!("gradient vs finite differences: max relative difference {worst:.2e}");
    assert!(worst < 1e-8, "{worst}");
}

#[test]
fn known_tet_value_and_volume_function() {
    let x = [
        [0.0, 0.0, 0.0],
        [2.0, 0.0, 0.0],
        [0.0, 3.0, 0.0],
        [0.0, 0.0, 4.0],
    ];
    assert_eq!(tet_volume(&x, [0, 1, 2, 3]), Some(4.0));
    assert_eq!(tet_volume(&x, [0, 2, 1, 3]), Some(-4.0));
    assert_eq!(tet_volume(&x, [0, 1, 2, 4]), None);
    // One free particle: V is linear in it, so one iteration with α = 0
    // reaches V₀ exactly (to rounding).
    let tet = Tet::new([0, 1, 2, 3], 3.0, 0.0);
    let (y, lambda) = one_iteration(x, [0.0, 0.0, 0.0, 1.0], tet, 0.01);
    assert!((tet_volume(&y, [0, 1, 2, 3]).unwrap() - 3.0).abs() < 1e-14);
    // ∇_3 (6V) = e1 × e2 = (0, 0, 6), W = 36, C = 6: λ = −1/6.
    assert!((lambda + 1.0 / 6.0).abs() < 1e-15);
    assert_eq!(y[3][0], 0.0);
    assert_eq!(y[3][1], 0.0);
}

/// Ten Minute Physics 10 (*Soft Bodies*) re-derived: gradients of V (not
/// 6V) from the face opposite each corner, `∇_j V = (x_b − x_a) × (x_c −
/// x_a) / 6` with `(a, b, c)` = (1,3,2), (0,2,3), (0,3,1), (0,1,2) for
/// `j` = 0…3; `C = V − V₀`; `s = −C / (Σ w_j |∇_j V|² + α/dt²)`;
/// `x_j += s w_j ∇_j V` (a fresh λ each solve, as its first iteration).
fn tmp_solve(x: &mut [[f64; 3]; 4], w: &[f64; 4], rest: f64, compliance: f64, dt: f64) {
    const ORDER: [[usize; 3]; 4] = [[1, 3, 2], [0, 2, 3], [0, 3, 1], [0, 1, 2]];
    let mut grads = [[0.0; 3]; 4];
    let mut wsum = 0.0;
    for j in 0..4 {
        let [a, b, c] = ORDER[j];
        let d1 = [x[b][0] - x[a][0], x[b][1] - x[a][1], x[b][2] - x[a][2]];
        let d2 = [x[c][0] - x[a][0], x[c][1] - x[a][1], x[c][2] - x[a][2]];
        grads[j] = [
            (d1[1] * d2[2] - d1[2] * d2[1]) / 6.0,
            (d1[2] * d2[0] - d1[0] * d2[2]) / 6.0,
            (d1[0] * d2[1] - d1[1] * d2[0]) / 6.0,
        ];
        wsum += w[j] * (grads[j][0].powi(2) + grads[j][1].powi(2) + grads[j][2].powi(2));
    }
    if wsum == 0.0 {
        return;
    }
    let c = volume_ref(x) - rest;
    let s = -c / (wsum + compliance / dt / dt);
    for j in 0..4 {
        for i in 0..3 {
            x[j][i] += s * w[j] * grads[j][i];
        }
    }
}

#[test]
#[cfg_attr(
    miri,
    ignore = "safe-Rust simulation: minutes in the interpreter (CI budget)"
)]
fn one_iteration_matches_ten_minute_physics_with_alpha_times_36() {
    let mut rng = Rng(7);
    let cases = if cfg!(miri) { 8 } else { 2000 };
    let (mut worst_x, mut worst_v): (f64, f64) = (0.0, 0.0);
    for case in 0..cases {
        let x = [rng.point(), rng.point(), rng.point(), rng.point()];
        let w = [0.0, 0.5, 1.0, 2.0].map(|m: f64| m + 0.5 * (rng.next() + 1.0));
        let rest = volume_ref(&x) * (1.0 + 0.5 * rng.next()) + 0.01;
        let tmp_compliance = if case % 2 == 0 { 0.0 } else { 1e-6 };
        let dt = 1.0 / 600.0;
        let mut expect = x;
        tmp_solve(&mut expect, &w, rest, tmp_compliance, dt);
        // Our C is 6× theirs, so the same correction needs α = 36 α_TMP.
        let tet = Tet::new([0, 1, 2, 3], rest, 36.0 * tmp_compliance);
        let (got, _) = one_iteration(x, w, tet, dt);
        let step: f64 = (0..4)
            .flat_map(|k| (0..3).map(move |i| (k, i)))
            .map(|(k, i)| (expect[k][i] - x[k][i]).abs())
            .fold(0.0, f64::max);
        for k in 0..4 {
            for i in 0..3 {
                worst_x = worst_x.max((got[k][i] - expect[k][i]).abs() / (1.0 + step));
            }
        }
        let v = tet_volume(&x, [0, 1, 2, 3]).unwrap();
        worst_v = worst_v.max((v - volume_ref(&x)).abs());
    }
    println!(
        "vs Ten Minute Physics: max position difference {worst_x:.2e} (relative to 1 + |Δx|), \
         max volume difference {worst_v:.2e} m³"
    );
    assert!(worst_x < 1e-12 && worst_v < 1e-15, "{worst_x} {worst_v}");
}

#[test]
fn lifecycle_one_and_twenty_iterations_agree_and_h_scales_alpha() {
    // Three pinned particles, one free: C is linear in it, so the substep's
    // equilibrium C = −α̃λ with x₃ − x̃₃ = w λ ∇C is C = C₀ α̃ / (W + α̃).
    let x = [
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.0, 0.0, 1.5],
    ];
    let w = [0.0_f64, 0.0, 0.0, 2.0];
    let (compliance, rest) = (1e-5_f64, 1.0 / 6.0);
    let c0 = 6.0 * (1.5 / 6.0 - rest);
    let weight = 2.0; // w₃ |e1 × e2|² = 2 · 1
    for h in [0.01, 0.005] {
        let alpha = compliance / (h * h);
        let expected = c0 * alpha / (weight + alpha);
        let mut shapes = vec![];
        for iterations in [1, 20] {
            let mut y = x;
            let mut tets = [Tet::new([0, 1, 2, 3], rest, compliance)];
            let mut system =
                System::new(&mut y, &w, &mut [])
                    .unwrap()
                    .with_constraints(Constraints {
                        tets: &mut tets,
                        ..Default::default()
                    });
            let mut sub = system.begin_substep(h).unwrap();
            for _ in 0..iterations {
                sub.iterate().unwrap();
            }
            let stats = sub.measure().unwrap();
            assert!(stats.max_residual < 1e-15, "{stats:?}");
            let c = 6.0 * (tet_volume(&y, [0, 1, 2, 3]).unwrap() - rest);
            assert!((c + alpha * tets[0].lambda).abs() < 1e-15);
            assert!((c - expected).abs() < 1e-14, "h {h}: {c} vs {expected}");
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
fn degenerate_tets_are_rejected_or_skipped_never_nan() {
    for (name, x) in [
        ("coincident", [[0.25; 3]; 4]),
        (
            "collinear",
            [[0.0; 3], [1.0, 1.0, 0.0], [2.0, 2.0, 0.0], [3.0, 3.0, 0.0]],
        ),
    ] {
        // A link first, so the tet is constraint 1.
        let mut y = [x[0], x[1], x[2], x[3], [5.0, 0.0, 0.0], [7.0, 0.0, 0.0]];
        let w = [1.0_f64; 6];
        let mut links = [Link::new(4, 5, 1.0, 0.0)];
        let mut tets = [Tet::new([0, 1, 2, 3], 0.1, 0.0)];
        let mut system = System::new(&mut y, &w, &mut links)
            .unwrap()
            .with_constraints(Constraints {
                tets: &mut tets,
                ..Default::default()
            });
        let before: Vec<u64> = system.positions()[..4]
            .iter()
            .flatten()
            .map(|v| v.to_bits())
            .collect();
        let err = system.begin_substep(0.01).unwrap().iterate().unwrap_err();
        assert_eq!(err, SystemError::Degenerate { constraint: 1 }, "{name}");
        let after: Vec<u64> = system.positions()[..4]
            .iter()
            .flatten()
            .map(|v| v.to_bits())
            .collect();
        assert_eq!(before, after, "{name}: the tet wrote nothing");
        let mut system = system.with_zero_length(ZeroLength::Skip);
        let stats = system.begin_substep(0.01).unwrap().iterate().unwrap();
        assert_eq!(stats.skipped_zero_length, 1, "{name}");
        assert!(system.positions().iter().flatten().all(|v| v.is_finite()));
        assert_eq!(system.constraints().tets[0].lambda, 0.0);
    }
    // A flat tet (coplanar, not collinear) is no degenerate case.
    let mut y: [[f64; 3]; 4] = [[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 1.0, 0.0]];
    let mut tets = [Tet::new([0, 1, 2, 3], 0.1, 0.0)];
    let mut system = System::new(&mut y, &[1.0; 4], &mut [])
        .unwrap()
        .with_constraints(Constraints {
            tets: &mut tets,
            ..Default::default()
        });
    let mut sub = system.begin_substep(0.01).unwrap();
    for _ in 0..20 {
        sub.iterate().unwrap();
    }
    assert!((tet_volume(system.positions(), [0, 1, 2, 3]).unwrap() - 0.1).abs() < 1e-12);
    // Every particle static: counted as such.
    let mut tets = [Tet::new([0, 1, 2, 3], 0.1, 0.0)];
    let mut system = System::new(&mut y, &[0.0; 4], &mut [])
        .unwrap()
        .with_constraints(Constraints {
            tets: &mut tets,
            ..Default::default()
        });
    let stats = system.begin_substep(0.01).unwrap().iterate().unwrap();
    assert_eq!((stats.skipped_static, stats.applied), (1, 0));
}

#[test]
fn invalid_tets_are_rejected_naming_them_and_nothing_is_written() {
    let x0 = [
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.0, 0.0, 1.0],
        [1.0, 1.0, 1.0],
    ];
    let good = Tet::new([0, 1, 2, 3], 1.0 / 6.0, 0.0);
    type Case = (Tet<f64>, fn(usize) -> SystemError);
    let cases: [Case; 8] = [
        (Tet::new([0, 1, 2, 5], 0.1, 0.0), |c| {
            SystemError::IndexOutOfRange { constraint: c }
        }),
        (Tet::new([0, 1, 2, 1], 0.1, 0.0), |c| {
            SystemError::SameParticle { constraint: c }
        }),
        (Tet::new([0, 1, 2, 4], 0.0, 0.0), |c| {
            SystemError::InvalidRestValue { constraint: c }
        }),
        (Tet::new([0, 1, 2, 4], f64::NAN, 0.0), |c| {
            SystemError::InvalidRestValue { constraint: c }
        }),
        (Tet::new([0, 1, 2, 4], f64::MAX, 0.0), |c| {
            SystemError::InvalidRestValue { constraint: c }
        }),
        (Tet::new([0, 1, 2, 4], 0.1, -1.0), |c| {
            SystemError::InvalidCompliance { constraint: c }
        }),
        (Tet::new([0, 1, 2, 4], 0.1, f64::INFINITY), |c| {
            SystemError::InvalidCompliance { constraint: c }
        }),
        (Tet::new([0, 1, 2, 4], 0.1, f64::MAX), |c| {
            SystemError::UnrepresentableScale { constraint: c }
        }),
    ];
    for (bad, error) in cases {
        let mut x = x0;
        let mut links = [Link::new(3, 4, 1.0, 0.0), Link::new(0, 4, 1.0, 0.0)];
        let mut tets = [good, bad];
        tets[0].lambda = 0.25; // left from a previous substep
        let mut system = System::new(&mut x, &[1.0; 5], &mut links)
            .unwrap()
            .with_constraints(Constraints {
                tets: &mut tets,
                ..Default::default()
            });
        // Two links: the tets are constraints 2 and 3.
        assert_eq!(system.begin_substep(0.01).unwrap_err(), error(3));
        assert_eq!(x, x0);
        assert_eq!(tets[0].lambda.to_bits(), 0.25_f64.to_bits());
        assert_eq!(links[0].lambda, 0.0);
    }
}

#[test]
#[cfg_attr(
    miri,
    ignore = "safe-Rust builder checks over hash sets: slow in the interpreter (CI budget)"
)]
fn block_builder_counts_orientation_conformity_and_edges() {
    assert_eq!(tet_block_counts(2, 3, 4), Some((3 * 4 * 5, 6 * 24)));
    assert_eq!(tet_block_counts(0, 3, 4), None);
    assert_eq!(tet_block_counts(usize::MAX, 2, 2), None);
    let (nx, ny, nz, s) = (2, 3, 2, 0.25_f64);
    let (np, nt) = tet_block_counts(nx, ny, nz).unwrap();
    let mut x = vec![[9.0; 3]; np + 1];
    let mut tets = vec![Tet::default(); nt];
    let origin = [1.0, -2.0, 0.5];
    assert_eq!(
        tet_block(nx, ny, nz, s, origin, &mut x, &mut tets, 1e-6),
        Ok((np, nt))
    );
    assert_eq!(x[np], [9.0; 3], "nothing past the block");
    let (i, j, k) = (1, 2, 1);
    assert_eq!(x[i + 3 * (j + 4 * k)], [1.25, -1.5, 0.75]);
    let mut faces: HashMap<[u32; 3], i32> = HashMap::new();
    let mut edges = HashSet::new();
    for t in &tets {
        let v = tet_volume(&x, t.particles).unwrap();
        assert!(
            (v - s * s * s / 6.0).abs() < 1e-15,
            "every tet positive, s³/6"
        );
        assert_eq!(t.rest_volume, v);
        assert_eq!((t.compliance, t.lambda), (1e-6, 0.0));
        let p = t.particles;
        // Faces oriented outwards: (0,2,1), (0,1,3), (0,3,2), (1,2,3).
        for f in [
            [p[0], p[2], p[1]],
            [p[0], p[1], p[3]],
            [p[0], p[3], p[2]],
            [p[1], p[2], p[3]],
        ] {
            let mut key = f;
            key.sort();
            let even = (0..3).any(|r| [f[r], f[(r + 1) % 3], f[(r + 2) % 3]] == key);
            *faces.entry(key).or_default() += if even { 1 } else { -1 };
        }
        for a in 0..4 {
            for b in a + 1..4 {
                edges.insert((p[a].min(p[b]), p[a].max(p[b])));
            }
        }
    }
    // Conforming: an inner face is shared by two tets with opposite
    // orientations (sum 0); a boundary face has one (±1). Boundary faces:
    // 2 triangles per boundary square.
    let boundary = faces.values().filter(|&&c| c != 0).count();
    assert!(faces.values().all(|&c| c.abs() <= 1));
    assert_eq!(boundary, 4 * (nx * ny + ny * nz + nz * nx));
    // The links are exactly the tets' edges.
    let nl = tet_block_link_count(nx, ny, nz).unwrap();
    let mut links = vec![Link::default(); nl];
    assert_eq!(
        tet_block_links(&x[..np], nx, ny, nz, 0.5, &mut links),
        Ok(nl)
    );
    let from_links: HashSet<(u32, u32)> =
        links.iter().map(|l| (l.i.min(l.j), l.i.max(l.j))).collect();
    assert_eq!(from_links.len(), nl);
    assert_eq!(from_links, edges);
    for l in &links {
        let d: f64 = (0..3)
            .map(|k| (x[l.i as usize][k] - x[l.j as usize][k]).powi(2))
            .sum();
        // (Miri's `std` square root is deliberately a few ulps off.)
        assert!((l.rest - d.sqrt()).abs() <= 1e-15 * d.sqrt());
    }
}

#[test]
fn builders_reject_precisely_and_write_nothing() {
    let mut x = vec![[7.0; 3]; 8];
    let mut tets = vec![Tet::new([9; 4], 9.0, 9.0); 6];
    let snapshot = (x.clone(), tets.clone());
    let cases = [
        (0, 1.0, [0.0; 3], 8, 6, 0.0, SystemError::InvalidShape),
        (1, 0.0, [0.0; 3], 8, 6, 0.0, SystemError::InvalidShape),
        (1, f64::NAN, [0.0; 3], 8, 6, 0.0, SystemError::InvalidShape),
        (
            1,
            1.0,
            [0.0; 3],
            8,
            6,
            -1.0,
            SystemError::InvalidCompliance { constraint: 0 },
        ),
        (
            1,
            1.0,
            [0.0; 3],
            7,
            6,
            0.0,
            SystemError::CapacityTooSmall { needed: 8 },
        ),
        (
            1,
            1.0,
            [0.0; 3],
            8,
            5,
            0.0,
            SystemError::CapacityTooSmall { needed: 6 },
        ),
        (
            1,
            1e300,
            [f64::MAX, 0.0, 0.0],
            8,
            6,
            0.0,
            SystemError::NonFinitePosition { particle: 1 },
        ),
        (
            1,
            1e-20,
            [1.0, 0.0, 0.0],
            8,
            6,
            0.0,
            SystemError::InvalidRestValue { constraint: 0 },
        ),
    ];
    for (n, s, origin, px, pt, c, error) in cases {
        let r = tet_block(n, 1, 1, s, origin, &mut x[..px], &mut tets[..pt], c);
        assert_eq!(r, Err(error));
        assert_eq!((x.clone(), tets.clone()), snapshot);
    }
    // Rest volumes from positions.
    let y = [[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    let mut t = [
        Tet::new([0, 1, 2, 3], 1.0, 0.5),
        Tet::new([0, 2, 1, 3], 1.0, 0.5),
    ];
    tet_rest_volumes(&y, &mut t).unwrap();
    assert_eq!(
        (t[0].rest_volume, t[1].rest_volume),
        (1.0 / 6.0, -1.0 / 6.0)
    );
    for (bad, error) in [
        (
            Tet::new([0, 1, 2, 4], 1.0, 0.0),
            SystemError::IndexOutOfRange { constraint: 1 },
        ),
        (
            Tet::new([0, 1, 1, 3], 1.0, 0.0),
            SystemError::SameParticle { constraint: 1 },
        ),
        (
            Tet::new([0, 0, 0, 0], 1.0, 0.0),
            SystemError::SameParticle { constraint: 1 },
        ),
    ] {
        let mut t2 = [Tet::new([0, 1, 2, 3], 1.0, 0.0), bad];
        let keep = t2;
        assert_eq!(tet_rest_volumes(&y, &mut t2), Err(error));
        assert_eq!(t2, keep);
    }
    let flat = [[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 1.0, 0.0]];
    let mut t3 = [Tet::new([0, 1, 2, 3], 1.0, 0.0)];
    assert_eq!(
        tet_rest_volumes(&flat, &mut t3),
        Err(SystemError::InvalidRestValue { constraint: 0 })
    );
    let mut nan = y;
    nan[2][0] = f64::NAN;
    assert_eq!(
        tet_rest_volumes(&nan, &mut t3),
        Err(SystemError::NonFinitePosition { particle: 2 })
    );
    assert_eq!(t3[0].rest_volume, 1.0);
    let mut links = vec![Link::default(); 19];
    assert_eq!(
        tet_block_links(&y, 1, 1, 1, 0.0, &mut links),
        Err(SystemError::InvalidShape)
    );
    let mut cube = [[0.0; 3]; 8];
    tet_block(
        1,
        1,
        1,
        1.0,
        [0.0; 3],
        &mut cube,
        &mut [Tet::default(); 6],
        0.0,
    )
    .unwrap();
    assert_eq!(
        tet_block_links(&cube, 1, 1, 1, 0.0, &mut links[..18]),
        Err(SystemError::CapacityTooSmall { needed: 19 })
    );
    // Links in particle order, 7 + 3 + 3 + 1 + 3 + 1 before particle 6's
    // first, (6, 7): coincident.
    cube[7] = cube[6];
    assert_eq!(
        tet_block_links(&cube, 1, 1, 1, 0.0, &mut links),
        Err(SystemError::InvalidRestLength { constraint: 18 })
    );
    assert!(links.iter().all(|l| *l == Link::default()));
}

/// A tet block with its edge links: positions, inverse masses, links, tets.
struct Block {
    x: Vec<[f64; 3]>,
    w: Vec<f64>,
    links: Vec<Link<f64>>,
    tets: Vec<Tet<f64>>,
}

/// `n³` cubes of `spacing` (m) standing on y = 0, centred on the y axis,
/// of `density` (kg/m³) lumped equally on the particles.
fn block(n: usize, spacing: f64, density: f64, tet_compliance: f64, link_compliance: f64) -> Block {
    let (np, nt) = tet_block_counts(n, n, n).unwrap();
    let mut x = vec![[0.0; 3]; np];
    let mut tets = vec![Tet::default(); nt];
    let half = 0.5 * spacing * n as f64;
    tet_block(
        n,
        n,
        n,
        spacing,
        [-half, 0.0, -half],
        &mut x,
        &mut tets,
        tet_compliance,
    )
    .unwrap();
    let mut links = vec![Link::default(); tet_block_link_count(n, n, n).unwrap()];
    tet_block_links(&x, n, n, n, link_compliance, &mut links).unwrap();
    let mass = density * (spacing * n as f64).powi(3) / np as f64;
    Block {
        w: vec![1.0 / mass; np],
        x,
        links,
        tets,
    }
}

/// Runs `frames` frames of 1/60 s with `substeps` substeps of `iterations`
/// iterations each: per substep `v += g h; x += v h`, the substep's
/// iterations, then the plane `y ≥ 0` as a projection (`y ← max(y, 0)`:
/// a `Substep` lends no positions between its iterations, so the plane is
/// applied after them), then `v = (x − x_prev)/h · (1 − c h)` (damping `c`
/// only to come to rest). With `reset`, every iteration runs in a fresh
/// substep: `begin_substep` resets λ, the bug this crate exists to avoid.
/// Calls `each_frame` with the positions after every frame.
#[allow(clippy::too_many_arguments)]
fn simulate(
    b: &Block,
    start: &[[f64; 3]],
    frames: usize,
    substeps: usize,
    iterations: usize,
    reset: bool,
    damping: f64,
    mut each_frame: impl FnMut(&[[f64; 3]]),
) -> Vec<[f64; 3]> {
    let mut x = start.to_vec();
    let mut links = b.links.clone();
    let mut tets = b.tets.clone();
    let h = 1.0 / 60.0 / substeps as f64;
    let mut v = vec![[0.0; 3]; x.len()];
    let mut prev = x.clone();
    let mut system = System::new(&mut x, &b.w, &mut links)
        .unwrap()
        .with_constraints(Constraints {
            tets: &mut tets,
            ..Default::default()
        });
    for _ in 0..frames {
        for _ in 0..substeps {
            prev.copy_from_slice(system.positions());
            for ((p, vel), w) in system.positions_mut().iter_mut().zip(&mut v).zip(&b.w) {
                if *w > 0.0 {
                    vel[1] -= G * h;
                    for k in 0..3 {
                        p[k] += vel[k] * h;
                    }
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
        each_frame(system.positions());
    }
    system.positions().to_vec()
}

/// The largest coordinate difference between two shapes.
fn max_diff(a: &[[f64; 3]], b: &[[f64; 3]]) -> f64 {
    a.iter()
        .zip(b)
        .flat_map(|(p, q)| (0..3).map(move |k| (p[k] - q[k]).abs()))
        .fold(0.0, f64::max)
}

fn total_volume(x: &[[f64; 3]], tets: &[Tet<f64>]) -> f64 {
    tets.iter()
        .map(|t| tet_volume(x, t.particles).unwrap())
        .sum()
}

#[test]
#[cfg_attr(miri, ignore = "thousands of substeps: too slow for the interpreter")]
fn soft_cube_on_a_plane_rests_in_the_same_shape_for_5_20_100_iterations() {
    // A 30 cm foam cube (3³ cubes, 100 kg/m³: 2.7 kg) of soft tets
    // (α = 1e-5 m⁶/J: K = 36 V₀/α = 600 Pa) and edge links (α = 1e-2 m/N),
    // 5 substeps per frame, 2 s. α̃ = α/h² is large against W, so 5
    // iterations already converge each substep.
    let b = block(3, 0.1, 100.0, 1e-5, 1e-2);
    let rest_volume = total_volume(&b.x, &b.tets);
    let run = |iterations, reset| simulate(&b, &b.x, 120, 5, iterations, reset, 20.0, |_| {});
    let height = |x: &[[f64; 3]]| x.iter().map(|p| p[1]).fold(f64::MIN, f64::max);
    let kept: Vec<_> = [5, 20, 100].iter().map(|&k| run(k, false)).collect();
    let reset: Vec<_> = [5, 100].iter().map(|&k| run(k, true)).collect();
    // Relative to the deformation: the largest displacement from the
    // start shape at 100 iterations.
    let scale = max_diff(&kept[2], &b.x);
    for (k, x) in [5, 20, 100].iter().zip(&kept) {
        println!(
            "λ kept, {k:>3} iterations: height {:.9} m, V/V₀ {:.9}, shape vs 100: {:.2e}",
            height(x),
            total_volume(x, &b.tets) / rest_volume,
            max_diff(x, &kept[2]) / scale
        );
    }
    for (k, x) in [5, 100].iter().zip(&reset) {
        println!(
            "λ reset, {k:>3} iterations: height {:.9} m, V/V₀ {:.9}",
            height(x),
            total_volume(x, &b.tets) / rest_volume
        );
    }
    for x in &kept[..2] {
        assert!(max_diff(x, &kept[2]) / scale < 1e-6);
    }
    let reset_scale = max_diff(&reset[1], &b.x);
    let differ = max_diff(&reset[0], &reset[1]) / reset_scale;
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
fn block_of_rigid_tets_keeps_its_volume_under_gravity() {
    // 10³ cubes of 3 cm, 13.5 kg, α = 0 for the tets, stiff edge links
    // (α = 1e-6 m/N), resting on the plane from the start and settling
    // under gravity for half a second: 20 substeps of 5 iterations per
    // frame (Miri: 2³ cubes, one frame).
    let n = if cfg!(miri) { 2 } else { 10 };
    let frames = if cfg!(miri) { 1 } else { 30 };
    let b = block(n, 0.03, 500.0, 0.0, 1e-6);
    let rest_volume = total_volume(&b.x, &b.tets);
    let mut worst: f64 = 0.0;
    let mut lowest = f64::MAX;
    let end = simulate(&b, &b.x, frames, 20, 5, false, 0.0, |x| {
        worst = worst.max((total_volume(x, &b.tets) / rest_volume - 1.0).abs());
        lowest = lowest.min(x.iter().map(|p| p[1]).fold(f64::MAX, f64::min));
    });
    let min_tet = b
        .tets
        .iter()
        .map(|t| tet_volume(&end, t.particles).unwrap() / t.rest_volume)
        .fold(f64::MAX, f64::min);
    println!(
        "{n}³ block at α = 0: largest total-volume deviation {:.4} % over {frames} frames, \
         smallest tet V/V₀ {min_tet:.4}",
        100.0 * worst
    );
    assert_eq!(lowest, 0.0, "it rests on the plane");
    assert!(worst < 1e-3, "{worst}");
}

#[test]
#[cfg_attr(
    miri,
    ignore = "safe-Rust simulation: minutes in the interpreter (CI budget)"
)]
fn inverted_tets_recover_their_volume_and_sign() {
    // A 2³ block whose top corner particle is pushed through the block's
    // centre particle, turning its cube's six tets inside out, plus three
    // separate tets each with one particle mirrored through the opposite
    // face. No gravity; links on the edges (soft), tets at α = 0. (Miri:
    // the three separate tets only, for one frame.)
    let mut b = block(2, 0.1, 100.0, 0.0, 1e-3);
    if cfg!(miri) {
        b = Block {
            x: vec![],
            w: vec![],
            links: vec![],
            tets: vec![],
        };
    }
    let cube = if cfg!(miri) { 0 } else { 6 };
    let mut start = b.x.clone();
    if cube > 0 {
        let corner = b.x.len() - 1; // (2, 2, 2)
        let centre = b.x.len() / 2; // (1, 1, 1)
        let (c, p) = (b.x[centre], b.x[corner]);
        start[corner] = [0, 1, 2].map(|k| c[k] - 0.3 * (p[k] - c[k]));
    }
    let mut rng = Rng(3);
    for _ in 0..3 {
        let base = start.len() as u32;
        let p = [rng.point(), rng.point(), rng.point(), rng.point()];
        let v = volume_ref(&p);
        let ids = if v > 0.0 { [0, 1, 2, 3] } else { [0, 2, 1, 3] }.map(|k| base + k);
        let mut t = [Tet::new(ids, 0.0, 0.0)];
        let positions: Vec<[f64; 3]> = p.iter().map(|q| [q[0] + 5.0, q[1], q[2]]).collect();
        b.x.extend(&positions);
        tet_rest_volumes(&b.x, &mut t).unwrap();
        b.tets.push(t[0]);
        // Mirror the last particle through the plane of the other three.
        let [a, c, d, e] = ids.map(|k| b.x[k as usize]);
        let n = {
            let (u, w) = (
                [c[0] - a[0], c[1] - a[1], c[2] - a[2]],
                [d[0] - a[0], d[1] - a[1], d[2] - a[2]],
            );
            [
                u[1] * w[2] - u[2] * w[1],
                u[2] * w[0] - u[0] * w[2],
                u[0] * w[1] - u[1] * w[0],
            ]
        };
        let n2: f64 = n.iter().map(|v| v * v).sum();
        let s: f64 = (0..3).map(|k| (e[k] - a[k]) * n[k]).sum::<f64>() / n2;
        let mut mirrored = e;
        for k in 0..3 {
            mirrored[k] -= 2.0 * s * n[k];
        }
        start.extend(&positions);
        start[ids[3] as usize] = mirrored;
        for (i, j) in [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)] {
            let (pi, pj) = (b.x[ids[i] as usize], b.x[ids[j] as usize]);
            let d: f64 = (0..3).map(|k| (pi[k] - pj[k]).powi(2)).sum();
            b.links.push(Link::new(ids[i], ids[j], d.sqrt(), 1e-3));
        }
    }
    b.w = vec![10.0; b.x.len()];
    let inverted = b
        .tets
        .iter()
        .filter(|t| tet_volume(&start, t.particles).unwrap() * t.rest_volume < 0.0)
        .count();
    assert_eq!(
        inverted,
        cube + 3,
        "the corner cube's six tets and the three"
    );
    let end = simulate_without_gravity(&b, &start, if cfg!(miri) { 1 } else { 60 });
    let mut worst: f64 = 0.0;
    for t in &b.tets {
        let v = tet_volume(&end, t.particles).unwrap();
        assert!(v * t.rest_volume > 0.0, "every tet back to its sign");
        worst = worst.max((v / t.rest_volume - 1.0).abs());
    }
    println!("inverted tets recovered: largest |V/V₀ − 1| = {worst:.2e}");
    assert!(worst < 1e-6, "{worst}");
}

/// Substeps without gravity or plane: 10 substeps of 20 iterations per
/// frame, λ kept, damping 5/s.
fn simulate_without_gravity(b: &Block, start: &[[f64; 3]], frames: usize) -> Vec<[f64; 3]> {
    let mut x = start.to_vec();
    let mut links = b.links.clone();
    let mut tets = b.tets.clone();
    let h = 1.0 / 600.0;
    let mut v = vec![[0.0; 3]; x.len()];
    let mut prev = x.clone();
    let mut system = System::new(&mut x, &b.w, &mut links)
        .unwrap()
        .with_constraints(Constraints {
            tets: &mut tets,
            ..Default::default()
        });
    for _ in 0..frames * 10 {
        prev.copy_from_slice(system.positions());
        for (p, vel) in system.positions_mut().iter_mut().zip(&v) {
            for k in 0..3 {
                p[k] += vel[k] * h;
            }
        }
        let mut sub = system.begin_substep(h).unwrap();
        for _ in 0..20 {
            sub.iterate().unwrap();
        }
        for ((vel, p), q) in v.iter_mut().zip(system.positions()).zip(&prev) {
            for k in 0..3 {
                vel[k] = (p[k] - q[k]) / h * (1.0 - 5.0 * h);
            }
        }
    }
    system.positions().to_vec()
}

#[test]
#[cfg_attr(
    miri,
    ignore = "safe-Rust simulation: 200 sweeps of 48 tets in the interpreter (CI budget)"
)]
fn f32_and_f64_from_the_same_code() {
    let mut x32 = [[0.0_f32; 3]; 27];
    let mut t32 = [Tet::<f32>::default(); 48];
    tet_block(2, 2, 2, 0.5_f32, [0.0; 3], &mut x32, &mut t32, 0.0).unwrap();
    let rest: f32 = t32.iter().map(|t| t.rest_volume).sum();
    assert!((rest - 1.0).abs() < 1e-6, "{rest}");
    // Squash it vertically by 20 % and let the tets restore the volume.
    for p in &mut x32 {
        p[1] *= 0.8;
    }
    let w = [1.0_f32; 27];
    let mut system = System::new(&mut x32, &w, &mut [])
        .unwrap()
        .with_constraints(Constraints {
            tets: &mut t32,
            ..Default::default()
        });
    for _ in 0..20 {
        let mut sub = system.begin_substep(0.01).unwrap();
        for _ in 0..10 {
            sub.iterate().unwrap();
        }
    }
    let v: f32 = system
        .constraints()
        .tets
        .iter()
        .map(|t| tet_volume(system.positions(), t.particles).unwrap())
        .sum();
    let v = v / rest;
    println!("f32 block: V/V₀ = {v}");
    assert!(system.positions().iter().flatten().all(|c| c.is_finite()));
    assert!((v - 1.0).abs() < 0.02, "{v}");
}
