//! A fixed tearing scene, stepped with [`xpbd::step::step`]: a sheet
//! of [`ROWS`] × [`COLS`] particles hanging in the xy plane (structural
//! links only, α = [`LINK_COMPLIANCE`]) whose left and right columns are
//! held by compliant kinematic attachments ([`Attachment`]) that the scene
//! moves apart by [`PULL`] m per side and frame, under gravity, with a
//! small out-of-plane push. Every link has a maximum force
//! ([`xpbd::step::Tearing::max_force`]): the links crossing a
//! perforation between columns [`GAP`] and `GAP + 1` hold [`WEAK`] N in
//! the top row and [`WEAK_STEP`] N more in each row below; every other
//! link holds [`STRONG`] N. The pull stretches the horizontal links until
//! the top one across the perforation gives; the load moves down the line
//! and the sheet unzips from top to bottom over a few frames (f64 and
//! f32: frames 16–21, 6 links), then the two halves swing on their
//! attachments. Without the perforation (every link 25 N) every
//! horizontal link would reach its maximum in the same frame: the pull
//! loads them all alike.
//!
//! [`Sheet::torn_along_the_line`] is the scenario's check: exactly the
//! perforation's links are torn, so the sheet is in two halves.
//!
//! Like [`crate::groups`], every rest value and target is computed here
//! with plain arithmetic (`+ − × ÷`, f64 → `T` rounding), so the scene
//! does not depend on the library's builders.

use xpbd::step::{step, Contact, StepConfig, StepError, Tearing, World};
use xpbd::{Attachment, Constraints, Link, Real};

use crate::{Fnv64, Scalar};

/// Sheet rows (along −y).
pub const ROWS: usize = 6;
/// Sheet columns (along +x).
pub const COLS: usize = 10;
/// Particles.
pub const PARTICLES: usize = ROWS * COLS;
/// Structural links: horizontal ones first (row by row), then vertical ones.
pub const LINKS: usize = ROWS * (COLS - 1) + (ROWS - 1) * COLS;
/// Attachments: the left column (rows in order), then the right column.
pub const ATTACHMENTS: usize = 2 * ROWS;
/// The perforation lies between column `GAP` and column `GAP + 1`.
pub const GAP: usize = 4;
/// Frames simulated.
pub const FRAMES: usize = 90;
/// Frame length (s).
pub const FRAME: f64 = 1.0 / 60.0;
/// Particle spacing (m), the links' rest length.
pub const SPACING: f64 = 0.05;
/// Mass of a particle (kg).
pub const MASS: f64 = 0.02;
/// The links' compliance (m/N).
pub const LINK_COMPLIANCE: f64 = 1e-4;
/// The attachments' compliance (m/N).
pub const ATTACH_COMPLIANCE: f64 = 1e-6;
/// How far each side's targets move outwards per frame (m).
pub const PULL: f64 = 0.002;
/// Maximum force of the top row's link across the perforation (N); the
/// row below holds [`WEAK_STEP`] N more, so the tear starts at the top.
pub const WEAK: f64 = 20.0;
/// How much more each row's link across the perforation holds (N).
pub const WEAK_STEP: f64 = 1.5;
/// Maximum force of every other link (N).
pub const STRONG: f64 = 60.0;
/// Capacity of the torn list per frame (the whole line fits).
pub const TORN_CAPACITY: usize = ROWS;

/// The scene's state and the caller memory the step works on.
#[derive(Debug, Clone)]
pub struct Sheet<T: Real> {
    /// Positions (m).
    pub x: [[T; 3]; PARTICLES],
    /// Velocities (m/s).
    pub v: [[T; 3]; PARTICLES],
    /// Inverse masses (1/kg).
    pub w: [T; PARTICLES],
    /// Links (flags carry [`Link::DISABLED`] once torn).
    pub links: [Link<T>; LINKS],
    /// Maximum force per link (N).
    pub max_force: [T; LINKS],
    /// The attachments (left column, then right column).
    pub attachments: [Attachment<T>; ATTACHMENTS],
    /// The attachments' start points (m).
    pub start: [[T; 3]; ATTACHMENTS],
    /// The links the last frame tore (the first [`TORN_CAPACITY`]).
    pub torn: [u32; TORN_CAPACITY],
    /// How many links the last frame tore.
    pub torn_count: usize,
    /// Links torn over all frames.
    pub torn_total: usize,
    /// The first frame (1-based) that tore a link, 0 if none.
    pub first_tear: u32,
    /// Frames whose torn list differed from the links newly flagged in
    /// that frame, in link order (expected 0).
    pub list_mismatches: u32,
    /// Frames advanced.
    pub frames: u32,
    /// Contact storage (no colliders here).
    pub contacts: [Contact<T>; 1],
    /// Scratch for the step.
    pub scratch: [[T; 3]; xpbd::step::scratch_len(PARTICLES, LINKS)],
    /// The step configuration.
    pub config: StepConfig<T, 3>,
    /// Steps that returned an error (expected 0).
    pub errors: u32,
    /// The first error, if any.
    pub first_error: Option<StepError>,
}

/// `u32` of a small index.
fn u(k: usize) -> u32 {
    u32::try_from(k).unwrap_or(u32::MAX)
}

/// The particle at row `r`, column `c`.
const fn at(r: usize, c: usize) -> usize {
    r * COLS + c
}

/// Whether a link between columns `a` and `b` crosses the perforation.
#[must_use]
pub const fn crosses(a: usize, b: usize) -> bool {
    let (lo, hi) = if a < b { (a, b) } else { (b, a) };
    lo <= GAP && hi > GAP
}

impl<T: Real> Default for Sheet<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Real> Sheet<T> {
    /// The scene at its start: the flat sheet at rest but for a small
    /// sideways (+z) velocity of its middle rows, so it moves out of its
    /// plane.
    #[must_use]
    #[allow(clippy::cast_precision_loss)] // small indices
    pub fn new() -> Self {
        let f = T::from_f64;
        let mut x = [[T::ZERO; 3]; PARTICLES];
        let mut v = [[T::ZERO; 3]; PARTICLES];
        for r in 0..ROWS {
            for c in 0..COLS {
                let k = at(r, c);
                x[k] = [f(c as f64 * SPACING), f(1.0 - r as f64 * SPACING), T::ZERO];
                let bulge = (r * (ROWS - 1 - r) * c * (COLS - 1 - c)) as f64;
                v[k] = [T::ZERO, T::ZERO, f(0.002 * bulge)];
            }
        }
        let mut links = [Link::default(); LINKS];
        let mut max_force = [T::ZERO; LINKS];
        let mut n = 0;
        let mut link = |i: usize, j: usize, max: f64| {
            links[n] = Link::new(u(i), u(j), f(SPACING), f(LINK_COMPLIANCE));
            max_force[n] = f(max);
            n += 1;
        };
        for r in 0..ROWS {
            for c in 0..COLS - 1 {
                let max = if crosses(c, c + 1) {
                    WEAK + WEAK_STEP * r as f64
                } else {
                    STRONG
                };
                link(at(r, c), at(r, c + 1), max);
            }
        }
        for r in 0..ROWS - 1 {
            for c in 0..COLS {
                link(at(r, c), at(r + 1, c), STRONG);
            }
        }
        let mut attachments = [Attachment::default(); ATTACHMENTS];
        let mut start = [[T::ZERO; 3]; ATTACHMENTS];
        for (k, (a, s)) in attachments.iter_mut().zip(&mut start).enumerate() {
            let p = if k < ROWS {
                at(k, 0)
            } else {
                at(k - ROWS, COLS - 1)
            };
            *a = Attachment::new(u(p), x[p], f(ATTACH_COMPLIANCE));
            *s = x[p];
        }
        let mut config = StepConfig::new([T::ZERO, f(-9.81), T::ZERO]);
        config.substeps = 8;
        config.iterations = 1;
        config.damping = f(0.5);
        Self {
            x,
            v,
            w: [f(1.0 / MASS); PARTICLES],
            links,
            max_force,
            attachments,
            start,
            torn: [u32::MAX; TORN_CAPACITY],
            torn_count: 0,
            torn_total: 0,
            first_tear: 0,
            list_mismatches: 0,
            frames: 0,
            contacts: [Contact::default(); 1],
            scratch: [[T::ZERO; 3]; xpbd::step::scratch_len(PARTICLES, LINKS)],
            config,
            errors: 0,
            first_error: None,
        }
    }

    /// Attachment `k`'s target after frame `frame` (m): its start moved
    /// outwards (−x on the left, +x on the right) by `PULL · frame`.
    #[must_use]
    pub fn target(&self, k: usize, frame: u32) -> [T; 3] {
        let mut p = self.start.get(k).copied().unwrap_or([T::ZERO; 3]);
        let pull = T::from_f64(PULL) * T::from_f64(f64::from(frame));
        p[0] = if k < ROWS { p[0] - pull } else { p[0] + pull };
        p
    }

    /// Advances one frame with [`step`] and records what tore.
    pub fn frame(&mut self) {
        self.frames = self.frames.saturating_add(1);
        for k in 0..ATTACHMENTS {
            let t = self.target(k, self.frames);
            if let Some(a) = self.attachments.get_mut(k) {
                a.target = t;
            }
        }
        let before = self.links.map(|l| l.is_disabled());
        let mut world = World {
            positions: &mut self.x,
            velocities: &mut self.v,
            inverse_masses: &self.w,
            links: &mut self.links,
            contacts: &mut self.contacts,
            scratch: &mut self.scratch,
            colliders: None,
            self_collision: None,
            tearing: Some(Tearing {
                max_force: &self.max_force,
                torn: &mut self.torn,
            }),
            wind: None,
            local_space: None,
            engine_contacts: None,
            groups: None,
        };
        world.groups = Some(Constraints {
            attachments: &mut self.attachments,
            ..Default::default()
        });
        match step(&mut world, T::from_f64(FRAME), &self.config) {
            Ok(stats) => {
                self.torn_count = stats.torn;
                self.torn_total = self.torn_total.saturating_add(stats.torn);
                if stats.torn > 0 && self.first_tear == 0 {
                    self.first_tear = self.frames;
                }
                // The list holds exactly the links this frame flagged, in
                // link order.
                let mut newly = self
                    .links
                    .iter()
                    .zip(before)
                    .enumerate()
                    .filter(|(_, (l, was))| l.is_disabled() && !was)
                    .map(|(k, _)| u(k));
                let listed = self.torn.iter().take(stats.torn.min(TORN_CAPACITY));
                let same = listed.copied().eq(newly.by_ref().take(TORN_CAPACITY))
                    && newly.count() == stats.torn.saturating_sub(TORN_CAPACITY);
                if !same {
                    self.list_mismatches = self.list_mismatches.saturating_add(1);
                }
            }
            Err(e) => {
                self.torn_count = 0;
                self.errors = self.errors.saturating_add(1);
                self.first_error.get_or_insert(e);
            }
        }
    }

    /// Whether the torn links are exactly the perforation's: every link
    /// crossing it is torn and no other is (the sheet is in two halves,
    /// torn along one line).
    #[must_use]
    pub fn torn_along_the_line(&self) -> bool {
        self.links.iter().all(|l| {
            let col = |p: u32| usize::try_from(p).unwrap_or(usize::MAX) % COLS;
            l.is_disabled() == crosses(col(l.i), col(l.j))
        })
    }
}

/// Part 6: the tearing sheet under [`xpbd::step::step`]; hashes,
/// after each frame, every position and velocity, every link's λ and
/// flags, every attachment's λ, impulse, force and `previous`, the torn
/// count and the torn indices written, and returns the final state.
pub fn tearing_3d<T: Scalar>(h: &mut Fnv64) -> Sheet<T> {
    let mut s = Sheet::<T>::new();
    for _ in 0..FRAMES {
        s.frame();
        for (x, v) in s.x.iter().zip(&s.v) {
            for c in x.iter().chain(v) {
                h.write_real(*c);
            }
        }
        for l in &s.links {
            h.write_real(l.lambda);
            h.write_u64(u64::from(l.flags));
        }
        for a in &s.attachments {
            let parts = a.lambda.iter().chain(&a.impulse).chain(&a.force);
            for c in parts.chain(&a.previous) {
                h.write_real(*c);
            }
        }
        h.write_u64(u64::try_from(s.torn_count).unwrap_or(u64::MAX));
        for k in s.torn.iter().take(s.torn_count.min(TORN_CAPACITY)) {
            h.write_u64(u64::from(*k));
        }
    }
    s
}
