//! The colored frame on structure-of-arrays scratch (issue 34, third to
//! sixth stages: `step_colored` on a host in 3D with links, bends, tets,
//! tethers, attachments and skinned constraints, planes, spheres,
//! capsules and boxes): it
//! gives exactly the bits of the sequential `step` on the same
//! (colored-ordered) world — positions, velocities, every λ, the
//! attachments' impulses and forces, the whole contact buffer and the
//! statistics — on every job system and every vector level, with the
//! contacts in λ arrays and as a list (a fourth collider, a capsule, a
//! box). A module of the `colored_step` test program (one program fewer
//! to build and link).

use super::coloring::{colored, colored_moving};
use super::jobs::{Reversed, Threads};
use super::{config, V};
use xpbd::colored::Isa;
use xpbd::step::{
    scratch_len, step, step_colored, step_colored_on, AeroTriangle, Capsule, Colliders, Contact,
    Heightfield, Jobs, LocalSpace, OneThread, OrientedBox, Plane, Sdf, Sphere, StepStats,
    Transform, Wind, World,
};
use xpbd::{
    bends_count_for_cloth, bends_for_cloth, cloth, cloth_link_count, tet_block, tet_block_counts,
    tet_block_link_count, tet_block_links, tethers, Attachment, Bend, Constraints, GroupColors,
    Link, SkinConstraint, Tet, Tether,
};

/// Small scenes (CI step 56, under qemu-aarch64).
fn small() -> bool {
    std::env::var_os("XPBD_SMALL_SCENES").is_some()
}

/// A cloth on the SoA frame (`step_colored` in 3D with links and at most
/// three planes): pinned corners, one of them kinematic (w = 0 with a
/// velocity), three planes (a floor and two tilted walls, normals not of
/// unit length), damping, friction, two iterations, and with `tolerance`
/// a tolerance; with `character` in wind (every triangle of the cloth,
/// a gust per particle) and in the local space of a root that moves and
/// turns every frame, with inertia scaling and every clamp acting. Frames
/// on `jobs` (`None`: `step`); per frame the bits of x, v, every λ and
/// the whole contact buffer, and the statistics.
#[allow(clippy::too_many_arguments)] // the scene's switches, a test's
fn soa_cloth(
    planes: usize,
    spheres: usize,
    moving: bool,
    tolerance: f64,
    kinds: bool,
    character: bool,
    jobs: Option<&dyn Jobs>,
    isa: Option<Isa>,
) -> (Vec<Vec<u64>>, Vec<StepStats<f64>>) {
    // Unoptimised (the CI's test step): 33² = 1,089 particles, still two
    // particle tasks (1,024 each at least; under Miri 16 particles, tasks
    // of 8 there).
    let side = if cfg!(miri) {
        4
    } else if small() {
        12
    } else if cfg!(debug_assertions) {
        33
    } else {
        40
    };
    let (n, s) = (side * side, 0.01);
    let mut x: Vec<V> = (0..n)
        .map(|k| [(k % side) as f64 * s, 0.02, (k / side) as f64 * s])
        .collect();
    let mut v: Vec<V> = (0..n).map(|k| [0.05 * (k % 5) as f64, -0.4, 0.0]).collect();
    let mut w = vec![1.0; n];
    w[0] = 0.0;
    w[side - 1] = 0.0;
    v[0] = [0.0; 3];
    v[side - 1] = [0.02, 0.0, -0.01];
    let mut links = vec![Link::default(); cloth_link_count(side, side, true).unwrap()];
    cloth(&x, side, side, true, 1e-6, &mut links).unwrap();
    let (mut links, starts) = colored(&links, n);
    // With `kinds`: bends, and tethers to the pinned corner 0 (colored
    // over the moving particles: they share the anchor).
    let mut bends = vec![
        Bend::default();
        if kinds {
            bends_count_for_cloth(side, side)
        } else {
            0
        }
    ];
    if kinds {
        bends_for_cloth(&x, side, side, 1e-3, &mut bends).unwrap();
    }
    let (mut bends, bend_starts) = colored(&bends, n);
    let mut tether = vec![Tether::new(1, 0, 1.0, 0.0); if kinds { n } else { 0 }];
    let t = if kinds {
        tethers(&x, &w, &[0], 0.0, &mut tether).unwrap()
    } else {
        0
    };
    tether.truncate(t);
    let (mut tethers, tether_starts) = colored_moving(&tether, &w);
    // With `kinds`, attachments too: the corner's neighbours and the far
    // corner held at points that move every frame, one rigid.
    let mut held: Vec<Attachment<f64>> = if kinds {
        vec![
            Attachment::new(1, x[1], 1e-4),
            Attachment::new(side as u32, x[side], 0.0),
            Attachment::new((n - 1) as u32, x[n - 1], 1e-3),
        ]
    } else {
        Vec::new()
    };
    // With `kinds`, skinned constraints too: a row of particles within a
    // max distance of skinned points that sway every frame, one of them
    // pinned (0), two with backstops behind them along tilted normals.
    let mut skin: Vec<SkinConstraint<f64>> = if kinds {
        (0..side.min(10))
            .map(|k| {
                let p = (side + k) as u32;
                let mut c = SkinConstraint::new(p, x[side + k], [0.1 * k as f64, 1.0, 0.2]);
                c.max_distance = 0.004 * k as f64;
                c.compliance = if k % 2 == 0 { 0.0 } else { 1e-4 };
                if k >= 3 {
                    c.backstop_distance = 0.002;
                    c.backstop_radius = 0.05;
                    c.backstop_compliance = 1e-5 * (k - 3) as f64;
                }
                c
            })
            .collect()
    } else {
        Vec::new()
    };
    let all = [
        Plane {
            normal: [0.0, 2.0, 0.0],
            offset: 0.0,
        },
        Plane {
            normal: [1.0, 0.3, 0.0],
            offset: 0.05,
        },
        Plane {
            normal: [-0.2, 0.1, -1.0],
            offset: -0.3,
        },
        Plane {
            normal: [0.0, 0.0, 1.0],
            offset: -1.0,
        },
    ];
    let planes = &all[..planes];
    // Under the cloth's middle, the first one touched in the fall.
    let mid = side as f64 * s / 2.0;
    let balls = [
        Sphere {
            center: [mid, -0.05, mid],
            radius: 0.065,
        },
        Sphere {
            center: [0.0, 0.0, 0.0],
            radius: 0.02,
        },
        Sphere {
            center: [mid * 2.0, -0.2, 0.0],
            radius: 0.21,
        },
    ];
    let spheres = &balls[..spheres];
    // With `moving`: a spinning capsule rising into the cloth's middle,
    // and a box turning as it slides in under a corner (the list's
    // contacts: `soa_list`), with frictions of their own.
    let mut capsule = Capsule::new([mid, -0.01, mid], [0.12, 0.0, 0.03], 0.02);
    capsule.velocity = [0.0, 0.25, 0.05];
    capsule.angular_velocity = [0.0, 2.0, 0.5];
    (capsule.static_friction, capsule.dynamic_friction) = (0.4, 0.3);
    let capsules = [capsule];
    let mut cube = OrientedBox::new([-0.05, 0.0, mid * 1.5], [0.06, 0.03, 0.05]);
    cube.velocity = [0.3, 0.0, 0.0];
    cube.angular_velocity = [0.0, 1.5, 0.0];
    (cube.static_friction, cube.dynamic_friction) = (0.2, 0.1);
    let cubes = [cube];
    // And a bumpy heightfield rising and turning under the cloth, and a
    // signed distance field's sphere rising into it (fields: the list).
    let mut ground = Heightfield::new([-0.25, 0.0, -0.25], [0.25, 0.25], [3, 3], 0);
    ground.center = [0.2, -0.004, 0.2];
    ground.velocity = [0.0, 0.03, 0.0];
    ground.angular_velocity = [0.0, 0.4, 0.0];
    (ground.static_friction, ground.dynamic_friction) = (0.3, 0.2);
    let ball = {
        let mut b = Sdf::new([-0.045; 3], 0.03, [4, 4, 4], 9);
        b.center = [mid * 0.5, -0.012, mid * 1.2];
        b.velocity = [0.0, 0.3, 0.0];
        b.dynamic_friction = 0.1;
        b
    };
    let mut samples = vec![0.0, 0.004, 0.0, 0.002, 0.008, 0.001, 0.0, 0.003, 0.006];
    for k in 0..4 {
        for j in 0..4 {
            for i in 0..4 {
                let p = [i, j, k].map(|c| -0.045 + 0.03 * c as f64);
                samples.push((p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt() - 0.03);
            }
        }
    }
    let (grounds, balls) = ([ground], [ball]);
    let (capsules, cubes, heightfields, sdfs): (&[_], &[_], &[_], &[_]) = if moving {
        (&capsules, &cubes, &grounds, &balls)
    } else {
        (&[], &[], &[], &[])
    };
    // With `character`: the cloth's triangles in wind, a gust per
    // particle, and a root that slides and turns.
    let triangles: Vec<AeroTriangle<f64>> = if character {
        (0..side - 1)
            .flat_map(|r| (0..side - 1).map(move |c| (r * side + c) as u32))
            .flat_map(|a| {
                let side = side as u32;
                [
                    AeroTriangle::new([a, a + 1, a + side]),
                    AeroTriangle {
                        drag: 0.8,
                        lift: 0.4,
                        ..AeroTriangle::new([a + 1, a + side + 1, a + side])
                    },
                ]
            })
            .collect()
    } else {
        Vec::new()
    };
    let gusts: Vec<V> = (0..n).map(|k| [0.0, 0.3 * (k % 3) as f64, 0.1]).collect();
    let mut local = LocalSpace {
        linear_inertia: 0.6,
        angular_inertia: 0.8,
        max_linear_velocity: 1.5,
        max_angular_velocity: 4.0,
        max_linear_acceleration: 30.0,
        max_angular_acceleration: 60.0,
        ..LocalSpace::new(Transform::identity())
    };
    let colliders = planes.len()
        + spheres.len()
        + capsules.len()
        + cubes.len()
        + heightfields.len()
        + sdfs.len();
    let mut contacts = vec![Contact::default(); n * colliders];
    let mut scratch = vec![[0.0; 3]; scratch_len(n, links.len())];
    let mut stamp = vec![0u32; n];
    let mut config = config();
    // Under Miri one substep (a later one runs the same tasks and kernels).
    config.substeps = if cfg!(miri) { 1 } else { 4 };
    config.tolerance = tolerance;
    if moving {
        // The box shoves the cloth along the floor and may fold two of
        // its particles onto one point: skipped, as `step` skips it.
        config.zero_length = xpbd::ZeroLength::Skip;
    }
    let colors = GroupColors {
        links: &starts,
        bends: &bend_starts,
        tets: &[],
        tethers: &tether_starts,
    };
    let (mut bits, mut stats) = (Vec::new(), Vec::new());
    let mut touched = vec![false; colliders];
    let frames = if cfg!(miri) {
        1
    } else if small() {
        8
    } else if cfg!(debug_assertions) {
        12
    } else {
        30
    };
    for frame in 0..frames {
        for (k, a) in held.iter_mut().enumerate() {
            let t = frame as f64;
            a.target = [
                a.previous[0] + 0.002 * (k as f64 + 1.0),
                a.previous[1] + 0.001 * (t * 0.7).sin(),
                a.previous[2] - 0.001 * k as f64,
            ];
        }
        for (k, c) in skin.iter_mut().enumerate() {
            let t = frame as f64 + k as f64;
            c.target = [
                c.previous[0] + 0.003 * (t * 0.9).sin(),
                c.previous[1] - 0.004,
                c.previous[2] + 0.002 * (t * 0.4).cos(),
            ];
            c.target_normal = [0.3 * (t * 0.5).sin(), 1.0, 0.1];
        }
        let t = frame as f64 / 60.0;
        local.target.translation = [0.5 * t * t, 0.0, 0.1 * (5.0 * t).sin()];
        let half = 1.5 * t * t;
        local.target.rotation = [0.0, half.sin(), 0.0, half.cos()];
        let mut world = World::new(&mut x, &mut v, &w, &mut contacts, &mut scratch);
        world.links = &mut links;
        world.colliders = Some(Colliders {
            planes,
            spheres,
            capsules,
            boxes: cubes,
            heightfields,
            sdfs,
            samples: &samples,
        });
        if character {
            world.wind = Some(Wind {
                velocity: [4.0, 0.5, -2.0 + t],
                particle_velocities: &gusts,
                density: 1.225,
                ..Wind::new(&triangles)
            });
            world.local_space = Some(&mut local);
        }
        world.groups = Some(Constraints {
            bends: &mut bends,
            tethers: &mut tethers,
            attachments: &mut held,
            skin_constraints: &mut skin,
            ..Default::default()
        });
        let dt = 1.0 / 60.0;
        let r = match (jobs, isa) {
            (None, _) => step(&mut world, dt, &config),
            (Some(jobs), None) => step_colored(&mut world, &colors, &mut stamp, dt, &config, jobs),
            (Some(jobs), Some(isa)) => {
                step_colored_on(&mut world, &colors, &mut stamp, dt, &config, jobs, isa)
            }
        };
        stats.push(r.unwrap());
        let pushed = stats
            .last()
            .map_or(0, |s| s.max_contacts)
            .min(contacts.len());
        for c in contacts.iter().take(pushed).filter(|c| c.lambda > 0.0) {
            touched[c.collider as usize] = true;
        }
        let contact_bits = contacts.iter().flat_map(|c| {
            [
                u64::from(c.particle) << 32 | u64::from(c.collider),
                c.lambda.to_bits(),
            ]
        });
        bits.push(
            x.iter()
                .chain(&v)
                .flatten()
                .map(|c| c.to_bits())
                .chain(links.iter().map(|l| l.lambda.to_bits()))
                .chain(bends.iter().map(|b| b.lambda.to_bits()))
                .chain(tethers.iter().map(|t| t.lambda.to_bits()))
                .chain(held.iter().flat_map(|a| {
                    [a.lambda, a.impulse, a.force, a.previous]
                        .into_iter()
                        .flatten()
                        .map(f64::to_bits)
                }))
                .chain(skin.iter().flat_map(|c| {
                    c.lambda
                        .into_iter()
                        .chain(c.previous)
                        .chain(c.previous_normal)
                        .map(f64::to_bits)
                }))
                .chain(contact_bits)
                .chain(
                    [local.linear_velocity, local.angular_velocity]
                        .into_iter()
                        .flatten()
                        .chain(local.previous.translation)
                        .chain(local.previous.rotation)
                        .map(f64::to_bits),
                )
                .collect(),
        );
    }
    // The fields push the cloth in some frame (the last two colliders).
    assert!(
        heightfields.is_empty() || frames < 8 || touched[colliders - 2..].iter().all(|&t| t),
        "{touched:?}"
    );
    (bits, stats)
}

/// The SoA frame gives the sequential frame's bits, contact buffer and
/// statistics on every job system, with one to three planes (the SoA
/// passes), with four (the AoS passes), with a tolerance, and with bends
/// and tethers (their λ too); and on every vector level this machine has
/// (its particle passes and link kernels at the baseline, AVX2, AVX-512
/// or NEON).
#[test]
fn the_soa_frame_gives_the_sequential_bits_contacts_and_statistics() {
    // (planes, spheres, a capsule and a box, tolerance, bends and tethers,
    // wind and local space)
    let cases: &[(usize, usize, bool, f64, bool, bool)] = if cfg!(miri) || small() {
        // Under the interpreter one case: the contact list through four
        // planes (capsules and boxes: the same list, in slow soft-float
        // square roots there; the SoA passes of up to three planes and
        // spheres, and the groups' SoA views with the lagged kinds'
        // windows, run under it in the tet block test, the other
        // colored_step tests and the unit tests; with the kinds here it
        // took 36 s, without 17 s).
        if cfg!(miri) {
            &[(4, 0, false, 0.0, false, false)]
        } else {
            &[
                (2, 1, false, 0.0, true, false),
                (1, 0, true, 0.0, false, true),
            ]
        }
    } else if cfg!(debug_assertions) {
        // The CI's test step (unoptimised): one case per path.
        &[
            (4, 0, false, 0.0, false, false),
            (3, 0, false, 0.05, false, false),
            (1, 1, false, 0.0, false, false),
            (1, 2, false, 0.0, true, false),
            (1, 1, true, 0.0, true, true),
        ]
    } else {
        &[
            (1, 0, false, 0.0, false, false),
            (3, 0, false, 0.0, false, false),
            (4, 0, false, 0.0, false, false),
            (3, 0, false, 0.05, false, false),
            (1, 0, false, 0.0, true, false),
            (3, 0, false, 0.0, true, false),
            (1, 1, false, 0.0, false, false),
            (1, 2, false, 0.0, true, false),
            (0, 3, false, 0.0, false, false),
            (2, 3, false, 0.0, false, false),
            (0, 0, true, 0.0, false, false),
            (1, 1, true, 0.0, true, false),
            (2, 0, true, 0.05, false, false),
            (1, 1, false, 0.0, true, true),
            (2, 0, true, 0.0, false, true),
            (3, 0, false, 0.05, false, true),
        ]
    };
    for &(planes, spheres, moving, tolerance, kinds, character) in cases {
        let colliders = planes + spheres + if moving { 4 } else { 0 };
        let (reference, stats) = soa_cloth(
            planes, spheres, moving, tolerance, kinds, character, None, None,
        );
        // Every collider is touched at some frame, and contacts come and go.
        let most = stats.iter().map(|s| s.max_contacts).max().unwrap();
        assert!(most > colliders, "{colliders} colliders: {most} contacts");
        // With the tolerance, some substeps stop early and some do not.
        let converged: u32 = stats.iter().map(|s| s.converged_substeps).sum();
        let substeps: u32 = stats.iter().map(|s| s.substeps).sum();
        assert!(tolerance == 0.0 || (converged > 0 && converged < substeps));
        let systems: Vec<(&str, Box<dyn Jobs>)> = if cfg!(miri) || small() {
            vec![(
                "2 threads",
                Box::new(Threads {
                    threads: 2,
                    split: 2,
                }),
            )]
        } else {
            vec![
                ("1 thread", Box::new(OneThread)),
                (
                    "2 threads",
                    Box::new(Threads {
                        threads: 2,
                        split: 2,
                    }),
                ),
                (
                    "3 threads",
                    Box::new(Threads {
                        threads: 3,
                        split: 7,
                    }),
                ),
                (
                    "7 threads",
                    Box::new(Threads {
                        threads: 7,
                        split: 32,
                    }),
                ),
                ("reversed", Box::new(Reversed(9))),
            ]
        };
        let mut runs: Vec<(String, &dyn Jobs, Option<Isa>)> = systems
            .iter()
            .map(|(name, jobs)| (name.to_string(), jobs.as_ref(), None))
            .collect();
        if !cfg!(miri) {
            let all = Isa::detect();
            for bits in [0, Isa::AVX2_BIT, Isa::NEON_BIT] {
                let isa = all.restrict(bits);
                runs.push((isa.kernel_name().to_string(), &OneThread, Some(isa)));
            }
        }
        for (name, jobs, isa) in runs {
            let (bits, s) = soa_cloth(
                planes,
                spheres,
                moving,
                tolerance,
                kinds,
                character,
                Some(jobs),
                isa,
            );
            for f in 0..bits.len() {
                assert_eq!(
                    s[f], stats[f],
                    "{planes} planes, {spheres} spheres, moving {moving}, {name}: statistics of frame {f}"
                );
                assert!(
                    bits[f] == reference[f],
                    "{planes} planes, {spheres} spheres, moving {moving}, {name}: bits of frame {f}"
                );
            }
        }
    }
}

/// A tet block (its tets and their edges as links, each group in colored
/// order) thrown spinning onto the ground next to a sphere: `step`, then
/// `step_colored` on the SoA frame (the tets on their in-place kernels,
/// pairs of a color at once, over the coordinate arrays) on every job
/// system and vector level: the same bits (x, v, the links' and tets' λ,
/// the contact buffer) and statistics.
#[test]
fn a_tet_block_on_the_soa_frame_gives_the_sequential_bits() {
    let cells = if cfg!(miri) {
        1
    } else if small() {
        2
    } else {
        4
    };
    let (n, count) = tet_block_counts(cells, cells, cells).unwrap();
    let mut x = vec![[0.0; 3]; n];
    let mut tets = vec![Tet::default(); count];
    tet_block(
        cells,
        cells,
        cells,
        0.02,
        [0.0, 0.015, 0.0],
        &mut x,
        &mut tets,
        1e-7,
    )
    .unwrap();
    let mut links = vec![Link::default(); tet_block_link_count(cells, cells, cells).unwrap()];
    tet_block_links(&x, cells, cells, cells, 1e-8, &mut links).unwrap();
    let (links, link_starts) = colored(&links, n);
    let (tets, tet_starts) = colored(&tets, n);
    // Spinning about y, falling.
    let v: Vec<V> = x
        .iter()
        .map(|p| [-3.0 * (p[2] - 0.04), -0.5, 3.0 * (p[0] - 0.04)])
        .collect();
    let planes = [Plane {
        normal: [0.0, 1.0, 0.0],
        offset: 0.0,
    }];
    let spheres = [Sphere {
        center: [0.1, 0.0, 0.04],
        radius: 0.05,
    }];
    let mut config = config();
    // Under Miri one substep (a later one runs the same tasks and kernels).
    config.substeps = if cfg!(miri) { 1 } else { 4 };
    let frames = if cfg!(miri) {
        1
    } else if small() {
        6
    } else {
        20
    };
    let colors = GroupColors {
        links: &link_starts,
        tets: &tet_starts,
        ..Default::default()
    };
    let run = |jobs: Option<&dyn Jobs>, isa: Option<Isa>| {
        let (mut x, mut v, w) = (x.clone(), v.clone(), vec![1.0; n]);
        let (mut links, mut tets) = (links.clone(), tets.clone());
        let mut contacts = vec![Contact::default(); 2 * n];
        let mut scratch = vec![[0.0; 3]; scratch_len(n, links.len())];
        let mut stamp = vec![0u32; n];
        let (mut bits, mut stats) = (Vec::new(), Vec::new());
        for _ in 0..frames {
            let mut world = World::new(&mut x, &mut v, &w, &mut contacts, &mut scratch);
            world.links = &mut links;
            world.colliders = Some(Colliders {
                planes: &planes,
                spheres: &spheres,
                ..Default::default()
            });
            world.groups = Some(Constraints {
                tets: &mut tets,
                ..Default::default()
            });
            let dt = 1.0 / 60.0;
            let r = match (jobs, isa) {
                (None, _) => step(&mut world, dt, &config),
                (Some(j), None) => step_colored(&mut world, &colors, &mut stamp, dt, &config, j),
                (Some(j), Some(isa)) => {
                    step_colored_on(&mut world, &colors, &mut stamp, dt, &config, j, isa)
                }
            };
            stats.push(r.unwrap());
            bits.push(
                x.iter()
                    .chain(&v)
                    .flatten()
                    .map(|c| c.to_bits())
                    .chain(links.iter().map(|l| l.lambda.to_bits()))
                    .chain(tets.iter().map(|t| t.lambda.to_bits()))
                    .chain(contacts.iter().map(|c| c.lambda.to_bits()))
                    .collect::<Vec<u64>>(),
            );
        }
        (bits, stats)
    };
    let (reference, stats) = run(None, None);
    // The block lands: contacts with the ground and the sphere.
    let most = stats.iter().map(|s| s.max_contacts).max().unwrap();
    assert!(most > 0, "no contact");
    // Under Miri (the view's raw reads and writes): three threads only.
    let mut systems: Vec<(String, Box<dyn Jobs>, Option<Isa>)> = vec![(
        "3 threads".into(),
        Box::new(Threads {
            threads: 3,
            split: 7,
        }),
        None,
    )];
    if !cfg!(miri) {
        systems.push(("1 thread".into(), Box::new(OneThread), None));
        systems.push(("reversed".into(), Box::new(Reversed(5)), None));
        let all = Isa::detect();
        for b in [0, Isa::AVX2_BIT, Isa::NEON_BIT] {
            let isa = all.restrict(b);
            systems.push((isa.kernel_name().into(), Box::new(OneThread), Some(isa)));
        }
    }
    for (name, jobs, isa) in &systems {
        let (bits, s) = run(Some(jobs.as_ref()), *isa);
        for f in 0..frames {
            assert_eq!(s[f], stats[f], "{name}: statistics of frame {f}");
            assert!(bits[f] == reference[f], "{name}: bits of frame {f}");
        }
    }
}

/// An attachment's frame force beyond the float range (a particle of
/// 2·10³⁷ kg held rigidly 2 m from its point, in f32) fails
/// `step_colored` as it fails `step`: the same error naming the
/// particle, positions, velocities and the attachments' points and
/// forces untouched (the SoA frame, which takes attachments, gives the
/// frame to the checked one); with a particle of 1 kg both succeed with
/// the same bits.
#[test]
fn an_unrepresentable_attachment_force_fails_the_soa_frame_as_the_sequential_one() {
    let run = |colored: bool, heavy: bool| {
        let mut x: Vec<[f32; 3]> = vec![[0.0, 0.0, 0.0], [3.0, 0.0, 0.0], [3.0, 1.0, 0.0]];
        let mut v = vec![[0.0f32; 3]; 3];
        let w = vec![if heavy { 5e-38 } else { 1.0 }, 1.0, 1.0];
        let mut links = vec![Link::new(1, 2, 1.0, 0.0)];
        let mut held = vec![
            Attachment {
                force: [7.0; 3],
                ..Attachment::new(1, [3.0, 0.0, 0.0], 0.0)
            },
            Attachment {
                force: [7.0; 3],
                ..Attachment::new(0, [0.0; 3], 0.0)
            },
        ];
        held[1].target = [2.0, 0.0, 0.0];
        let mut contacts = vec![Contact::default(); 6];
        let mut scratch = vec![[0.0f32; 3]; scratch_len(3, 1)];
        let mut stamp = vec![0u32; 3];
        let mut config = xpbd::step::StepConfig::<f32, 3>::new([0.0, -9.81, 0.0]);
        config.substeps = 1;
        let ground = [Plane {
            normal: [0.0, 1.0, 0.0],
            offset: -1.0,
        }];
        let starts = [0usize, 1];
        let colors = GroupColors {
            links: &starts,
            ..Default::default()
        };
        let before = (x.clone(), v.clone());
        let mut world = World::new(&mut x, &mut v, &w, &mut contacts, &mut scratch);
        world.links = &mut links;
        world.colliders = Some(Colliders {
            planes: &ground,
            ..Default::default()
        });
        world.groups = Some(Constraints {
            attachments: &mut held,
            ..Default::default()
        });
        let r = if colored {
            step_colored(
                &mut world,
                &colors,
                &mut stamp,
                1.0 / 60.0,
                &config,
                &OneThread,
            )
            .map(|_| ())
        } else {
            step(&mut world, 1.0 / 60.0, &config).map(|_| ())
        };
        if heavy {
            assert_eq!((x.clone(), v.clone()), before);
        }
        let forces_kept = held.iter().all(|a| a.force == [7.0; 3]);
        let bits: Vec<u32> = x
            .iter()
            .chain(&v)
            .flatten()
            .chain(held.iter().flat_map(|a| a.previous.iter().chain(&a.force)))
            .map(|c| c.to_bits())
            .collect();
        (r, bits, forces_kept)
    };
    for heavy in [true, false] {
        let (sequential, colored) = (run(false, heavy), run(true, heavy));
        assert_eq!(
            sequential.0,
            if heavy {
                Err(xpbd::step::StepError::InvalidResult { particle: 0 })
            } else {
                Ok(())
            }
        );
        assert_eq!(colored.0, sequential.0, "heavy {heavy}");
        assert_eq!(colored.1, sequential.1, "heavy {heavy}");
        assert_eq!(colored.2, heavy);
    }
}
