//! Constraint systems over shared particles: agreement with the 1D seed,
//! iteration independence, convergence on ropes, loops and cloth,
//! invariances, conservation, builders and every rejection class.

use xpbd::{
    closed_loop, cloth, cloth_link_count, rope, DistanceConstraint, Link, System, SystemError,
    ZeroLength,
};

/// Bits of every coordinate and λ, for bit-identity checks.
fn bits<const D: usize>(x: &[[f64; D]], links: &[Link<f64>]) -> Vec<u64> {
    x.iter()
        .flatten()
        .map(|v| v.to_bits())
        .chain(links.iter().map(|l| l.lambda.to_bits()))
        .collect()
}

#[test]
fn one_link_along_x_matches_the_1d_seed_bit_for_bit() {
    for (h, compliance, wa) in [
        (0.1, 0.01, 1.0),
        (0.05, 0.01, 1.0),
        (0.1, 0.0, 0.0),
        (0.01, 0.3, 2.5),
    ] {
        let (mut a, mut b) = (0.0_f64, 2.0_f64);
        let mut seed = DistanceConstraint::new();
        let mut x3 = [[0.0, 0.0, 0.0], [2.0, 0.0, 0.0]];
        let mut x2 = [[0.0, 0.0], [2.0, 0.0]];
        let w = [wa, 1.0];
        let mut l3 = [Link::new(0, 1, 1.0, compliance)];
        let mut l2 = l3;
        let mut s3 = System::new(&mut x3, &w, &mut l3).unwrap();
        let mut s2 = System::new(&mut x2, &w, &mut l2).unwrap();
        seed.begin_substep();
        let mut sub3 = s3.begin_substep(h).unwrap();
        let mut sub2 = s2.begin_substep(h).unwrap();
        for _ in 0..10 {
            seed.solve(&mut a, &mut b, wa, 1.0, 1.0, compliance, h)
                .unwrap();
            sub3.iterate().unwrap();
            sub2.iterate().unwrap();
            assert_eq!(sub3.positions()[0][0].to_bits(), a.to_bits());
            assert_eq!(sub3.positions()[1][0].to_bits(), b.to_bits());
            assert_eq!(sub3.links()[0].lambda.to_bits(), seed.lambda().to_bits());
            assert_eq!(sub2.positions()[1][0].to_bits(), b.to_bits());
            assert_eq!(sub2.links()[0].lambda.to_bits(), seed.lambda().to_bits());
            assert_eq!(sub3.positions()[1][1].to_bits(), 0.0_f64.to_bits());
        }
    }
    // The golden figure itself, from the 3D system.
    let mut x = [[0.0_f64, 0.0, 0.0], [2.0, 0.0, 0.0]];
    let mut links = [Link::new(0, 1, 1.0, 0.01)];
    let mut s = System::new(&mut x, &[1.0, 1.0], &mut links).unwrap();
    let mut sub = s.begin_substep(0.1).unwrap();
    sub.iterate().unwrap();
    assert_eq!(
        sub.positions()[1][0] - sub.positions()[0][0] - 1.0,
        0.3333333333333335
    );
}

#[test]
fn f32_one_link_matches_the_f32_seed() {
    let (mut a, mut b) = (0.0_f32, 2.0_f32);
    let mut seed = DistanceConstraint::<f32>::new();
    let mut x = [[0.0_f32, 0.0, 0.0], [2.0, 0.0, 0.0]];
    let mut links = [Link::new(0, 1, 1.0_f32, 0.01)];
    let mut s = System::new(&mut x, &[1.0, 1.0], &mut links).unwrap();
    let mut sub = s.begin_substep(0.1).unwrap();
    for _ in 0..5 {
        seed.solve(&mut a, &mut b, 1.0, 1.0, 1.0, 0.01, 0.1)
            .unwrap();
        sub.iterate().unwrap();
        assert_eq!(sub.positions()[0][0].to_bits(), a.to_bits());
        assert_eq!(sub.positions()[1][0].to_bits(), b.to_bits());
    }
}

/// A pre-stretched 3D chain: particle 0 pinned, links with mixed compliances.
fn stretched_chain() -> (Vec<[f64; 3]>, Vec<f64>, Vec<Link<f64>>) {
    let dir = [0.48, 0.6, 0.64]; // unit length
    let x: Vec<[f64; 3]> = (0..5).map(|k| dir.map(|d| d * 1.5 * k as f64)).collect();
    let w = vec![0.0, 1.0, 0.5, 2.0, 1.0];
    let compliances = [1e-4, 2e-3, 5e-4, 1e-3];
    let links = (0..4)
        .map(|k| Link::new(k, k + 1, 1.0, compliances[k as usize]))
        .collect();
    (x, w, links)
}

/// Runs one substep of `iterations` sweeps; `reset` resets λ before every sweep (the bug).
fn chain_after(iterations: usize, reset: bool) -> (Vec<[f64; 3]>, f64) {
    let (mut x, w, mut links) = stretched_chain();
    let h = 1.0 / 60.0;
    let mut s = System::new(&mut x, &w, &mut links).unwrap();
    let residual = if reset {
        for _ in 0..iterations {
            s.begin_substep(h).unwrap().iterate().unwrap();
        }
        f64::NAN
    } else {
        let mut sub = s.begin_substep(h).unwrap();
        for _ in 0..iterations {
            sub.iterate().unwrap();
        }
        sub.measure().unwrap().max_residual
    };
    (s.positions().to_vec(), residual)
}

fn max_diff(a: &[[f64; 3]], b: &[[f64; 3]]) -> f64 {
    a.iter()
        .flatten()
        .zip(b.iter().flatten())
        .map(|(p, q)| (p - q).abs())
        .fold(0.0, f64::max)
}

#[test]
#[cfg_attr(
    miri,
    ignore = "safe-Rust sweeps: a minute in the interpreter (CI budget); the small cases run"
)]
fn converged_state_does_not_depend_on_the_iteration_budget() {
    let (x20, r20) = chain_after(20, false);
    let (x200, r200) = chain_after(200, false);
    assert!(r20 < 1e-9, "20 iterations: residual {r20:e}");
    assert!(r200 < 1e-12, "200 iterations: residual {r200:e}");
    let d = max_diff(&x20, &x200);
    assert!(d < 1e-9, "kept λ: 20 vs 200 iterations differ by {d:e}");

    // The bug: λ reset every iteration makes the budget a stiffness.
    let (y20, _) = chain_after(20, true);
    let (y200, _) = chain_after(200, true);
    let d = max_diff(&y20, &y200);
    assert!(
        d > 1e-3,
        "reset λ: 20 vs 200 iterations differ by only {d:e}"
    );
    let end = |x: &[[f64; 3]]| x[4].iter().map(|v| v * v).sum::<f64>().sqrt();
    assert!(
        end(&y200) < end(&x200) - 1e-3,
        "reset λ is stiffer: {} vs {}",
        end(&y200),
        end(&x200)
    );
}

/// A deterministic perturbation in [-amp, amp) per coordinate.
fn jitter<const D: usize>(x: &mut [[f64; D]], amp: f64, mut state: u64) {
    for v in x.iter_mut().flatten() {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *v += amp * (((state >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0);
    }
}

fn grid(rows: usize, cols: usize) -> Vec<[f64; 3]> {
    (0..rows * cols)
        .map(|k| [(k % cols) as f64 * 0.1, 0.0, (k / cols) as f64 * 0.1])
        .collect()
}

#[test]
#[cfg_attr(miri, ignore = "thousands of substeps: too slow for the interpreter")]
fn residual_reaches_tolerance_on_rope_loop_and_cloth() {
    let h = 1.0 / 120.0;
    // Rope.
    let mut x: Vec<[f64; 3]> = (0..20).map(|k| [k as f64 * 0.1, 0.0, 0.0]).collect();
    let mut links = vec![Link::default(); 19];
    assert_eq!(rope(&x, 1e-6, &mut links), Ok(19));
    jitter(&mut x, 0.02, 1);
    let w: Vec<f64> = (0..20).map(|k| if k == 0 { 0.0 } else { 1.0 }).collect();
    let mut s = System::new(&mut x, &w, &mut links).unwrap();
    let r = s
        .begin_substep(h)
        .unwrap()
        .iterate_until(1e-10, 2000)
        .unwrap();
    assert_eq!(r.converged, 1, "rope: {r:?}");

    // Closed loop on a circle.
    let n = 16;
    let mut x: Vec<[f64; 3]> = (0..n)
        .map(|k| k as f64 * std::f64::consts::TAU / n as f64)
        .map(|t| [t.cos(), t.sin(), 0.0])
        .collect();
    let mut links = vec![Link::default(); n];
    assert_eq!(closed_loop(&x, 1e-5, &mut links), Ok(n));
    assert_eq!((links[n - 1].i, links[n - 1].j), (n as u32 - 1, 0));
    jitter(&mut x, 0.05, 2);
    let w = vec![1.0; n];
    let mut s = System::new(&mut x, &w, &mut links).unwrap();
    let mut sub = s.begin_substep(h).unwrap();
    let first = sub.iterate().unwrap().max_residual;
    let r = sub.iterate_until(1e-10, 2000).unwrap();
    assert_eq!(r.converged, 1, "loop: {r:?}");
    assert!(r.last.max_residual < first);

    // Cloth with shear links, two corners pinned.
    let (rows, cols) = (8, 8);
    let mut x = grid(rows, cols);
    let count = cloth_link_count(rows, cols, true).unwrap();
    assert_eq!(count, 8 * 7 * 2 + 2 * 7 * 7);
    let mut links = vec![Link::default(); count];
    assert_eq!(cloth(&x, rows, cols, true, 1e-6, &mut links), Ok(count));
    jitter(&mut x, 0.01, 3);
    let mut w = vec![1.0; rows * cols];
    w[0] = 0.0;
    w[cols - 1] = 0.0;
    let mut s = System::new(&mut x, &w, &mut links).unwrap();
    let r = s
        .begin_substep(h)
        .unwrap()
        .iterate_until(1e-9, 5000)
        .unwrap();
    assert_eq!(r.converged, 1, "cloth: {r:?}");
}

/// Solves a jittered 4×4 cloth for 30 sweeps from the given start.
fn solve_cloth(x0: &[[f64; 3]], w: &[f64]) -> Vec<[f64; 3]> {
    let base = grid(4, 4);
    let mut links = vec![Link::default(); cloth_link_count(4, 4, true).unwrap()];
    cloth(&base, 4, 4, true, 1e-5, &mut links).unwrap();
    let mut x = x0.to_vec();
    let mut s = System::new(&mut x, w, &mut links).unwrap();
    let mut sub = s.begin_substep(1.0 / 60.0).unwrap();
    for _ in 0..30 {
        sub.iterate().unwrap();
    }
    s.positions().to_vec()
}

#[test]
#[cfg_attr(
    miri,
    ignore = "safe-Rust sweeps: a minute in the interpreter (CI budget); the small cases run"
)]
fn translation_and_rotation_carry_through_the_solve() {
    let mut x0 = grid(4, 4);
    jitter(&mut x0, 0.03, 4);
    let w: Vec<f64> = (0..16).map(|k| 1.0 + (k % 3) as f64 * 0.5).collect();
    let out = solve_cloth(&x0, &w);

    let t = [3.25, -1.5, 0.75];
    let moved: Vec<[f64; 3]> = x0
        .iter()
        .map(|p| [p[0] + t[0], p[1] + t[1], p[2] + t[2]])
        .collect();
    let out_t = solve_cloth(&moved, &w);
    for (a, b) in out.iter().zip(&out_t) {
        for k in 0..3 {
            assert!(
                (a[k] + t[k] - b[k]).abs() < 1e-12,
                "translation: {a:?} {b:?}"
            );
        }
    }

    let (c, s) = (0.6_f64, 0.8_f64); // rotation by atan2(0.8, 0.6) about z
    let rot = |p: &[f64; 3]| [c * p[0] - s * p[1], s * p[0] + c * p[1], p[2]];
    let turned: Vec<[f64; 3]> = x0.iter().map(rot).collect();
    let out_r = solve_cloth(&turned, &w);
    for (a, b) in out.iter().zip(&out_r) {
        let ra = rot(a);
        for k in 0..3 {
            assert!((ra[k] - b[k]).abs() < 1e-12, "rotation: {ra:?} {b:?}");
        }
    }
}

#[test]
#[cfg_attr(miri, ignore = "thousands of substeps: too slow for the interpreter")]
fn mass_weighted_centre_is_conserved_without_static_particles() {
    let mut x0 = grid(5, 5);
    jitter(&mut x0, 0.04, 5);
    let w: Vec<f64> = (0..25).map(|k| 0.5 + (k % 4) as f64 * 0.25).collect();
    let centre = |x: &[[f64; 3]]| {
        let mut m = [0.0; 3];
        for (p, wi) in x.iter().zip(&w) {
            for k in 0..3 {
                m[k] += p[k] / wi;
            }
        }
        m
    };
    let before = centre(&x0);
    let mut links = vec![Link::default(); cloth_link_count(5, 5, true).unwrap()];
    cloth(&grid(5, 5), 5, 5, true, 1e-4, &mut links).unwrap();
    let mut x = x0.clone();
    let mut s = System::new(&mut x, &w, &mut links).unwrap();
    s.begin_substep(0.01)
        .unwrap()
        .iterate_until(1e-12, 500)
        .unwrap();
    let after = centre(s.positions());
    for k in 0..3 {
        assert!(
            (after[k] - before[k]).abs() < 1e-12,
            "axis {k}: {} → {}",
            before[k],
            after[k]
        );
    }
}

/// begin_substep on the given input must fail with `want`, leaving every
/// position and λ bit-identical.
fn rejects<const D: usize>(
    mut x: Vec<[f64; D]>,
    w: Vec<f64>,
    mut links: Vec<Link<f64>>,
    h: f64,
    want: SystemError,
) {
    for l in links.iter_mut() {
        l.lambda = 0.125; // a history that a reset would erase
    }
    let before = bits(&x, &links);
    let mut s = System::new(&mut x, &w, &mut links).unwrap();
    assert_eq!(s.begin_substep(h).err(), Some(want));
    assert_eq!(bits(&x, &links), before, "{want:?} changed state");
}

#[test]
fn every_rejection_names_its_index_and_changes_nothing() {
    let x = || vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0]];
    let w = || vec![1.0, 1.0, 1.0];
    let links = || vec![Link::new(0, 1, 1.0, 0.01), Link::new(1, 2, 1.0, 0.01)];
    let with = |k: usize, f: &dyn Fn(&mut Link<f64>)| {
        let mut l = links();
        f(&mut l[k]);
        l
    };
    rejects(x(), w(), links(), 0.0, SystemError::InvalidTimeStep);
    rejects(x(), w(), links(), f64::NAN, SystemError::InvalidTimeStep);
    let mut bad = x();
    bad[2][1] = f64::INFINITY;
    rejects(
        bad,
        w(),
        links(),
        0.1,
        SystemError::NonFinitePosition { particle: 2 },
    );
    let mut bad = w();
    bad[1] = -1.0;
    rejects(
        x(),
        bad,
        links(),
        0.1,
        SystemError::InvalidInverseMass { particle: 1 },
    );
    rejects(
        x(),
        w(),
        with(1, &|l| l.j = 3),
        0.1,
        SystemError::IndexOutOfRange { constraint: 1 },
    );
    rejects(
        x(),
        w(),
        with(0, &|l| l.i = u32::MAX),
        0.1,
        SystemError::IndexOutOfRange { constraint: 0 },
    );
    rejects(
        x(),
        w(),
        with(1, &|l| l.j = 1),
        0.1,
        SystemError::SameParticle { constraint: 1 },
    );
    rejects(
        x(),
        w(),
        with(1, &|l| l.rest = 0.0),
        0.1,
        SystemError::InvalidRestLength { constraint: 1 },
    );
    rejects(
        x(),
        w(),
        with(0, &|l| l.rest = f64::NAN),
        0.1,
        SystemError::InvalidRestLength { constraint: 0 },
    );
    rejects(
        x(),
        w(),
        with(1, &|l| l.compliance = -1.0),
        0.1,
        SystemError::InvalidCompliance { constraint: 1 },
    );
    rejects(
        x(),
        w(),
        links(),
        1e-200,
        SystemError::UnrepresentableScale { constraint: 0 },
    );
    let mut same = x();
    same[2] = same[1];
    rejects(
        same,
        w(),
        links(),
        0.1,
        SystemError::ZeroLength { constraint: 1 },
    );

    let (mut xs, ws, mut ls) = (x(), vec![1.0; 2], links());
    assert_eq!(
        System::new(&mut xs, &ws, &mut ls).err(),
        Some(SystemError::ParticleCountMismatch)
    );
    let mut xs = x();
    let mut ls = links();
    let wv = w();
    let mut s = System::new(&mut xs, &wv, &mut ls).unwrap();
    let mut sub = s.begin_substep(0.1).unwrap();
    assert_eq!(
        sub.iterate_until(-1.0, 10).err(),
        Some(SystemError::InvalidTolerance)
    );
    assert_eq!(SystemError::ZeroLength { constraint: 7 }.index(), Some(7));
    assert!(SystemError::SameParticle { constraint: 3 }
        .to_string()
        .contains("link 3"));
}

#[test]
fn zero_length_skip_policy_counts_and_never_makes_nan() {
    let mut x: Vec<[f64; 3]> = vec![[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [1.0, 0.0, 0.0]];
    let w = vec![1.0, 1.0, 1.0];
    let mut links = vec![Link::new(0, 1, 0.5, 0.0), Link::new(1, 2, 0.5, 0.0)];
    let mut s = System::new(&mut x, &w, &mut links)
        .unwrap()
        .with_zero_length(ZeroLength::Skip);
    let stats = s.begin_substep(0.1).unwrap().iterate().unwrap();
    assert_eq!(
        (
            stats.applied,
            stats.skipped_zero_length,
            stats.skipped_static
        ),
        (1, 1, 0)
    );
    assert!(s.positions().iter().flatten().all(|v: &f64| v.is_finite()));
    assert_eq!(s.links()[0].lambda, 0.0);
}

#[test]
fn invalid_result_stops_at_the_link_and_earlier_links_stay_applied() {
    // Link 0 is ordinary; link 1's particles are 1.8e308 apart: |d|² overflows.
    let mut x = vec![
        [0.0, 0.0, 0.0],
        [2.0, 0.0, 0.0],
        [-9e307, 0.0, 0.0],
        [9e307, 0.0, 0.0],
    ];
    let w = vec![1.0; 4];
    let mut links = vec![Link::new(0, 1, 1.0, 0.0), Link::new(2, 3, 1.0, 0.0)];
    let mut s = System::new(&mut x, &w, &mut links).unwrap();
    let mut sub = s.begin_substep(0.1).unwrap();
    assert_eq!(
        sub.iterate().err(),
        Some(SystemError::InvalidResult { constraint: 1 })
    );
    assert_eq!(sub.positions()[1][0], 1.5, "link 0 was applied");
    assert_eq!(sub.positions()[2][0], -9e307, "link 1 untouched");
    assert_eq!(sub.links()[1].lambda, 0.0);
}

#[test]
fn static_pairs_are_skipped_and_counted() {
    let mut x = vec![[0.0, 0.0], [2.0, 0.0]];
    let w = vec![0.0, 0.0];
    let mut links = vec![Link::new(0, 1, 1.0, 0.0)];
    let mut s = System::new(&mut x, &w, &mut links).unwrap();
    let stats = s.begin_substep(0.1).unwrap().iterate().unwrap();
    assert_eq!((stats.applied, stats.skipped_static), (0, 1));
    assert_eq!(s.positions()[1], [2.0, 0.0]);
}

#[test]
fn builders_validate_before_writing() {
    let x = [[0.0, 0.0], [1.0, 0.0], [1.0, 0.0]];
    let mut links = [Link::new(9, 9, 9.0, 9.0); 3];
    let untouched = links;
    assert_eq!(
        rope(&x, 0.0, &mut links),
        Err(SystemError::InvalidRestLength { constraint: 1 })
    );
    assert_eq!(links, untouched);
    assert_eq!(
        rope(&x[..2], 0.0, &mut links[..0]),
        Err(SystemError::CapacityTooSmall { needed: 1 })
    );
    assert_eq!(
        rope(&x[..1], 0.0, &mut links),
        Err(SystemError::InvalidShape)
    );
    assert_eq!(
        rope(&x[..2], -1.0, &mut links),
        Err(SystemError::InvalidCompliance { constraint: 0 })
    );
    assert_eq!(
        closed_loop(&x[..2], 0.0, &mut links),
        Err(SystemError::InvalidShape)
    );
    assert_eq!(
        cloth(&x, 2, 2, false, 0.0, &mut links),
        Err(SystemError::InvalidShape)
    );
    assert_eq!(links, untouched);
    let g = grid(2, 3);
    let mut l = vec![Link::default(); 11];
    assert_eq!(cloth(&g, 2, 3, true, 0.0, &mut l), Ok(11));
    let pairs: Vec<(u32, u32)> = l.iter().map(|k| (k.i, k.j)).collect();
    assert_eq!(
        pairs,
        [
            (0, 1),
            (1, 2),
            (3, 4),
            (4, 5),
            (0, 3),
            (1, 4),
            (2, 5),
            (0, 4),
            (1, 3),
            (1, 5),
            (2, 4)
        ]
    );
    assert!((l[7].rest - 0.02_f64.sqrt()).abs() < 1e-15);
    assert_eq!(cloth_link_count(1, 5, true), None);
}

#[test]
fn storage_can_live_in_heapless_containers() {
    let mut x: heapless::Vec<[f32; 3], 8> = heapless::Vec::new();
    for k in 0..4 {
        x.push([k as f32, 0.0, 0.0]).unwrap();
    }
    let w: heapless::Vec<f32, 8> = heapless::Vec::from_slice(&[0.0, 1.0, 1.0, 1.0]).unwrap();
    let mut links: heapless::Vec<Link<f32>, 8> = heapless::Vec::new();
    links.resize(3, Link::default()).unwrap();
    assert_eq!(rope(&x, 1e-3, &mut links), Ok(3));
    x[3][0] = 4.0;
    let mut s = System::new(&mut x, &w, &mut links).unwrap();
    let r = s
        .begin_substep(1.0 / 60.0)
        .unwrap()
        .iterate_until(1e-5, 100)
        .unwrap();
    assert_eq!(r.converged, 1);
    assert!(s.positions()[3][0] < 4.0);
}

#[test]
fn tension_only_links_never_push() {
    // Slack: particles 0.5 m apart on a 1 m tension-only link stay put, bit for bit.
    let mut x = vec![[0.0, 0.0, 0.0], [0.5, 0.0, 0.0]];
    let w = vec![1.0, 1.0];
    let mut links = vec![Link::new(0, 1, 1.0, 0.0).tension_only()];
    let before = bits(&x, &links);
    let mut s = System::new(&mut x, &w, &mut links).unwrap();
    let mut sub = s.begin_substep(0.01).unwrap();
    for _ in 0..5 {
        let stats = sub.iterate().unwrap();
        assert_eq!(stats.max_residual, 0.0);
    }
    assert_eq!(bits(&x, &links), before);

    // Stretched: exactly the bilateral result (λ stays ≤ 0 on its own).
    let run = |flags: bool| {
        let mut x = vec![[0.0, 0.0, 0.0], [2.0, 0.0, 0.0]];
        let l = Link::new(0, 1, 1.0, 0.01);
        let mut links = vec![if flags { l.tension_only() } else { l }];
        let mut s = System::new(&mut x, &[1.0, 1.0], &mut links).unwrap();
        let mut sub = s.begin_substep(0.1).unwrap();
        for _ in 0..3 {
            sub.iterate().unwrap();
        }
        (bits(sub.positions(), sub.links()), sub.links()[0].lambda)
    };
    let (a, lambda) = run(true);
    assert_eq!(a, run(false).0);
    assert!(lambda < 0.0);

    // A link that was stretched and then compressed within a substep releases
    // its accumulated λ to 0 and no further.
    let mut x = vec![[0.0, 0.0, 0.0], [2.0, 0.0, 0.0]];
    let mut links = vec![Link::new(0, 1, 1.0, 0.0).tension_only()];
    let mut s = System::new(&mut x, &[1.0, 1.0], &mut links).unwrap();
    {
        let mut sub = s.begin_substep(0.1).unwrap();
        sub.iterate().unwrap();
        assert!(sub.links()[0].lambda < 0.0);
    }
    s.positions_mut()[1][0] = 0.25; // now slack: between substeps only
    let mut sub = s.begin_substep(0.1).unwrap();
    sub.iterate().unwrap();
    assert_eq!(sub.links()[0].lambda, 0.0);
    assert_eq!(sub.positions()[1][0], 0.25);

    let mut x = vec![[0.0, 0.0], [1.0, 0.0]];
    let mut links = vec![Link {
        flags: 6,
        ..Link::new(0, 1, 1.0, 0.0)
    }];
    let mut s = System::new(&mut x, &[1.0, 1.0], &mut links).unwrap();
    assert_eq!(
        s.begin_substep(0.1).err(),
        Some(SystemError::InvalidFlags { constraint: 0 })
    );
}
