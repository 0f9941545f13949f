//! Kinematic attachments (issue 16, item 1), through the Rust API: the
//! acceptance rope whirled on a circle (attachment error, force against
//! the rope's weight plus the centripetal force of its centre of mass),
//! the lifecycle (1 and 20 iterations agree; α̃ = α/h²), the force of a
//! hanging mass, the sag `α m g`, rejected inputs and failed steps writing
//! nothing, the colored path's bits, f32 and f64 from the same code.

use xpbd::step::{scratch_len, step, Colliders, Contact, Plane, StepConfig, StepError, World};
use xpbd::{rope, Attachment, Constraints, Group, GroupColors, Link, Real, System, SystemError};

const G: f64 = 9.81;

/// A world with attachments, in caller memory.
struct Scene<T> {
    x: Vec<[T; 3]>,
    v: Vec<[T; 3]>,
    w: Vec<T>,
    links: Vec<Link<T>>,
    contacts: Vec<Contact<T>>,
    scratch: Vec<[T; 3]>,
    attachments: Vec<Attachment<T>>,
    planes: Vec<Plane<T, 3>>,
}

impl<T: Real> Scene<T> {
    fn new(
        x: Vec<[T; 3]>,
        w: Vec<T>,
        links: Vec<Link<T>>,
        attachments: Vec<Attachment<T>>,
    ) -> Self {
        let n = x.len();
        let link_count = links.len();
        Self {
            v: vec![[T::ZERO; 3]; n],
            x,
            w,
            links,
            contacts: vec![Contact::default(); 4],
            scratch: vec![[T::ZERO; 3]; scratch_len(n, link_count)],
            attachments,
            planes: Vec::new(),
        }
    }

    fn step(&mut self, dt: T, config: &StepConfig<T, 3>) -> Result<(), StepError> {
        let mut world = World {
            positions: &mut self.x,
            velocities: &mut self.v,
            inverse_masses: &self.w,
            links: &mut self.links,
            contacts: &mut self.contacts,
            scratch: &mut self.scratch,
            colliders: Some(Colliders {
                planes: &self.planes,
                ..Default::default()
            }),
            self_collision: None,
            tearing: None,
            wind: None,
            local_space: None,
            engine_contacts: None,
            groups: Some(Constraints {
                attachments: &mut self.attachments,
                ..Constraints::default()
            }),
        };
        step(&mut world, dt, config).map(|_| ())
    }
}

fn f<T: Real>(v: f64) -> T {
    T::from_f64(v)
}

fn gravity<T: Real>() -> StepConfig<T, 3> {
    StepConfig::new([T::ZERO, f(-G), T::ZERO])
}

/// What the whirled rope measured over its last second.
#[derive(Debug)]
struct Whirl {
    /// Largest `|x_top − target|` after a frame (m), over the whole run.
    error: f64,
    /// Largest `abs(|F| − |M(a_com − g)|) / |M(a_com − g)|` (see
    /// `whirl`), last second: the tension's magnitude.
    force: f64,
    /// Largest angle between `F` and `M(a_com − g)` (rad), last second.
    angle: f64,
    /// Largest `|F − M(Δv_com/dt − g)| / |F|`, last second.
    momentum: f64,
    /// The last frame's reported force magnitude (N) and the expected one.
    last: (f64, f64),
    /// The centre of mass's distance from the axis at the end (m).
    radius: f64,
}

/// A 20-link rope (1 m, 21 particles of 10 g) whose top particle is
/// attached rigidly to a target moving on a horizontal circle of radius
/// 1 m at 10 m/s (ω = 10 rad/s), 60 frames/s, `substeps` substeps of one
/// iteration, rigid links, for `seconds`.
fn whirl(substeps: u32, seconds: f64) -> Whirl {
    const N: usize = 21;
    const R: f64 = 1.0;
    const OMEGA: f64 = 10.0;
    let m = 0.01;
    let dt = 1.0 / 60.0;
    let at = |t: f64| [R * (OMEGA * t).cos(), 0.0, R * (OMEGA * t).sin()];
    let x: Vec<[f64; 3]> = (0..N).map(|k| [R, -0.05 * k as f64, 0.0]).collect();
    let mut links = vec![Link::default(); N - 1];
    rope(&x, 0.0, &mut links).unwrap();
    let mut s = Scene::new(
        x,
        vec![1.0 / m; N],
        links,
        vec![Attachment::new(0, at(0.0), 0.0)],
    );
    let mut config = gravity::<f64>();
    config.substeps = substeps;
    let frames = (seconds * 60.0).round() as usize;
    let mass = m * N as f64;
    let mut out = Whirl {
        error: 0.0,
        force: 0.0,
        angle: 0.0,
        momentum: 0.0,
        last: (0.0, 0.0),
        radius: 0.0,
    };
    let mean = |p: &[[f64; 3]]| {
        p.iter()
            .fold([0.0; 3], |c, p| [c[0] + p[0], c[1] + p[1], c[2] + p[2]])
            .map(|c| c / N as f64)
    };
    let (mut com0, mut vcom0) = (mean(&s.x), mean(&s.v));
    for frame in 1..=frames {
        let target = at(frame as f64 * dt);
        s.attachments[0].target = target;
        s.step(dt, &config).unwrap();
        let a = s.attachments[0];
        assert_eq!(a.previous, target);
        let e = dist(s.x[0], target);
        out.error = out.error.max(e);
        // Expected: Newton for the whole rope in steady rotation about the
        // y axis, F = M (a_com − g) with the centripetal a_com = −ω² r u:
        // r the centre of mass's distance from the axis at the frame's
        // end, u the horizontal direction of the frame's mid-point (the
        // mean of its start and end), g = (0, −9.81, 0).
        let (com, vcom) = (mean(&s.x), mean(&s.v));
        let r = (com[0] * com[0] + com[2] * com[2]).sqrt();
        let mid = [com0[0] + com[0], com0[2] + com[2]];
        let u = [mid[0] / mid[0].hypot(mid[1]), mid[1] / mid[0].hypot(mid[1])];
        let expected = [
            -mass * OMEGA * OMEGA * r * u[0],
            mass * G,
            -mass * OMEGA * OMEGA * r * u[1],
        ];
        // And the momentum balance over the frame, whatever the motion.
        let balance = [
            mass * (vcom[0] - vcom0[0]) / dt,
            mass * ((vcom[1] - vcom0[1]) / dt + G),
            mass * (vcom[2] - vcom0[2]) / dt,
        ];
        (com0, vcom0) = (com, vcom);
        let got = a.force;
        if frame + 60 > frames {
            let (g, e) = (norm(got), norm(expected));
            out.force = out.force.max((g - e).abs() / e);
            let cos =
                (got[0] * expected[0] + got[1] * expected[1] + got[2] * expected[2]) / (g * e);
            out.angle = out.angle.max(cos.min(1.0).acos());
            out.momentum = out.momentum.max(dist(got, balance) / norm(got));
            out.last = (norm(got), norm(expected));
            out.radius = r;
        }
    }
    out
}

fn norm(a: [f64; 3]) -> f64 {
    (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt()
}

fn dist(a: [f64; 3], b: [f64; 3]) -> f64 {
    norm([a[0] - b[0], a[1] - b[1], a[2] - b[2]])
}

#[test]
#[cfg_attr(miri, ignore = "a 20 s simulation")]
fn a_whirled_rope_follows_its_target_and_reports_its_tension() {
    let r = whirl(8, 20.0);
    println!(
        "whirled rope, 8 substeps: attachment error {:.3e} m (max over 20 s); \
         force {:.5} N vs M(a_com − g) {:.5} N (|a_com| = ω² r, r = {:.4} m), \
         magnitudes within {:.3} % and directions within {:.4} rad over the last second; \
         momentum balance M(Δv_com/dt − g) to {:.1e}",
        r.error,
        r.last.0,
        r.last.1,
        r.radius,
        100.0 * r.force,
        r.angle,
        r.momentum
    );
    assert!(r.error < 0.01, "{r:?}");
    assert!(r.force < 0.01, "{r:?}");
    // The direction: XPBD's velocity (x − x_prev)/h is the last
    // substep's chord, a quarter of a degree off the rotation.
    assert!(r.angle < 0.02, "{r:?}");
    assert!(r.momentum < 1e-9, "{r:?}");
}

/// A particle of mass `m` hanging at rest on an attachment of compliance
/// `alpha` at the origin: the step keeps it at `y = −α m g` and reports
/// the force `m g` upwards.
fn hanging<T: Real>(alpha: f64, substeps: u32) -> (T, [T; 3]) {
    let m = 0.5;
    let y = -alpha * m * G;
    let mut s = Scene::new(
        vec![[T::ZERO, f(y), T::ZERO]],
        vec![f(1.0 / m)],
        Vec::new(),
        vec![Attachment::new(0, [T::ZERO; 3], f(alpha))],
    );
    let mut config = gravity::<T>();
    config.substeps = substeps;
    for _ in 0..60 {
        s.step(f(1.0 / 60.0), &config).unwrap();
    }
    (s.x[0][1], s.attachments[0].force)
}

fn hanging_mass_force_is_its_weight<T: Real + core::fmt::Debug>(tol: f64) {
    let weight = 0.5 * G;
    for (alpha, substeps) in [(0.0, 8), (1e-3, 8), (1e-3, 20), (1e-2, 3)] {
        let (y, force) = hanging::<T>(alpha, substeps);
        let sag = -alpha * 0.5 * G;
        println!(
            "{}: α {alpha:e}, {substeps} substeps: y {:?} (α m g: {sag:e}), force {:?} (m g {weight})",
            core::any::type_name::<T>(),
            y,
            force
        );
        assert!((y.to_f64() - sag).abs() <= tol * (1.0 + sag.abs()), "{y:?}");
        assert!(
            (force[1].to_f64() - weight).abs() <= tol * weight,
            "{force:?}"
        );
        assert!(force[0].to_f64().abs() <= tol && force[2].to_f64().abs() <= tol);
    }
}

#[test]
#[cfg_attr(
    miri,
    ignore = "safe Rust: the sequential step of one attached particle (no link, no colored \
              path); the attachments' colored views and jobs run under Miri in \
              colored_and_sequential_sweeps_agree_bit_for_bit"
)]
fn hanging_mass_force_is_its_weight_f64() {
    hanging_mass_force_is_its_weight::<f64>(1e-9);
}

#[test]
#[cfg_attr(
    miri,
    ignore = "safe Rust: the sequential step of one attached particle (no link, no colored \
              path); the attachments' colored views and jobs run under Miri in \
              colored_and_sequential_sweeps_agree_bit_for_bit"
)]
fn hanging_mass_force_is_its_weight_f32() {
    hanging_mass_force_is_its_weight::<f32>(2e-3);
}

/// One substep of `iterations` sweeps over a particle displaced by `d`
/// from its attachment point (no gravity: the System API), returning the
/// position and λ.
fn one_substep(h: f64, alpha: f64, iterations: u32) -> ([f64; 3], [f64; 3]) {
    let mut x = [[0.3, -0.2, 0.1]];
    let w = [2.0];
    let mut a = [Attachment::new(0, [0.0; 3], alpha)];
    let mut sys = System::new(&mut x, &w, &mut [])
        .unwrap()
        .with_constraints(Constraints {
            attachments: &mut a,
            ..Constraints::default()
        });
    let mut sub = sys.begin_substep(h).unwrap();
    for _ in 0..iterations {
        sub.iterate().unwrap();
    }
    (x[0], a[0].lambda)
}

#[test]
fn the_lifecycle_holds_stiffness_is_independent_of_the_iterations() {
    let d = [0.3, -0.2, 0.1];
    let (w, alpha) = (2.0, 1e-4);
    for h in [1e-2, 5e-3] {
        let (x1, l1) = one_substep(h, alpha, 1);
        let (x20, l20) = one_substep(h, alpha, 20);
        // One iteration already solves the decoupled axes: C + α̃λ = 0.
        let at = alpha / (h * h);
        for k in 0..3 {
            assert!((x1[k] - x20[k]).abs() <= 1e-15, "{x1:?} {x20:?}");
            assert!((l1[k] - l20[k]).abs() <= 1e-15 * l1[k].abs().max(1.0));
            assert!((x1[k] + at * l1[k]).abs() <= 1e-15, "C + α̃λ");
            // x = d α̃/(w + α̃): halving h quadruples α̃.
            let expect = d[k] * at / (w + at);
            assert!((x1[k] - expect).abs() <= 1e-15, "{} vs {expect}", x1[k]);
        }
    }
    // A rigid attachment puts the particle on its point in one sweep.
    let (x, l) = one_substep(1e-2, 0.0, 1);
    assert_eq!(x, [0.0; 3]);
    assert_eq!(l, d.map(|c| -c / w));
}

#[test]
fn a_moving_target_is_followed_within_the_frame() {
    // A free particle attached rigidly, its target moved 1 m along x in
    // one frame: in the last substep it is at the target, and its velocity
    // is the target's over the last substep (1 m per frame), not a jump.
    let mut s = Scene::new(
        vec![[0.0f64; 3]],
        vec![1.0],
        Vec::new(),
        vec![Attachment::new(0, [0.0; 3], 0.0)],
    );
    let mut config = StepConfig::new([0.0; 3]);
    config.substeps = 8;
    s.attachments[0].target = [1.0, 0.0, 0.0];
    s.step(1.0 / 60.0, &config).unwrap();
    assert_eq!(s.x[0], [1.0, 0.0, 0.0]);
    assert!((s.v[0][0] - 60.0).abs() < 1e-9, "{:?}", s.v[0]);
    assert_eq!(s.attachments[0].previous, [1.0, 0.0, 0.0]);
    // The impulse is the momentum given, 1 kg · 60 m/s; the mean force
    // over the frame 60 N·s / (1/60 s).
    let a = s.attachments[0];
    assert!((a.impulse[0] - 60.0).abs() < 1e-9, "{a:?}");
    assert!((a.force[0] - 3600.0).abs() < 1e-6, "{a:?}");
    assert!(a.force[1] == 0.0 && a.force[2] == 0.0, "{a:?}");
    // The lag: a second frame with the target still, no force.
    s.step(1.0 / 60.0, &config).unwrap();
    assert_eq!(s.x[0], [1.0, 0.0, 0.0]);
}

#[test]
fn rejected_inputs_are_named_and_write_nothing() {
    let links_n = 2;
    let x0: Vec<[f64; 3]> = (0..3).map(|k| [0.0, -0.1 * k as f64, 0.0]).collect();
    let mut links = vec![Link::default(); links_n];
    rope(&x0, 0.0, &mut links).unwrap();
    let good = Attachment {
        force: [1.0, 2.0, 3.0],
        lambda: [4.0, 5.0, 6.0],
        previous: [0.0, 0.5, 0.0],
        ..Attachment::new(0, [0.0; 3], 0.0)
    };
    type Case = (
        &'static str,
        fn(&mut Attachment<f64>),
        fn(usize) -> SystemError,
    );
    let cases: [Case; 6] = [
        (
            "index",
            |a| a.particle = 3,
            |c| SystemError::IndexOutOfRange { constraint: c },
        ),
        (
            "NaN target",
            |a| a.target[1] = f64::NAN,
            |c| SystemError::InvalidRestValue { constraint: c },
        ),
        (
            "infinite previous",
            |a| a.previous[2] = f64::INFINITY,
            |c| SystemError::InvalidRestValue { constraint: c },
        ),
        (
            "negative compliance",
            |a| a.compliance = -1.0,
            |c| SystemError::InvalidCompliance { constraint: c },
        ),
        (
            "NaN compliance",
            |a| a.compliance = f64::NAN,
            |c| SystemError::InvalidCompliance { constraint: c },
        ),
        (
            "α/h² overflow",
            |a| a.compliance = 1e305,
            |c| SystemError::UnrepresentableScale { constraint: c },
        ),
    ];
    for (what, spoil, error) in cases {
        let mut bad = good;
        spoil(&mut bad);
        let mut s = Scene::new(
            x0.clone(),
            vec![0.0, 1.0, 1.0],
            links.clone(),
            vec![good, bad],
        );
        s.v[1] = [0.5, 0.0, 0.0];
        let before = (s.x.clone(), s.v.clone(), s.links.clone());
        let attachments = s.attachments.clone();
        let r = s.step(1.0 / 60.0, &gravity());
        // Attachment 1, after the 2 links.
        assert_eq!(r, Err(StepError::System(error(links_n + 1))), "{what}");
        assert_eq!(
            (s.x.clone(), s.v.clone(), s.links.clone()),
            before,
            "{what}"
        );
        assert_eq!(
            format!("{:?}", s.attachments),
            format!("{attachments:?}"),
            "{what}"
        );
        // The system names it the same way, and `locate` finds it.
        let mut x = x0.clone();
        let mut sys = System::new(&mut x, &s.w, &mut s.links).unwrap();
        let mut c = Constraints {
            attachments: &mut s.attachments,
            ..Constraints::default()
        };
        assert_eq!(
            c.locate(links_n, links_n + 1),
            Some((Group::Attachments, 1))
        );
        *sys.constraints_mut() = c.reborrow();
        assert_eq!(
            sys.begin_substep(0.01).err(),
            Some(error(links_n + 1)),
            "{what}"
        );
    }
}

#[test]
fn a_force_beyond_the_float_range_fails_the_step_and_moves_no_point() {
    // A particle of 2·10³⁷ kg (f32: w = 5e-38) held rigidly 1 m from its
    // point: λ = 1/w is finite and so is the moved particle, but λ/h is not
    // an f32. Before the fix the step succeeded with force −inf.
    let mut s = Scene::<f32>::new(
        vec![[0.0, 0.0, 0.0], [3.0, 0.0, 0.0]],
        vec![5e-38, 1.0],
        Vec::new(),
        vec![
            Attachment {
                force: [7.0; 3],
                ..Attachment::new(1, [3.0, 0.0, 0.0], 0.0)
            },
            Attachment {
                force: [7.0; 3],
                ..Attachment::new(0, [0.0; 3], 0.0)
            },
        ],
    );
    s.attachments[1].target = [1.0, 0.0, 0.0];
    let mut config = gravity::<f32>();
    config.substeps = 1;
    let before = (s.x.clone(), s.v.clone());
    let r = s.step(1.0 / 60.0, &config);
    assert_eq!(r, Err(StepError::InvalidResult { particle: 0 }));
    assert_eq!((s.x.clone(), s.v.clone()), before);
    for a in &s.attachments {
        assert_eq!((a.previous, a.force), (a.previous, [7.0; 3]));
    }
    assert_eq!(
        s.attachments[1].previous, [0.0; 3],
        "the point did not move on"
    );
    // A particle of 1 kg: an ordinary step, a finite force.
    s.w[0] = 1.0;
    s.step(1.0 / 60.0, &config).unwrap();
    assert!(s.attachments[1].force.iter().all(|f| f.is_finite()));
}

#[test]
fn a_failed_step_moves_no_point_and_reports_no_force() {
    // A free particle falls onto a plane in a late substep with no room
    // for contacts: the step fails after solving the attachment for some
    // substeps, and rolls back; `previous` and `force` stay.
    let mut s = Scene::new(
        vec![[0.0, 0.0, 0.0], [0.5, -0.49, 0.0]],
        vec![1.0, 1.0],
        Vec::new(),
        vec![Attachment {
            force: [7.0; 3],
            ..Attachment::new(0, [0.0; 3], 0.0)
        }],
    );
    s.contacts.clear();
    s.planes.push(Plane {
        normal: [0.0, 1.0, 0.0],
        offset: -0.5,
    });
    s.v[1] = [0.0, -1.2, 0.0];
    s.attachments[0].target = [0.1, 0.0, 0.0];
    let mut config = gravity::<f64>();
    config.substeps = 8;
    let before = (s.x.clone(), s.v.clone());
    let r = s.step(1.0 / 60.0, &config);
    assert_eq!(r, Err(StepError::ContactCapacity { needed: 1 }));
    assert_eq!((s.x.clone(), s.v.clone()), before);
    let a = s.attachments[0];
    assert_eq!(
        (a.previous, a.target, a.force),
        ([0.0; 3], [0.1, 0.0, 0.0], [7.0; 3])
    );
    assert_ne!(
        a.impulse, [0.0; 3],
        "the attachment was solved before the failure"
    );
}

#[test]
fn colored_and_sequential_sweeps_agree_bit_for_bit() {
    let n = if cfg!(miri) { 4 } else { 32 };
    let x0: Vec<[f64; 3]> = (0..n).map(|k| [k as f64 * 0.1, 0.0, 0.0]).collect();
    let w: Vec<f64> = (0..n)
        .map(|k| if k % 5 == 0 { 0.0 } else { 1.0 + k as f64 })
        .collect();
    let attach: Vec<Attachment<f64>> = (0..n as u32)
        .map(|k| {
            let t = [k as f64 * 0.1 + 0.01, 0.02 * k as f64, -0.03];
            Attachment::new(k, t, 1e-6 * k as f64)
        })
        .collect();
    let run = |mode: u8| {
        let mut x = x0.clone();
        let mut a = attach.clone();
        let mut sys = System::new(&mut x, &w, &mut [])
            .unwrap()
            .with_constraints(Constraints {
                attachments: &mut a,
                ..Constraints::default()
            });
        let mut sub = sys.begin_substep(1e-2).unwrap();
        for _ in 0..3 {
            match mode {
                0 => {
                    sub.iterate().unwrap();
                }
                1 => {
                    sub.iterate_colored(&GroupColors::default()).unwrap();
                }
                _ => {
                    let mut stamp = vec![0u32; n];
                    let mut view = sub.colored(GroupColors::default(), &mut stamp).unwrap();
                    let colors = view.color_count(Group::Attachments);
                    assert_eq!(colors, n);
                    for c in 0..colors {
                        for job in view.jobs(Group::Attachments, c, 3).unwrap() {
                            job.run().unwrap();
                        }
                    }
                }
            }
        }
        (x, a)
    };
    let (xs, as_) = run(0);
    assert_ne!(xs, x0);
    for mode in [1, 2] {
        let (x, a) = run(mode);
        assert_eq!(format!("{x:?}"), format!("{xs:?}"));
        assert_eq!(format!("{a:?}"), format!("{as_:?}"));
    }
}
