//! Moving capsules and oriented boxes (issue 16, item 3) through the Rust
//! API: a capsule swept through a hanging cloth at 5 m/s leaves no particle
//! inside it after any substep; a 2 mm box at 20 m/s, one substep per
//! frame, lets no particle through; a rotating box keeps every particle
//! out; a moving box carries a particle by friction; validation names the
//! collider and writes nothing; 2D capsules; f32 and f64 from one code.
//! The heightfield and signed distance field colliders (issue 36) are the
//! module `fields` (one test program fewer to build and link).

use xpbd::step::{
    scratch_len, step, Capsule, Colliders, Contact, OrientedBox, StepConfig, StepError, World,
};
use xpbd::{cloth, cloth_link_count, Link, Real};

#[path = "moving_colliders/fields.rs"]
mod fields;

const G: f64 = 9.81;

struct Scene<T> {
    x: Vec<[T; 3]>,
    v: Vec<[T; 3]>,
    w: Vec<T>,
    links: Vec<Link<T>>,
    contacts: Vec<Contact<T>>,
    scratch: Vec<[T; 3]>,
}

impl<T: Real> Scene<T> {
    fn new(x: Vec<[T; 3]>, w: Vec<T>, links: Vec<Link<T>>) -> Self {
        let n = x.len();
        let link_count = links.len();
        Self {
            v: vec![[T::ZERO; 3]; n],
            x,
            w,
            links,
            contacts: vec![Contact::default(); 2 * n],
            scratch: vec![[T::ZERO; 3]; scratch_len(n, link_count)],
        }
    }

    fn step(
        &mut self,
        capsules: &[Capsule<T, 3>],
        boxes: &[OrientedBox<T, 3>],
        dt: f64,
        config: &StepConfig<T, 3>,
    ) -> Result<xpbd::step::StepStats<T>, StepError> {
        let mut world = World::new(
            &mut self.x,
            &mut self.v,
            &self.w,
            &mut self.contacts,
            &mut self.scratch,
        );
        world.links = &mut self.links;
        world.colliders = Some(Colliders {
            capsules,
            boxes,
            ..Default::default()
        });
        step(&mut world, T::from_f64(dt), config)
    }
}

/// A cloth of `rows × cols` particles 5 cm apart hanging in the x–y plane
/// (z = 0) from its pinned top row.
fn hanging_cloth<T: Real>(rows: usize, cols: usize) -> Scene<T> {
    let spacing = 0.05;
    let mut x = Vec::new();
    let mut w = Vec::new();
    for i in 0..rows {
        for k in 0..cols {
            x.push([
                (k as f64 - (cols - 1) as f64 / 2.0) * spacing,
                -(i as f64) * spacing,
                0.0,
            ]);
            w.push(if i == 0 { 0.0 } else { 50.0 });
        }
    }
    let m = cloth_link_count(rows, cols, true).unwrap();
    let mut links = vec![Link::default(); m];
    cloth(&x, rows, cols, true, 1e-7, &mut links).unwrap();
    let links = links
        .iter()
        .map(|l| Link::new(l.i, l.j, T::from_f64(l.rest), T::from_f64(l.compliance)))
        .collect();
    Scene::new(
        x.iter().map(|p| p.map(T::from_f64)).collect(),
        w.iter().map(|&v| T::from_f64(v)).collect(),
        links,
    )
}

/// Distance (m) from `p` to the segment `c ± a`.
fn to_segment(p: [f64; 3], c: [f64; 3], a: [f64; 3]) -> f64 {
    let d = [p[0] - c[0], p[1] - c[1], p[2] - c[2]];
    let aa = a[0] * a[0] + a[1] * a[1] + a[2] * a[2];
    let s = ((d[0] * a[0] + d[1] * a[1] + d[2] * a[2]) / aa).clamp(-1.0, 1.0);
    let e = [d[0] - s * a[0], d[1] - s * a[1], d[2] - s * a[2]];
    (e[0] * e[0] + e[1] * e[1] + e[2] * e[2]).sqrt()
}

/// The capsule sweep: a vertical capsule (radius 4 cm, core 30 cm) through
/// the middle of the hanging cloth at 5 m/s along z, `substeps` per frame
/// of `dt`; returns the smallest distance of a particle from the core
/// minus the capsule's and the particle's radius after every frame
/// (negative: closer than the particle radius allows).
fn capsule_sweep<T: Real>(substeps: u32, dt: f64, frames: usize) -> f64 {
    let (rows, cols) = if cfg!(miri) { (3, 3) } else { (12, 12) };
    let mut scene = hanging_cloth::<T>(rows, cols);
    let mut config = StepConfig::new([T::ZERO, T::from_f64(-G), T::ZERO]);
    config.substeps = substeps;
    config.particle_radius = T::from_f64(0.002);
    let radius = 0.04;
    let mut center = [0.0, -0.25, -0.2];
    let speed = 5.0;
    let mut closest = f64::INFINITY;
    for _ in 0..frames {
        let mut capsule = Capsule::new(
            center.map(T::from_f64),
            [T::ZERO, T::from_f64(0.15), T::ZERO],
            T::from_f64(radius),
        );
        capsule.velocity = [T::ZERO, T::ZERO, T::from_f64(speed)];
        scene.step(&[capsule], &[], dt, &config).unwrap();
        center[2] += speed * dt;
        // The capsule where the step left it (its pose at the frame's end).
        let c = capsule.center.map(|v| v.to_f64());
        let c = [c[0], c[1], c[2] + speed * dt];
        for p in &scene.x {
            let d = to_segment(p.map(|v| v.to_f64()), c, [0.0, 0.15, 0.0]) - radius - 0.002;
            closest = closest.min(d);
        }
    }
    closest
}

#[test]
fn a_capsule_swept_through_a_cloth_leaves_no_particle_inside_it() {
    let frames = if cfg!(miri) { 2 } else { 12 };
    // 20 substeps per 60 Hz frame (checked after each frame), and one
    // substep per frame of 1/1200 s (checked after every substep).
    let d = capsule_sweep::<f64>(20, 1.0 / 60.0, frames);
    assert!(d >= -1e-9, "f64, 20 substeps: {d} m");
    let d = capsule_sweep::<f64>(1, 1.0 / 1200.0, frames * 20);
    assert!(d >= -1e-9, "f64, 1 substep: {d} m");
    let d = capsule_sweep::<f32>(20, 1.0 / 60.0, frames);
    assert!(d >= -1e-6, "f32: {d} m");
}

/// A 2 mm thick box (1 m square) at 20 m/s along z, one substep per 60 Hz
/// frame (33 cm a substep), into a grid of free particles in its way; the
/// smallest local z of a particle ahead of the box's front face (negative:
/// a particle passed into or through it).
fn thin_box<T: Real>(angular: f64) -> f64 {
    let n = if cfg!(miri) { 2 } else { 6 };
    let mut x = Vec::new();
    for i in 0..n {
        for k in 0..n {
            x.push([(i as f64 - 2.5) * 0.1, (k as f64 - 2.5) * 0.1, 0.5]);
        }
    }
    let count = x.len();
    let mut scene = Scene::new(
        x.iter().map(|p| p.map(T::from_f64)).collect(),
        vec![T::from_f64(10.0); count],
        vec![],
    );
    let mut config = StepConfig::new([T::ZERO; 3]);
    config.substeps = 1;
    let dt = 1.0 / 60.0;
    let speed = 20.0;
    let half = [0.5, 0.5, 0.001];
    let mut z = 0.0;
    let mut worst = f64::INFINITY;
    for _ in 0..6 {
        let mut b = OrientedBox::new([T::ZERO, T::ZERO, T::from_f64(z)], half.map(T::from_f64));
        b.velocity = [T::ZERO, T::ZERO, T::from_f64(speed)];
        b.angular_velocity = [T::ZERO, T::ZERO, T::from_f64(angular)];
        scene.step(&[], &[b], dt, &config).unwrap();
        z += speed * dt;
        for p in &scene.x {
            let p = p.map(|v| v.to_f64());
            // Only particles over the face (a spin about z keeps z).
            worst = worst.min(p[2] - (z + half[2]));
        }
    }
    worst
}

#[test]
fn a_thin_fast_box_lets_no_particle_through_within_a_frame() {
    let d = thin_box::<f64>(0.0);
    assert!(d >= -1e-9, "f64: {d} m behind the front face");
    let d = thin_box::<f64>(3.0);
    assert!(d >= -1e-9, "f64 spinning: {d} m behind the front face");
    let d = thin_box::<f32>(0.0);
    assert!(d >= -1e-5, "f32: {d} m behind the front face");
}

#[test]
fn a_rotating_box_keeps_particles_out() {
    // A 20 cm cube spinning at 10 rad/s about a tilted axis among falling
    // particles: after every frame no particle is inside it.
    let n = if cfg!(miri) { 2 } else { 7 };
    let mut x = Vec::new();
    for i in 0..n {
        for k in 0..n {
            x.push([(i as f64 - 3.0) * 0.04, 0.15, (k as f64 - 3.0) * 0.04]);
        }
    }
    let count = x.len();
    let mut scene = Scene::new(x, vec![10.0; count], vec![]);
    let config = StepConfig::new([0.0, -G, 0.0]);
    let dt = 1.0 / 60.0;
    let omega = [3.0, 9.0, 2.0];
    let mut b = OrientedBox::new([0.0; 3], [0.1; 3]);
    b.angular_velocity = omega;
    b.dynamic_friction = 0.5;
    let frames = if cfg!(miri) { 2 } else { 60 };
    let mut inside = 0;
    for _ in 0..frames {
        scene.step(&[], &[b], dt, &config).unwrap();
        // The box's axes at the frame's end: the library's Cayley rotation
        // of ω dt / 2, applied here the same way.
        let t = omega.map(|w| w * dt * 0.5);
        let rot = |u: [f64; 3]| {
            let c1 = [
                t[1] * u[2] - t[2] * u[1],
                t[2] * u[0] - t[0] * u[2],
                t[0] * u[1] - t[1] * u[0],
            ];
            let c2 = [
                t[1] * c1[2] - t[2] * c1[1],
                t[2] * c1[0] - t[0] * c1[2],
                t[0] * c1[1] - t[1] * c1[0],
            ];
            let k = 2.0 / (1.0 + t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
            [
                u[0] + k * (c1[0] + c2[0]),
                u[1] + k * (c1[1] + c2[1]),
                u[2] + k * (c1[2] + c2[2]),
            ]
        };
        b.axes = b.axes.map(rot);
        for p in &scene.x {
            let depth = b
                .axes
                .iter()
                .map(|a| 0.1 - (a[0] * p[0] + a[1] * p[1] + a[2] * p[2]).abs())
                .fold(f64::INFINITY, f64::min);
            if depth > 1e-6 {
                inside += 1;
            }
        }
    }
    assert_eq!(inside, 0, "particles inside the spinning box");
}

#[test]
#[cfg_attr(
    miri,
    ignore = "physics over many frames; the paths run in the small tests"
)]
fn a_moving_box_carries_a_particle_by_friction() {
    // A particle resting on a box top that moves at 1 m/s along x: with
    // μ_k = 1 it catches up and rides along.
    let mut scene = Scene::new(vec![[0.0, 0.1, 0.0]], vec![10.0], vec![]);
    let config = StepConfig::new([0.0, -G, 0.0]);
    let dt = 1.0 / 60.0;
    let mut center = [0.0, 0.0, 0.0];
    let mut at_half = [0.0; 3];
    for frame in 0..60 {
        let mut b = OrientedBox::new(center, [2.0, 0.1, 2.0]);
        b.velocity = [1.0, 0.0, 0.0];
        b.dynamic_friction = 1.0;
        scene.step(&[], &[b], dt, &config).unwrap();
        center[0] += dt;
        if frame == 29 {
            at_half = scene.x[0];
        }
    }
    let speed = (scene.x[0][0] - at_half[0]) / 0.5;
    assert!((speed - 1.0).abs() < 1e-6, "{speed} m/s");
    assert!((scene.x[0][1] - 0.1).abs() < 1e-9, "{:?}", scene.x[0]);
}

#[test]
fn bad_colliders_are_named_and_nothing_is_written() {
    let mut scene = Scene::new(vec![[0.0, 1.0, 0.0]], vec![1.0], vec![]);
    scene.v[0] = [0.25, 0.0, 0.0];
    let config = StepConfig::new([0.0, -G, 0.0]);
    let good_c = Capsule::new([0.0; 3], [0.0, 0.1, 0.0], 0.1);
    let good_b = OrientedBox::new([0.0; 3], [0.1; 3]);
    let caps = [
        Capsule {
            radius: -1.0,
            ..good_c
        },
        Capsule {
            center: [f64::NAN, 0.0, 0.0],
            ..good_c
        },
        Capsule {
            angular_velocity: [0.0, f64::INFINITY, 0.0],
            ..good_c
        },
        Capsule {
            static_friction: -0.1,
            ..good_c
        },
    ];
    for bad in caps {
        let before = (scene.x.clone(), scene.v.clone());
        let e = scene
            .step(&[good_c, bad], &[good_b], 1.0 / 60.0, &config)
            .unwrap_err();
        assert_eq!(e, StepError::InvalidCollider { collider: 1 }, "{bad:?}");
        assert_eq!((scene.x.clone(), scene.v.clone()), before);
    }
    let mut skew = good_b;
    skew.axes[1] = [0.1, 1.0, 0.0];
    let mut short = good_b;
    short.axes[2] = [0.0, 0.0, 0.99];
    let boxes = [
        skew,
        short,
        OrientedBox {
            half_extents: [0.1, -0.1, 0.1],
            ..good_b
        },
        OrientedBox {
            velocity: [f64::NAN; 3],
            ..good_b
        },
        OrientedBox {
            dynamic_friction: f64::INFINITY,
            ..good_b
        },
    ];
    for bad in boxes {
        let before = (scene.x.clone(), scene.v.clone());
        let e = scene
            .step(&[good_c], &[good_b, bad], 1.0 / 60.0, &config)
            .unwrap_err();
        assert_eq!(e, StepError::InvalidCollider { collider: 2 }, "{bad:?}");
        assert_eq!((scene.x.clone(), scene.v.clone()), before);
    }
}

#[test]
#[cfg_attr(
    miri,
    ignore = "physics over many frames; the paths run in the small tests"
)]
fn a_particle_rests_on_a_2d_capsule() {
    let mut x = vec![[0.01, 0.5]];
    let mut v = vec![[0.0, 0.0]];
    let mut contacts = vec![Contact::default(); 2];
    let mut scratch = vec![[0.0; 2]; scratch_len(1, 0)];
    let mut config = StepConfig::new([0.0, -G]);
    config.particle_radius = 0.01;
    config.static_friction = 1.0;
    // A horizontal stadium: core from x = −0.2 to 0.2, radius 0.1.
    let capsule = Capsule::new([0.0, 0.0], [0.2, 0.0], 0.1);
    for _ in 0..120 {
        let mut world = World::new(&mut x, &mut v, &[1.0], &mut contacts, &mut scratch);
        world.colliders = Some(Colliders {
            capsules: core::slice::from_ref(&capsule),
            ..Default::default()
        });
        step(&mut world, 1.0 / 60.0, &config).unwrap();
    }
    assert!((x[0][1] - 0.11).abs() < 1e-9, "{:?}", x[0]);
}

#[test]
#[cfg_attr(
    miri,
    ignore = "physics over many frames; the paths run in the small tests"
)]
fn a_kinematic_particle_carries_its_velocity() {
    // w = 0 with a velocity: it moves by v dt each frame (no gravity), keeps
    // its velocity, and drags a rope hanging from it.
    let x = vec![[0.0, 0.0, 0.0], [0.0, -0.1, 0.0], [0.0, -0.2, 0.0]];
    let mut links = vec![Link::default(); 2];
    xpbd::rope(&x, 0.0, &mut links).unwrap();
    let mut scene = Scene::new(x, vec![0.0, 10.0, 10.0], links);
    scene.v[0] = [1.0, 0.0, 0.0];
    let config = StepConfig::new([0.0, -G, 0.0]);
    for _ in 0..60 {
        scene.step(&[], &[], 1.0 / 60.0, &config).unwrap();
    }
    assert_eq!(scene.v[0], [1.0, 0.0, 0.0]);
    assert!(
        (scene.x[0][0] - 1.0).abs() < 1e-12 && scene.x[0][1] == 0.0,
        "{:?}",
        scene.x[0]
    );
    assert!(scene.x[2][0] > 0.5, "the rope follows: {:?}", scene.x[2]);
}
