//! A fixed 3D rope, stepped with the library's full stepping
//! ([`xpbd::step::step`]): [`PARTICLES`] particles in a horizontal line at
//! height [`HEIGHT`], particle 0 pinned (inverse mass 0), tension-only
//! links built by [`xpbd::rope`], gravity −y, a ground plane `y = 0` and a
//! static sphere the rope drapes over, friction and a little damping.
//!
//! The rope is longer than its pin is high, so its free end swings down,
//! hits the sphere and the ground and slides with friction: links go slack
//! (tension-only clamps), contacts come and go, static and dynamic friction
//! both act. An initial sideways velocity (+z, growing along the rope) makes
//! the motion truly 3D.
//!
//! Every operation inside `step` is an IEEE-754 basic operation or a
//! correctly rounded square root in a fixed order, so the trajectory is
//! bit-identical on every conforming platform (see the README section
//! "The same bits everywhere").

use xpbd::step::{step, Colliders, Contact, Plane, Sphere, StepConfig, StepError, World};
use xpbd::{Link, Real};

/// Particles in the rope.
pub const PARTICLES: usize = 16;
/// Links (neighbour pairs).
pub const LINKS: usize = PARTICLES - 1;
/// Spacing of the particles at rest (m): the rope is 1.5 m long.
pub const SPACING: f64 = 0.1;
/// Height of the rope at the start, and of the pin (m).
pub const HEIGHT: f64 = 1.0;
/// Frames simulated.
pub const FRAMES: usize = 300;
/// Frame length (s).
pub const FRAME: f64 = 1.0 / 60.0;
/// Substeps per frame.
pub const SUBSTEPS: u32 = 4;
/// Link iterations per substep.
pub const ITERATIONS: u32 = 3;
/// Link compliance (m/N): slightly stretchy.
pub const COMPLIANCE: f64 = 1e-6;
/// Contact capacity per substep.
pub const CONTACTS: usize = 2 * PARTICLES;

/// The rope's state and the caller memory [`step`] works on.
#[derive(Debug, Clone)]
pub struct Rope<T: Real> {
    /// Positions (m).
    pub x: [[T; 3]; PARTICLES],
    /// Velocities (m/s).
    pub v: [[T; 3]; PARTICLES],
    /// Inverse masses (1/kg): particle 0 is pinned.
    pub w: [T; PARTICLES],
    /// Links, tension-only, with their λ.
    pub links: [Link<T>; LINKS],
    /// Contacts of the last substep (fixed capacity).
    pub contacts: [Contact<T>; CONTACTS],
    /// Scratch for `step`.
    pub scratch: [[T; 3]; xpbd::step::scratch_len(PARTICLES, LINKS)],
    /// The ground and the sphere.
    pub planes: [Plane<T, 3>; 1],
    /// The sphere below the rope.
    pub spheres: [Sphere<T, 3>; 1],
    /// The step configuration.
    pub config: StepConfig<T, 3>,
    /// Steps that returned an error (expected 0).
    pub errors: u32,
    /// The first error, if any.
    pub first_error: Option<StepError>,
    /// Most contacts seen in one substep over the run.
    pub max_contacts: usize,
}

impl<T: Real> Default for Rope<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Real> Rope<T> {
    /// The rope at rest in its starting line, with its initial sideways
    /// velocity.
    #[must_use]
    pub fn new() -> Self {
        let f = T::from_f64;
        let mut x = [[T::ZERO; 3]; PARTICLES];
        let mut v = [[T::ZERO; 3]; PARTICLES];
        let mut w = [T::ONE; PARTICLES];
        for (k, (xk, vk)) in x.iter_mut().zip(v.iter_mut()).enumerate() {
            #[allow(clippy::cast_precision_loss)] // k < 16
            let s = k as f64;
            *xk = [f(s * SPACING), f(HEIGHT), f(0.0)];
            *vk = [f(0.0), f(0.0), f(0.05 * s)];
        }
        if let Some(w0) = w.get_mut(0) {
            *w0 = T::ZERO;
        }
        // Heavier towards the tip: inverse masses 1, 1/2, 1/3, … are not
        // all exact in binary, which exercises rounding too.
        for (k, wk) in w.iter_mut().enumerate().skip(1) {
            #[allow(clippy::cast_precision_loss)] // k < 16
            let m = 1.0 + (k as f64) / 8.0;
            *wk = f(1.0 / m);
        }
        let mut links = [Link::default(); LINKS];
        // Positions are distinct and finite and the capacity is right: the
        // builder cannot fail here; a failure would show up as zero rest
        // lengths, which make every step fail and the run count errors.
        let _ = xpbd::rope(&x, f(COMPLIANCE), &mut links);
        for l in &mut links {
            *l = l.tension_only();
        }
        let mut config = StepConfig::new([f(0.0), f(-9.81), f(0.0)]);
        config.substeps = SUBSTEPS;
        config.iterations = ITERATIONS;
        config.damping = f(0.1);
        config.particle_radius = f(0.01);
        config.contact_compliance = f(1e-7);
        config.static_friction = f(0.4);
        config.dynamic_friction = f(0.3);
        Self {
            x,
            v,
            w,
            links,
            contacts: [Contact::default(); CONTACTS],
            scratch: [[T::ZERO; 3]; xpbd::step::scratch_len(PARTICLES, LINKS)],
            planes: [Plane {
                normal: [f(0.0), f(1.0), f(0.0)],
                offset: f(0.0),
            }],
            spheres: [Sphere {
                center: [f(0.9), f(0.1), f(0.05)],
                radius: f(0.25),
            }],
            config,
            errors: 0,
            first_error: None,
            max_contacts: 0,
        }
    }

    /// Advances one frame with [`step`].
    pub fn frame(&mut self) {
        let mut world = World {
            positions: &mut self.x,
            velocities: &mut self.v,
            inverse_masses: &self.w,
            links: &mut self.links,
            contacts: &mut self.contacts,
            scratch: &mut self.scratch,
            colliders: Some(Colliders {
                planes: &self.planes,
                spheres: &self.spheres,
                ..Default::default()
            }),
            self_collision: None,
            tearing: None,
            wind: None,
            local_space: None,
            engine_contacts: None,
            groups: None,
        };
        match step(&mut world, T::from_f64(FRAME), &self.config) {
            Ok(stats) => self.max_contacts = self.max_contacts.max(stats.max_contacts),
            Err(e) => {
                self.errors = self.errors.saturating_add(1);
                self.first_error.get_or_insert(e);
            }
        }
    }

    /// The lowest height over the particles (m).
    #[must_use]
    pub fn lowest(&self) -> T {
        self.x
            .iter()
            .map(|p| p[1])
            .fold(T::from_f64(f64::INFINITY), |a, b| if b < a { b } else { a })
    }
}
