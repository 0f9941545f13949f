//! Skinned constraints (issue 35, item 1) through the Rust API: a cape on
//! a character that runs a circle at 6 m/s, turns, jumps and teleports
//! stays within its max distances after every frame (α = 0, f64 and
//! f32); a compliant max distance's excess is `α m g` whatever the
//! iteration count (λ kept), and `C + α̃λ = 0` for every instance; no
//! particle ends a frame inside its backstop sphere; a scale of 0 pins
//! every particle to its skinned position; `previous ← target` after a
//! frame; rejected inputs are named and write nothing; the colored job
//! views give the sequential bits (the only one under Miri: the others
//! are safe Rust, minutes under the interpreter); rigid limits project
//! onto their spheres (random configurations against the closed form,
//! degenerate points finite); a compliant limit settles at
//! `C₀ α̃/(w + α̃)` for 1 and 20 iterations and two substep lengths. The
//! SoA frame's bits against `step` are in
//! `tests/colored_step/soa_frame.rs`.

use xpbd::step::{scratch_len, step, Contact, StepConfig, StepError, World};
use xpbd::{
    cloth, cloth_link_count, Constraints, Field, Group, GroupColors, Link, Real, SkinConstraint,
    System, SystemError,
};

const DT: f64 = 1.0 / 60.0;

fn f<T: Real>(v: f64) -> T {
    T::from_f64(v)
}

/// A cloth in caller memory with skinned constraints.
struct Scene<T> {
    x: Vec<[T; 3]>,
    v: Vec<[T; 3]>,
    w: Vec<T>,
    links: Vec<Link<T>>,
    contacts: Vec<Contact<T>>,
    scratch: Vec<[T; 3]>,
    skin: Vec<SkinConstraint<T>>,
}

impl<T: Real> Scene<T> {
    fn new(x: Vec<[T; 3]>, w: Vec<T>, links: Vec<Link<T>>, skin: Vec<SkinConstraint<T>>) -> Self {
        let n = x.len();
        Self {
            v: vec![[T::ZERO; 3]; n],
            contacts: vec![Contact::default(); 1],
            scratch: vec![[T::ZERO; 3]; scratch_len(n, links.len())],
            x,
            w,
            links,
            skin,
        }
    }

    fn step(&mut self, config: &StepConfig<T, 3>) -> Result<(), StepError> {
        let mut world = World::new(
            &mut self.x,
            &mut self.v,
            &self.w,
            &mut self.contacts,
            &mut self.scratch,
        );
        world.links = &mut self.links;
        world.groups = Some(Constraints {
            skin_constraints: &mut self.skin,
            ..Constraints::default()
        });
        step(&mut world, f(DT), config).map(|_| ())
    }
}

/// The character's root at frame `k`: position (m) and heading (rad). It
/// runs a circle of radius 3 m at 6 m/s (ω = 2 rad/s), turns back at
/// frame 240 (running the circle the other way), jumps (a 0.5 s hop every
/// 1.5 s) and teleports 10 m along x at frame 400.
fn root(k: usize) -> ([f64; 3], f64) {
    let t = k as f64 * DT;
    let turn = 240.0 * DT;
    let angle = if t < turn {
        2.0 * t
    } else {
        2.0 * turn - 2.0 * (t - turn)
    };
    let hop = t % 1.5;
    let y = if hop < 0.5 {
        4.9 * hop * (0.5 - hop)
    } else {
        0.0
    };
    let shift = if k >= 400 { 10.0 } else { 0.0 };
    ([3.0 * angle.cos() + shift, y, 3.0 * angle.sin()], angle)
}

/// A point of the character's frame (local `l`, m) in the world at `k`.
fn skinned(k: usize, l: [f64; 3]) -> [f64; 3] {
    let (r, a) = root(k);
    let (c, s) = (a.cos(), a.sin());
    [
        r[0] + c * l[0] + s * l[2],
        r[1] + l[1],
        r[2] - s * l[0] + c * l[2],
    ]
}

/// The cape: `cols × rows` particles 5 cm apart hanging from the
/// shoulders (local y 1.5 m down to 1.05 m, 0.2 m behind the body), each
/// particle skinned to its rest point with max distance 3 cm per row
/// below the first (the first row pinned: 0), rigid links.
fn cape<T: Real>(alpha: f64) -> (Scene<T>, Vec<[f64; 3]>) {
    let (cols, rows) = (8, 10);
    let local: Vec<[f64; 3]> = (0..rows * cols)
        .map(|k| {
            let (i, j) = (k % cols, k / cols);
            [0.05 * i as f64 - 0.175, 1.5 - 0.05 * j as f64, -0.2]
        })
        .collect();
    let x: Vec<[T; 3]> = local.iter().map(|l| skinned(0, *l).map(f)).collect();
    let mut links = vec![Link::default(); cloth_link_count(rows, cols, true).unwrap()];
    cloth(&x, rows, cols, true, T::ZERO, &mut links).unwrap();
    let skin = local
        .iter()
        .enumerate()
        .map(|(k, l)| {
            let mut c = SkinConstraint::new(k as u32, skinned(0, *l).map(f), [T::ZERO; 3]);
            c.max_distance = f(0.03 * (k / cols) as f64);
            c.compliance = f(alpha);
            c
        })
        .collect();
    (Scene::new(x, vec![f(1.0); rows * cols], links, skin), local)
}

/// The cape runs 600 frames; after every frame each particle is within
/// its max distance of its skinned position, + `tol`. Returns the
/// largest distance over the free rows' max distances (the cape uses
/// them).
fn cape_keeps_its_max_distances<T: Real>(tol: f64) -> f64 {
    let (mut scene, local) = cape::<T>(0.0);
    let config = StepConfig::<T, 3> {
        substeps: 8,
        ..StepConfig::default()
    };
    let mut most = 0.0f64;
    for k in 1..600 {
        for (c, l) in scene.skin.iter_mut().zip(&local) {
            c.target = skinned(k, *l).map(f);
        }
        if k == 400 {
            // The engine's teleport: the cape moves with the character,
            // its skinned points jump (no sweep through 10 m), no velocity.
            for (p, c) in scene.x.iter_mut().zip(&scene.skin) {
                *p = core::array::from_fn(|d| p[d] + c.target[d] - c.previous[d]);
            }
            for c in scene.skin.iter_mut() {
                c.previous = c.target;
            }
            scene.v.fill([T::ZERO; 3]);
        }
        scene.step(&config).unwrap();
        for (p, c) in scene.x.iter().zip(&scene.skin) {
            let d = (0..3)
                .map(|i| (p[i].to_f64() - c.target[i].to_f64()).powi(2))
                .sum::<f64>()
                .sqrt();
            let r = c.max_distance.to_f64();
            assert!(
                d <= r + tol,
                "frame {k}: particle {} at {d} m, max {r} m",
                c.particle
            );
            if r > 0.0 {
                most = most.max(d / r);
            }
            assert_eq!(c.previous, c.target);
        }
    }
    most
}

#[test]
#[cfg_attr(miri, ignore)] // safe Rust only; minutes under Miri
fn a_running_cape_stays_within_its_max_distances_f64() {
    // The constraints act: some particle reaches its limit.
    assert!(cape_keeps_its_max_distances::<f64>(1e-9) > 0.999);
}

#[test]
#[cfg_attr(miri, ignore)] // safe Rust only; minutes under Miri
fn a_running_cape_stays_within_its_max_distances_f32() {
    assert!(cape_keeps_its_max_distances::<f32>(1e-4) > 0.99);
}

/// One particle of mass `m` hanging under gravity from a skinned point by
/// a compliant max distance `R`; after `frames` frames of `iterations`
/// iterations: the excess `|x − p| − R` (m), and `C + α̃λ` of the last
/// substep.
fn hanging(alpha: f64, iterations: u32, frames: usize) -> (f64, f64) {
    let (m, r) = (0.5, 0.1);
    let mut c = SkinConstraint::new(0, [0.0, 1.0, 0.0], [0.0; 3]);
    c.max_distance = r;
    c.compliance = alpha;
    let mut scene = Scene::new(vec![[0.0, 0.9, 0.0]], vec![1.0 / m], Vec::new(), vec![c]);
    let mut config = StepConfig::<f64, 3>::new([0.0, -9.81, 0.0]);
    config.substeps = 10;
    config.iterations = iterations;
    // Heavily damped: it settles at the sag well within the frames.
    config.damping = 20.0;
    for _ in 0..frames {
        scene.step(&config).unwrap();
    }
    let c = scene.skin[0];
    let d = ((scene.x[0][1] - c.target[1]).powi(2) + scene.x[0][0].powi(2)).sqrt();
    let h = DT / f64::from(config.substeps);
    let excess = d - r;
    (excess, excess + alpha / (h * h) * c.lambda[0])
}

#[test]
#[cfg_attr(miri, ignore)] // safe Rust only; minutes under Miri
fn a_compliant_max_distance_sags_by_alpha_m_g_whatever_the_iteration_count() {
    let alpha = 1e-3;
    let (one, residual) = hanging(alpha, 1, 240);
    // The sag of a compliant constraint: C = α F = α m g.
    let sag = alpha * 0.5 * 9.81;
    assert!((one - sag).abs() < 1e-6 * sag + 1e-9, "{one} vs {sag}");
    assert!(residual.abs() < 1e-12, "C + α̃λ = {residual}");
    for iterations in [8, 32] {
        let (excess, residual) = hanging(alpha, iterations, 240);
        assert!(
            (excess - one).abs() <= 1e-12,
            "{iterations} iterations: {excess} vs {one}"
        );
        assert!(residual.abs() < 1e-12, "C + α̃λ = {residual}");
    }
    // Rigid: no excess.
    let (rigid, _) = hanging(0.0, 1, 60);
    assert!(rigid.abs() < 1e-12, "{rigid}");
}

#[test]
#[cfg_attr(miri, ignore)] // safe Rust only; minutes under Miri
fn every_instance_ends_a_frame_with_c_plus_alpha_lambda_zero() {
    let alpha = 1e-4;
    let (mut scene, local) = cape::<f64>(alpha);
    let config = StepConfig::<f64, 3> {
        substeps: 4,
        ..StepConfig::default()
    };
    let h = DT / 4.0;
    let mut active = 0;
    for k in 1..120 {
        for (c, l) in scene.skin.iter_mut().zip(&local) {
            c.target = skinned(k, *l);
        }
        scene.step(&config).unwrap();
        for (p, c) in scene.x.iter().zip(&scene.skin) {
            if c.lambda[0] == 0.0 {
                continue;
            }
            active += 1;
            let d = (0..3)
                .map(|i| (p[i] - c.target[i]).powi(2))
                .sum::<f64>()
                .sqrt();
            let r = d - c.max_distance + alpha / (h * h) * c.lambda[0];
            assert!(r.abs() < 1e-12, "frame {k}: C + α̃λ = {r}");
        }
    }
    assert!(active > 100, "{active}");
}

/// A 6 × 6 cloth lying flat at y = 0 over backstop spheres (r = 0.5 m)
/// just under each particle (d = 0.01 m behind it along n = +y, one
/// normal tilted, lengths not 1), with no max distance; the skinned
/// points rise 2 cm per frame for 30 frames, then stop. Gravity pulls the
/// cloth into the spheres: after every frame no particle is inside its
/// own (+ `tol`).
fn backstops_hold<T: Real>(alpha: f64, tol: f64) -> usize {
    let side = 6;
    let rest: Vec<[f64; 3]> = (0..side * side)
        .map(|k| [0.05 * (k % side) as f64, 0.0, 0.05 * (k / side) as f64])
        .collect();
    let x: Vec<[T; 3]> = rest.iter().map(|p| p.map(f)).collect();
    let mut links = vec![Link::default(); cloth_link_count(side, side, true).unwrap()];
    cloth(&x, side, side, true, f(1e-6), &mut links).unwrap();
    let skin: Vec<SkinConstraint<T>> = rest
        .iter()
        .enumerate()
        .map(|(k, p)| {
            let n = if k == 7 {
                [0.2, 2.0, -0.1]
            } else {
                [0.0, 3.0, 0.0]
            };
            let mut c = SkinConstraint::new(k as u32, p.map(f), n.map(f));
            c.backstop_distance = f(0.01);
            c.backstop_radius = f(0.5);
            c.backstop_compliance = f(alpha);
            c
        })
        .collect();
    let mut scene = Scene::new(x, vec![f(1.0); side * side], links, skin);
    let config = StepConfig::<T, 3>::default();
    let mut touching = 0;
    for k in 1..90 {
        let lift = 0.02 * k.min(30) as f64;
        for (c, p) in scene.skin.iter_mut().zip(&rest) {
            c.target = [p[0], p[1] + lift, p[2]].map(f);
        }
        scene.step(&config).unwrap();
        for (p, c) in scene.x.iter().zip(&scene.skin) {
            let n = c.target_normal.map(|v| v.to_f64());
            let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
            let behind = 0.01 + 0.5;
            let centre: [f64; 3] =
                core::array::from_fn(|d| c.target[d].to_f64() - n[d] / len * behind);
            let d = (0..3)
                .map(|i| (p[i].to_f64() - centre[i]).powi(2))
                .sum::<f64>()
                .sqrt();
            assert!(
                d >= 0.5 - tol,
                "frame {k}: particle {} {d} m from the centre",
                c.particle
            );
            touching += usize::from(c.lambda[1] > T::ZERO);
        }
    }
    touching
}

#[test]
#[cfg_attr(miri, ignore)] // safe Rust only; minutes under Miri
fn no_particle_ends_a_frame_inside_its_backstop() {
    // The backstops act (their λ > 0 on many frames).
    assert!(backstops_hold::<f64>(0.0, 1e-9) > 1000);
    assert!(backstops_hold::<f32>(0.0, 1e-4) > 1000);
}

#[test]
#[cfg_attr(miri, ignore)] // safe Rust only; minutes under Miri
fn a_max_distance_scale_of_zero_pins_every_particle_to_its_skinned_point() {
    let (mut scene, local) = cape::<f64>(0.0);
    let mut config = StepConfig::<f64, 3> {
        substeps: 4,
        max_distance_scale: 0.0,
        ..StepConfig::default()
    };
    for k in 1..30 {
        for (c, l) in scene.skin.iter_mut().zip(&local) {
            c.target = skinned(k, *l);
        }
        scene.step(&config).unwrap();
        for (p, c) in scene.x.iter().zip(&scene.skin) {
            let d = (0..3)
                .map(|i| (p[i] - c.target[i]).powi(2))
                .sum::<f64>()
                .sqrt();
            assert!(d < 1e-12, "frame {k}: {d}");
        }
    }
    // Scale 2 doubles the reach: the cape's lowest row goes further.
    config.max_distance_scale = 2.0;
    let (mut scene, local) = cape::<f64>(0.0);
    let mut most = 0.0f64;
    for k in 1..120 {
        for (c, l) in scene.skin.iter_mut().zip(&local) {
            c.target = skinned(k, *l);
        }
        scene.step(&config).unwrap();
        for (p, c) in scene.x.iter().zip(&scene.skin) {
            let d = (0..3)
                .map(|i| (p[i] - c.target[i]).powi(2))
                .sum::<f64>()
                .sqrt();
            assert!(d <= 2.0 * c.max_distance + 1e-9);
            most = most.max(d - c.max_distance);
        }
    }
    assert!(most > 0.01, "{most}");
}

#[test]
#[cfg_attr(miri, ignore)] // safe Rust only
fn rejected_inputs_are_named_and_write_nothing() {
    let x0: Vec<[f64; 3]> = (0..3).map(|k| [0.0, -0.1 * k as f64, 0.0]).collect();
    let mut links = vec![Link::default(); 2];
    xpbd::rope(&x0, 0.0, &mut links).unwrap();
    let mut good = SkinConstraint::new(1, [0.0, -0.1, 0.0], [0.0, 0.0, 1.0]);
    good.max_distance = 0.01;
    good.backstop_radius = 0.2;
    good.lambda = [-1.0, 2.0];
    good.previous = [0.0, -0.05, 0.0];
    type Case = (
        &'static str,
        fn(&mut SkinConstraint<f64>),
        fn(usize) -> SystemError,
    );
    let rest = |c| SystemError::InvalidRestValue { constraint: c };
    let cases: [Case; 11] = [
        (
            "index",
            |c| c.particle = 3,
            |c| SystemError::IndexOutOfRange { constraint: c },
        ),
        ("NaN target", |c| c.target[1] = f64::NAN, rest),
        ("infinite previous", |c| c.previous[2] = f64::INFINITY, rest),
        ("negative max distance", |c| c.max_distance = -0.01, rest),
        ("NaN max distance", |c| c.max_distance = f64::NAN, rest),
        (
            "negative backstop radius",
            |c| c.backstop_radius = -0.1,
            rest,
        ),
        (
            "NaN backstop distance",
            |c| c.backstop_distance = f64::NAN,
            rest,
        ),
        ("missing normal", |c| c.target_normal = [0.0; 3], rest),
        ("NaN normal", |c| c.previous_normal[0] = f64::NAN, rest),
        (
            "negative compliance",
            |c| c.compliance = -1.0,
            |c| SystemError::InvalidCompliance { constraint: c },
        ),
        (
            "NaN backstop compliance",
            |c| c.backstop_compliance = f64::NAN,
            |c| SystemError::InvalidCompliance { constraint: c },
        ),
    ];
    let config = StepConfig::<f64, 3>::default();
    for (name, spoil, error) in cases {
        let mut skin = vec![good, good];
        spoil(&mut skin[1]);
        let before = skin.clone();
        let mut scene = Scene::new(x0.clone(), vec![0.0, 1.0, 1.0], links.clone(), skin);
        scene.v[2] = [0.3, 0.0, 0.0];
        let (x, v) = (scene.x.clone(), scene.v.clone());
        // Named after the two links and the first skinned constraint.
        let e = scene.step(&config).unwrap_err();
        assert_eq!(e, StepError::System(error(3)), "{name}");
        assert_eq!(scene.x, x, "{name}");
        assert_eq!(scene.v, v, "{name}");
        assert_eq!(format!("{:?}", scene.skin), format!("{before:?}"), "{name}");
    }
    // Without a backstop the normals are not read: 0 is fine.
    let mut free = good;
    free.backstop_radius = 0.0;
    free.target_normal = [0.0; 3];
    let mut scene = Scene::new(x0.clone(), vec![0.0, 1.0, 1.0], links.clone(), vec![free]);
    scene.step(&config).unwrap();
    // The scale is checked with the configuration.
    for bad in [-1.0, f64::NAN, f64::INFINITY] {
        let mut scene = Scene::new(x0.clone(), vec![0.0, 1.0, 1.0], links.clone(), vec![good]);
        let mut config = config;
        config.max_distance_scale = bad;
        let e = scene.step(&config).unwrap_err();
        assert_eq!(
            e,
            StepError::InvalidConfig {
                field: Field::MaxDistanceScale
            }
        );
        assert_eq!(scene.x, x0);
    }
}

#[test]
fn colored_job_views_give_the_sequential_bits() {
    let n = if cfg!(miri) { 4 } else { 24 };
    let x0: Vec<[f64; 3]> = (0..n).map(|k| [k as f64 * 0.1, 0.0, 0.0]).collect();
    let w: Vec<f64> = (0..n)
        .map(|k| if k % 5 == 0 { 0.0 } else { 1.0 + k as f64 })
        .collect();
    let skin: Vec<SkinConstraint<f64>> = (0..n as u32)
        .map(|k| {
            let p = [k as f64 * 0.1 + 0.02, 0.03 * k as f64, -0.04];
            let mut c = SkinConstraint::new(k, p, [0.0, 1.0, 0.3 * k as f64]);
            c.max_distance = 0.01 * (k % 3) as f64;
            c.compliance = 1e-6 * k as f64;
            c.backstop_distance = -0.02;
            c.backstop_radius = if k % 2 == 0 { 0.05 } else { 0.0 };
            c
        })
        .collect();
    let run = |mode: u8| {
        let mut x = x0.clone();
        let mut s = skin.clone();
        let mut sys = System::new(&mut x, &w, &mut [])
            .unwrap()
            .with_constraints(Constraints {
                skin_constraints: &mut s,
                ..Constraints::default()
            });
        let mut sub = sys.begin_substep(1e-2).unwrap();
        for _ in 0..3 {
            match mode {
                0 => {
                    sub.iterate().unwrap();
                }
                1 => {
                    sub.iterate_colored(&GroupColors::default()).unwrap();
                }
                _ => {
                    let mut stamp = vec![0u32; n];
                    let mut view = sub.colored(GroupColors::default(), &mut stamp).unwrap();
                    let colors = view.color_count(Group::SkinConstraints);
                    assert_eq!(colors, n);
                    for c in 0..colors {
                        for job in view.jobs(Group::SkinConstraints, c, 3).unwrap() {
                            job.run().unwrap();
                        }
                    }
                }
            }
        }
        (x, s)
    };
    let (xs, ss) = run(0);
    assert_ne!(xs, x0);
    assert!(ss.iter().any(|c| c.lambda[0] < 0.0) && ss.iter().any(|c| c.lambda[1] > 0.0));
    for mode in [1, 2] {
        let (x, s) = run(mode);
        assert_eq!(format!("{x:?}"), format!("{xs:?}"));
        assert_eq!(format!("{s:?}"), format!("{ss:?}"));
    }
}

/// One substep of a single particle held by `c` (the System API, no
/// gravity): the position after `iterations` iterations, and λ.
fn one_substep(
    c: SkinConstraint<f64>,
    x0: [f64; 3],
    h: f64,
    iterations: usize,
) -> ([f64; 3], [f64; 2]) {
    let mut x = vec![x0];
    let w = [1.0];
    let mut s = [c];
    {
        let mut sys = System::new(&mut x, &w, &mut [])
            .unwrap()
            .with_constraints(Constraints {
                skin_constraints: &mut s,
                ..Constraints::default()
            });
        let mut sub = sys.begin_substep(h).unwrap();
        for _ in 0..iterations {
            sub.iterate().unwrap();
        }
    }
    (x[0], s[0].lambda)
}

fn norm(a: [f64; 3], b: [f64; 3]) -> f64 {
    (0..3).map(|i| (a[i] - b[i]).powi(2)).sum::<f64>().sqrt()
}

#[test]
#[cfg_attr(miri, ignore)] // safe Rust only
fn rigid_limits_project_onto_their_spheres_and_degenerate_points_stay_finite() {
    // Known configurations (α = 0, one iteration): a particle outside its
    // max distance lands on the sphere of radius R around p along x − p;
    // one inside its backstop lands on the backstop sphere along x − c.
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut rnd = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64 - 0.5
    };
    for _ in 0..200 {
        let p = [rnd(), rnd(), rnd()];
        let mut c = SkinConstraint::new(0, p, [0.0; 3]);
        c.max_distance = 0.1 + 0.2 * (rnd() + 0.5);
        let x0 = [p[0] + 2.0 * rnd(), p[1] + 2.0 * rnd(), p[2] + 2.0 * rnd()];
        let (x, l) = one_substep(c, x0, 1e-2, 1);
        let d = norm(x0, p);
        if d > c.max_distance {
            let want: [f64; 3] =
                core::array::from_fn(|i| p[i] + (x0[i] - p[i]) * c.max_distance / d);
            assert!(norm(x, want) < 1e-12, "{x:?} vs {want:?}");
            // λ = −C/W: the whole violation (kg·m with w = 1/kg).
            assert!((l[0] + (d - c.max_distance)).abs() < 1e-12);
        } else {
            assert_eq!(x, x0);
            assert_eq!(l, [0.0, 0.0]);
        }
        let n = [rnd(), 1.0, rnd()];
        let len = norm(n, [0.0; 3]);
        let mut b = SkinConstraint::new(0, p, n);
        (b.backstop_distance, b.backstop_radius) = (0.1 * rnd(), 0.3);
        let centre: [f64; 3] =
            core::array::from_fn(|i| p[i] - n[i] / len * (b.backstop_distance + 0.3));
        let x0 = [
            centre[0] + 0.4 * rnd(),
            centre[1] + 0.4 * rnd(),
            centre[2] + 0.4 * rnd(),
        ];
        let (x, l) = one_substep(b, x0, 1e-2, 1);
        let d = norm(x0, centre);
        if d < 0.3 {
            let want: [f64; 3] =
                core::array::from_fn(|i| centre[i] + (x0[i] - centre[i]) * 0.3 / d);
            assert!(norm(x, want) < 1e-12, "{x:?} vs {want:?}");
            assert!((l[1] - (0.3 - d)).abs() < 1e-12);
        } else {
            assert_eq!(x, x0);
        }
    }
    // Degenerate: x = p with R = 0 (pinned, already there): nothing moves,
    // no NaN; x = c: pushed out along the normal.
    let mut pin = SkinConstraint::new(0, [0.5, 0.5, 0.5], [0.0; 3]);
    pin.max_distance = 0.0;
    assert_eq!(
        one_substep(pin, [0.5, 0.5, 0.5], 1e-2, 3),
        ([0.5, 0.5, 0.5], [0.0, 0.0])
    );
    let mut back = SkinConstraint::new(0, [0.0, 1.0, 0.0], [0.0, 2.0, 0.0]);
    (back.backstop_distance, back.backstop_radius) = (0.0, 0.5);
    let (x, l) = one_substep(back, [0.0, 0.5, 0.0], 1e-2, 1);
    assert!(
        norm(x, [0.0, 1.0, 0.0]) < 1e-15 && (l[1] - 0.5).abs() < 1e-15,
        "{x:?} {l:?}"
    );
    // A difference beyond the float range: degenerate, named (the default
    // policy rejects it), nothing written.
    let mut far = SkinConstraint::new(0, [-1e308, 0.0, 0.0], [0.0; 3]);
    far.max_distance = 0.1;
    let mut x = vec![[1e308, 0.0, 0.0]];
    let mut s = [far];
    {
        let mut sys = System::new(&mut x, &[1.0], &mut [])
            .unwrap()
            .with_constraints(Constraints {
                skin_constraints: &mut s,
                ..Constraints::default()
            });
        let mut sub = sys.begin_substep(1e-2).unwrap();
        assert_eq!(
            sub.iterate().unwrap_err(),
            SystemError::Degenerate { constraint: 0 }
        );
    }
    assert_eq!((x[0], s[0].lambda), ([1e308, 0.0, 0.0], [0.0; 2]));
}

#[test]
#[cfg_attr(miri, ignore)] // safe Rust only
fn compliant_limits_settle_where_alpha_over_h_squared_says_whatever_the_iterations() {
    // A particle 0.1 m beyond a max distance (w = 1/kg, α = 1e-4 m/N):
    // the substep's fixed point is C + α̃λ = 0 with λ = −(C₀ − C)/w, so
    // C = C₀ α̃/(w + α̃); 1 and 20 iterations agree, and halving h makes
    // α̃ four times larger, as α/h² says.
    let mut c = SkinConstraint::new(0, [0.0; 3], [0.0; 3]);
    (c.max_distance, c.compliance) = (0.2, 1e-4);
    let excess = |x: [f64; 3]| norm(x, [0.0; 3]) - 0.2;
    for h in [1e-2, 5e-3] {
        let alpha = 1e-4 / (h * h);
        let want = 0.1 * alpha / (1.0 + alpha);
        let (x1, l1) = one_substep(c, [0.3, 0.0, 0.0], h, 1);
        let (x20, l20) = one_substep(c, [0.3, 0.0, 0.0], h, 20);
        assert!(
            (excess(x1) - want).abs() < 1e-15,
            "{h}: {} vs {want}",
            excess(x1)
        );
        assert!((excess(x20) - want).abs() < 1e-15, "{h}: {}", excess(x20));
        assert!((excess(x1) + alpha * l1[0]).abs() < 1e-15);
        assert!((l20[0] - l1[0]).abs() < 1e-15);
    }
}
