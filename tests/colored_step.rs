//! Colored stepping (`xpbd::step::step_colored`, issue 19 item 1): a
//! frame in colored order, its phases run as tasks on an engine's job
//! system, gives exactly the bits of the sequential `step` on the same
//! (colored-ordered) world — positions, velocities, every λ, forces and
//! the statistics — for one task, real threads (2, 3, 7), tasks run in
//! reverse and tasks run twice; a job system that skips a task fails the
//! frame with `JobContract` and leaves the world as it was; an improper
//! coloring is refused before anything is written.

use xpbd::colored::Isa;
use xpbd::step::{
    scratch_len, self_collision_adjacency_len, self_collision_table_len, step, step_colored,
    step_colored_on, Capsule, Colliders, Contact, EngineContact, Jobs, OneThread, ParticleContact,
    Plane, SelfCollision, Sphere, StepConfig, StepError, StepStats, Tearing, World,
};
use xpbd::{
    bends_count_for_cloth, bends_for_cloth, cloth, cloth_link_count, tethers, Attachment, Bend,
    Constraints, GroupColors, Link, MeshVolumes, SystemError, Tether,
};

#[path = "support/coloring.rs"]
mod coloring;
#[path = "support/jobs.rs"]
mod jobs;
use coloring::{colored, colored_moving};
use jobs::{Reversed, Threads};

#[path = "colored_step/soa_frame.rs"]
mod soa_frame;

type V = [f64; 3];

/// A cloth falling onto a sphere next to a moving capsule, above a plane:
/// links, bends, tethers, an attachment, an engine contact,
/// self-collision and tearing, every group in colored order.
#[derive(Clone)]
struct Scene {
    x: Vec<V>,
    v: Vec<V>,
    w: Vec<f64>,
    links: Vec<Link<f64>>,
    bends: Vec<Bend<f64>>,
    tethers: Vec<Tether<f64>>,
    attachments: Vec<Attachment<f64>>,
    engine: Vec<EngineContact<f64, 3>>,
    max_force: Vec<f64>,
    starts: [Vec<usize>; 3],
    contacts: Vec<Contact<f64>>,
    pairs: Vec<ParticleContact<f64>>,
    table: Vec<u32>,
    ids: Vec<u32>,
    adjacency: Vec<u32>,
    rest: Vec<V>,
    torn: Vec<u32>,
    self_collision: bool,
    /// The links' SIMD kernels of the colored frames (`None`: detected).
    isa: Option<Isa>,
}

/// The scene's rows and columns (smaller in the interpreter, where only
/// the refusals of an improper coloring run on it).
const ROWS: usize = if cfg!(miri) { 4 } else { 14 };
const COLS: usize = ROWS;
const S: f64 = 0.02;

impl Scene {
    fn new() -> Self {
        Self::build(false)
    }

    /// The scene with a tether from every moving particle to the pinned
    /// corner, the links and tethers colored over the moving particles
    /// (`color_moving_instances`: the anchor is shared within a color).
    fn anchored() -> Self {
        Self::build(true)
    }

    fn build(anchored: bool) -> Self {
        let n = ROWS * COLS;
        // Horizontal, rippled, centred over the sphere.
        let x: Vec<V> = (0..n)
            .map(|k| {
                let (r, c) = ((k / COLS) as f64, (k % COLS) as f64);
                let ripple = 0.002 * ((r * 1.3).sin() + (c * 0.7).cos());
                [c * S - 0.13, 0.12 + ripple, r * S - 0.13]
            })
            .collect();
        let mut w = vec![1.0 / 0.002; n];
        w[0] = 0.0; // one pinned corner, the tethers' anchor
        let mut links =
            vec![Link::new(0, 1, 1.0, 0.0); cloth_link_count(ROWS, COLS, true).unwrap()];
        cloth(&x, ROWS, COLS, true, 1e-7, &mut links).unwrap();
        let mut bends = vec![
            Bend {
                particles: [0, 1, 2, 3],
                rest_angle: 0.0,
                compliance: 0.0,
                lambda: 0.0
            };
            bends_count_for_cloth(ROWS, COLS)
        ];
        bends_for_cloth(&x, ROWS, COLS, 2e-3, &mut bends).unwrap();
        let mut tether = vec![Tether::new(1, 0, 1.0, 0.0); n];
        let t = tethers(&x, &w, &[0], 0.0, &mut tether).unwrap();
        tether.truncate(t);
        let ((links, l), (tethers, t)) = if anchored {
            (colored_moving(&links, &w), colored_moving(&tether, &w))
        } else {
            // The last row's only: tethers sharing the anchor take a color
            // each (at most 64 colors).
            tether.retain(|t| t.particle as usize >= n - COLS);
            (colored(&links, n), colored(&tether, n))
        };
        let (bends, b) = colored(&bends, n);
        let mut engine = EngineContact::new(5, [0.0, 1.0, 0.0], [0.0, 0.05, 0.0]);
        engine.static_friction = 0.2;
        engine.dynamic_friction = 0.1;
        let max_force = links
            .iter()
            .enumerate()
            .map(|(k, _)| if k % 7 == 3 { 0.05 } else { 1e9 })
            .collect();
        let links_len = links.len();
        Scene {
            v: vec![[0.0; 3]; n],
            attachments: vec![Attachment::new(COLS as u32 - 1, x[COLS - 1], 1e-6)],
            engine: vec![engine],
            max_force,
            starts: [l, b, t],
            contacts: vec![Contact::default(); 2 * n],
            pairs: vec![ParticleContact::default(); 8 * n],
            table: vec![0; self_collision_table_len(n)],
            ids: vec![0; n],
            adjacency: vec![0; self_collision_adjacency_len(n, links_len)],
            rest: x.clone(),
            torn: vec![0; 16],
            self_collision: true,
            isa: None,
            x,
            w,
            links,
            bends,
            tethers,
        }
    }

    /// Bits of every position, velocity, λ and force.
    fn bits(&self) -> Vec<u64> {
        let mut b: Vec<u64> = self
            .x
            .iter()
            .chain(&self.v)
            .flatten()
            .map(|c| c.to_bits())
            .collect();
        b.extend(self.links.iter().map(|l| l.lambda.to_bits()));
        b.extend(self.links.iter().map(|l| u64::from(l.flags)));
        b.extend(self.bends.iter().map(|l| l.lambda.to_bits()));
        b.extend(self.tethers.iter().map(|l| l.lambda.to_bits()));
        for a in &self.attachments {
            b.extend(a.lambda.iter().chain(&a.force).map(|c| c.to_bits()));
        }
        b.extend(self.engine.iter().map(|e| e.force.to_bits()));
        b
    }

    /// What a failed frame must leave as it was: positions, velocities,
    /// link flags, forces (λ are per-substep state).
    fn state(&self) -> Vec<u64> {
        let mut b: Vec<u64> = self
            .x
            .iter()
            .chain(&self.v)
            .flatten()
            .map(|c| c.to_bits())
            .collect();
        b.extend(self.links.iter().map(|l| u64::from(l.flags)));
        for a in &self.attachments {
            b.extend(a.force.iter().chain(&a.previous).map(|c| c.to_bits()));
        }
        b.extend(self.engine.iter().map(|e| e.force.to_bits()));
        b
    }

    /// One frame, sequential (`jobs: None`) or colored.
    fn frame(
        &mut self,
        frame: usize,
        config: &StepConfig<f64, 3>,
        jobs: Option<&dyn Jobs>,
    ) -> Result<StepStats<f64>, StepError> {
        let n = self.x.len();
        let mut scratch = vec![[0.0; 3]; scratch_len(n, self.links.len())];
        let planes = [Plane {
            normal: [0.0, 1.0, 0.0],
            offset: -0.3,
        }];
        let spheres = [Sphere {
            center: [0.0, -0.05, 0.0],
            radius: 0.1,
        }];
        let t = frame as f64 / 60.0;
        let capsules = [Capsule {
            center: [0.25 - 0.5 * t, -0.1, 0.05],
            half_axis: [0.0, 0.0, 0.1],
            radius: 0.03,
            velocity: [-0.5, 0.0, 0.0],
            angular_velocity: [0.0, 1.0, 0.0],
            static_friction: 0.3,
            dynamic_friction: 0.2,
        }];
        self.attachments[0].target = [0.12 + 0.1 * t, 0.12, -0.13];
        let constraints = Constraints {
            bends: &mut self.bends,
            tets: &mut [],
            tethers: &mut self.tethers,
            meshes: MeshVolumes::default(),
            attachments: &mut self.attachments,
            skin_constraints: &mut [],
        };
        let mut world = World::new(
            &mut self.x,
            &mut self.v,
            &self.w,
            &mut self.contacts,
            &mut scratch,
        );
        world.links = &mut self.links;
        world.colliders = Some(Colliders {
            planes: &planes,
            spheres: &spheres,
            capsules: &capsules,
            ..Default::default()
        });
        world.engine_contacts = Some(&mut self.engine[..]);
        world.groups = Some(constraints);
        world.tearing = Some(Tearing {
            max_force: &self.max_force,
            torn: &mut self.torn,
        });
        if self.self_collision {
            world.self_collision = Some(SelfCollision {
                pairs: &mut self.pairs,
                table: &mut self.table,
                ids: &mut self.ids,
                adjacency: &mut self.adjacency,
                rest: &self.rest,
            });
        }
        match jobs {
            None => step(&mut world, 1.0 / 60.0, config),
            Some(jobs) => {
                let colors = GroupColors {
                    links: &self.starts[0],
                    bends: &self.starts[1],
                    tets: &[],
                    tethers: &self.starts[2],
                };
                let mut stamp = vec![0u32; n];
                match self.isa {
                    None => step_colored(&mut world, &colors, &mut stamp, 1.0 / 60.0, config, jobs),
                    Some(isa) => step_colored_on(
                        &mut world,
                        &colors,
                        &mut stamp,
                        1.0 / 60.0,
                        config,
                        jobs,
                        isa,
                    ),
                }
            }
        }
    }
}

fn config() -> StepConfig<f64, 3> {
    let mut c = StepConfig::new([0.0, -9.81, 0.0]);
    c.substeps = 6;
    // Under Miri one iteration (a second runs the same tasks and kernels).
    c.iterations = if cfg!(miri) { 1 } else { 2 };
    c.particle_radius = 0.008;
    c.static_friction = 0.3;
    c.dynamic_friction = 0.2;
    c.damping = 0.5;
    c
}

/// A faulty job system: every task twice, and out-of-range indices.
struct Twice(usize);

impl Jobs for Twice {
    fn split(&self) -> usize {
        self.0
    }
    fn run(&self, count: usize, task: &(dyn Fn(usize) + Sync)) {
        for i in 0..count + 3 {
            task(i);
            task(i);
        }
    }
}

/// A faulty job system that never runs the last task of a phase.
struct SkipsLast(usize);

impl Jobs for SkipsLast {
    fn split(&self) -> usize {
        self.0
    }
    fn run(&self, count: usize, task: &(dyn Fn(usize) + Sync)) {
        (0..count.saturating_sub(1)).for_each(task);
    }
}

fn frames() -> usize {
    45
}

/// Frames of the scene with or without self-collision: every job system
/// gives the bits of the reference, `step` without self-collision,
/// the colored step on one thread with it (the pairs are solved in
/// colored order there).
fn every_job_system_agrees(self_collision: bool) {
    let config = config();
    let mut reference = Scene::new();
    reference.self_collision = self_collision;
    let mut stats = Vec::new();
    let mut bits = Vec::new();
    let (mut pairs, mut contacts, mut torn) = (0, 0, 0);
    for f in 0..frames() {
        let jobs: Option<&dyn Jobs> = if self_collision {
            Some(&OneThread)
        } else {
            None
        };
        let s = reference.frame(f, &config, jobs).unwrap();
        pairs = pairs.max(s.max_pairs);
        contacts = contacts.max(s.max_contacts);
        torn += s.torn;
        stats.push(s);
        bits.push(reference.bits());
    }
    // The scene reaches every path: self-contacts (more than one chunk of
    // a color), collider contacts, torn links.
    assert!(contacts > 0 && torn > 0, "{contacts} {torn}");
    assert!(!self_collision || pairs > 0, "{pairs}");
    let systems: Vec<(&str, Box<dyn Jobs>)> = vec![
        ("one thread", Box::new(OneThread)),
        (
            "2 threads",
            Box::new(Threads {
                threads: 2,
                split: 2,
            }),
        ),
        (
            "3 threads, 7 tasks",
            Box::new(Threads {
                threads: 3,
                split: 7,
            }),
        ),
        (
            "7 threads, 32 tasks",
            Box::new(Threads {
                threads: 7,
                split: 1000,
            }),
        ),
        ("reversed", Box::new(Reversed(5))),
        ("twice", Box::new(Twice(4))),
    ];
    for (name, jobs) in &systems {
        let mut scene = Scene::new();
        scene.self_collision = self_collision;
        for f in 0..frames() {
            let s = scene.frame(f, &config, Some(jobs.as_ref())).unwrap();
            assert_eq!(s, stats[f], "{name}: statistics of frame {f}");
            assert!(scene.bits() == bits[f], "{name}: bits of frame {f}");
        }
    }
}

/// Every SIMD kernel this machine runs (the baseline, AVX2, AVX-512 or
/// NEON) solves the colored frame's links with the bits of the
/// sequential link pass.
#[test]
#[cfg_attr(miri, ignore)] // cpuid-free baseline only there: the tests below
fn every_link_kernel_gives_the_sequential_bits() {
    let config = config();
    let mut reference = Scene::new();
    reference.self_collision = false;
    let mut bits = Vec::new();
    let mut stats = Vec::new();
    for f in 0..frames() {
        stats.push(reference.frame(f, &config, None).unwrap());
        bits.push(reference.bits());
    }
    let all = Isa::detect();
    let mut kernels = vec![Isa::BASELINE, all];
    for bit in [
        Isa::AVX2_BIT,
        Isa::AVX2_BIT | Isa::AVX512_BIT,
        Isa::NEON_BIT,
    ] {
        kernels.push(all.restrict(bit));
    }
    for isa in kernels {
        let mut scene = Scene::new();
        scene.self_collision = false;
        scene.isa = Some(isa);
        for f in 0..frames() {
            let s = scene.frame(f, &config, Some(&OneThread)).unwrap();
            assert_eq!(
                s,
                stats[f],
                "{}: statistics of frame {f}",
                isa.kernel_name()
            );
            assert!(
                scene.bits() == bits[f],
                "{}: bits of frame {f}",
                isa.kernel_name()
            );
        }
    }
}

/// Tethers from every moving particle to one pinned anchor (the output
/// of `xpbd::tethers`): refused by `color_instances` (more than 64 share
/// the anchor), colored over the moving particles in a few colors, and
/// the colored frame on every job system and link kernel gives the
/// sequential bits (the kernels never write the shared static anchor).
#[test]
// Under Miri (two minutes in the interpreter) the hub test below runs the
// same kernels on threads, for its data-race detector.
#[cfg_attr(miri, ignore)]
fn tethers_on_one_pinned_anchor_take_the_colored_path() {
    let config = config();
    let mut reference = Scene::anchored();
    reference.self_collision = false;
    let n = reference.x.len();
    assert!(reference.tethers.len() == n - 1 && reference.starts[2].len() <= 4);
    if ROWS > 5 {
        // (The interpreter's scene is too small for 64.)
        assert!(reference.tethers.len() > 64);
        let (mut used, mut colors) = (vec![0u64; n], vec![0u32; reference.tethers.len()]);
        assert_eq!(
            xpbd::color_instances(&reference.tethers, n, &mut used, &mut colors),
            Err(SystemError::InvalidShape)
        );
    }
    let frames = if cfg!(miri) { 2 } else { frames() };
    let (mut bits, mut stats) = (Vec::new(), Vec::new());
    for f in 0..frames {
        stats.push(reference.frame(f, &config, None).unwrap());
        bits.push(reference.bits());
    }
    let all = Isa::detect();
    let runs: Vec<(&str, Box<dyn Jobs>, Isa)> = vec![
        ("one thread", Box::new(OneThread), all),
        ("baseline kernel", Box::new(OneThread), Isa::BASELINE),
        (
            "2 threads",
            Box::new(Threads {
                threads: 2,
                split: 2,
            }),
            all,
        ),
        (
            "7 threads, 32 tasks",
            Box::new(Threads {
                threads: 7,
                split: 1000,
            }),
            all,
        ),
        ("reversed", Box::new(Reversed(5)), all),
    ];
    // Under Miri (its data-race detector) the threaded run only.
    let runs = runs
        .into_iter()
        .filter(|r| !cfg!(miri) || r.0 == "2 threads");
    for (name, jobs, isa) in runs {
        let mut scene = Scene::anchored();
        scene.self_collision = false;
        scene.isa = Some(isa);
        for f in 0..frames {
            let s = scene.frame(f, &config, Some(jobs.as_ref())).unwrap();
            assert_eq!(s, stats[f], "{name}: statistics of frame {f}");
            assert!(scene.bits() == bits[f], "{name}: bits of frame {f}");
        }
    }
}

/// A pinned hub shared by every link and every tether of one color, the
/// color split over tasks on two threads (more than one 64-link chunk):
/// the sequential bits, and — under Miri, whose data-race detector runs
/// it — no task writes the hub while another reads it.
#[test]
fn a_pinned_hub_shared_within_a_color_is_never_written() {
    // Under Miri (CI budget) 66 spokes, one substep: still two chunks of
    // each color (64 and 2), on two tasks on two threads.
    let spokes: u32 = if cfg!(miri) { 66 } else { 130 };
    let n = spokes as usize + 1;
    let x0: Vec<V> = (0..n)
        .map(|k| {
            let a = k as f64 * 0.1;
            if k == 0 {
                [0.0, 1.0, 0.0]
            } else {
                [0.3 * a.cos(), 1.0, 0.3 * a.sin()]
            }
        })
        .collect();
    let mut w = vec![2.0; n];
    w[0] = 0.0;
    let links: Vec<Link<f64>> = (1..=spokes).map(|k| Link::new(0, k, 0.3, 1e-6)).collect();
    let tethers: Vec<Tether<f64>> = (1..=spokes).map(|k| Tether::new(0, k, 0.3, 0.0)).collect();
    let (links, l) = colored_moving(&links, &w);
    let (tethers, t) = colored_moving(&tethers, &w);
    assert_eq!((l.len(), t.len()), (2, 2), "one color each");
    let mut config = StepConfig::new([0.0, -9.81, 0.0]);
    config.substeps = if cfg!(miri) { 1 } else { 2 };
    let run = |jobs: Option<&dyn Jobs>| {
        let (mut x, mut v) = (x0.clone(), vec![[0.0; 3]; n]);
        let (mut links, mut tethers) = (links.clone(), tethers.clone());
        let mut scratch = vec![[0.0; 3]; scratch_len(n, links.len())];
        let mut world = World::new(&mut x, &mut v, &w, &mut [], &mut scratch);
        world.links = &mut links;
        world.groups = Some(Constraints {
            tethers: &mut tethers,
            ..Constraints::default()
        });
        let stats = match jobs {
            None => step(&mut world, 1.0 / 60.0, &config),
            Some(jobs) => {
                let colors = GroupColors {
                    links: &l,
                    tethers: &t,
                    ..Default::default()
                };
                let mut stamp = vec![0u32; n];
                step_colored(&mut world, &colors, &mut stamp, 1.0 / 60.0, &config, jobs)
            }
        }
        .unwrap();
        let bits: Vec<u64> = x.iter().chain(&v).flatten().map(|c| c.to_bits()).collect();
        (stats, bits)
    };
    let reference = run(None);
    assert!(
        reference.1
            != x0
                .iter()
                .chain(&vec![[0.0; 3]; n])
                .flatten()
                .map(|c| c.to_bits())
                .collect::<Vec<_>>()
    );
    let threads = Threads {
        threads: 2,
        split: 3,
    };
    assert!(run(Some(&threads)) == reference);
}

#[test]
#[cfg_attr(miri, ignore)] // safe-Rust scene; the split phases run under Miri below
fn colored_frames_are_the_sequential_bits_for_every_job_system() {
    every_job_system_agrees(false);
}

#[test]
#[cfg_attr(miri, ignore)] // as above; the pair tasks run under Miri below
fn colored_self_collision_is_the_same_for_every_job_system() {
    every_job_system_agrees(true);
}

#[test]
fn a_skipped_task_fails_the_frame_and_writes_nothing() {
    // Enough particles for several prediction tasks (under Miri, 8 each:
    // 25 particles, 4 tasks; there the skipping frame is the first, from
    // the initial state, as much on the ground).
    let side = if cfg!(miri) { 5 } else { 48 };
    let before = if cfg!(miri) { 0 } else { 1 };
    let (_, r) = ground(side, before, None, Some(&SkipsLast(4)));
    assert_eq!(r, Err(StepError::JobContract));
    // One task per phase never asks the executor: nothing to skip.
    assert!(ground(side, before, None, Some(&SkipsLast(1))).1.is_ok());
}

#[test]
fn an_improper_coloring_is_refused_before_anything_is_written() {
    let config = config();
    // (Built once: under Miri the scene takes longer than the refusals.)
    let fresh = Scene::new();
    let mut scene = fresh.clone();
    // Two links sharing a particle moved into the first color.
    let first_end = scene.starts[0][1];
    let a = scene.links[0];
    let share = (first_end..scene.links.len())
        .find(|&k| {
            let l = scene.links[k];
            [l.i, l.j].iter().any(|p| *p == a.i || *p == a.j)
        })
        .unwrap();
    scene.starts[0][1] = share + 1;
    let before = scene.state();
    let r = scene.frame(0, &config, Some(&OneThread));
    assert!(
        matches!(
            r,
            Err(StepError::System(SystemError::InvalidShape))
                | Err(StepError::System(SystemError::SameParticle { .. }))
        ),
        "{r:?}"
    );
    assert!(scene.state() == before);
    // Boundaries past the links.
    let mut scene = fresh;
    let len = scene.links.len();
    *scene.starts[0].last_mut().unwrap() = len + 1;
    let before = scene.state();
    let r = scene.frame(0, &config, Some(&OneThread));
    assert_eq!(r, Err(StepError::System(SystemError::InvalidShape)));
    assert!(scene.state() == before);
}

/// A cloth of `side²` particles resting on a plane with friction, links
/// in colored order: every particle phase and the contact phases split
/// into several tasks (1,024 particles or contacts each at least).
fn ground_frames(
    side: usize,
    frames: usize,
    jobs: Option<&dyn Jobs>,
) -> (Vec<u64>, StepStats<f64>) {
    let (bits, stats) = ground(side, frames, jobs, None);
    (bits, stats.unwrap())
}

/// [`ground_frames`], then one more frame on `then` (if given): the bits
/// of x and v before it and of everything after, and its result.
fn ground(
    side: usize,
    frames: usize,
    jobs: Option<&dyn Jobs>,
    then: Option<&dyn Jobs>,
) -> (Vec<u64>, Result<StepStats<f64>, StepError>) {
    let n = side * side;
    let s = 0.01;
    let mut x: Vec<V> = (0..n)
        .map(|k| {
            [
                (k % side) as f64 * s,
                0.004 + 0.001 * ((k % 7) as f64),
                (k / side) as f64 * s,
            ]
        })
        .collect();
    let mut v: Vec<V> = (0..n)
        .map(|k| [0.3 * ((k % 3) as f64 - 1.0), -0.2, 0.1])
        .collect();
    let w = vec![1.0; n];
    let mut links = vec![Link::new(0, 1, s, 0.0); cloth_link_count(side, side, false).unwrap()];
    cloth(&x, side, side, false, 1e-6, &mut links).unwrap();
    let (mut links, starts) = colored(&links, n);
    let mut contacts = vec![Contact::default(); n];
    let mut scratch = vec![[0.0; 3]; scratch_len(n, links.len())];
    let mut stamp = vec![0u32; n];
    let planes = [Plane {
        normal: [0.0, 1.0, 0.0],
        offset: 0.0,
    }];
    let mut config = StepConfig::new([0.0, -9.81, 0.0]);
    // Under Miri one substep (a later one runs the same tasks).
    config.substeps = if cfg!(miri) { 1 } else { 3 };
    config.particle_radius = 0.005;
    config.static_friction = 0.4;
    config.dynamic_friction = 0.3;
    let mut last = Ok(StepStats::default());
    let mut before = Vec::new();
    for f in 0..=frames {
        let jobs = if f < frames {
            jobs
        } else if then.is_some() {
            before = x.iter().chain(&v).flatten().map(|c| c.to_bits()).collect();
            then
        } else {
            break;
        };
        let mut world = World::new(&mut x, &mut v, &w, &mut contacts, &mut scratch);
        world.links = &mut links;
        world.colliders = Some(Colliders {
            planes: &planes,
            ..Default::default()
        });
        world.groups = Some(Constraints::default());
        last = match jobs {
            None => step(&mut world, 1.0 / 60.0, &config),
            Some(jobs) => {
                let colors = GroupColors {
                    links: &starts,
                    ..Default::default()
                };
                step_colored(&mut world, &colors, &mut stamp, 1.0 / 60.0, &config, jobs)
            }
        };
    }
    let mut bits: Vec<u64> = x.iter().chain(&v).flatten().map(|c| c.to_bits()).collect();
    if then.is_some() {
        // What a failed frame must leave as it was: x and v.
        if last.is_err() {
            assert!(bits == before, "a failed frame moved something");
        }
        return (before, last);
    }
    bits.extend(links.iter().map(|l| l.lambda.to_bits()));
    (bits, last)
}

#[test]
fn split_particle_and_contact_phases_keep_the_sequential_bits() {
    // Under Miri the phases split from 8 particles or contacts on (25
    // particles and contacts there).
    let (side, frames) = if cfg!(miri) { (5, 1) } else { (48, 8) };
    let (reference, stats) = ground_frames(side, frames, None);
    // More contacts than two tasks' worth (1,024 each; under Miri 8).
    let per_task = if cfg!(miri) { 8 } else { 1024 };
    assert!(stats.max_contacts > 2 * per_task, "{}", stats.max_contacts);
    // Under Miri one run: two threads over as many tasks as the phases
    // split into (up to 32: the last one short), which the two-task and
    // the reversed runs repeat natively.
    let mut systems: Vec<Box<dyn Jobs>> = if cfg!(miri) {
        vec![Box::new(Threads {
            threads: 2,
            split: 32,
        })]
    } else {
        vec![
            Box::new(Threads {
                threads: 2,
                split: 2,
            }),
            Box::new(Reversed(32)),
        ]
    };
    if !cfg!(miri) {
        systems.push(Box::new(OneThread));
        systems.push(Box::new(Threads {
            threads: 3,
            split: 5,
        }));
    }
    for jobs in &systems {
        let (bits, s) = ground_frames(side, frames, Some(jobs.as_ref()));
        assert_eq!(s, stats);
        assert!(bits == reference);
    }
}

/// Two `side²` layers of particles, one resting on the other (each
/// particle 1.2 r over one of the lower layer and within 2r of its
/// four neighbours, the upper layer linked): several colors of pairs,
/// the first longer than a 64-pair chunk, so the pair tasks split. Returns the bits and the most pairs of a substep.
fn two_layers(side: usize, jobs: &dyn Jobs) -> (Vec<u64>, usize) {
    let (m, s, r) = (side * side, 0.015, 0.01);
    let n = 2 * m;
    let mut x: Vec<V> = (0..n)
        .map(|k| {
            let q = k % m;
            let y = if k < m { 0.0 } else { 1.2 * r };
            [(q % side) as f64 * s, y, (q / side) as f64 * s]
        })
        .collect();
    let mut v = vec![[0.0; 3]; n];
    let w: Vec<f64> = (0..n).map(|k| if k < m { 0.0 } else { 1.0 }).collect();
    let mut links = vec![Link::new(0, 1, s, 0.0); cloth_link_count(side, side, false).unwrap()];
    cloth(&x[m..], side, side, false, 1e-6, &mut links).unwrap();
    for l in &mut links {
        l.i += m as u32;
        l.j += m as u32;
    }
    let (mut links, starts) = colored(&links, n);
    let mut contacts = vec![Contact::default(); 1];
    let mut scratch = vec![[0.0; 3]; scratch_len(n, links.len())];
    let mut stamp = vec![0u32; n];
    let mut pairs = vec![ParticleContact::default(); 32 * n];
    let mut table = vec![0u32; self_collision_table_len(n)];
    let mut ids = vec![0u32; n];
    let mut adjacency = vec![0u32; self_collision_adjacency_len(n, links.len())];
    let mut config = StepConfig::new([0.0, -9.81, 0.0]);
    config.substeps = if cfg!(miri) { 1 } else { 2 };
    config.particle_radius = r;
    config.static_friction = 0.2;
    config.dynamic_friction = 0.1;
    let mut most = 0;
    for _ in 0..if cfg!(miri) { 1 } else { 2 } {
        let mut world = World::new(&mut x, &mut v, &w, &mut contacts, &mut scratch);
        world.links = &mut links;
        world.self_collision = Some(SelfCollision {
            pairs: &mut pairs,
            table: &mut table,
            ids: &mut ids,
            adjacency: &mut adjacency,
            rest: &[],
        });
        let colors = GroupColors {
            links: &starts,
            ..Default::default()
        };
        world.groups = Some(Constraints::default());
        let st = step_colored(&mut world, &colors, &mut stamp, 1.0 / 60.0, &config, jobs).unwrap();
        most = most.max(st.max_pairs);
    }
    let bits = x.iter().chain(&v).flatten().map(|c| c.to_bits()).collect();
    (bits, most)
}

#[test]
#[cfg_attr(miri, ignore)] // minutes in the interpreter; the pair tasks' unit test runs there
fn pair_colors_split_into_tasks_with_the_same_bits() {
    let side = if cfg!(miri) { 9 } else { 14 };
    let (reference, pairs) = two_layers(side, &OneThread);
    assert!(pairs >= 4 * side * side && side * side > 64, "{pairs}");
    // Under Miri (slow here: ~1 minute a run) real threads only.
    let mut systems: Vec<Box<dyn Jobs>> = vec![Box::new(Threads {
        threads: 2,
        split: 2,
    })];
    if !cfg!(miri) {
        systems.push(Box::new(Reversed(7)));
        systems.push(Box::new(Twice(3)));
    }
    for jobs in &systems {
        assert!(two_layers(side, jobs.as_ref()).0 == reference);
    }
}
