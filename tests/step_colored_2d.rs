//! Colored stepping of a 2D world (`xpbd::step::step_colored` with
//! `D = 2`, issue 19 item 1): a rope lying on a ground line over a bump (a
//! circle) with a small sheet falling onto it, links in colored order,
//! stepped as tasks on several job systems (one thread, 2 and 3 threads,
//! more tasks than threads, tasks in reverse). Without self-collision every
//! frame gives exactly the bits of the sequential 2D `step` on the same
//! world (positions, velocities, λ, statistics); with self-collision the
//! particle pairs are solved in colored order, the same bits for every job
//! system. A 2D world refuses the 3D-only groups beyond links with
//! `StepError::GroupsNeed3D`, writing nothing.

use xpbd::step::{
    scratch_len, self_collision_adjacency_len, self_collision_table_len, step, step_colored,
    Colliders, Contact, Jobs, OneThread, ParticleContact, Plane, SelfCollision, Sphere, StepConfig,
    StepError, StepStats, World,
};
use xpbd::{
    cloth, cloth_link_count, color_instances, color_order, fill_in_order, rope, Attachment, Bend,
    Constraints, GroupColors, Link, Tether,
};

#[path = "support/jobs.rs"]
mod jobs;
use jobs::{Reversed, Threads};

type V = [f64; 2];

/// Rope particles: enough for several particle and contact tasks (1,024
/// per task on hosts; 8 under Miri).
const ROPE: usize = if cfg!(miri) { 20 } else { 2600 };
/// The sheet's rows and columns.
const SIDE: usize = if cfg!(miri) { 3 } else { 12 };
/// Rope spacing (m).
const S: f64 = 0.01;
/// Particle radius (m).
const R: f64 = 0.004;
/// The bump: a circle of this radius (m) centred at (0, `BUMP_Y`).
const BUMP_R: f64 = 0.07;
/// The bump's centre height (m).
const BUMP_Y: f64 = -0.04;
/// Frames stepped.
const FRAMES: usize = if cfg!(miri) { 2 } else { 30 };

/// The links colored greedily and stored in colored order, with their
/// boundaries.
fn colored(links: &[Link<f64>], n: usize) -> (Vec<Link<f64>>, Vec<usize>) {
    let mut used = vec![0u64; n];
    let mut colors = vec![0u32; links.len()];
    let count = color_instances(links, n, &mut used, &mut colors).unwrap();
    let mut starts = vec![0usize; count as usize + 1];
    let mut order = vec![0u32; links.len()];
    color_order(&colors, count, &mut starts, &mut order).unwrap();
    let mut out = links.to_vec();
    assert_eq!(fill_in_order(links, &order, &mut out), Ok(links.len()));
    (out, starts)
}

/// The 2D scene: a rope (particles `0 .. ROPE`, its ends pinned) lying
/// on the line y = 0 across a circular bump, and a sheet (`SIDE × SIDE`,
/// shear links) above the bump.
struct Scene {
    x: Vec<V>,
    v: Vec<V>,
    w: Vec<f64>,
    links: Vec<Link<f64>>,
    starts: Vec<usize>,
    contacts: Vec<Contact<f64>>,
    pairs: Vec<ParticleContact<f64>>,
    table: Vec<u32>,
    ids: Vec<u32>,
    adjacency: Vec<u32>,
    rest: Vec<V>,
    self_collision: bool,
}

impl Scene {
    /// (Only exact float operations: Miri perturbs others, such as `sin`
    /// and `powi`, differently on every call.)
    fn new(self_collision: bool) -> Self {
        // The rope on the ground line, draped over the bump (a particle
        // radius above both), its links at rest.
        let half = ROPE as f64 * S / 2.0;
        let mut x: Vec<V> = (0..ROPE)
            .map(|k| {
                let px = k as f64 * S - half;
                let over = (BUMP_R + R) * (BUMP_R + R) - px * px;
                let y = if over > 0.0 {
                    BUMP_Y + over.sqrt()
                } else {
                    0.0
                };
                [px, y.max(R)]
            })
            .collect();
        let mut rope_links = vec![Link::new(0, 1, 1.0, 0.0); ROPE - 1];
        rope(&x, 1e-8, &mut rope_links).unwrap();
        let sheet: Vec<V> = (0..SIDE * SIDE)
            .map(|k| {
                let (r, c) = ((k / SIDE) as f64, (k % SIDE) as f64);
                [c * 0.012 - 0.07, 0.08 + r * 0.012 + 0.001 * (k % 3) as f64]
            })
            .collect();
        let mut sheet_links =
            vec![Link::new(0, 1, 1.0, 0.0); cloth_link_count(SIDE, SIDE, true).unwrap()];
        cloth(&sheet, SIDE, SIDE, true, 1e-7, &mut sheet_links).unwrap();
        let mut links = rope_links;
        links.extend(sheet_links.iter().map(|l| {
            let mut l = *l;
            l.i += ROPE as u32;
            l.j += ROPE as u32;
            l
        }));
        x.extend(&sheet);
        let n = x.len();
        let mut w = vec![1.0 / 0.001; n];
        w[0] = 0.0;
        w[ROPE - 1] = 0.0;
        let (links, starts) = colored(&links, n);
        Scene {
            v: vec![[0.0; 2]; n],
            contacts: vec![Contact::default(); 3 * n],
            pairs: vec![ParticleContact::default(); 8 * n],
            table: vec![0; self_collision_table_len(n)],
            ids: vec![0; n],
            adjacency: vec![0; self_collision_adjacency_len(n, links.len())],
            rest: x.clone(),
            self_collision,
            x,
            w,
            links,
            starts,
        }
    }

    /// Bits of every position, velocity and λ.
    fn bits(&self) -> Vec<u64> {
        let mut b: Vec<u64> = self
            .x
            .iter()
            .chain(&self.v)
            .flatten()
            .map(|c| c.to_bits())
            .collect();
        b.extend(self.links.iter().map(|l| l.lambda.to_bits()));
        b
    }

    /// One frame: the sequential `step` (`jobs: None`) or colored, with
    /// the groups `constraints` (`None`: none) and `colors` (default: the
    /// links' colors only).
    fn frame(
        &mut self,
        config: &StepConfig<f64, 2>,
        jobs: Option<&dyn Jobs>,
        constraints: Option<Constraints<'_, f64>>,
        colors: Option<GroupColors<'_>>,
    ) -> Result<StepStats<f64>, StepError> {
        let n = self.x.len();
        let mut scratch = vec![[0.0; 2]; scratch_len(n, 2 * self.links.len())];
        let planes = [Plane {
            normal: [0.0, 1.0],
            offset: 0.0,
        }];
        let spheres = [Sphere {
            center: [0.0, BUMP_Y],
            radius: BUMP_R,
        }];
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
            ..Default::default()
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
        world.groups = constraints;
        match jobs {
            None => step(&mut world, 1.0 / 60.0, config),
            Some(jobs) => {
                let colors = colors.unwrap_or(GroupColors {
                    links: &self.starts,
                    ..Default::default()
                });
                let mut stamp = vec![0u32; n];
                step_colored(&mut world, &colors, &mut stamp, 1.0 / 60.0, config, jobs)
            }
        }
    }
}

fn config() -> StepConfig<f64, 2> {
    let mut c = StepConfig::new([0.0, -9.81]);
    c.substeps = if cfg!(miri) { 2 } else { 4 };
    c.iterations = 2;
    c.particle_radius = R;
    c.static_friction = 0.3;
    c.dynamic_friction = 0.2;
    c.damping = 0.5;
    c
}

/// A job system recording the most tasks any phase was split into.
struct Counting(Box<dyn Jobs>, std::sync::atomic::AtomicUsize);

impl Jobs for Counting {
    fn split(&self) -> usize {
        self.0.split()
    }
    fn run(&self, count: usize, task: &(dyn Fn(usize) + Sync)) {
        self.1
            .fetch_max(count, std::sync::atomic::Ordering::Relaxed);
        self.0.run(count, task);
    }
}

/// Every job system of the comparison, by name.
fn job_systems() -> Vec<(&'static str, Box<dyn Jobs>)> {
    let threads = |threads, split| Box::new(Threads { threads, split });
    if cfg!(miri) {
        // CI time: every phase still splits (8 particles per task there).
        return vec![
            ("2 threads", threads(2, 2)),
            ("reversed", Box::new(Reversed(5))),
        ];
    }
    vec![
        ("one thread", Box::new(OneThread)),
        ("2 threads", threads(2, 2)),
        ("3 threads", threads(3, 3)),
        ("3 threads, 7 tasks", threads(3, 7)),
        ("reversed", Box::new(Reversed(5))),
    ]
}

/// The frames of `reference` (sequential `step`, or the colored step on
/// one thread), then every job system's frames compared with them bit
/// for bit; returns the reference's statistics.
fn every_job_system_agrees(self_collision: bool) -> Vec<StepStats<f64>> {
    let config = config();
    let mut reference = Scene::new(self_collision);
    let start = reference.x.clone();
    let (mut stats, mut bits) = (Vec::new(), Vec::new());
    for _ in 0..FRAMES {
        let jobs: Option<&dyn Jobs> = self_collision.then_some(&OneThread);
        let s = reference.frame(&config, jobs, None, None).unwrap();
        stats.push(s);
        bits.push(reference.bits());
    }
    // Real motion: the sheet fell, the pinned ends stayed, the rope rests
    // on the ground line (within its radius) and on the bump.
    let top = ROPE + SIDE * SIDE - 1;
    let fall = if cfg!(miri) { 0.004 } else { 0.01 };
    assert!(
        reference.x[top][1] < start[top][1] - fall,
        "{:?}",
        reference.x[top]
    );
    assert_eq!(reference.x[0], start[0]);
    assert_eq!(reference.x[ROPE - 1], start[ROPE - 1]);
    for p in &reference.x {
        assert!(p[1] > 0.9 * R && p[1] < 0.3, "{p:?}");
    }
    for p in &reference.x[..ROPE] {
        let d = (p[0] * p[0] + (p[1] - BUMP_Y) * (p[1] - BUMP_Y)).sqrt();
        assert!(d > BUMP_R + 0.5 * R, "outside the bump: {p:?}");
    }
    let middle = reference.x[ROPE / 2];
    assert!(middle[1] > 0.02, "over the bump: {middle:?}");
    for (name, jobs) in job_systems() {
        let jobs = Counting(jobs, 0.into());
        let mut scene = Scene::new(self_collision);
        for f in 0..FRAMES {
            let s = scene.frame(&config, Some(&jobs), None, None).unwrap();
            assert_eq!(s, stats[f], "{name}: statistics of frame {f}");
            assert!(scene.bits() == bits[f], "{name}: bits of frame {f}");
        }
        // The phases really split (but on one thread).
        let most = jobs.1.into_inner();
        let split = jobs.0.split();
        assert!(split == 1 || most >= 2, "{name}: {most} tasks at most");
    }
    stats
}

#[test]
fn colored_2d_frames_are_the_bits_of_step_for_every_job_system() {
    let stats = every_job_system_agrees(false);
    // Enough collider contacts for several contact tasks.
    let contacts = stats.iter().map(|s| s.max_contacts).max().unwrap();
    let per_task = if cfg!(miri) { 8 } else { 1024 };
    assert!(contacts > 2 * per_task, "{contacts} contacts");
    assert!(stats.iter().all(|s| s.substeps == config().substeps));
}

#[test]
#[cfg_attr(miri, ignore)] // the pair search and coloring: slow in the interpreter
fn colored_2d_self_collision_is_the_same_for_every_job_system() {
    let stats = every_job_system_agrees(true);
    let pairs = stats.iter().map(|s| s.max_pairs).max().unwrap();
    assert!(pairs > 0, "the sheet reaches the rope: {pairs} pairs");
}

#[test]
fn a_one_color_2d_world_is_the_bits_of_step() {
    // Two links sharing no particle: one color, any order is the
    // sequential one. A pendulum and a falling pair over the ground.
    let config = config();
    let links = [Link::new(0, 1, 0.3, 0.0), Link::new(2, 3, 0.2, 1e-6)];
    let w = [0.0, 1.0, 2.0, 1.0];
    let starts = [0, 2];
    let colors = GroupColors {
        links: &starts,
        ..Default::default()
    };
    let run = |colored: bool| {
        let mut x = [[0.0, 0.5], [0.3, 0.5], [0.5, 0.05], [0.7, 0.05]];
        let mut v = [[0.0; 2]; 4];
        let mut links = links;
        let (mut contacts, mut scratch) = ([Contact::default(); 8], [[0.0; 2]; 18]);
        let planes = [Plane {
            normal: [0.1, 1.0],
            offset: 0.0,
        }];
        let mut world = World::new(&mut x, &mut v, &w, &mut contacts, &mut scratch);
        world.links = &mut links;
        world.colliders = Some(Colliders {
            planes: &planes,
            ..Default::default()
        });
        let mut stats = Vec::new();
        for _ in 0..if cfg!(miri) { 10 } else { 40 } {
            stats.push(if colored {
                let mut stamp = [0u32; 4];
                step_colored(
                    &mut world,
                    &colors,
                    &mut stamp,
                    1.0 / 60.0,
                    &config,
                    &Threads {
                        threads: 2,
                        split: 2,
                    },
                )
                .unwrap()
            } else {
                step(&mut world, 1.0 / 60.0, &config).unwrap()
            });
        }
        (x, v, links.map(|l| l.lambda), stats)
    };
    let (x, v, lambda, stats) = run(true);
    assert_eq!(run(false), (x, v, lambda, stats.clone()));
    // The pendulum swung down, the pair landed on the tilted ground.
    assert!(x[1][1] < 0.45, "{:?}", x[1]);
    assert!(stats.iter().any(|s| s.max_contacts > 0));
    let (dx, dy) = (x[2][0] - x[3][0], x[2][1] - x[3][1]);
    let d = (dx * dx + dy * dy).sqrt();
    assert!((d - 0.2).abs() < 1e-3, "{d}");
}

#[test]
fn a_2d_world_refuses_groups_beyond_links_and_writes_nothing() {
    let config = config();
    let mut scene = Scene::new(false);
    // One frame first, so that velocities and λ are not zero.
    scene.frame(&config, Some(&OneThread), None, None).unwrap();
    let before = scene.bits();
    let flags: Vec<u32> = scene.links.iter().map(|l| l.flags).collect();
    let n = scene.x.len() as u32;
    let mut bends = [Bend::new([n - 4, n - 3, n - 2, n - 1], 0.0, 0.0)];
    let mut tethers = [Tether::new(n - 1, 0, 1.0, 0.0)];
    let mut attachments = [Attachment::new(n - 1, [0.0, 0.0, 0.0], 0.0)];
    let inert = [0usize, 1];
    let cases: [(&str, Option<Constraints<'_, f64>>, GroupColors<'_>); 4] = [
        (
            "a bend",
            Some(Constraints {
                bends: &mut bends,
                ..Default::default()
            }),
            GroupColors::default(),
        ),
        (
            "a tether",
            Some(Constraints {
                tethers: &mut tethers,
                ..Default::default()
            }),
            GroupColors::default(),
        ),
        (
            "an attachment",
            Some(Constraints {
                attachments: &mut attachments,
                ..Default::default()
            }),
            GroupColors::default(),
        ),
        (
            "tet boundaries",
            None,
            GroupColors {
                tets: &inert,
                ..Default::default()
            },
        ),
    ];
    let starts = scene.starts.clone();
    for (name, constraints, colors) in cases {
        // The links' own boundaries are valid: only the groups fail.
        let colors = GroupColors {
            links: &starts,
            ..colors
        };
        let r = scene.frame(&config, Some(&OneThread), constraints, Some(colors));
        assert_eq!(r, Err(StepError::GroupsNeed3D), "{name}");
        assert!(scene.bits() == before, "{name}: bits changed");
        let now: Vec<u32> = scene.links.iter().map(|l| l.flags).collect();
        assert_eq!(now, flags, "{name}");
    }
    assert_eq!(bends[0].lambda, 0.0);
    assert_eq!(attachments[0].force, [0.0; 3]);
    // Without them the same world steps.
    assert!(scene.frame(&config, Some(&OneThread), None, None).is_ok());
    assert!(scene.bits() != before);
}
