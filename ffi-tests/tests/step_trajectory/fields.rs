//! Rust and C give bit-identical trajectories over field colliders: the
//! scenario of `ffi-tests/c/fields_impl.h` (a cloth dropped at 10 m/s
//! onto a heightfield, particles onto a signed distance field, one
//! substep per frame), run through the C ABI from C and through the Rust
//! API here, compared bit for bit (f64 and f32).

use xpbd::step::{
    step, Colliders, Contact, Heightfield, Plane, Requirements, Sdf, Sphere, StepConfig, World,
};
use xpbd::{cloth, Link, Real};
use xpbd_ffi_tests::{c_fields_scenario, c_fields_scenario_f32, FIELDS_N};

/// The cloth's particles (first) and the SDF's nodes per axis, as in C.
const CLOTH: usize = 9;
const SDF_N: u32 = 8;

fn rust_scenario<T: Real>(frames: i32) -> (Vec<[T; 3]>, Vec<[T; 3]>) {
    let f = T::from_f64;
    // Every value computed as C computes it, in its own precision.
    let mut x: Vec<[T; 3]> = (0..CLOTH)
        .map(|k| {
            let (c, r) = ((k % 3) as f64, (k / 3) as f64);
            [f(0.2) * f(c) - f(0.2), f(1.0), f(0.2) * f(r) - f(0.2)]
        })
        .collect();
    for [dx, dz] in [
        [0.0, 0.0],
        [0.05, 0.0],
        [-0.05, 0.0],
        [0.0, 0.05],
        [0.0, -0.05],
    ] {
        x.push([f(4.0) + f(dx), f(1.5), f(dz)]);
    }
    assert_eq!(x.len(), FIELDS_N);
    let mut v = vec![[f(0.0), f(-10.0), f(0.0)]; FIELDS_N];
    let w = vec![f(1.0); FIELDS_N];
    let mut links = vec![Link::default(); 12];
    assert_eq!(
        cloth(&x[..CLOTH], 3, 3, false, f(1e-6), &mut links).unwrap(),
        12
    );
    let planes = [Plane {
        normal: [f(0.0), f(1.0), f(0.0)],
        offset: f(-5.0),
    }];
    let spheres = [Sphere {
        center: [f(0.0), f(-20.0), f(0.0)],
        radius: f(1.0),
    }];
    let mut samples = Vec::new();
    for j in 0..4 {
        for i in 0..4 {
            samples.push(f(0.1) * f(f64::from(i)) + f(0.05) * f(f64::from(j)));
        }
    }
    let mut heightfield = Heightfield::new([f(-1.5), f(0.0), f(-1.5)], [f(1.0); 2], [4, 4], 0);
    heightfield.static_friction = f(0.6);
    heightfield.dynamic_friction = f(0.5);
    let mut sdf = Sdf::new([f(-0.875); 3], f(0.25), [SDF_N; 3], samples.len());
    sdf.center = [f(4.0), f(0.5), f(0.0)];
    sdf.static_friction = f(0.6);
    sdf.dynamic_friction = f(0.5);
    for k in 0..SDF_N {
        for j in 0..SDF_N {
            for i in 0..SDF_N {
                let p = [i, j, k].map(|n| f(-0.875) + f(0.25) * f(f64::from(n)));
                let d2 = p[0] * p[0] + p[1] * p[1] + p[2] * p[2];
                samples.push(f(d2.to_f64().sqrt()) - f(0.5));
            }
        }
    }
    let config = StepConfig {
        substeps: 1,
        ..StepConfig::default()
    };
    let dt = f(1.0) / f(60.0);
    let needs = Requirements::new(FIELDS_N, links.len(), 4, false);
    let mut contacts = vec![Contact::default(); needs.contacts];
    let mut scratch = vec![[f(0.0); 3]; needs.scratch];
    let (heightfields, sdfs) = ([heightfield], [sdf]);
    let mut world = World::new(&mut x, &mut v, &w, &mut contacts, &mut scratch);
    world.links = &mut links;
    world.colliders = Some(Colliders {
        planes: &planes,
        spheres: &spheres,
        heightfields: &heightfields,
        sdfs: &sdfs,
        samples: &samples,
        ..Default::default()
    });
    assert_eq!(world.requirements(), needs);
    for _ in 0..frames {
        step(&mut world, dt, &config).unwrap();
    }
    (x, v)
}

fn bits<T: Real>(a: &[[T; 3]]) -> Vec<u64> {
    a.iter().flatten().map(|v| v.to_f64().to_bits()).collect()
}

#[test]
fn rust_and_c_field_trajectories_are_bit_identical_f64() {
    for frames in [1, 5, 60] {
        let (status, cx, cv) = c_fields_scenario(frames);
        assert_eq!(status, 0);
        let (rx, rv) = rust_scenario::<f64>(frames);
        assert_eq!(bits(&cx), bits(&rx), "positions after {frames} frames");
        assert_eq!(bits(&cv), bits(&rv), "velocities after {frames} frames");
    }
}

#[test]
fn rust_and_c_field_trajectories_are_bit_identical_f32() {
    for frames in [1, 5, 60] {
        let (status, cx, cv) = c_fields_scenario_f32(frames);
        assert_eq!(status, 0);
        let (rx, rv) = rust_scenario::<f32>(frames);
        assert_eq!(bits(&cx), bits(&rx), "positions after {frames} frames");
        assert_eq!(bits(&cv), bits(&rv), "velocities after {frames} frames");
    }
}
