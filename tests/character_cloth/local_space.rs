//! Local-space simulation with inertia scaling (issue 35, item 2) through
//! the Rust API: at inertia 0 a cape's local positions are unchanged, bit
//! for bit, by a root that runs a circle at 6 m/s, turns, jumps and
//! teleports (turns about the gravity axis); at inertia 1 a free cloth in
//! a root that moves and tumbles is the world-space simulation within
//! 1e-9 m; a teleport leaves the local shape as a still root would
//! (1e-12 m) and the block reads `previous ← target`, no teleport, after
//! the frame; clamps of 0 are inertia 0; `step_colored` gives `step`'s
//! bits; bad blocks are named and write nothing.

use crate::coloring;
use xpbd::step::{
    scratch_len, step, step_colored, Contact, LocalSpace, OneThread, StepConfig, StepError,
    Transform, World,
};
use xpbd::{cloth, cloth_link_count, Field, GroupColors, Link};

const DT: f64 = 1.0 / 60.0;

/// A `cols × rows` cloth 5 cm apart, rigid links, in the root's frame.
struct Scene {
    x: Vec<[f64; 3]>,
    v: Vec<[f64; 3]>,
    w: Vec<f64>,
    links: Vec<Link<f64>>,
    contacts: Vec<Contact<f64>>,
    scratch: Vec<[f64; 3]>,
    local: LocalSpace<f64>,
}

impl Scene {
    /// A cape hanging behind the root (its top row pinned when `pinned`).
    fn cape(pinned: bool) -> Self {
        // Under Miri (only the colored test runs there) 3 × 3.
        let (cols, rows) = if cfg!(miri) { (3, 3) } else { (6, 8) };
        let x: Vec<[f64; 3]> = (0..rows * cols)
            .map(|k| {
                let (i, j) = (k % cols, k / cols);
                [
                    0.05 * i as f64 - 0.125,
                    1.5 - 0.05 * j as f64,
                    -0.2 - 0.01 * i as f64,
                ]
            })
            .collect();
        let mut links = vec![Link::default(); cloth_link_count(rows, cols, true).unwrap()];
        cloth(&x, rows, cols, true, 0.0, &mut links).unwrap();
        let mut w = vec![1.0 / 0.01; rows * cols];
        if pinned {
            w[..cols].fill(0.0);
        }
        let n = x.len();
        Self {
            v: vec![[0.0; 3]; n],
            contacts: vec![Contact::default(); 1],
            scratch: vec![[0.0; 3]; scratch_len(n, links.len())],
            x,
            w,
            links,
            local: LocalSpace::new(Transform::identity()),
        }
    }

    fn world(&mut self, local: bool) -> World<'_, f64, 3> {
        let mut world = World::new(
            &mut self.x,
            &mut self.v,
            &self.w,
            &mut self.contacts,
            &mut self.scratch,
        );
        world.links = &mut self.links;
        if local {
            world.local_space = Some(&mut self.local);
        }
        world
    }

    /// One frame in the root's frame, the root moving to `target`.
    fn frame(
        &mut self,
        target: Transform<f64>,
        config: &StepConfig<f64, 3>,
    ) -> Result<(), StepError> {
        self.local.target = target;
        step(&mut self.world(true), DT, config).map(|_| ())
    }

    fn bits(&self) -> Vec<u64> {
        self.x
            .iter()
            .chain(&self.v)
            .flatten()
            .map(|c| c.to_bits())
            .collect()
    }
}

fn config() -> StepConfig<f64, 3> {
    StepConfig {
        substeps: 8,
        ..StepConfig::new([0.0, -9.81, 0.0])
    }
}

/// The quaternion of a turn of `angle` (rad) about the unit `axis`.
fn turn(axis: [f64; 3], angle: f64) -> [f64; 4] {
    let (s, c) = ((angle / 2.0).sin(), (angle / 2.0).cos());
    [axis[0] * s, axis[1] * s, axis[2] * s, c]
}

/// The running character's root at frame `k`: a circle of radius 3 m at
/// 6 m/s, heading along the velocity (a turn about y), back the other
/// way from frame 120, a 0.5 s hop every 1.5 s, a 10 m teleport at frame
/// 200.
fn running(k: usize) -> Transform<f64> {
    let t = k as f64 * DT;
    let back = 120.0 * DT;
    let angle = if t < back {
        2.0 * t
    } else {
        4.0 * back - 2.0 * t
    };
    let hop = t % 1.5;
    let y = if hop < 0.5 {
        4.9 * hop * (0.5 - hop)
    } else {
        0.0
    };
    let shift = if k >= 200 { 10.0 } else { 0.0 };
    Transform {
        rotation: turn([0.0, 1.0, 0.0], angle),
        translation: [3.0 * angle.cos() + shift, y, 3.0 * angle.sin()],
    }
}

/// `R(q) v` (the test's own rotation, from the rotation matrix).
fn rotate(q: [f64; 4], v: [f64; 3]) -> [f64; 3] {
    let [x, y, z, w] = q;
    let m = [
        [
            1.0 - 2.0 * (y * y + z * z),
            2.0 * (x * y - w * z),
            2.0 * (x * z + w * y),
        ],
        [
            2.0 * (x * y + w * z),
            1.0 - 2.0 * (x * x + z * z),
            2.0 * (y * z - w * x),
        ],
        [
            2.0 * (x * z - w * y),
            2.0 * (y * z + w * x),
            1.0 - 2.0 * (x * x + y * y),
        ],
    ];
    core::array::from_fn(|i| m[i][0] * v[0] + m[i][1] * v[1] + m[i][2] * v[2])
}

#[test]
#[cfg_attr(miri, ignore)] // safe Rust only
fn at_inertia_zero_the_local_shape_ignores_the_root() {
    let frames = 260;
    let mut still = Scene::cape(true);
    let mut moving = Scene::cape(true);
    moving.local = LocalSpace {
        linear_inertia: 0.0,
        angular_inertia: 0.0,
        ..LocalSpace::new(running(0))
    };
    still.local.linear_inertia = 0.0;
    still.local.angular_inertia = 0.0;
    for k in 1..=frames {
        still.frame(Transform::identity(), &config()).unwrap();
        moving.local.teleport = u32::from(k == 200);
        moving.frame(running(k), &config()).unwrap();
        assert!(moving.bits() == still.bits(), "frame {k}");
    }
    // And the cloth did move (it swung under gravity from its rest pose).
    assert!(still.x != Scene::cape(true).x);
}

#[test]
#[cfg_attr(miri, ignore)] // safe Rust only
fn at_inertia_one_a_free_cloth_is_the_world_space_simulation() {
    // A root that accelerates along a curve and tumbles about a tilted
    // axis with a changing rate.
    let root = |k: usize| {
        let t = k as f64 * DT;
        let axis = [0.48, 0.6, 0.64];
        Transform {
            rotation: turn(axis, 1.5 * t + 0.8 * t * t),
            translation: [2.0 * t * t, (3.0 * t).sin(), -t],
        }
    };
    let mut world = Scene::cape(false);
    let mut local = Scene::cape(false);
    local.local = LocalSpace::new(root(0));
    // The same start: the world cloth is the local one placed by the root.
    let start = root(0);
    for (p, q) in world.x.iter_mut().zip(&local.x) {
        let r = rotate(start.rotation, *q);
        *p = core::array::from_fn(|i| r[i] + start.translation[i]);
    }
    let mut worst = 0.0f64;
    for k in 1..=120 {
        step(&mut world.world(false), DT, &config()).unwrap();
        local.frame(root(k), &config()).unwrap();
        let t = root(k);
        for (p, q) in world.x.iter().zip(&local.x) {
            let r = rotate(t.rotation, *q);
            let d = (0..3)
                .map(|i| (r[i] + t.translation[i] - p[i]).powi(2))
                .sum::<f64>()
                .sqrt();
            worst = worst.max(d);
        }
    }
    eprintln!("inertia 1 against world space: {worst:e} m");
    assert!(worst < 1e-9, "{worst:e} m");
    // The cloth fell and spun in the world: the frame's motion was felt.
    assert!(local.x != Scene::cape(false).x);
}

#[test]
#[cfg_attr(miri, ignore)] // safe Rust only
fn a_teleport_keeps_the_local_shape_and_velocity() {
    let run = |teleport: bool| {
        let mut s = Scene::cape(true);
        s.local = LocalSpace::new(running(0));
        for k in 1..=30 {
            s.frame(running(k), &config()).unwrap();
        }
        let before = s.local.target;
        if teleport {
            // 100 m away and turned half round, in one frame.
            s.local.teleport = 1;
            s.frame(
                Transform {
                    rotation: turn([0.0, 1.0, 0.0], 3.0),
                    translation: [100.0, 5.0, -40.0],
                },
                &config(),
            )
            .unwrap();
            assert_eq!(s.local.teleport, 0);
            assert_eq!(s.local.previous, s.local.target);
        } else {
            s.frame(before, &config()).unwrap();
        }
        s
    };
    let (jumped, still) = (run(true), run(false));
    for (p, q) in jumped
        .x
        .iter()
        .chain(&jumped.v)
        .zip(still.x.iter().chain(&still.v))
    {
        for i in 0..3 {
            assert!((p[i] - q[i]).abs() < 1e-12, "{p:?} {q:?}");
        }
    }
}

#[test]
#[cfg_attr(miri, ignore)] // safe Rust only
fn clamps_of_zero_are_inertia_zero() {
    let mut clamped = Scene::cape(true);
    clamped.local = LocalSpace {
        max_linear_velocity: 0.0,
        max_angular_velocity: 0.0,
        ..LocalSpace::new(running(0))
    };
    let mut zero = Scene::cape(true);
    zero.local = LocalSpace {
        linear_inertia: 0.0,
        angular_inertia: 0.0,
        ..LocalSpace::new(running(0))
    };
    for k in 1..=60 {
        clamped.frame(running(k), &config()).unwrap();
        zero.frame(running(k), &config()).unwrap();
        // Equal values (a clamped carry may turn −0 into +0).
        assert!(clamped.x == zero.x && clamped.v == zero.v, "frame {k}");
    }
}

#[test]
fn step_colored_gives_the_bits_of_step() {
    let mut a = Scene::cape(true);
    let mut b = Scene::cape(true);
    let n = a.x.len();
    let (links, starts) = coloring::colored(&a.links, n);
    a.links = links.clone();
    b.links = links;
    a.local = LocalSpace {
        linear_inertia: 0.7,
        angular_inertia: 0.4,
        ..LocalSpace::new(running(0))
    };
    b.local = a.local;
    let config = StepConfig {
        substeps: if cfg!(miri) { 2 } else { 8 },
        ..config()
    };
    for k in 1..=if cfg!(miri) { 1 } else { 20 } {
        a.frame(running(k), &config).unwrap();
        b.local.target = running(k);
        let colors = GroupColors {
            links: &starts,
            ..GroupColors::default()
        };
        let mut stamp = vec![0u32; n];
        step_colored(
            &mut b.world(true),
            &colors,
            &mut stamp,
            DT,
            &config,
            &OneThread,
        )
        .unwrap();
        assert!(a.bits() == b.bits() && a.local == b.local, "frame {k}");
    }
}

#[test]
#[cfg_attr(miri, ignore)] // safe Rust only
fn bad_blocks_are_named_and_write_nothing() {
    type Edit = fn(&mut LocalSpace<f64>);
    let cases: [(Edit, Field); 14] = [
        (|l| l.target.translation[1] = f64::NAN, Field::RootTransform),
        (
            |l| l.previous.rotation[3] = f64::INFINITY,
            Field::RootTransform,
        ),
        (
            |l| l.target.rotation = [0.0, 0.0, 0.0, 2.0],
            Field::RootTransform,
        ),
        (|l| l.previous.rotation = [0.0; 4], Field::RootTransform),
        (|l| l.linear_inertia = 1.5, Field::InertiaScale),
        (|l| l.angular_inertia = -0.1, Field::InertiaScale),
        (|l| l.linear_inertia = f64::NAN, Field::InertiaScale),
        (|l| l.max_linear_velocity = -1.0, Field::FrameVelocityLimit),
        (
            |l| l.max_angular_velocity = f64::NAN,
            Field::FrameVelocityLimit,
        ),
        (
            |l| l.max_linear_acceleration = -1.0,
            Field::FrameAccelerationLimit,
        ),
        (
            |l| l.max_angular_acceleration = f64::NAN,
            Field::FrameAccelerationLimit,
        ),
        (|l| l.linear_velocity[2] = f64::NAN, Field::FrameVelocity),
        (
            |l| l.angular_velocity[0] = f64::INFINITY,
            Field::FrameVelocity,
        ),
        // A finite jump whose velocity overflows (found by the fuzzer: the
        // frame succeeded and left an infinite added velocity the next
        // frame refused).
        (
            |l| {
                l.previous.translation = [-f64::MAX, 0.0, 0.0];
                l.target.translation = [-20.5; 3];
            },
            Field::RootTransform,
        ),
    ];
    for (edit, field) in cases {
        let mut s = Scene::cape(true);
        s.local = LocalSpace::new(running(0));
        s.frame(running(1), &config()).unwrap();
        s.local.target = running(2);
        edit(&mut s.local);
        let (before, block, links) = (s.bits(), s.local, s.links.clone());
        let r = step(&mut s.world(true), DT, &config());
        assert_eq!(r.map(|_| ()), Err(StepError::InvalidLocalSpace { field }));
        assert!(s.bits() == before && s.links == links);
        assert_eq!(format!("{:?}", s.local), format!("{block:?}"));
    }
    // A 2D world cannot hold a local-space block.
    let (mut x, mut v) = (vec![[0.0, 0.0]; 2], vec![[0.0, 0.0]; 2]);
    let mut contacts = vec![Contact::default(); 1];
    let mut scratch = vec![[0.0; 2]; 16];
    let mut local = LocalSpace::new(Transform::identity());
    let mut world = World::new(&mut x, &mut v, &[1.0; 2], &mut contacts, &mut scratch);
    world.local_space = Some(&mut local);
    assert_eq!(
        step(&mut world, DT, &StepConfig::new([0.0, -9.81])),
        Err(StepError::GroupsNeed3D)
    );
}

/// One free particle (no gravity, no links), from `x = [0.5, 0, 0]` at
/// rest, in a root that moves to `at(k)` in frame `k` = 1, 2, …: its
/// local position and the block after each frame.
struct Free {
    x: Vec<[f64; 3]>,
    v: Vec<[f64; 3]>,
    contacts: Vec<Contact<f64>>,
    scratch: Vec<[f64; 3]>,
    local: LocalSpace<f64>,
}

impl Free {
    fn new(local: LocalSpace<f64>) -> Self {
        Self {
            x: vec![[0.5, 0.0, 0.0]],
            v: vec![[0.0; 3]],
            contacts: vec![Contact::default(); 1],
            scratch: vec![[0.0; 3]; scratch_len(1, 0)],
            local,
        }
    }

    fn frame(&mut self, target: Transform<f64>) -> [f64; 3] {
        let config = StepConfig {
            substeps: 8,
            ..StepConfig::new([0.0; 3])
        };
        self.local.target = target;
        let (x, v) = (&mut self.x, &mut self.v);
        let mut world = World::new(x, v, &[1.0], &mut self.contacts, &mut self.scratch);
        world.local_space = Some(&mut self.local);
        step(&mut world, DT, &config).unwrap();
        self.x[0]
    }
}

#[test]
#[cfg_attr(miri, ignore)] // safe Rust only
fn acceleration_clamp_ramps_the_added_velocity_and_a_teleport_zeroes_it() {
    // The root still, then at 10 m/s along x: unclamped, the free particle
    // stays put in the world (its local x falls by 10 m/s); with
    // A = 20 m/s² the added velocity rises by A h per substep, with
    // V = 4 m/s it stops there: local x = x0 − h Σ_j min(V, j A h).
    let (speed, a, limit) = (10.0, 20.0, 4.0);
    let h = DT / 8.0;
    let at = |k: usize| Transform {
        translation: [speed * DT * k as f64, 0.0, 0.0],
        ..Transform::identity()
    };
    let mut free = Free::new(LocalSpace::new(at(0)));
    let mut clamped = Free::new(LocalSpace {
        max_linear_acceleration: a,
        max_linear_velocity: limit,
        ..LocalSpace::new(at(0))
    });
    let mut seen = [0.0; 3];
    for k in 1..=20 {
        let x = free.frame(at(k));
        assert!(
            (x[0] - (0.5 - speed * DT * k as f64)).abs() < 1e-12,
            "frame {k}: {x:?}"
        );
        assert!((free.local.linear_velocity[0] - speed).abs() < 1e-12);
        let x = clamped.frame(at(k));
        let substeps = 8 * k;
        let carried: f64 = (1..=substeps)
            .map(|j| h * limit.min(j as f64 * a * h))
            .sum();
        assert!((x[0] - (0.5 - carried)).abs() < 1e-12, "frame {k}: {x:?}");
        let expected = limit.min(substeps as f64 * a * h);
        let u = clamped.local.linear_velocity;
        assert!((u[0] - expected).abs() < 1e-12 && u[1] == 0.0, "{u:?}");
        // From frame to frame the added velocity changes by ≤ A · DT.
        assert!(u[0] - seen[0] <= a * DT * (1.0 + 1e-12));
        seen = u;
    }
    assert_eq!(seen[0], limit);
    // A teleport adds nothing: the reference is 0 after it.
    clamped.local.teleport = 1;
    clamped.frame(at(50));
    assert_eq!(clamped.local.linear_velocity, [0.0; 3]);
}

#[test]
#[cfg_attr(miri, ignore)] // safe Rust only
fn angular_acceleration_clamp_ramps_the_added_spin() {
    // The root spinning about y at 3 rad/s from frame 1; the added angular
    // velocity (2 sin(θ/2)/h about the axis) rises by 5 rad/s² · h per
    // substep until it meets the unclamped one (nlerp's, a little below
    // 3 rad/s in the frame's last substep).
    let (spin, a) = (3.0, 5.0);
    let h = DT / 8.0;
    let at = |k: usize| Transform {
        rotation: turn([0.0, 1.0, 0.0], spin * DT * k as f64),
        translation: [0.0; 3],
    };
    let mut free = Free::new(LocalSpace::new(at(0)));
    let mut clamped = Free::new(LocalSpace {
        max_angular_acceleration: a,
        ..LocalSpace::new(at(0))
    });
    let mut last = 0.0;
    for k in 1..=40 {
        free.frame(at(k));
        let full = free.local.angular_velocity[1];
        assert!((full - spin).abs() < 1e-3, "{full}");
        clamped.frame(at(k));
        let w = clamped.local.angular_velocity;
        let expected = full.min(8.0 * k as f64 * a * h);
        assert!(
            (w[1] - expected).abs() < 1e-9,
            "frame {k}: {w:?} {expected}"
        );
        assert!(w[0].abs() < 1e-12 && w[2].abs() < 1e-12, "{w:?}");
        assert!(w[1] - last <= a * DT * (1.0 + 1e-9));
        last = w[1];
    }
    // Caught up: the clamped cloth turns as the free one does.
    assert!((last - free.local.angular_velocity[1]).abs() < 1e-12);
}
