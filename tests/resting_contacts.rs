//! Resting contacts (issue 32 §1): a particle resting on a collider and
//! moving away from it slightly still has its contact in the substep, so
//! a link or a particle pair that pushes it back cannot push it through;
//! the same for every collider kind (plane, sphere, capsule, box, static
//! and moving); a cloth dropped on the ground never has a particle behind
//! it after any substep, and its pairs keep the distance
//! docs/self-collision.md promises; a particle starting on a capsule's
//! axis is pushed out along the documented direction.

use std::collections::HashSet;

use xpbd::step::{
    particle_contact_distance, scratch_len, self_collision_adjacency_len, self_collision_table_len,
    step, Capsule, Colliders, Contact, OrientedBox, ParticleContact, Plane, SelfCollision, Sphere,
    StepConfig, World,
};
use xpbd::{cloth, cloth_link_count, Link};

const R: f64 = 0.005;
/// One substep of 1/600 s: the reproducer (1 cm in one substep
/// is −6 m/s).
const H: f64 = 1.0 / 600.0;

/// Which collider holds the particle up: its surface passes through
/// y = 0 under the particle at x = z = 0, normal +y.
#[derive(Clone, Copy, Debug)]
enum Ground {
    Plane,
    Sphere,
    Capsule { moving: bool },
    Box { moving: bool },
}

const GROUNDS: [Ground; 6] = [
    Ground::Plane,
    Ground::Sphere,
    Ground::Capsule { moving: false },
    Ground::Capsule { moving: true },
    Ground::Box { moving: false },
    Ground::Box { moving: true },
];

struct Shapes {
    planes: Vec<Plane<f64, 3>>,
    spheres: Vec<Sphere<f64, 3>>,
    capsules: Vec<Capsule<f64, 3>>,
    boxes: Vec<OrientedBox<f64, 3>>,
}

/// The collider whose top is y = 0 at the substep's end (a moving one
/// moves along x, so its top stays at y = 0).
fn colliders(g: Ground) -> Shapes {
    let mut c = Shapes {
        planes: vec![],
        spheres: vec![],
        capsules: vec![],
        boxes: vec![],
    };
    let speed = |moving: bool| if moving { [0.5, 0.0, 0.0] } else { [0.0; 3] };
    match g {
        Ground::Plane => c.planes.push(Plane {
            normal: [0.0, 1.0, 0.0],
            offset: 0.0,
        }),
        Ground::Sphere => c.spheres.push(Sphere {
            center: [0.0, -1.0, 0.0],
            radius: 1.0,
        }),
        Ground::Capsule { moving } => {
            let mut cap = Capsule::new([0.0, -0.5, 0.0], [0.0, 0.0, 1.0], 0.5);
            cap.velocity = speed(moving);
            c.capsules.push(cap);
        }
        Ground::Box { moving } => {
            let mut b = OrientedBox::new([0.0, -0.5, 0.0], [1.0, 0.5, 1.0]);
            b.velocity = speed(moving);
            c.boxes.push(b);
        }
    }
    c
}

/// Height of particle `k` above the collider's top after the step, minus r.
fn gap(x: &[[f64; 3]], k: usize) -> f64 {
    x[k][1] - R
}

/// One substep of a world of particles `x` (w = 0 pinned), optional
/// links and self-collision, on collider `g`; returns the positions and
/// velocities after it.
fn one_substep(
    g: Ground,
    mut x: Vec<[f64; 3]>,
    mut v: Vec<[f64; 3]>,
    w: &[f64],
    mut links: Vec<Link<f64>>,
    self_collision: bool,
) -> (Vec<[f64; 3]>, Vec<[f64; 3]>) {
    let n = x.len();
    let c = colliders(g);
    let mut contacts = vec![Contact::default(); 8 * n];
    let mut scratch = vec![[0.0; 3]; scratch_len(n, links.len())];
    let mut pairs = vec![ParticleContact::default(); 8 * n];
    let mut table = vec![0u32; self_collision_table_len(n)];
    let mut ids = vec![0u32; n];
    let mut adjacency = vec![0u32; self_collision_adjacency_len(n, links.len())];
    let mut config = StepConfig::new([0.0, -9.81, 0.0]);
    config.substeps = 1;
    config.particle_radius = R;
    let mut world = World::new(&mut x, &mut v, w, &mut contacts, &mut scratch);
    world.links = &mut links;
    world.colliders = Some(Colliders {
        planes: &c.planes,
        spheres: &c.spheres,
        capsules: &c.capsules,
        boxes: &c.boxes,
        ..Default::default()
    });
    if self_collision {
        world.self_collision = Some(SelfCollision {
            pairs: &mut pairs,
            table: &mut table,
            ids: &mut ids,
            adjacency: &mut adjacency,
            rest: &[],
        });
    }
    step(&mut world, H, &config).expect("step");
    (x, v)
}

/// The first reproducer: a particle at height r moving up at
/// 0.1 m/s, joined by a rigid link compressed by 1 cm to a pinned
/// particle above it. Before the fix it ended 1 cm below the plane at
/// −6 m/s; now it ends on the surface of every collider kind.
#[test]
fn compressed_link_cannot_push_a_rising_particle_through() {
    for g in GROUNDS {
        let length = 0.1;
        let x = vec![[0.0, R, 0.0], [0.0, R + length - 0.01, 0.0]];
        let v = vec![[0.0, 0.1, 0.0], [0.0; 3]];
        let links = vec![Link::new(0, 1, length, 0.0)];
        let (x, v) = one_substep(g, x, v, &[1.0, 0.0], links, false);
        assert!(gap(&x, 0) >= -1e-12, "{g:?}: {} m behind", -gap(&x, 0));
        assert!(v[0][1] > -1.0, "{g:?}: {} m/s", v[0][1]);
    }
}

/// The second reproducer: the same particle pressed by a pinned
/// particle closer than the pair distance (self-collision). Before the
/// fix it ended 1.6 mm inside the plane.
#[test]
fn overlapping_pair_cannot_push_a_rising_particle_through() {
    for g in GROUNDS {
        let d = particle_contact_distance(R);
        let x = vec![[0.0, R, 0.0], [0.0, R + d - 0.003, 0.0]];
        let v = vec![[0.0, 0.1, 0.0], [0.0; 3]];
        let (x, _) = one_substep(g, x, v, &[1.0, 0.0], vec![], true);
        assert!(gap(&x, 0) >= -1e-12, "{g:?}: {} m behind", -gap(&x, 0));
    }
}

/// A particle resting with no velocity at all a little above the surface
/// (within r) is still held when a link pushes it down.
#[test]
fn particle_near_the_surface_at_rest_is_held() {
    for g in GROUNDS {
        let length = 0.1;
        let x = vec![[0.0, R + 0.2 * R, 0.0], [0.0, 1.2 * R + length - 0.01, 0.0]];
        let v = vec![[0.0; 3], [0.0; 3]];
        let links = vec![Link::new(0, 1, length, 0.0)];
        let (x, _) = one_substep(g, x, v, &[1.0, 0.0], links, false);
        assert!(gap(&x, 0) >= -1e-12, "{g:?}: {} m behind", -gap(&x, 0));
    }
}

/// A particle that starts exactly on a moving capsule's axis (no
/// direction from the axis to push it) is pushed out along the
/// documented direction: perpendicular to the axis, towards the first
/// world axis least aligned with it (+x for a capsule along z), and ends
/// outside it by r.
#[test]
fn particle_on_a_capsule_axis_is_pushed_out() {
    let (vz, t) = (0.3, 1.0 / 60.0);
    let mut cap = Capsule::new([0.0, 0.0, 0.0], [0.0, 0.0, 0.2], 0.05);
    cap.velocity = [0.0, 0.0, vz];
    let capsules = [cap];
    let mut x = vec![[0.0, 0.0, 0.05]];
    let mut v = vec![[0.0; 3]];
    let mut contacts = vec![Contact::default(); 4];
    let mut scratch = vec![[0.0; 3]; scratch_len(1, 0)];
    let mut config = StepConfig::new([0.0, 0.0, 0.0]);
    config.substeps = 4;
    config.particle_radius = R;
    let w = [1.0];
    let mut world = World::new(&mut x, &mut v, &w, &mut contacts, &mut scratch);
    world.colliders = Some(Colliders {
        capsules: &capsules,
        ..Default::default()
    });
    step(&mut world, t, &config).expect("step");
    let p = x[0];
    // The capsule's axis at the frame's end is the z axis (it moves along
    // it), so the distance to it is the distance from the z axis while
    // the particle is beside the segment.
    assert!(p[2].abs() < 0.2 + vz * t, "beside the segment: {p:?}");
    assert!(p[1].abs() < 1e-12 && p[0] > 0.0, "pushed along +x: {p:?}");
    assert!(p[0] >= 0.05 + R - 1e-9, "outside the capsule by r: {p:?}");
}

/// A particle exactly at a static sphere's centre is pushed out along
/// +x (the rule of a capsule of zero length) and ends on its surface.
#[test]
fn particle_at_a_sphere_centre_is_pushed_out() {
    let spheres = [Sphere {
        center: [1.0, 2.0, 3.0],
        radius: 0.1,
    }];
    let mut x = vec![[1.0, 2.0, 3.0]];
    let mut v = vec![[0.0; 3]];
    let mut contacts = vec![Contact::default(); 4];
    let mut scratch = vec![[0.0; 3]; scratch_len(1, 0)];
    let mut config = StepConfig::new([0.0, 0.0, 0.0]);
    config.substeps = 1;
    config.particle_radius = R;
    let w = [1.0];
    let mut world = World::new(&mut x, &mut v, &w, &mut contacts, &mut scratch);
    world.colliders = Some(Colliders {
        spheres: &spheres,
        ..Default::default()
    });
    step(&mut world, 1.0 / 60.0, &config).expect("step");
    let p = x[0];
    assert!(p[1] == 2.0 && p[2] == 3.0, "pushed along +x only: {p:?}");
    assert!(
        p[0] - 1.0 >= 0.1 + R - 1e-12,
        "outside the sphere by r: {p:?}"
    );
}

/// A folded cloth (two layers) dropped onto the ground with
/// self-collision at 1.4 m/s, one substep of 1/1200 s per call (20
/// substeps per 60 Hz frame), one iteration: after every substep no
/// particle is behind the ground; no two collidable particles are closer
/// than 2r once the cloth rests (the last 0.1 s), and during the impact
/// no closer than 2r less 10 % (measured 7.2 %: a particle squeezed
/// between the ground and a pair), as docs/self-collision.md says.
#[test]
#[cfg_attr(
    miri,
    ignore = "hundreds of substeps of a cloth: too slow for the interpreter"
)]
fn folded_cloth_dropped_on_the_ground_stays_above_it() {
    let (n, spacing) = (12usize, 0.01);
    let rest: Vec<[f64; 3]> = (0..n * n)
        .map(|k| [(k % n) as f64 * spacing, 0.0, (k / n) as f64 * spacing])
        .collect();
    let half = (n / 2) as f64 * spacing;
    let mut x: Vec<[f64; 3]> = rest
        .iter()
        .map(|p| {
            let (cx, cz) = (p[0] - half, p[2] - half);
            if p[2] > half - spacing / 2.0 {
                [cx, 0.1 + 2.5 * R, -cz + spacing]
            } else {
                [cx, 0.1, cz]
            }
        })
        .collect();
    let count = x.len();
    let mut links = vec![Link::default(); cloth_link_count(n, n, true).expect("count")];
    cloth(&rest, n, n, true, 1e-6, &mut links).expect("cloth");
    let linked: HashSet<(usize, usize)> = links
        .iter()
        .map(|l| (l.i.min(l.j) as usize, l.i.max(l.j) as usize))
        .collect();
    let mut v = vec![[0.0; 3]; count];
    let w = vec![1.0 / 0.001; count];
    let mut contacts = vec![Contact::default(); 2 * count];
    let mut scratch = vec![[0.0; 3]; scratch_len(count, links.len())];
    let mut pairs = vec![ParticleContact::default(); 16 * count];
    let mut table = vec![0u32; self_collision_table_len(count)];
    let mut ids = vec![0u32; count];
    let mut adjacency = vec![0u32; self_collision_adjacency_len(count, links.len())];
    let ground = [Plane {
        normal: [0.0, 1.0, 0.0],
        offset: 0.0,
    }];
    let mut config = StepConfig::new([0.0, -9.81, 0.0]);
    config.substeps = 1;
    config.particle_radius = R;
    config.damping = 1.0;
    config.static_friction = 0.3;
    config.dynamic_friction = 0.3;
    let (mut lowest, mut closest, mut settled) = (f64::INFINITY, f64::INFINITY, f64::INFINITY);
    for substep in 0..20 * 60 {
        let mut world = World::new(&mut x, &mut v, &w, &mut contacts, &mut scratch);
        world.links = &mut links;
        world.colliders = Some(Colliders {
            planes: &ground,
            ..Default::default()
        });
        world.self_collision = Some(SelfCollision {
            pairs: &mut pairs,
            table: &mut table,
            ids: &mut ids,
            adjacency: &mut adjacency,
            rest: &rest,
        });
        step(&mut world, 1.0 / 1200.0, &config).expect("step");
        for p in &x {
            lowest = lowest.min(p[1] - R);
        }
        for i in 0..count {
            for j in i + 1..count {
                let d2 =
                    |a: [f64; 3], b: [f64; 3]| (0..3).map(|k| (a[k] - b[k]).powi(2)).sum::<f64>();
                if linked.contains(&(i, j)) || d2(rest[i], rest[j]) < 4.0 * R * R {
                    continue;
                }
                let d = d2(x[i], x[j]).sqrt();
                closest = closest.min(d);
                if substep >= 20 * 54 {
                    settled = settled.min(d);
                }
            }
        }
    }
    assert!(
        lowest >= -1e-12,
        "a particle {} m behind the ground",
        -lowest
    );
    println!("lowest gap {lowest:e} m, closest pair {closest} m, at rest {settled} m");
    assert!(
        closest >= 0.9 * 2.0 * R,
        "closest pair {closest} m (2r = {} m)",
        2.0 * R
    );
    assert!(settled >= 2.0 * R, "closest pair at rest {settled} m");
}
