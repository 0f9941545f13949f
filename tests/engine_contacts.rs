//! Engine-supplied contacts (issue 16, item 2) through the Rust API: a
//! cloth falling onto contacts the test generates from a 30°-tilted
//! triangle mesh (no particle below the surface by more than its radius +
//! 1e-6 m after 600 frames), a particle sliding to rest at the Coulomb
//! distance (flat and up the slope), the normal force read back, the
//! lifecycle (the compliant sag `α m g` whatever the iteration count),
//! moving surfaces carrying a particle by friction, validation naming the
//! contact, and nothing written on error; f32 and f64 from one code.

use xpbd::step::{scratch_len, step, Contact, EngineContact, StepConfig, StepError, World};
use xpbd::{cloth, cloth_link_count, Link, Real};

const G: f64 = 9.81;

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
fn scale(a: [f64; 3], s: f64) -> [f64; 3] {
    a.map(|v| v * s)
}
fn add(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

/// A triangle mesh: a square of `n × n` cells of size `cell` (m), tilted
/// by `angle` (rad) about the z axis, two triangles per cell.
struct Mesh {
    tris: Vec<[[f64; 3]; 3]>,
}

impl Mesh {
    fn tilted(n: usize, cell: f64, angle: f64) -> Self {
        let (c, s) = (angle.cos(), angle.sin());
        let at = |i: usize, k: usize| {
            let u = (i as f64 - n as f64 / 2.0) * cell;
            let z = (k as f64 - n as f64 / 2.0) * cell;
            [u * c, u * s, z]
        };
        let mut tris = Vec::new();
        for i in 0..n {
            for k in 0..n {
                let (a, b, cc, d) = (at(i, k), at(i + 1, k), at(i + 1, k + 1), at(i, k + 1));
                // Counter-clockwise seen from above (normal up the slope).
                tris.push([a, d, b]);
                tris.push([b, d, cc]);
            }
        }
        Self { tris }
    }

    /// The closest point of triangle `t` to `p` (Ericson, *Real-Time
    /// Collision Detection*, 5.1.5) and the triangle's unit normal.
    fn closest(t: &[[f64; 3]; 3], p: [f64; 3]) -> ([f64; 3], [f64; 3]) {
        let [a, b, c] = *t;
        let n = cross(sub(b, a), sub(c, a));
        let n = scale(n, 1.0 / dot(n, n).sqrt());
        let (ab, ac, ap) = (sub(b, a), sub(c, a), sub(p, a));
        let (d1, d2) = (dot(ab, ap), dot(ac, ap));
        if d1 <= 0.0 && d2 <= 0.0 {
            return (a, n);
        }
        let bp = sub(p, b);
        let (d3, d4) = (dot(ab, bp), dot(ac, bp));
        if d3 >= 0.0 && d4 <= d3 {
            return (b, n);
        }
        let vc = d1 * d4 - d3 * d2;
        if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
            return (add(a, scale(ab, d1 / (d1 - d3))), n);
        }
        let cp = sub(p, c);
        let (d5, d6) = (dot(ab, cp), dot(ac, cp));
        if d6 >= 0.0 && d5 <= d6 {
            return (c, n);
        }
        let vb = d5 * d2 - d1 * d6;
        if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
            return (add(a, scale(ac, d2 / (d2 - d6))), n);
        }
        let va = d3 * d6 - d5 * d4;
        if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
            let w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
            return (add(b, scale(sub(c, b), w)), n);
        }
        let denom = 1.0 / (va + vb + vc);
        let (v, w) = (vb * denom, vc * denom);
        (add(a, add(scale(ab, v), scale(ac, w))), n)
    }

    /// The engine's contacts for one frame: every particle whose closest
    /// triangle is within `margin` (m) of it (above or below), against
    /// that triangle's plane at the closest point.
    fn contacts<T: Real>(
        &self,
        x: &[[T; 3]],
        margin: f64,
        (mu_s, mu_k): (f64, f64),
    ) -> Vec<EngineContact<T, 3>> {
        let mut out = Vec::new();
        for (k, p) in x.iter().enumerate() {
            let p = p.map(|v| v.to_f64());
            let mut best: Option<(f64, [f64; 3], [f64; 3])> = None;
            for t in &self.tris {
                let (q, n) = Self::closest(t, p);
                let d = sub(p, q);
                let dist = dot(d, d).sqrt();
                if best.map_or(true, |(b, _, _)| dist < b) {
                    best = Some((dist, q, n));
                }
            }
            if let Some((dist, q, n)) = best {
                if dist <= margin {
                    let mut c =
                        EngineContact::new(k as u32, n.map(T::from_f64), q.map(T::from_f64));
                    c.dynamic_friction = T::from_f64(mu_k);
                    c.static_friction = T::from_f64(mu_s);
                    out.push(c);
                }
            }
        }
        out
    }
}

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
            contacts: vec![Contact::default(); 1],
            scratch: vec![[T::ZERO; 3]; scratch_len(n, link_count)],
        }
    }

    fn step(
        &mut self,
        engine: &mut [EngineContact<T, 3>],
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
        world.engine_contacts = Some(engine);
        step(&mut world, T::from_f64(dt), config)
    }
}

fn gravity<T: Real>() -> StepConfig<T, 3> {
    StepConfig::new([T::ZERO, T::from_f64(-G), T::ZERO])
}

/// The acceptance cloth: 600 frames onto the tilted mesh; no particle
/// below its triangle's plane by more than r + 1e-6 m at any frame's end.
fn cloth_on_mesh<T: Real>(frames: usize, side: usize) -> f64 {
    let angle = 30f64.to_radians();
    let mesh = Mesh::tilted(6, 0.5, angle);
    let r = 0.01;
    let (rows, cols) = (side, side);
    let spacing = 0.1;
    let mut x = Vec::new();
    for i in 0..rows {
        for k in 0..cols {
            let u = (k as f64 - cols as f64 / 2.0) * spacing;
            let z = (i as f64 - rows as f64 / 2.0) * spacing;
            x.push([u, 0.3, z]);
        }
    }
    let m = cloth_link_count(rows, cols, true).unwrap();
    let mut links = vec![Link::default(); m];
    cloth(&x, rows, cols, true, 1e-6, &mut links).unwrap();
    let links: Vec<Link<T>> = links
        .iter()
        .map(|l| Link::new(l.i, l.j, T::from_f64(l.rest), T::from_f64(l.compliance)))
        .collect();
    let x: Vec<[T; 3]> = x.iter().map(|p| p.map(T::from_f64)).collect();
    let n = x.len();
    let mut scene = Scene::new(x, vec![T::from_f64(20.0); n], links);
    let mut config = gravity::<T>();
    config.particle_radius = T::from_f64(r);
    config.damping = T::from_f64(0.5);
    if cfg!(miri) {
        config.substeps = 4;
    }
    let mut worst: f64 = f64::NEG_INFINITY;
    for _ in 0..frames {
        // μ_s = μ_k = 0.7 > tan 30°: the cloth comes to rest on the slope
        // (with μ_k < tan 30° it would slide off the mesh).
        let mut engine = mesh.contacts(&scene.x, 0.15, (0.7, 0.7));
        scene.step(&mut engine, 1.0 / 60.0, &config).unwrap();
        for p in &scene.x {
            let p = p.map(|v| v.to_f64());
            // Depth below the mesh's plane (all triangles are coplanar).
            let (_, nrm) = Mesh::closest(&mesh.tris[0], p);
            let below = -dot(sub(p, mesh.tris[0][0]), nrm);
            worst = worst.max(below);
        }
    }
    worst
}

#[test]
fn a_cloth_on_a_tilted_mesh_never_sinks_below_its_radius() {
    let (frames, side) = if cfg!(miri) { (3, 3) } else { (600, 10) };
    let r = 0.01;
    let worst = cloth_on_mesh::<f64>(frames, side);
    println!("cloth on the 30° mesh: deepest {worst:.3e} m below the surface (r = {r} m)");
    assert!(worst <= r + 1e-6, "f64: {worst} m below the surface");
    if !cfg!(miri) {
        let worst32 = cloth_on_mesh::<f32>(frames, side);
        // f32 positions near 1 m move in ulps of 1.2e-7 m.
        assert!(worst32 <= r + 1e-6, "f32: {worst32} m below the surface");
    }
}

/// A particle sliding from `v0` (m/s) along a surface of slope `angle`
/// (rad, uphill when `angle > 0`) with μ_k: the distance to its turning
/// point against the Coulomb distance `v0² / (2 g (sin θ + μ_k cos θ))`.
fn slide(angle: f64, mu: f64, v0: f64) -> (f64, f64) {
    let (c, s) = (angle.cos(), angle.sin());
    let normal = [-s, c, 0.0];
    let up = [c, s, 0.0];
    let mut scene = Scene::new(vec![[0.0; 3]], vec![10.0], vec![]);
    scene.v[0] = scale(up, v0);
    let config = gravity::<f64>();
    let mut travelled: f64 = 0.0;
    // The contacts come from the tilted triangle mesh, as the engine would
    // find them (the mesh's plane is the slope through the origin).
    let mesh = Mesh::tilted(6, 0.5, angle);
    for _ in 0..600 {
        let mut engine = mesh.contacts(&scene.x, 0.15, (0.0, mu));
        assert_eq!(engine.len(), 1);
        let n = engine[0].normal;
        assert!((dot(n, normal) - 1.0).abs() < 1e-12);
        scene.step(&mut engine, 1.0 / 60.0, &config).unwrap();
        let along = dot(scene.x[0], up);
        if along <= travelled {
            break;
        }
        travelled = along;
    }
    let expected = v0 * v0 / (2.0 * G * (s + mu * c));
    (travelled, expected)
}

#[test]
#[cfg_attr(
    miri,
    ignore = "physics over hundreds of frames; the paths run in the small tests"
)]
fn a_sliding_particle_stops_at_the_coulomb_distance() {
    let (d, want) = slide(0.0, 0.3, 2.0);
    println!("flat: slid {d:.5} m, Coulomb {want:.5} m");
    assert!(
        (d - want).abs() <= 0.02 * want,
        "flat: {d} m, Coulomb {want} m"
    );
    let (d, want) = slide(30f64.to_radians(), 0.3, 2.0);
    println!("30° uphill: slid {d:.5} m, Coulomb {want:.5} m");
    assert!(
        (d - want).abs() <= 0.02 * want,
        "30° uphill: {d} m, Coulomb {want} m"
    );
}

/// A particle of mass m resting on a compliant engine contact: it sinks
/// `α m g` below `r` and the contact reports `m g`, with 1 and 10
/// iterations (λ kept across iterations: the iteration count changes
/// neither), in f64 and f32.
fn resting<T: Real>(iterations: u32, compliance: f64) -> (f64, f64) {
    let m = 0.5;
    let mut scene = Scene::new(vec![[T::ZERO; 3]], vec![T::from_f64(1.0 / m)], vec![]);
    let mut config = gravity::<T>();
    config.iterations = iterations;
    config.contact_compliance = T::from_f64(compliance);
    config.damping = T::from_f64(5.0);
    let mut force = 0.0;
    let mut engine = [EngineContact::new(
        0,
        [T::ZERO, T::ONE, T::ZERO],
        [T::ZERO; 3],
    )];
    for _ in 0..240 {
        scene.step(&mut engine, 1.0 / 60.0, &config).unwrap();
        force = engine[0].force.to_f64();
    }
    (scene.x[0][1].to_f64(), force)
}

#[test]
#[cfg_attr(
    miri,
    ignore = "physics over hundreds of frames; the paths run in the small tests"
)]
fn the_lifecycle_holds_the_sag_and_the_force_whatever_the_iterations() {
    let (m, alpha) = (0.5, 1e-4);
    let sag = alpha * m * G;
    let (y1, f1) = resting::<f64>(1, alpha);
    let (y10, f10) = resting::<f64>(10, alpha);
    assert!((y1 + sag).abs() < 1e-9, "sag {y1} vs −{sag}");
    assert!((y10 + sag).abs() < 1e-9, "sag {y10} vs −{sag}");
    assert!(
        (f1 - m * G).abs() < 1e-9 && (f10 - m * G).abs() < 1e-9,
        "{f1} {f10}"
    );
    let (y32, f32_) = resting::<f32>(1, alpha);
    assert!(
        (y32 + sag).abs() < 1e-5 && (f32_ - m * G).abs() < 1e-3,
        "{y32} {f32_}"
    );
    // Rigid: no sag at all, the same force.
    let (y0, f0) = resting::<f64>(1, 0.0);
    assert!(y0.abs() < 1e-12 && (f0 - m * G).abs() < 1e-9, "{y0} {f0}");
}

#[test]
#[cfg_attr(
    miri,
    ignore = "physics over hundreds of frames; the paths run in the small tests"
)]
fn a_moving_surface_carries_a_particle_by_friction_and_static_friction_holds_it() {
    // A conveyor: the surface moves at 1 m/s along x. With static friction
    // only, a particle riding it keeps riding it (the tangential motion
    // relative to the surface is removed); with dynamic friction only, a
    // particle at rest catches up (at μ_k g) within a few frames.
    for (mu_s, mu_k, v0) in [(1.0, 0.0, 1.0), (0.0, 1.0, 0.0)] {
        let mut scene = Scene::new(vec![[0.0; 3]], vec![10.0], vec![]);
        scene.v[0] = [v0, 0.0, 0.0];
        let config = gravity::<f64>();
        let mut start = [0.0; 3];
        for frame in 0..120 {
            let mut c = EngineContact::new(0, [0.0, 1.0, 0.0], [0.0; 3]);
            c.velocity = [1.0, 0.0, 0.0];
            c.static_friction = mu_s;
            c.dynamic_friction = mu_k;
            let mut engine = [c];
            scene.step(&mut engine, 1.0 / 60.0, &config).unwrap();
            if frame == 59 {
                start = scene.x[0];
            }
        }
        let speed = (scene.x[0][0] - start[0]) / 1.0;
        assert!(
            (speed - 1.0).abs() < 1e-6,
            "μ_s {mu_s} μ_k {mu_k}: {speed} m/s"
        );
        assert!(scene.x[0][1].abs() < 1e-9);
    }
}

#[test]
fn a_bad_engine_contact_is_named_and_nothing_is_written() {
    let mut scene = Scene::new(vec![[0.0, 1.0, 0.0]; 2], vec![1.0; 2], vec![]);
    scene.v[1] = [0.5, 0.0, 0.0];
    let config = gravity::<f64>();
    let good = EngineContact::new(0, [0.0, 1.0, 0.0], [0.0; 3]);
    let cases: Vec<(&str, EngineContact<f64, 3>)> = vec![
        (
            "particle out of range",
            EngineContact {
                particle: 2,
                ..good
            },
        ),
        (
            "zero normal",
            EngineContact {
                normal: [0.0; 3],
                ..good
            },
        ),
        (
            "NaN normal",
            EngineContact {
                normal: [f64::NAN, 1.0, 0.0],
                ..good
            },
        ),
        (
            "infinite point",
            EngineContact {
                point: [0.0, f64::INFINITY, 0.0],
                ..good
            },
        ),
        (
            "NaN velocity",
            EngineContact {
                velocity: [f64::NAN; 3],
                ..good
            },
        ),
        (
            "negative μ_s",
            EngineContact {
                static_friction: -1.0,
                ..good
            },
        ),
        (
            "NaN μ_k",
            EngineContact {
                dynamic_friction: f64::NAN,
                ..good
            },
        ),
    ];
    for (what, bad) in cases {
        let mut engine = [good, bad];
        engine[1].force = 7.0;
        engine[1].impulse = 3.0;
        let before = format!("{:?}", (&scene.x, &scene.v, engine));
        let e = scene.step(&mut engine, 1.0 / 60.0, &config).unwrap_err();
        // No planes, spheres, capsules or boxes: contact 1 is collider 1.
        assert_eq!(e, StepError::InvalidCollider { collider: 1 }, "{what}");
        let after = format!("{:?}", (&scene.x, &scene.v, engine));
        assert_eq!(after, before, "{what}");
    }
}

#[test]
fn a_failed_step_reports_no_force() {
    // A step that fails in its substeps (the prediction overflows) leaves
    // positions, velocities and every force as they were.
    let mut scene = Scene::new(vec![[0.0, 1.79e308, 0.0]], vec![1.0], vec![]);
    scene.v[0] = [0.0, 1.79e308, 0.0];
    let config = gravity::<f64>();
    let mut engine = [EngineContact::new(0, [0.0, 1.0, 0.0], [0.0; 3])];
    engine[0].force = 42.0;
    let before = (scene.x.clone(), scene.v.clone());
    assert!(scene.step(&mut engine, 1.0 / 60.0, &config).is_err());
    assert_eq!((scene.x.clone(), scene.v.clone()), before);
    assert_eq!(engine[0].force, 42.0);
}

#[test]
fn a_force_beyond_the_float_range_fails_the_step_and_writes_nothing() {
    // A particle of 2·10³⁷ kg (f32: w = 5e-38, a normal number) 1 m inside
    // an engine contact's plane: λ = 1/w = 2e37 is finite, the position
    // and velocity after the push are too, but λ/h = 1.2e39 N·s is not an
    // f32. Before the fix the step succeeded with impulse and force +inf.
    let mut scene = Scene::<f32>::new(
        vec![[0.0, 0.0, 0.0], [2.0, 0.0, 0.0]],
        vec![5e-38, 1.0],
        vec![],
    );
    scene.v[1] = [0.5, 0.0, 0.0];
    let mut config = gravity::<f32>();
    config.substeps = 1;
    let mut engine = [
        EngineContact::new(1, [0.0, 1.0, 0.0], [0.0, -5.0, 0.0]),
        EngineContact::new(0, [0.0, 1.0, 0.0], [0.0, 1.0, 0.0]),
    ];
    engine[0].force = 7.0;
    engine[1].force = 3.0;
    let before = (scene.x.clone(), scene.v.clone());
    let e = scene.step(&mut engine, 1.0 / 60.0, &config).unwrap_err();
    assert_eq!(e, StepError::InvalidResult { particle: 0 });
    assert_eq!((scene.x.clone(), scene.v.clone()), before);
    assert_eq!((engine[0].force, engine[1].force), (7.0, 3.0));
    // The same push on a particle of 1 kg: an ordinary step, finite force.
    scene.w[0] = 1.0;
    scene.step(&mut engine, 1.0 / 60.0, &config).unwrap();
    assert!(
        engine[1].force.is_finite() && engine[1].force > 0.0,
        "{}",
        engine[1].force
    );
}

#[test]
#[cfg_attr(miri, ignore = "physics over 120 frames; the 2D path runs natively")]
fn engine_contacts_work_in_2d() {
    // A 2D particle dropped onto a contact on the line y = 0.
    let mut x = vec![[0.0, 0.5]];
    let mut v = vec![[0.0, 0.0]];
    let mut contacts = vec![Contact::default(); 1];
    let mut scratch = vec![[0.0; 2]; scratch_len(1, 0)];
    let config = StepConfig::new([0.0, -G]);
    let mut engine = [EngineContact::new(0, [0.0, 2.0], [0.0, 0.0])];
    for _ in 0..120 {
        let mut world = World::new(&mut x, &mut v, &[1.0], &mut contacts, &mut scratch);
        world.engine_contacts = Some(&mut engine);
        step(&mut world, 1.0 / 60.0, &config).unwrap();
    }
    assert!(x[0][1].abs() < 1e-9, "{:?}", x[0]);
    assert!((engine[0].force - G).abs() < 1e-6, "{}", engine[0].force);
}
