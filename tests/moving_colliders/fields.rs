//! Heightfield and signed distance field colliders (issue 36, section 2)
//! through the Rust API: particles and a cloth falling at 10 m/s with one
//! substep per frame end no deeper behind the surface than their radius
//! plus 1e-6 m; a field moving at 10 m/s into a hanging cloth pushes it
//! ahead; a resting contact's depth is α m g whatever the iteration count
//! (λ kept across iterations); friction holds a particle on a slope that
//! a frictionless one slides down; a bad field is refused, naming it, and
//! nothing is written; f32 and f64 from one code.

use xpbd::step::{
    scratch_len, step, Colliders, Contact, Heightfield, Sdf, StepConfig, StepError, World,
};
use xpbd::{cloth, cloth_link_count, Link, Real};

const G: f64 = 9.81;

/// A world's buffers.
struct Scene<T> {
    x: Vec<[T; 3]>,
    v: Vec<[T; 3]>,
    w: Vec<T>,
    links: Vec<Link<T>>,
    contacts: Vec<Contact<T>>,
    scratch: Vec<[T; 3]>,
}

impl<T: Real> Scene<T> {
    fn new(x: Vec<[f64; 3]>, v: [f64; 3], w: f64, links: Vec<Link<f64>>) -> Self {
        let n = x.len();
        Self {
            v: vec![v.map(T::from_f64); n],
            x: x.iter().map(|p| p.map(T::from_f64)).collect(),
            w: vec![T::from_f64(w); n],
            contacts: vec![Contact::default(); 4 * n],
            scratch: vec![[T::ZERO; 3]; scratch_len(n, links.len())],
            links: links
                .iter()
                .map(|l| Link::new(l.i, l.j, T::from_f64(l.rest), T::from_f64(l.compliance)))
                .collect(),
        }
    }

    fn step(
        &mut self,
        heightfields: &[Heightfield<T, 3>],
        sdfs: &[Sdf<T, 3>],
        samples: &[T],
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
            heightfields,
            sdfs,
            samples,
            ..Default::default()
        });
        step(&mut world, T::from_f64(1.0 / 60.0), config)
    }

    fn positions(&self) -> Vec<[f64; 3]> {
        self.x.iter().map(|p| p.map(|c| c.to_f64())).collect()
    }
}

/// A `side × side` cloth 2 cm apart at height `y`, centred on (cx, cz).
fn cloth_at(side: usize, y: f64, cx: f64, cz: f64) -> (Vec<[f64; 3]>, Vec<Link<f64>>) {
    let s = 0.02;
    let half = (side - 1) as f64 * s / 2.0;
    let x: Vec<[f64; 3]> = (0..side * side)
        .map(|k| {
            let (r, c) = (k / side, k % side);
            [cx - half + c as f64 * s, y, cz - half + r as f64 * s]
        })
        .collect();
    let mut links = vec![Link::default(); cloth_link_count(side, side, true).unwrap()];
    cloth(&x, side, side, true, 1e-6, &mut links).unwrap();
    (x, links)
}

/// A bumpy terrain: 9 × 9 heights 0.25 m apart over [−1, 1]², a ridge
/// and a tilt, and the exact bilinear height at (x, z) for the checks.
fn terrain() -> (Heightfield<f64, 3>, Vec<f64>) {
    let n = 9;
    let samples: Vec<f64> = (0..n * n)
        .map(|k| {
            let (j, i) = (k / n, k % n);
            0.05 * i as f64 + 0.15 * ((i as f64 * 0.9).sin() * (j as f64 * 0.7).cos())
        })
        .collect();
    let mut f = Heightfield::new([-1.0, 0.0, -1.0], [0.25, 0.25], [n as u32, n as u32], 0);
    (f.static_friction, f.dynamic_friction) = (0.5, 0.4);
    (f, samples)
}

fn terrain_height(f: &Heightfield<f64, 3>, s: &[f64], x: f64, z: f64) -> f64 {
    let n = f.counts[0] as usize;
    let u = ((x - f.offset[0]) / f.spacing[0]).clamp(0.0, (n - 1) as f64);
    let v = ((z - f.offset[2]) / f.spacing[1]).clamp(0.0, (n - 1) as f64);
    let (i, j) = ((u as usize).min(n - 2), (v as usize).min(n - 2));
    let (a, b) = (u - i as f64, v - j as f64);
    let h = |i: usize, j: usize| s[j * n + i];
    let low = h(i, j) + (h(i + 1, j) - h(i, j)) * a;
    let high = h(i, j + 1) + (h(i + 1, j + 1) - h(i, j + 1)) * a;
    f.center[1] + f.offset[1] + low + (high - low) * b
}

/// A sphere of radius `radius` about the local origin as a signed
/// distance field: `count³` nodes over ±`extent`.
fn sphere_sdf(radius: f64, extent: f64, count: u32, first: usize) -> (Sdf<f64, 3>, Vec<f64>) {
    let cell = 2.0 * extent / f64::from(count - 1);
    let mut samples = Vec::new();
    for k in 0..count {
        for j in 0..count {
            for i in 0..count {
                let p = [i, j, k].map(|c| -extent + cell * f64::from(c));
                samples.push((p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt() - radius);
            }
        }
    }
    (Sdf::new([-extent; 3], cell, [count; 3], first), samples)
}

fn config<T: Real>(substeps: u32, radius: f64) -> StepConfig<T, 3> {
    let mut c = StepConfig::new([T::ZERO, T::from_f64(-G), T::ZERO]);
    c.substeps = substeps;
    c.particle_radius = T::from_f64(radius);
    c
}

fn cast<T: Real>(f: &[f64]) -> Vec<T> {
    f.iter().map(|&v| T::from_f64(v)).collect()
}

fn hf<T: Real>(f: &Heightfield<f64, 3>) -> Heightfield<T, 3> {
    Heightfield {
        center: f.center.map(T::from_f64),
        axes: f.axes.map(|a| a.map(T::from_f64)),
        velocity: f.velocity.map(T::from_f64),
        angular_velocity: f.angular_velocity.map(T::from_f64),
        offset: f.offset.map(T::from_f64),
        spacing: f.spacing.map(T::from_f64),
        height_scale: T::from_f64(f.height_scale),
        counts: f.counts,
        first: f.first,
        static_friction: T::from_f64(f.static_friction),
        dynamic_friction: T::from_f64(f.dynamic_friction),
    }
}

fn sdf<T: Real>(f: &Sdf<f64, 3>) -> Sdf<T, 3> {
    Sdf {
        center: f.center.map(T::from_f64),
        axes: f.axes.map(|a| a.map(T::from_f64)),
        velocity: f.velocity.map(T::from_f64),
        angular_velocity: f.angular_velocity.map(T::from_f64),
        offset: f.offset.map(T::from_f64),
        cell: T::from_f64(f.cell),
        counts: f.counts,
        first: f.first,
        static_friction: T::from_f64(f.static_friction),
        dynamic_friction: T::from_f64(f.dynamic_friction),
    }
}

/// Free particles and a cloth thrown down at 10 m/s onto the terrain, one
/// substep per frame: after every frame no particle is below the bilinear
/// surface by more than its radius + 1e-6 m (f32: 1e-4), and they rest
/// on it in the end.
fn terrain_drop<T: Real>(tolerance: f64) {
    let (f, samples) = terrain();
    let r = 0.01;
    let side = if cfg!(miri) { 3 } else { 12 };
    let (x, links) = cloth_at(side, 0.6, 0.1, -0.2);
    let mut scene = Scene::<T>::new(x, [1.0, -10.0, 0.5], 50.0, links);
    let config = config::<T>(1, r);
    let fields = [hf::<T>(&f)];
    let samples_t = cast::<T>(&samples);
    let frames = if cfg!(miri) { 3 } else { 120 };
    let mut deepest = f64::NEG_INFINITY;
    for _ in 0..frames {
        scene.step(&fields, &[], &samples_t, &config).unwrap();
        // Over the footprint (a particle past its edge falls).
        for p in scene
            .positions()
            .iter()
            .filter(|p| p[0].abs() <= 1.0 && p[2].abs() <= 1.0)
        {
            let depth = terrain_height(&f, &samples, p[0], p[2]) - p[1];
            deepest = deepest.max(depth);
        }
    }
    assert!(deepest <= r + tolerance, "{deepest}");
    // Some particle touched it (the check is not empty).
    assert!(deepest > -r - 0.05, "{deepest}");
}

#[test]
fn a_cloth_thrown_at_10_m_s_stays_on_the_terrain() {
    terrain_drop::<f64>(1e-6);
    terrain_drop::<f32>(1e-4);
}

/// A cloth thrown at 10 m/s onto an SDF sphere (radius 0.3 m, 33³
/// nodes), one substep per frame: no particle ends inside the exact
/// sphere by more than its radius + 1e-6 m (the interpolation's error
/// added: the grid's distances are exact at the nodes).
fn sphere_drop<T: Real>(tolerance: f64) -> f64 {
    let (mut f, samples) = sphere_sdf(0.3, 0.4, if cfg!(miri) { 5 } else { 33 }, 0);
    f.center = [0.0, 0.0, 0.0];
    let r = 0.01;
    let side = if cfg!(miri) { 3 } else { 16 };
    let (x, links) = cloth_at(side, 0.8, 0.02, 0.0);
    let mut scene = Scene::<T>::new(x, [0.0, -10.0, 0.0], 50.0, links);
    let config = config::<T>(1, r);
    let fields = [sdf::<T>(&f)];
    let samples_t = cast::<T>(&samples);
    let frames = if cfg!(miri) { 3 } else { 90 };
    let mut deepest = f64::NEG_INFINITY;
    for _ in 0..frames {
        scene.step(&[], &fields, &samples_t, &config).unwrap();
        for p in scene.positions() {
            let d = (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt();
            deepest = deepest.max(0.3 - d);
        }
    }
    // The trilinear interpolant of |p| − R is within cell²/(8R) (about
    // 2 mm here) of the sphere.
    let cell = f.cell;
    assert!(
        deepest <= r + tolerance + cell * cell / (8.0 * 0.3) * 3.0,
        "{deepest}"
    );
    deepest
}

#[test]
fn a_cloth_thrown_at_10_m_s_drapes_over_an_sdf_sphere() {
    let d = sphere_drop::<f64>(1e-6);
    // It rests on the sphere: within its radius of the surface.
    assert!(d > -0.02, "{d}");
    sphere_drop::<f32>(1e-4);
}

/// A signed distance field's sphere moving at 10 m/s through a hanging
/// row of particles, one substep per frame: none is ever left inside it
/// (the plane from the start carried with the collider).
#[test]
fn an_sdf_moving_at_10_m_s_pushes_particles_ahead() {
    let (mut f, samples) = sphere_sdf(0.1, 0.15, 9, 0);
    f.center = [0.0, 0.0, -0.5];
    f.velocity = [0.0, 0.0, 10.0];
    let r = 0.005;
    let x: Vec<[f64; 3]> = (0..9)
        .map(|k| [-0.08 + 0.02 * k as f64, 0.0, 0.0])
        .collect();
    let mut scene = Scene::<f64>::new(x, [0.0; 3], 10.0, Vec::new());
    let mut config = config::<f64>(1, r);
    config.gravity = [0.0; 3];
    let samples = cast::<f64>(&samples);
    let mut hit = 0;
    for frame in 0..12 {
        let mut moved = f;
        moved.center[2] += 10.0 * frame as f64 / 60.0;
        scene.step(&[], &[moved], &samples, &config).unwrap();
        let c = [0.0, 0.0, moved.center[2] + 10.0 / 60.0];
        for p in scene.positions() {
            let d = ((p[0] - c[0]).powi(2) + (p[1] - c[1]).powi(2) + (p[2] - c[2]).powi(2)).sqrt();
            // Interpolation error of the 9³ grid: cell²/(8R) · 3.
            assert!(
                d >= 0.1 - r - 1e-6 - 3.0 * 0.0375f64.powi(2) / 0.8,
                "frame {frame}: {d}"
            );
        }
        hit += scene.positions().iter().filter(|p| p[2] > 0.05).count();
    }
    // The sphere carried them along.
    assert!(hit > 0);
}

/// A particle resting on a flat heightfield with contact compliance α
/// sinks to the depth α m g whatever the iteration count: λ is kept
/// across iterations and reset only at the substep's entry.
#[test]
fn resting_depth_is_alpha_m_g_whatever_the_iterations() {
    let f = Heightfield::new([-1.0, 0.0, -1.0], [2.0, 2.0], [2, 2], 0);
    let samples = [0.0; 4];
    let (m, alpha, r) = (0.5, 1e-4, 0.01);
    let mut depths = Vec::new();
    for iterations in [1, 4, 16] {
        let mut scene = Scene::<f64>::new(vec![[0.1, r, 0.2]], [0.0; 3], 1.0 / m, Vec::new());
        let mut config = config::<f64>(4, r);
        config.iterations = iterations;
        config.contact_compliance = alpha;
        for _ in 0..240 {
            scene.step(&[f], &[], &samples, &config).unwrap();
        }
        depths.push(r - scene.x[0][1]);
    }
    let want = alpha * m * G;
    for d in &depths {
        assert!((d - want).abs() < 1e-9, "{depths:?} vs {want}");
    }
}

/// On a slope of 0.3 (tan θ), μ_s = 0.5 holds a resting particle while
/// μ = 0 lets it slide down.
#[test]
fn friction_holds_a_particle_on_a_slope() {
    let samples = [0.0, 0.3, 0.0, 0.3];
    let r = 0.01;
    let mut travelled = Vec::new();
    for mu in [0.0, 0.5] {
        let mut f = Heightfield::new([-1.0, 0.0, -1.0], [1.0, 2.0], [2, 2], 0);
        (f.static_friction, f.dynamic_friction) = (mu, mu);
        // On the slope at x = −0.5: height 0.15, its normal's offset r.
        let n = [-0.3, 1.0, 0.0].map(|c: f64| c / 1.09f64.sqrt());
        let start = [-0.5 + r * n[0], 0.15 + r * n[1], 0.0];
        let mut scene = Scene::<f64>::new(vec![start], [0.0; 3], 1.0, Vec::new());
        let config = config::<f64>(4, r);
        for _ in 0..60 {
            scene.step(&[f], &[], &samples, &config).unwrap();
        }
        travelled.push(start[0] - scene.x[0][0]);
    }
    assert!(travelled[0] > 0.1, "{travelled:?}");
    assert!(travelled[1].abs() < 1e-3, "{travelled:?}");
}

/// A NaN sample, a sample range past the array, a zero cell, too few
/// nodes and turned axes are refused as the field's collider index
/// (after the planes, spheres, capsules, boxes; heightfields before
/// SDFs), and nothing is written.
#[test]
fn bad_fields_are_refused_by_index_and_write_nothing() {
    let (f, samples) = sphere_sdf(0.1, 0.15, 4, 4);
    let mut all = vec![0.0; 4];
    all.extend(&samples);
    let ground = Heightfield::new([-1.0, 0.0, -1.0], [2.0, 2.0], [2, 2], 0);
    let mut nan = all.clone();
    nan[10] = f64::NAN;
    let mut turned = f;
    turned.axes[1] = [0.0, 1.0, 0.1];
    type Case = (Vec<Heightfield<f64, 3>>, Vec<Sdf<f64, 3>>, Vec<f64>, usize);
    let cases: Vec<Case> = vec![
        (vec![ground], vec![f], nan.clone(), 1),
        (vec![ground], vec![Sdf { first: 5, ..f }], all.clone(), 1),
        (vec![ground], vec![Sdf { cell: 0.0, ..f }], all.clone(), 1),
        (
            vec![ground],
            vec![Sdf {
                counts: [4, 1, 4],
                ..f
            }],
            all.clone(),
            1,
        ),
        (vec![ground], vec![turned], all.clone(), 1),
        (
            vec![
                ground,
                Heightfield {
                    counts: [2, 40],
                    ..ground
                },
            ],
            vec![f],
            all.clone(),
            1,
        ),
        (
            vec![Heightfield {
                spacing: [2.0, -1.0],
                ..ground
            }],
            vec![],
            all.clone(),
            0,
        ),
        (vec![], vec![f], nan, 0),
    ];
    for (h, s, samples, k) in cases {
        let mut scene = Scene::<f64>::new(vec![[0.0, 0.5, 0.0]], [0.0, -1.0, 0.0], 1.0, Vec::new());
        let before = (scene.x.clone(), scene.v.clone());
        let r = scene.step(&h, &s, &samples, &config::<f64>(2, 0.01));
        assert_eq!(
            r,
            Err(StepError::InvalidCollider { collider: k }),
            "{h:?} {s:?}"
        );
        assert_eq!((scene.x.clone(), scene.v.clone()), before);
    }
    // The same fields, valid, step.
    let mut scene = Scene::<f64>::new(vec![[0.0, 0.5, 0.0]], [0.0; 3], 1.0, Vec::new());
    scene
        .step(&[ground], &[f], &all, &config::<f64>(2, 0.01))
        .unwrap();
}

/// In 2D a heightfield is a profile along local x and an SDF a grid of
/// distances in the plane: a particle dropped at 10 m/s rests on each
/// (one substep per frame) within its radius.
#[test]
fn two_dimensional_fields_hold_a_particle() {
    let r = 0.01;
    // A ramp h = 0.2 x over x ∈ [−1, 1], 3 nodes.
    let mut ramp = Heightfield::<f64, 2>::new([-1.0, 0.0], [1.0, 0.0], [3, 1], 0);
    ramp.static_friction = 0.8;
    // A circle of radius 0.3 about (3, 0), 9 × 9 nodes over ±0.4.
    let mut circle = Sdf::<f64, 2>::new([-0.4, -0.4], 0.1, [9, 9], 3);
    circle.center = [3.0, 0.0];
    circle.static_friction = 0.8;
    let mut samples = vec![-0.2, 0.0, 0.2];
    for j in 0..9 {
        for i in 0..9 {
            let p = [-0.4 + 0.1 * f64::from(i), -0.4 + 0.1 * f64::from(j)];
            samples.push((p[0] * p[0] + p[1] * p[1]).sqrt() - 0.3);
        }
    }
    let mut x = vec![[0.5, 1.0], [3.0, 1.0]];
    let mut v = vec![[0.0, -10.0]; 2];
    let w = vec![1.0; 2];
    let mut contacts = vec![Contact::default(); 8];
    let mut scratch = vec![[0.0; 2]; scratch_len(2, 0)];
    let mut config = StepConfig::new([0.0, -G]);
    config.substeps = 1;
    config.particle_radius = r;
    let (ramps, circles) = ([ramp], [circle]);
    for _ in 0..60 {
        let mut world = World::new(&mut x, &mut v, &w, &mut contacts, &mut scratch);
        world.colliders = Some(Colliders {
            heightfields: &ramps,
            sdfs: &circles,
            samples: &samples,
            ..Default::default()
        });
        step(&mut world, 1.0 / 60.0, &config).unwrap();
        assert!(x[0][1] >= 0.2 * x[0][0] - r - 1e-6, "{x:?}");
        let d = ((x[1][0] - 3.0).powi(2) + x[1][1].powi(2)).sqrt();
        assert!(d >= 0.3 - r - 0.01, "{d}");
    }
    // Both held by friction where they landed: on the ramp at x = 0.5, on
    // top of the circle.
    assert!((x[0][0] - 0.5).abs() < 0.05 && x[1][1] > 0.25, "{x:?}");
}
