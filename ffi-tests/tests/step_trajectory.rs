//! Rust and C give bit-identical trajectories: the rope scenario of
//! `ffi-tests/c/test_step.c`, run through the C ABI from C and through the
//! Rust API here, compared bit for bit (f64 and f32).

use xpbd::step::{
    step, Colliders, Contact, ContactOverflow, Plane, Requirements, Sphere, StepConfig, World,
};
use xpbd::{rope, Link, Real, ZeroLength};
use xpbd_ffi_tests::{c_rope_scenario, c_rope_scenario_f32, ROPE_N};

/// The field colliders' scenario (issue 36): one test program fewer.
#[path = "step_trajectory/fields.rs"]
mod fields;

fn rust_scenario<T: Real>(frames: i32) -> (Vec<[T; 3]>, Vec<[T; 3]>) {
    let f = T::from_f64;
    // C computes 0.1 * k in its own precision: the same product here.
    let mut x: Vec<[T; 3]> = (0..ROPE_N)
        .map(|k| [f(0.1) * f(k as f64), f(0.0), f(0.0)])
        .collect();
    let mut v = vec![[f(0.0); 3]; ROPE_N];
    let w: Vec<T> = (0..ROPE_N)
        .map(|k| if k == 0 { f(0.0) } else { f(1.0) })
        .collect();
    let mut links = vec![Link::default(); ROPE_N - 1];
    rope(&x, f(1e-5), &mut links).unwrap();
    for l in &mut links {
        *l = l.tension_only();
    }
    let planes = [Plane {
        normal: [f(0.0), f(1.0), f(0.0)],
        offset: f(-1.0),
    }];
    let spheres = [Sphere {
        center: [f(0.6), f(-0.5), f(0.0)],
        radius: f(0.25),
    }];
    // The bare configuration (`StepConfig::new`: no damping, radius or
    // friction) with every value the C scenario sets, set here too: both
    // sides state the same explicit configuration, whatever the defaults.
    let mut config = StepConfig::new([f(0.0), f(-9.81), f(0.0)]);
    config.substeps = 8;
    config.iterations = 2;
    config.tolerance = f(0.0);
    config.damping = f(0.5);
    config.particle_radius = f(0.02);
    config.contact_compliance = f(0.0);
    config.static_friction = f(0.4);
    config.dynamic_friction = f(0.3);
    config.zero_length = ZeroLength::Reject;
    config.contact_overflow = ContactOverflow::Reject;
    config.max_distance_scale = f(1.0);
    let dt = f(1.0) / f(60.0);
    // The lengths the C world carves from its memory: the same requirements.
    let needs = Requirements::new(ROPE_N, links.len(), planes.len() + spheres.len(), false);
    let mut contacts = vec![Contact::default(); needs.contacts];
    let mut scratch = vec![[f(0.0); 3]; needs.scratch];
    let mut world = World::new(&mut x, &mut v, &w, &mut contacts, &mut scratch);
    world.links = &mut links;
    world.colliders = Some(Colliders {
        planes: &planes,
        spheres: &spheres,
        ..Default::default()
    });
    for _ in 0..frames {
        step(&mut world, dt, &config).unwrap();
    }
    (x, v)
}

fn bits<T: Real>(a: &[[T; 3]]) -> Vec<u64> {
    a.iter().flatten().map(|v| v.to_f64().to_bits()).collect()
}

#[test]
fn rust_and_c_trajectories_are_bit_identical_f64() {
    for frames in [1, 30, 240] {
        let (status, cx, cv) = c_rope_scenario(frames);
        assert_eq!(status, 0);
        let (rx, rv) = rust_scenario::<f64>(frames);
        assert_eq!(bits(&cx), bits(&rx), "positions after {frames} frames");
        assert_eq!(bits(&cv), bits(&rv), "velocities after {frames} frames");
    }
}

#[test]
fn rust_and_c_trajectories_are_bit_identical_f32() {
    for frames in [1, 30, 240] {
        let (status, cx, cv) = c_rope_scenario_f32(frames);
        assert_eq!(status, 0);
        let (rx, rv) = rust_scenario::<f32>(frames);
        assert_eq!(bits(&cx), bits(&rx), "positions after {frames} frames");
        assert_eq!(bits(&cv), bits(&rv), "velocities after {frames} frames");
    }
}
