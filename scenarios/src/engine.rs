//! A fixed scene of an engine's world, stepped with [`xpbd::step::step`]:
//! a cloth of [`ROWS`] × [`COLS`] particles hanging from a top row of
//! kinematic particles (w = 0) that carry a velocity, hit by a capsule
//! swept through it and spinning, falling onto a spinning box, with the
//! engine's own contacts against a tilted ground (the scene finds them
//! each frame, as an engine would: every particle within [`MARGIN`] of the
//! ground gets a contact at its projection), all with friction, and with
//! self-collision (particle–particle contacts) on; a heightfield rising
//! and turning under the cloth's right half and a signed distance field's
//! sphere swept through its lower left (issue 36).
//!
//! [`Engine::inside`] is the scenario's check: after every frame no
//! particle is inside the capsule or the box (at their poses at the
//! frame's end).
//!
//! Like [`crate::groups`], every value is computed here with plain
//! arithmetic (`+ − × ÷`, f64 → `T` rounding).

use xpbd::step::{
    step, Capsule, Colliders, Contact, EngineContact, Heightfield, OrientedBox, ParticleContact,
    Sdf, SelfCollision, StepConfig, StepError, World,
};
use xpbd::{Link, Real};

use crate::{Fnv64, Scalar};

/// Cloth rows (along −y).
pub const ROWS: usize = 8;
/// Cloth columns (along +x).
pub const COLS: usize = 8;
/// Particles.
pub const PARTICLES: usize = ROWS * COLS;
/// Structural links: horizontal ones (row by row), then vertical ones.
pub const LINKS: usize = ROWS * (COLS - 1) + (ROWS - 1) * COLS;
/// Frames simulated.
pub const FRAMES: usize = 60;
/// Frame length (s).
pub const FRAME: f64 = 1.0 / 60.0;
/// Particle spacing (m).
pub const SPACING: f64 = 0.05;
/// Distance from the ground (m) within which a particle gets an engine
/// contact for the frame.
pub const MARGIN: f64 = 0.05;
/// Contact storage of a substep.
pub const CONTACTS: usize = 4 * PARTICLES;
/// The fields' samples: the heightfield's 3 × 3, then the SDF's 4³.
pub const SAMPLES: usize = 9 + 64;
/// Particle–particle contact storage of a substep (self-collision).
pub const PAIRS: usize = 8 * PARTICLES;
/// The ground's normal (not unit: the solver normalises).
pub const GROUND_NORMAL: [f64; 3] = [-1.0, 8.0, 0.5];
/// The ground's offset along that normal: `n·x = GROUND_OFFSET` on it.
pub const GROUND_OFFSET: f64 = -1.6;

/// The scene's state and the caller memory the step works on.
#[derive(Debug, Clone)]
pub struct Engine<T: Real> {
    /// Positions (m).
    pub x: [[T; 3]; PARTICLES],
    /// Velocities (m/s).
    pub v: [[T; 3]; PARTICLES],
    /// Inverse masses (1/kg); the top row is kinematic.
    pub w: [T; PARTICLES],
    /// Links.
    pub links: [Link<T>; LINKS],
    /// The capsule (its pose at the next frame's start).
    pub capsule: Capsule<T, 3>,
    /// The box (its pose at the next frame's start).
    pub boxes: OrientedBox<T, 3>,
    /// The heightfield (its pose at the next frame's start).
    pub heightfield: Heightfield<T, 3>,
    /// The signed distance field (its pose at the next frame's start).
    pub sdf: Sdf<T, 3>,
    /// The fields' samples.
    pub samples: [T; SAMPLES],
    /// The engine contacts of the last frame (the first `engine_count`).
    pub engine: [EngineContact<T, 3>; PARTICLES],
    /// How many engine contacts the last frame had.
    pub engine_count: usize,
    /// Contact storage.
    pub contacts: [Contact<T>; CONTACTS],
    /// Self-collision: pair storage.
    pub pairs: [ParticleContact<T>; PAIRS],
    /// Self-collision: hash table.
    pub table: [u32; 2 * PARTICLES + 2],
    /// Self-collision: particle ids.
    pub ids: [u32; PARTICLES],
    /// Self-collision: linked neighbours.
    pub adjacency: [u32; PARTICLES + 1 + 2 * LINKS],
    /// The rest shape (the start).
    pub rest: [[T; 3]; PARTICLES],
    /// Most particle pairs of a substep over all frames.
    pub max_pairs: usize,
    /// Most contacts of a substep over all frames.
    pub max_contacts: usize,
    /// Scratch for the step.
    pub scratch: [[T; 3]; xpbd::step::scratch_len(PARTICLES, LINKS)],
    /// The step configuration.
    pub config: StepConfig<T, 3>,
    /// Steps that returned an error (expected 0).
    pub errors: u32,
    /// The first error, if any.
    pub first_error: Option<StepError>,
    /// Particle-frames found inside the capsule or the box (expected 0).
    pub inside: u32,
    /// Engine contacts over all frames.
    pub engine_total: usize,
    /// Frames whose last substep's contacts pushed with the heightfield
    /// and with the signed distance field (λ > 0).
    pub field_pushes: [usize; 2],
}

/// `u32` of a small index.
fn u(k: usize) -> u32 {
    u32::try_from(k).unwrap_or(u32::MAX)
}

impl<T: Real> Default for Engine<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Real> Engine<T> {
    /// The scene at its start.
    #[must_use]
    #[allow(clippy::cast_precision_loss)] // small indices
    pub fn new() -> Self {
        let f = T::from_f64;
        let mut x = [[T::ZERO; 3]; PARTICLES];
        let mut v = [[T::ZERO; 3]; PARTICLES];
        let mut w = [f(50.0); PARTICLES];
        for r in 0..ROWS {
            for c in 0..COLS {
                let k = r * COLS + c;
                x[k] = [f(c as f64 * SPACING), f(0.15 - r as f64 * SPACING), T::ZERO];
                if r == 0 {
                    w[k] = T::ZERO;
                    v[k] = [f(0.2), T::ZERO, f(0.1)];
                }
            }
        }
        let mut links = [Link::default(); LINKS];
        let mut n = 0;
        let mut link = |i: usize, j: usize| {
            if let Some(l) = links.get_mut(n) {
                *l = Link::new(u(i), u(j), f(SPACING), f(1e-6));
            }
            n += 1;
        };
        for r in 0..ROWS {
            for c in 0..COLS - 1 {
                link(r * COLS + c, r * COLS + c + 1);
            }
        }
        for r in 0..ROWS - 1 {
            for c in 0..COLS {
                link(r * COLS + c, (r + 1) * COLS + c);
            }
        }
        let mut capsule = Capsule::new(
            [f(0.2), f(0.3), f(-0.3)],
            [f(0.05), f(0.1), T::ZERO],
            f(0.05),
        );
        capsule.velocity = [T::ZERO, T::ZERO, f(3.0)];
        capsule.angular_velocity = [T::ZERO, f(2.0), f(1.0)];
        capsule.static_friction = f(0.4);
        capsule.dynamic_friction = f(0.3);
        let mut boxes = OrientedBox::new([f(0.15), T::ZERO, f(0.05)], [f(0.1), f(0.05), f(0.1)]);
        boxes.angular_velocity = [f(0.5), f(1.5), f(-0.5)];
        boxes.dynamic_friction = f(0.5);
        // A bumpy 3 × 3 heightfield under the right half, rising and
        // turning; a sphere of radius 4 cm on a 4³ grid swept along z.
        let mut heightfield =
            Heightfield::new([T::ZERO, T::ZERO, f(-0.15)], [f(0.15), f(0.2)], [3, 3], 0);
        heightfield.center = [f(0.3), f(-0.17), T::ZERO];
        heightfield.velocity = [T::ZERO, f(0.05), T::ZERO];
        heightfield.angular_velocity = [T::ZERO, f(0.5), T::ZERO];
        heightfield.static_friction = f(0.3);
        heightfield.dynamic_friction = f(0.2);
        let mut sdf = Sdf::new([f(-0.06); 3], f(0.04), [4, 4, 4], 9);
        sdf.center = [f(0.08), f(-0.14), f(-0.25)];
        sdf.velocity = [T::ZERO, T::ZERO, f(2.0)];
        sdf.angular_velocity = [f(1.0), T::ZERO, T::ZERO];
        sdf.dynamic_friction = f(0.3);
        let mut samples = [T::ZERO; SAMPLES];
        let bumps = [0.0, 0.03, 0.01, 0.02, 0.04, 0.0, 0.01, 0.0, 0.03];
        for (s, b) in samples.iter_mut().zip(bumps) {
            *s = f(b);
        }
        for (k, s) in samples.iter_mut().skip(9).enumerate() {
            let p = [k % 4, k / 4 % 4, k / 16].map(|c| -0.06 + 0.04 * c as f64);
            let d2 = f(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
            *s = d2.sqrt() - f(0.04);
        }
        let mut config = StepConfig::new([T::ZERO, f(-9.81), T::ZERO]);
        config.substeps = 8;
        config.particle_radius = f(0.005);
        config.damping = f(0.2);
        config.static_friction = f(0.2);
        config.dynamic_friction = f(0.2);
        Self {
            x,
            v,
            w,
            links,
            capsule,
            boxes,
            heightfield,
            sdf,
            samples,
            engine: [EngineContact::default(); PARTICLES],
            engine_count: 0,
            contacts: [Contact::default(); CONTACTS],
            pairs: [ParticleContact::default(); PAIRS],
            table: [0; 2 * PARTICLES + 2],
            ids: [0; PARTICLES],
            adjacency: [0; PARTICLES + 1 + 2 * LINKS],
            rest: x,
            max_pairs: 0,
            max_contacts: 0,
            scratch: [[T::ZERO; 3]; xpbd::step::scratch_len(PARTICLES, LINKS)],
            config,
            errors: 0,
            first_error: None,
            inside: 0,
            engine_total: 0,
            field_pushes: [0; 2],
        }
    }

    /// The engine's contacts for the coming frame: every movable particle
    /// within [`MARGIN`] of the tilted ground, at its projection onto it.
    fn find_contacts(&mut self) {
        let f = T::from_f64;
        let n = GROUND_NORMAL.map(f);
        let nn = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
        let len = f(GROUND_NORMAL[1]); // a lower bound of |n| (8 ≤ |n|)
        self.engine_count = 0;
        for (k, (x, w)) in self.x.iter().zip(&self.w).enumerate() {
            if *w == T::ZERO {
                continue;
            }
            let d = n[0] * x[0] + n[1] * x[1] + n[2] * x[2] - f(GROUND_OFFSET);
            if d > f(MARGIN) * len {
                continue;
            }
            let s = d / nn;
            let point = [x[0] - s * n[0], x[1] - s * n[1], x[2] - s * n[2]];
            let mut c = EngineContact::new(u(k), n, point);
            c.velocity = [f(0.05), T::ZERO, T::ZERO];
            c.static_friction = f(0.5);
            c.dynamic_friction = f(0.4);
            if let Some(slot) = self.engine.get_mut(self.engine_count) {
                *slot = c;
                self.engine_count += 1;
                self.engine_total += 1;
            }
        }
    }

    /// Advances one frame and checks no particle is inside the colliders.
    pub fn frame(&mut self) {
        self.find_contacts();
        let mut world = World::new(
            &mut self.x,
            &mut self.v,
            &self.w,
            &mut self.contacts,
            &mut self.scratch,
        );
        world.links = &mut self.links;
        world.colliders = Some(Colliders {
            capsules: core::slice::from_ref(&self.capsule),
            boxes: core::slice::from_ref(&self.boxes),
            heightfields: core::slice::from_ref(&self.heightfield),
            sdfs: core::slice::from_ref(&self.sdf),
            samples: &self.samples,
            ..Default::default()
        });
        world.engine_contacts = Some(self.engine.get_mut(..self.engine_count).unwrap_or(&mut []));
        world.self_collision = Some(SelfCollision {
            pairs: &mut self.pairs,
            table: &mut self.table,
            ids: &mut self.ids,
            adjacency: &mut self.adjacency,
            rest: &self.rest,
        });
        match step(&mut world, T::from_f64(FRAME), &self.config) {
            Ok(stats) => {
                self.max_contacts = self.max_contacts.max(stats.max_contacts);
                self.max_pairs = self.max_pairs.max(stats.max_pairs);
                // Colliders 2 and 3: the heightfield and the SDF.
                for (k, pushes) in self.field_pushes.iter_mut().enumerate() {
                    let field = u(k + 2);
                    let pushed = self.contacts.iter().take(stats.max_contacts);
                    if pushed
                        .filter(|c| c.collider == field)
                        .any(|c| c.lambda > T::ZERO)
                    {
                        *pushes += 1;
                    }
                }
            }
            Err(e) => {
                self.errors = self.errors.saturating_add(1);
                self.first_error.get_or_insert(e);
            }
        }
        // The colliders' poses at the frame's end, as the engine would
        // integrate them (the solver's own Cayley rotation of ω dt / 2).
        let dt = T::from_f64(FRAME);
        advance(&mut self.capsule.center, &self.capsule.velocity, dt);
        self.capsule.half_axis =
            rotate(&self.capsule.angular_velocity, dt, &self.capsule.half_axis);
        advance(&mut self.boxes.center, &self.boxes.velocity, dt);
        let omega = self.boxes.angular_velocity;
        self.boxes.axes = self.boxes.axes.map(|a| rotate(&omega, dt, &a));
        advance(&mut self.heightfield.center, &self.heightfield.velocity, dt);
        let omega = self.heightfield.angular_velocity;
        self.heightfield.axes = self.heightfield.axes.map(|a| rotate(&omega, dt, &a));
        advance(&mut self.sdf.center, &self.sdf.velocity, dt);
        let omega = self.sdf.angular_velocity;
        self.sdf.axes = self.sdf.axes.map(|a| rotate(&omega, dt, &a));
        let r = self.config.particle_radius;
        let slack = T::from_f64(1e-4) * r;
        for (p, w) in self.x.iter().zip(&self.w) {
            if *w == T::ZERO {
                continue; // kinematic: no contacts (infinite mass)
            }
            if capsule_gap(&self.capsule, p) < r - slack || box_gap(&self.boxes, p) < r - slack {
                self.inside = self.inside.saturating_add(1);
            }
        }
    }
}

/// `c ← c + v dt`.
fn advance<T: Real>(c: &mut [T; 3], v: &[T; 3], dt: T) {
    for (ci, vi) in c.iter_mut().zip(v) {
        *ci = *ci + *vi * dt;
    }
}

/// `a × b`.
fn cross<T: Real>(a: &[T; 3], b: &[T; 3]) -> [T; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// `a · b`.
fn dot<T: Real>(a: &[T; 3], b: &[T; 3]) -> T {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// `u` rotated by the Cayley rotation of `ω dt / 2`.
fn rotate<T: Real>(omega: &[T; 3], dt: T, u: &[T; 3]) -> [T; 3] {
    let half = dt * T::from_f64(0.5);
    let t = omega.map(|w| w * half);
    let tu = cross(&t, u);
    let ttu = cross(&t, &tu);
    let k = (T::ONE + T::ONE) / (T::ONE + dot(&t, &t));
    [
        u[0] + k * (tu[0] + ttu[0]),
        u[1] + k * (tu[1] + ttu[1]),
        u[2] + k * (tu[2] + ttu[2]),
    ]
}

/// Distance of `p` from the capsule's surface (m; negative inside).
fn capsule_gap<T: Real>(c: &Capsule<T, 3>, p: &[T; 3]) -> T {
    let d = [p[0] - c.center[0], p[1] - c.center[1], p[2] - c.center[2]];
    let aa = dot(&c.half_axis, &c.half_axis);
    let mut s = dot(&d, &c.half_axis) / aa;
    if s > T::ONE {
        s = T::ONE;
    }
    if s < -T::ONE {
        s = -T::ONE;
    }
    let e = [
        d[0] - s * c.half_axis[0],
        d[1] - s * c.half_axis[1],
        d[2] - s * c.half_axis[2],
    ];
    dot(&e, &e).sqrt() - c.radius
}

/// Signed distance of `p` from the box's surface (m; negative inside).
fn box_gap<T: Real>(b: &OrientedBox<T, 3>, p: &[T; 3]) -> T {
    let d = [p[0] - b.center[0], p[1] - b.center[1], p[2] - b.center[2]];
    let (mut out2, mut depth) = (T::ZERO, None::<T>);
    for (a, e) in b.axes.iter().zip(&b.half_extents) {
        let q = dot(&d, a).abs();
        if q > *e {
            out2 = out2 + (q - *e) * (q - *e);
        }
        let inside = *e - q;
        depth = Some(match depth {
            Some(m) if m < inside => m,
            _ => inside,
        });
    }
    if out2 > T::ZERO {
        out2.sqrt()
    } else {
        -depth.unwrap_or(T::ZERO)
    }
}

/// Part 7: the engine scene under [`xpbd::step::step`]; hashes, after each
/// frame, every position and velocity, every link's λ, the last substep's
/// contacts (particle, collider, λ) and every engine contact's λ, impulse
/// and force, and returns the final state.
pub fn engine_3d<T: Scalar>(h: &mut Fnv64) -> Engine<T> {
    let mut s = Engine::<T>::new();
    for _ in 0..FRAMES {
        s.frame();
        for (x, v) in s.x.iter().zip(&s.v) {
            for c in x.iter().chain(v) {
                h.write_real(*c);
            }
        }
        for l in &s.links {
            h.write_real(l.lambda);
        }
        for c in &s.contacts {
            h.write_u64(u64::from(c.particle) << 32 | u64::from(c.collider));
            h.write_real(c.lambda);
        }
        for p in &s.pairs {
            h.write_u64(u64::from(p.i) << 32 | u64::from(p.j));
            h.write_real(p.lambda);
        }
        h.write_u64(u64::try_from(s.engine_count).unwrap_or(u64::MAX));
        for c in s.engine.iter().take(s.engine_count) {
            h.write_u64(u64::from(c.particle));
            h.write_real(c.lambda);
            h.write_real(c.impulse);
            h.write_real(c.force);
        }
    }
    s
}
