//! Tethers (issue 15), through the Rust API: the acceptance figures — a
//! pinned rigid-link cloth stepped with few iterations stretches under
//! 1 % with tethers to its pinned row and clearly more without; converged
//! shapes independent of the iteration budget with λ kept and not with λ
//! reset every iteration — and the unit behaviour of one tether (slack
//! inside its radius, pulled to `d_max`, λ ≤ 0 always, coincident
//! particles without a NaN), plus the `tethers` builder.

use xpbd::step::{scratch_len, step, Contact, StepConfig, World};
use xpbd::{cloth, tethers, Constraints, Link, System, SystemError, Tether, ZeroLength};

const G: f64 = 9.81;

/// A `rows × cols` grid hanging in the x-y plane: particle `r·cols + c` at
/// `(c·s, −r·s, 0)`, row 0 on top.
fn hanging_grid(rows: usize, cols: usize, s: f64) -> Vec<[f64; 3]> {
    (0..rows * cols)
        .map(|k| [(k % cols) as f64 * s, -((k / cols) as f64) * s, 0.0])
        .collect()
}

/// Inverse masses: row 0 pinned (w = 0), every other particle `w`.
fn top_row_pinned(rows: usize, cols: usize, w: f64) -> Vec<f64> {
    (0..rows * cols)
        .map(|k| if k < cols { 0.0 } else { w })
        .collect()
}

/// max over links of `|x_j − x_i| / rest − 1`.
fn max_link_stretch(x: &[[f64; 3]], links: &[Link<f64>]) -> f64 {
    links
        .iter()
        .map(|l| {
            let (a, b) = (x[l.i as usize], x[l.j as usize]);
            let d = {
                let d = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
                (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt()
            };
            d / l.rest - 1.0
        })
        .fold(f64::NEG_INFINITY, f64::max)
}

/// The cloth's height stretch: max over columns of the distance from the
/// top particle to the bottom one, over its rest value, minus 1.
fn height_stretch(x: &[[f64; 3]], rows: usize, cols: usize, s: f64) -> f64 {
    let rest = (rows - 1) as f64 * s;
    (0..cols)
        .map(|c| {
            let (a, b) = (x[c], x[(rows - 1) * cols + c]);
            let d = {
                let d = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
                (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt()
            };
            d / rest - 1.0
        })
        .fold(f64::NEG_INFINITY, f64::max)
}

/// What one run of the pinned rigid cloth measured: the largest link
/// stretch and height stretch over every frame.
#[derive(Debug, Clone, Copy)]
struct Stretch {
    link: f64,
    height: f64,
}

/// Steps an `n × n` rigid-link cloth (spacing 1 cm, 1 g per particle, top
/// row pinned) hanging from rest, `substeps × iterations` per 1/60 s frame,
/// for `frames` frames, with or without tethers from every free particle
/// to the nearest pinned one; the cloth starts tilted 0.3 rad out of its
/// plane so that it swings.
fn rigid_cloth(n: usize, frames: usize, substeps: u32, tilt: f64, with_tethers: bool) -> Stretch {
    let s = 0.01;
    let rest = hanging_grid(n, n, s);
    let w = top_row_pinned(n, n, 1000.0);
    let mut links = vec![Link::default(); xpbd::cloth_link_count(n, n, false).unwrap()];
    cloth(&rest, n, n, false, 0.0, &mut links).unwrap();
    let mut ties = vec![Tether::default(); n * n];
    let anchors: Vec<u32> = (0..n as u32).collect();
    let count = if with_tethers {
        tethers(&rest, &w, &anchors, 0.0, &mut ties).unwrap()
    } else {
        0
    };
    assert_eq!(count, if with_tethers { n * (n - 1) } else { 0 });
    ties.truncate(count);
    // Tilt the cloth about its top edge (rigidly: rest lengths hold).
    let (sin, cos) = tilt.sin_cos();
    let mut x: Vec<[f64; 3]> = rest
        .iter()
        .map(|p| [p[0], p[1] * cos, -p[1] * sin])
        .collect();
    let mut v = vec![[0.0; 3]; n * n];
    let mut contacts: Vec<Contact<f64>> = vec![];
    let mut scratch = vec![[0.0; 3]; scratch_len(n * n, links.len())];
    let mut config = StepConfig::new([0.0, -G, 0.0]);
    config.substeps = substeps;
    config.iterations = 1;
    let mut worst = Stretch {
        link: f64::NEG_INFINITY,
        height: f64::NEG_INFINITY,
    };
    for _ in 0..frames {
        let mut world = World {
            positions: &mut x,
            velocities: &mut v,
            inverse_masses: &w,
            links: &mut links,
            contacts: &mut contacts,
            scratch: &mut scratch,
            colliders: None,
            self_collision: None,
            tearing: None,
            wind: None,
            local_space: None,
            engine_contacts: None,
            groups: None,
        };
        world.groups = Some(Constraints {
            tethers: &mut ties,
            ..Constraints::default()
        });
        step(&mut world, 1.0 / 60.0, &config).unwrap();
        worst.link = worst.link.max(max_link_stretch(&x, &links));
        worst.height = worst.height.max(height_stretch(&x, n, n, s));
    }
    assert!(x.iter().flatten().all(|c| c.is_finite()));
    assert!(ties.iter().all(|t| t.lambda <= 0.0));
    worst
}

/// Prints one scene's figures.
fn report(label: &str, with: Stretch, without: Stretch) {
    println!(
        "{label}: max link stretch {:.3} % with tethers, {:.3} % without; \
         max height stretch {:.3} % with, {:.3} % without",
        100.0 * with.link,
        100.0 * without.link,
        100.0 * with.height,
        100.0 * without.height
    );
}

#[test]
#[cfg_attr(
    miri,
    ignore = "a 100 × 100 cloth for 2 s: too slow for the interpreter"
)]
fn tethers_keep_a_rigid_cloth_under_one_percent_stretch_at_four_substeps_of_one_iteration() {
    // Hanging from its pinned top row, nudged 0.01 rad out of its plane.
    let (n, frames, tilt) = (100, 120, 0.01);
    let with = rigid_cloth(n, frames, 4, tilt, true);
    let without = rigid_cloth(n, frames, 4, tilt, false);
    report(
        &format!(
            "{n}×{n} rigid cloth, 4 substeps × 1 iteration, {frames} frames, nudged {tilt} rad"
        ),
        with,
        without,
    );
    assert!(with.link < 0.01, "with tethers: {with:?}");
    assert!(with.height < 0.01, "with tethers: {with:?}");
    // One sweep per substep cannot carry 99 rows' weight up a rigid
    // column: without tethers the cloth stretches to a multiple of its
    // height.
    assert!(
        without.link > 0.5 && without.height > 0.5,
        "without tethers: {without:?}"
    );
}

#[test]
#[cfg_attr(
    miri,
    ignore = "a 100 × 100 cloth for 2 s: too slow for the interpreter"
)]
fn a_swinging_rigid_cloth_keeps_its_height_with_tethers() {
    // Released 0.5 rad out of the vertical: every particle swings on its
    // tether's sphere, so the height never exceeds the rest height; the
    // rows, pendulums of different lengths held together only by one
    // sweep of links per substep, still stretch locally (printed: the
    // local stretch is the links' convergence, which tethers do not fix).
    let (n, frames, tilt) = (100, 120, 0.5);
    let with = rigid_cloth(n, frames, 4, tilt, true);
    let without = rigid_cloth(n, frames, 4, tilt, false);
    report(
        &format!("{n}×{n} rigid cloth, 4 substeps × 1 iteration, {frames} frames, swinging from {tilt} rad"),
        with,
        without,
    );
    assert!(with.height < 0.01, "with tethers: {with:?}");
    assert!(without.height > 0.5, "without tethers: {without:?}");
    assert!(with.link < without.link, "{with:?} vs {without:?}");
}

#[test]
fn tethers_bound_a_small_rigid_cloth_too() {
    // The same scene, small enough for Miri.
    let (n, frames) = if cfg!(miri) { (5, 2) } else { (12, 60) };
    let with = rigid_cloth(n, frames, 2, 0.01, true);
    let without = rigid_cloth(n, frames, 2, 0.01, false);
    report(&format!("{n}×{n}, {frames} frames"), with, without);
    assert!(with.link < 0.01 && with.height < 0.01, "{with:?}");
    assert!(without.height > with.height, "{without:?} vs {with:?}");
}

/// Budget invariance: a hanging 6 × 8 cloth (top row pinned) of compliant
/// links and compliant tethers, stepped to rest with the `System` API
/// (the λ-reset variant needs an iteration loop `step` does not
/// allow). Returns the rest positions and how many tethers pull (λ < 0)
/// at the end.
///
/// `reset_each_iteration` emulates the bug this crate exists to avoid:
/// `begin_substep` is called again before every iteration, and it resets
/// every λ (links and tethers: the one reset), so each iteration starts
/// from λ = 0 and the budget becomes a stiffness.
fn hanging_compliant(iterations: usize, reset_each_iteration: bool) -> (Vec<[f64; 3]>, usize) {
    let (rows, cols, s) = (8, 6, 0.1);
    let rest = hanging_grid(rows, cols, s);
    let w = top_row_pinned(rows, cols, 100.0); // 10 g per particle
    let mut links = vec![Link::default(); xpbd::cloth_link_count(rows, cols, false).unwrap()];
    cloth(&rest, rows, cols, false, LINK_COMPLIANCE, &mut links).unwrap();
    let anchors: Vec<u32> = (0..cols as u32).collect();
    let mut ties = vec![Tether::default(); rows * cols];
    let count = tethers(&rest, &w, &anchors, TETHER_COMPLIANCE, &mut ties).unwrap();
    ties.truncate(count);
    let mut x = rest.clone();
    let mut v = vec![[0.0; 3]; x.len()];
    let mut prev = x.clone();
    let (frames, substeps) = (BUDGET_FRAMES, 10);
    let h = 1.0 / 60.0 / substeps as f64;
    let keep = 1.0 - DAMPING * h;
    let mut system = System::new(&mut x, &w, &mut links)
        .unwrap()
        .with_constraints(Constraints {
            tethers: &mut ties,
            ..Constraints::default()
        });
    for _ in 0..frames * substeps {
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
                system.begin_substep(h).unwrap().iterate().unwrap();
            }
        } else {
            let mut sub = system.begin_substep(h).unwrap();
            for _ in 0..iterations {
                sub.iterate().unwrap();
            }
        }
        for ((vel, p), q) in v.iter_mut().zip(system.positions()).zip(&prev) {
            for k in 0..3 {
                vel[k] = (p[k] - q[k]) / h * keep;
            }
        }
    }
    let pulling = system
        .constraints()
        .tethers
        .iter()
        .filter(|t| t.lambda < 0.0)
        .count();
    (system.positions().to_vec(), pulling)
}

const LINK_COMPLIANCE: f64 = 1e-2; // m/N
const TETHER_COMPLIANCE: f64 = 1e-2; // m/N
const DAMPING: f64 = 4.0; // 1/s: only to come to rest
const BUDGET_FRAMES: usize = 120;

/// How far the cloth hangs below its rest height (m): the lowest point's
/// depth minus the rest height.
fn extension(x: &[[f64; 3]]) -> f64 {
    -x.iter().map(|p| p[1]).fold(f64::INFINITY, f64::min) - 0.7
}

#[test]
#[cfg_attr(miri, ignore = "thousands of substeps: too slow for the interpreter")]
fn converged_shape_with_tethers_does_not_depend_on_the_budget_with_lambda_kept() {
    let budgets = [5, 20, 100];
    let kept: Vec<_> = budgets
        .iter()
        .map(|&k| hanging_compliant(k, false))
        .collect();
    let reset: Vec<_> = budgets
        .iter()
        .map(|&k| hanging_compliant(k, true))
        .collect();
    let ext =
        |r: &[(Vec<[f64; 3]>, usize)]| r.iter().map(|(x, _)| extension(x)).collect::<Vec<_>>();
    println!(
        "extension below rest (m) at {budgets:?} iterations: λ kept {:?}, λ reset {:?}; pulling tethers kept {:?}, reset {:?}",
        ext(&kept),
        ext(&reset),
        kept.iter().map(|r| r.1).collect::<Vec<_>>(),
        reset.iter().map(|r| r.1).collect::<Vec<_>>()
    );
    let size = 0.7;
    for (k, (x, _)) in budgets.iter().zip(&kept).skip(1) {
        let d = x
            .iter()
            .flatten()
            .zip(kept[0].0.iter().flatten())
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        println!(
            "λ kept: {k} vs 5 iterations differ by {:.3e} (relative to the 0.7 m cloth)",
            d / size
        );
        assert!(d / size < 1e-6, "{k} vs 5 iterations: {d:e} m");
    }
    for (x, pulling) in &kept {
        assert!(*pulling > 0, "the tethers must be active");
        assert!(extension(x) > 0.0);
    }
    let (e5, e100) = (extension(&reset[0].0), extension(&reset[2].0));
    assert!(e5 < extension(&kept[0].0), "λ reset is stiffer");
    println!(
        "λ reset: extension 5 vs 100 iterations {e5:.6} vs {e100:.6} m ({:.1} %)",
        100.0 * (e5 - e100) / e100
    );
    assert!((e5 - e100).abs() > 0.1 * e100, "λ reset: {e5} vs {e100}");
}

// ---- One tether ----

/// A system of two particles (anchor 0, particle 1) and one tether, run
/// for `iterations` sweeps of one substep of h = 1/60 s; returns the
/// positions, the tether after the sweeps and the last sweep's statistics.
fn one_tether(
    x: [[f64; 3]; 2],
    w: [f64; 2],
    max_distance: f64,
    compliance: f64,
    iterations: usize,
    policy: ZeroLength,
) -> ([[f64; 3]; 2], Tether<f64>, xpbd::SweepStats<f64>) {
    let mut x = x;
    let mut ties = [Tether::new(1, 0, max_distance, compliance)];
    let mut stats = xpbd::SweepStats::default();
    {
        let mut system = System::new(&mut x, &w, &mut [])
            .unwrap()
            .with_zero_length(policy)
            .with_constraints(Constraints {
                tethers: &mut ties,
                ..Constraints::default()
            });
        let mut sub = system.begin_substep(1.0 / 60.0).unwrap();
        for _ in 0..iterations {
            stats = sub.iterate().unwrap();
            assert!(sub.constraints().tethers[0].lambda <= 0.0);
        }
    }
    (x, ties[0], stats)
}

fn distance(a: [f64; 3], b: [f64; 3]) -> f64 {
    {
        let d = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
        (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt()
    }
}

fn bits(x: &[[f64; 3]]) -> Vec<u64> {
    x.iter().flatten().map(|v| v.to_bits()).collect()
}

#[test]
fn a_slack_tether_inside_its_radius_changes_nothing() {
    let x = [[0.0, 0.0, 0.0], [0.3, -0.4, 0.1]];
    for w in [[0.0, 1.0], [2.0, 1.0]] {
        for compliance in [0.0, 1e-3] {
            let (y, t, stats) = one_tether(x, w, 1.0, compliance, 5, ZeroLength::Reject);
            assert_eq!(bits(&y), bits(&x), "w {w:?}, α {compliance}");
            assert_eq!(t.lambda.to_bits(), 0, "λ stays +0");
            assert_eq!((stats.max_abs_c, stats.max_residual), (0.0, 0.0));
        }
    }
    // Exactly at the radius: C = 0, nothing moves either.
    let (y, t, _) = one_tether(
        [[0.0; 3], [0.0, -0.5, 0.0]],
        [0.0, 1.0],
        0.5,
        0.0,
        3,
        ZeroLength::Reject,
    );
    assert_eq!(bits(&y), bits(&[[0.0; 3], [0.0, -0.5, 0.0]]));
    assert!(t.lambda <= 0.0);
}

#[test]
fn a_rigid_tether_pulls_its_particle_to_the_maximum_distance() {
    // 3-4-5 triangle: distance 5 m, d_max 2 m, anchor pinned.
    let (y, t, stats) = one_tether(
        [[0.0; 3], [3.0, 4.0, 0.0]],
        [0.0, 1.0],
        2.0,
        0.0,
        1,
        ZeroLength::Reject,
    );
    assert_eq!(
        bits(&y[..1]),
        bits(&[[0.0; 3]]),
        "the pinned anchor keeps its bits"
    );
    assert!((distance(y[0], y[1]) - 2.0).abs() < 1e-12, "{y:?}");
    // Along the same ray.
    assert!(
        (y[1][0] / y[1][1] - 0.75).abs() < 1e-12 && y[1][2] == 0.0,
        "{y:?}"
    );
    assert!(t.lambda < 0.0, "pulling: λ {}", t.lambda);
    assert_eq!(stats.max_abs_c, 3.0);
    // Two moving particles: both move, the weighted centre stays.
    let w = [1.0, 3.0];
    let x = [[0.0; 3], [0.0, -4.0, 0.0]];
    let (y, t, _) = one_tether(x, w, 2.0, 0.0, 1, ZeroLength::Reject);
    assert!((distance(y[0], y[1]) - 2.0).abs() < 1e-12, "{y:?}");
    let centre = |p: &[[f64; 3]; 2]| (p[0][1] / w[0] + p[1][1] / w[1]) / (1.0 / w[0] + 1.0 / w[1]);
    assert!((centre(&y) - centre(&x)).abs() < 1e-12);
    assert!(t.lambda < 0.0);
}

#[test]
fn a_compliant_tether_settles_at_c_plus_alpha_tilde_lambda_zero() {
    let (h, alpha) = (1.0 / 60.0, 1e-4);
    let (y, t, stats) = one_tether(
        [[0.0; 3], [0.0, -3.0, 0.0]],
        [0.0, 1.0],
        2.0,
        alpha,
        50,
        ZeroLength::Reject,
    );
    let c = distance(y[0], y[1]) - 2.0;
    let alpha_tilde = alpha / (h * h);
    assert!(c > 0.0 && t.lambda < 0.0, "C {c}, λ {}", t.lambda);
    assert!(
        (c + alpha_tilde * t.lambda).abs() < 1e-12,
        "C + α̃λ = {}",
        c + alpha_tilde * t.lambda
    );
    assert!(stats.max_residual < 1e-12);
    // Independently: the anchor is pinned and w = 1, so the particle
    // moves by wλ along n and C = C₀ + λ with C₀ = 3 − 2 = 1; with
    // C = −α̃λ that is λ = −1/(1 + α̃) and C = α̃/(1 + α̃).
    let expected = alpha_tilde / (1.0 + alpha_tilde);
    assert!((c - expected).abs() < 1e-12, "{c} vs {expected}");
}

#[test]
fn lambda_of_a_tether_is_never_positive() {
    // Particles pushed in and out of their radius between substeps, with
    // and without compliance, one or both ends moving: after every sweep
    // of every substep λ ≤ 0.
    let n = 9;
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((state >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    };
    let mut x: Vec<[f64; 3]> = (0..n).map(|k| [k as f64 * 0.1, 0.0, 0.0]).collect();
    let w: Vec<f64> = (0..n)
        .map(|k| if k % 4 == 0 { 0.0 } else { 1.0 + k as f64 })
        .collect();
    let mut ties: Vec<Tether<f64>> = (1..n as u32)
        .map(|k| {
            Tether::new(
                k,
                (k + 1) % n as u32 / 2,
                0.2 * f64::from(k % 3),
                if k % 2 == 0 { 0.0 } else { 1e-5 },
            )
        })
        .filter(|t| t.particle != t.anchor)
        .collect();
    let mut system = System::new(&mut x, &w, &mut [])
        .unwrap()
        .with_constraints(Constraints {
            tethers: &mut ties,
            ..Constraints::default()
        });
    let mut pulled = 0;
    for _ in 0..if cfg!(miri) { 3 } else { 200 } {
        for p in system.positions_mut() {
            for c in p.iter_mut() {
                *c += 0.3 * next();
            }
        }
        let mut sub = system.begin_substep(1.0 / 240.0).unwrap();
        for _ in 0..4 {
            sub.iterate().unwrap();
            for t in sub.constraints().tethers.iter() {
                assert!(t.lambda <= 0.0, "λ = {} > 0", t.lambda);
                pulled += usize::from(t.lambda < 0.0);
            }
        }
    }
    assert!(pulled > 0, "some tether must have pulled");
}

#[test]
fn coincident_particles_give_no_nan_under_either_policy() {
    let tiny = [1e-200, 0.0, 0.0]; // |d|² underflows below the smallest normal
    for policy in [ZeroLength::Reject, ZeroLength::Skip] {
        for w in [[0.0, 1.0], [1.0, 1.0]] {
            for (x1, d_max) in [([0.0; 3], 0.0), ([0.0; 3], 1.0), (tiny, 0.0)] {
                let x = [[0.0; 3], x1];
                let (y, t, stats) = one_tether(x, w, d_max, 0.0, 3, policy);
                assert_eq!(bits(&y), bits(&x), "{policy:?} {w:?} {x1:?}");
                assert_eq!(t.lambda.to_bits(), 0);
                assert_eq!(stats.skipped_static, 1, "counted with the static ones");
            }
        }
    }
    // Pulled onto its anchor (d_max = 0), then coincident: still finite.
    let (y, t, _) = one_tether(
        [[0.0; 3], [0.0, -1.0, 0.0]],
        [0.0, 1.0],
        0.0,
        0.0,
        4,
        ZeroLength::Reject,
    );
    assert!(y.iter().flatten().all(|v| v.is_finite()) && t.lambda.is_finite());
    assert!(distance(y[0], y[1]) < 1e-12, "{y:?}");
}

#[test]
fn invalid_tethers_are_named_after_the_links_and_nothing_is_written() {
    let mut x = [[0.0; 3], [0.0, -1.0, 0.0], [0.0, -2.5, 0.0]];
    let w = [0.0, 1.0, 1.0];
    let mut links = [Link::new(0, 1, 1.0, 0.0)];
    let cases = [
        (
            Tether::new(2, 7, 1.0, 0.0),
            SystemError::IndexOutOfRange { constraint: 2 },
        ),
        (
            Tether::new(2, 2, 1.0, 0.0),
            SystemError::SameParticle { constraint: 2 },
        ),
        (
            Tether::new(2, 0, -1.0, 0.0),
            SystemError::InvalidRestValue { constraint: 2 },
        ),
        (
            Tether::new(2, 0, f64::NAN, 0.0),
            SystemError::InvalidRestValue { constraint: 2 },
        ),
        (
            Tether::new(2, 0, 1.0, -1.0),
            SystemError::InvalidCompliance { constraint: 2 },
        ),
        (
            Tether::new(2, 0, 1.0, f64::INFINITY),
            SystemError::InvalidCompliance { constraint: 2 },
        ),
        (
            Tether::new(2, 0, 1.0, f64::MAX),
            SystemError::UnrepresentableScale { constraint: 2 },
        ),
    ];
    for (bad, error) in cases {
        let mut ties = [Tether::new(1, 0, 1.0, 0.0), bad];
        ties[0].lambda = -0.5; // a stale λ: must survive a rejected begin
        let before = (bits(&x), ties.map(|t| t.lambda.to_bits()));
        {
            let mut system = System::new(&mut x, &w, &mut links)
                .unwrap()
                .with_constraints(Constraints {
                    tethers: &mut ties,
                    ..Constraints::default()
                });
            assert_eq!(system.begin_substep(1.0 / 60.0).err(), Some(error));
            let c = system.constraints();
            assert_eq!(c.locate(1, 2), Some((xpbd::Group::Tethers, 1)));
        }
        assert_eq!(
            (bits(&x), ties.map(|t| t.lambda.to_bits())),
            before,
            "{error:?}"
        );
    }
}

// ---- The builder ----

#[test]
fn the_builder_ties_every_moving_particle_to_its_nearest_anchor() {
    let x = [
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.2, -1.0, 0.0],
        [0.9, -2.0, 0.0],
        [0.5, -1.0, 0.0],
    ];
    let w = [0.0, 0.0, 1.0, 1.0, 2.0];
    let mut out = [Tether::default(); 4];
    assert_eq!(tethers(&x, &w, &[0, 1], 1e-6, &mut out), Ok(3));
    let got: Vec<(u32, u32)> = out[..3].iter().map(|t| (t.particle, t.anchor)).collect();
    // Particle 4 is equally far from both anchors: the first one wins.
    assert_eq!(got, [(2, 0), (3, 1), (4, 0)]);
    for t in &out[..3] {
        let d = distance(x[t.anchor as usize], x[t.particle as usize]);
        assert_eq!(t.max_distance, d);
        assert_eq!((t.compliance, t.lambda), (1e-6, 0.0));
    }
    assert_eq!(out[3], Tether::default(), "nothing past the count");
}

#[test]
fn the_builder_writes_nothing_on_error() {
    let x = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.2, -1.0, 0.0]];
    let w = [0.0, 1.0, 1.0];
    let sentinel = Tether::new(9, 9, 9.0, 9.0);
    let check = |x: &[[f64; 3]], w: &[f64], anchors: &[u32], capacity: usize, want: SystemError| {
        let mut out = vec![sentinel; capacity];
        assert_eq!(tethers(x, w, anchors, 0.0, &mut out), Err(want));
        assert!(out.iter().all(|t| *t == sentinel), "{want:?}");
    };
    check(&x, &w, &[], 3, SystemError::InvalidShape);
    check(&x, &w, &[3], 3, SystemError::InvalidShape);
    check(&x, &w[..2], &[0], 3, SystemError::ParticleCountMismatch);
    check(&x, &w, &[0], 1, SystemError::CapacityTooSmall { needed: 2 });
    let mut bad = x;
    bad[2][1] = f64::NAN;
    check(
        &bad,
        &w,
        &[0],
        3,
        SystemError::NonFinitePosition { particle: 2 },
    );
}

#[test]
fn the_builder_refuses_a_bad_compliance_and_skips_moving_anchors() {
    let x = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0]];
    let w = [0.0, 1.0, 1.0];
    let mut out = [Tether::default(); 3];
    for bad in [-1.0, f64::NAN, f64::INFINITY] {
        assert_eq!(
            tethers(&x, &w, &[0], bad, &mut out),
            Err(SystemError::InvalidCompliance { constraint: 0 })
        );
        assert_eq!(out, [Tether::default(); 3]);
    }
    // Particle 1 moves and is an anchor: it gets no tether of its own (it
    // would be tied to itself), particle 2 is tied to it (the nearest).
    assert_eq!(tethers(&x, &w, &[0, 1], 0.0, &mut out), Ok(1));
    assert_eq!((out[0].particle, out[0].anchor), (2, 1));
    assert_eq!(out[0].max_distance, 1.0);
}

#[test]
fn a_tether_whose_distance_overflows_is_degenerate_not_slack() {
    // Finite positions 1e200 m apart: |d|² overflows, no direction.
    let mut x = [[0.0, 0.0, 0.0], [1e200, 0.0, 0.0]];
    let w = [0.0, 1.0];
    let mut links: [Link<f64>; 0] = [];
    let mut t = [Tether::new(1, 0, 1.0, 0.0)];
    let mut system = System::new(&mut x, &w, &mut links)
        .unwrap()
        .with_constraints(Constraints {
            tethers: &mut t,
            ..Default::default()
        });
    let mut sub = system.begin_substep(0.01).unwrap();
    assert_eq!(
        sub.iterate(),
        Err(SystemError::Degenerate { constraint: 0 })
    );
}
