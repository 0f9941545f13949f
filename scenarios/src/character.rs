//! A fixed character-cloth scene (issue 35) stepped with
//! [`xpbd::step::step`]: a [`COLS`] × [`ROWS`] cape hanging from its
//! pinned top row in a root frame that moves, turns and tilts
//! ([`Scene::root`]; local space, linear inertia 0.7, angular 0.5,
//! velocity and acceleration clamps that act (the root's height jumps
//! every 20 frames, its turn starts from rest), a teleport at
//! [`TELEPORT`]), every free particle held
//! by a skinned max distance and a backstop (compliant from the third row
//! down), and a wind with drag and lift on its triangles.
//!
//! The rest lengths and the roots' quaternions are computed here with
//! the scenario's own arithmetic (square roots only), so the scene does
//! not depend on the library's builders.

use xpbd::step::{
    step, AeroTriangle, Contact, LocalSpace, StepConfig, StepError, Transform, Wind, World,
};
use xpbd::{Constraints, Link, Real, SkinConstraint};

use crate::{Fnv64, Scalar};

/// Cape columns.
pub const COLS: usize = 3;
/// Cape rows (the top one pinned).
pub const ROWS: usize = 4;
/// Particles.
pub const PARTICLES: usize = COLS * ROWS;
/// Links: horizontal, vertical, one diagonal per quad.
pub const LINKS: usize = ROWS * (COLS - 1) + (ROWS - 1) * COLS + (ROWS - 1) * (COLS - 1);
/// Skinned constraints: every free particle.
pub const SKINNED: usize = PARTICLES - COLS;
/// Wind triangles: two per quad.
pub const TRIANGLES: usize = 2 * (ROWS - 1) * (COLS - 1);
/// Frames simulated.
pub const FRAMES: usize = 90;
/// The frame that teleports.
pub const TELEPORT: usize = 60;
/// Frame length (s).
pub const FRAME: f64 = 1.0 / 60.0;
/// Spacing (m).
pub const SPACING: f64 = 0.1;

/// The scene's state and the caller memory the step works on.
#[derive(Debug, Clone)]
pub struct Scene<T: Real> {
    /// Positions in the root's frame (m).
    pub x: [[T; 3]; PARTICLES],
    /// Velocities (m/s).
    pub v: [[T; 3]; PARTICLES],
    /// Inverse masses (1/kg).
    pub w: [T; PARTICLES],
    /// Links.
    pub links: [Link<T>; LINKS],
    /// Skinned constraints.
    pub skin: [SkinConstraint<T>; SKINNED],
    /// Wind triangles.
    pub triangles: [AeroTriangle<T>; TRIANGLES],
    /// The local-space block.
    pub local: LocalSpace<T>,
    /// Contacts (none: no collider).
    pub contacts: [Contact<T>; 1],
    /// Scratch for the step.
    pub scratch: [[T; 3]; xpbd::step::scratch_len(PARTICLES, LINKS)],
    /// Frames advanced.
    pub frames: usize,
    /// Steps that returned an error (expected 0).
    pub errors: u32,
    /// The first error, if any.
    pub first_error: Option<StepError>,
    /// The largest excess over a rigid max distance after a frame (m).
    pub over: T,
}

/// `u32` of a small index.
fn u(k: usize) -> u32 {
    u32::try_from(k).unwrap_or(u32::MAX)
}

impl<T: Real> Default for Scene<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Real> Scene<T> {
    /// The scene at its start.
    #[must_use]
    #[allow(clippy::cast_precision_loss)] // small indices
    pub fn new() -> Self {
        let f = T::from_f64;
        let at = |r: usize, c: usize| r * COLS + c;
        let mut x = [[T::ZERO; 3]; PARTICLES];
        let mut w = [f(10.0); PARTICLES];
        for r in 0..ROWS {
            for c in 0..COLS {
                x[at(r, c)] = [
                    f(c as f64 * SPACING - 0.1),
                    f(1.5 - r as f64 * SPACING),
                    f(-0.2 - 0.01 * c as f64),
                ];
            }
        }
        w[..COLS].fill(T::ZERO);
        let rest = |a: usize, b: usize| {
            let d: [T; 3] = core::array::from_fn(|i| x[b][i] - x[a][i]);
            (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt()
        };
        let mut links = [Link::new(0, 1, T::ONE, T::ZERO); LINKS];
        let mut k = 0;
        let mut link = |a: usize, b: usize| {
            if let Some(l) = links.get_mut(k) {
                *l = Link::new(u(a), u(b), rest(a, b), T::ZERO);
            }
            k += 1;
        };
        for r in 0..ROWS {
            for c in 0..COLS - 1 {
                link(at(r, c), at(r, c + 1));
            }
        }
        for r in 0..ROWS - 1 {
            for c in 0..COLS {
                link(at(r, c), at(r + 1, c));
            }
            for c in 0..COLS - 1 {
                link(at(r, c), at(r + 1, c + 1));
            }
        }
        let skin = core::array::from_fn(|k| {
            let p = k + COLS;
            let row = p / COLS;
            let mut s = SkinConstraint::new(u(p), x[p], [T::ZERO, T::ZERO, f(-1.0)]);
            s.max_distance = f(0.02 * row as f64);
            s.backstop_distance = f(-0.01);
            s.backstop_radius = f(0.5);
            if row >= 2 {
                s.compliance = f(1e-5);
                s.backstop_compliance = f(1e-6);
            }
            s
        });
        let triangles = core::array::from_fn(|k| {
            let (quad, second) = (k / 2, k % 2 == 1);
            let (r, c) = (quad / (COLS - 1), quad % (COLS - 1));
            let (a, b, d, e) = (at(r, c), at(r, c + 1), at(r + 1, c), at(r + 1, c + 1));
            let mut t = AeroTriangle::new(if second {
                [u(a), u(e), u(d)]
            } else {
                [u(a), u(b), u(e)]
            });
            t.lift = f(0.3);
            t
        });
        let local = LocalSpace {
            linear_inertia: f(0.7),
            angular_inertia: f(0.5),
            max_linear_velocity: f(20.0),
            max_angular_velocity: f(1.0),
            max_linear_acceleration: f(20.0),
            max_angular_acceleration: f(2.0),
            ..LocalSpace::new(Self::root(0))
        };
        Self {
            x,
            v: [[T::ZERO; 3]; PARTICLES],
            w,
            links,
            skin,
            triangles,
            local,
            contacts: [Contact::default(); 1],
            scratch: [[T::ZERO; 3]; xpbd::step::scratch_len(PARTICLES, LINKS)],
            frames: 0,
            errors: 0,
            first_error: None,
            over: T::ZERO,
        }
    }

    /// The root at frame `k`: moving along x and bobbing, turning about
    /// y and tilting about x (quaternions normalised with a square root),
    /// 5 m away from [`TELEPORT`] on.
    #[must_use]
    #[allow(clippy::cast_precision_loss)] // small frame numbers
    pub fn root(k: usize) -> Transform<T> {
        let f = T::from_f64;
        let t = k as f64;
        let q = [f(0.004 * t), f(0.02 * t), T::ZERO, T::ONE];
        let n = (q[0] * q[0] + q[1] * q[1] + q[3] * q[3]).sqrt();
        let shift = if k >= TELEPORT { 5.0 } else { 0.0 };
        Transform {
            rotation: q.map(|c| c / n),
            translation: [
                f(0.05 * t + shift),
                f(0.01 * (t % 20.0)),
                f(0.002 * t * t / 10.0),
            ],
        }
    }

    /// Advances one frame (errors counted, not returned).
    pub fn frame(&mut self) {
        self.frames += 1;
        self.local.target = Self::root(self.frames);
        self.local.teleport = u32::from(self.frames == TELEPORT);
        let f = T::from_f64;
        let mut world = World::new(
            &mut self.x,
            &mut self.v,
            &self.w,
            &mut self.contacts,
            &mut self.scratch,
        );
        world.links = &mut self.links;
        world.groups = Some(Constraints {
            skin_constraints: &mut self.skin,
            ..Constraints::default()
        });
        world.wind = Some(Wind {
            velocity: [f(3.0), T::ZERO, f(1.0)],
            ..Wind::new(&self.triangles)
        });
        world.local_space = Some(&mut self.local);
        let mut config = StepConfig::new([T::ZERO, f(-9.81), T::ZERO]);
        config.substeps = 8;
        if let Err(e) = step(&mut world, f(FRAME), &config) {
            self.errors += 1;
            self.first_error.get_or_insert(e);
        }
        for s in self.skin.iter().filter(|s| s.compliance == T::ZERO) {
            let x = self
                .x
                .get(s.particle as usize)
                .copied()
                .unwrap_or([T::ZERO; 3]);
            let d: [T; 3] = core::array::from_fn(|i| x[i] - s.target[i]);
            let excess = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt() - s.max_distance;
            if excess > self.over {
                self.over = excess;
            }
        }
    }
}

/// Part 8 of the hash: the scene's [`FRAMES`] frames; after each every
/// position, velocity, link λ, skinned λ, the block's `previous` and its
/// added velocities.
pub fn character_3d<T: Scalar>(h: &mut Fnv64) -> Scene<T> {
    let mut s = Scene::<T>::new();
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
        for k in &s.skin {
            h.write_real(k.lambda[0]);
            h.write_real(k.lambda[1]);
        }
        let (p, l) = (s.local.previous, &s.local);
        let added = l.linear_velocity.iter().chain(&l.angular_velocity);
        for c in p.rotation.iter().chain(&p.translation).chain(added) {
            h.write_real(*c);
        }
    }
    s
}
