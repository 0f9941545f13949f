//! A fixed 3D scene with every constraint group, stepped with
//! [`xpbd::step::step`]: a cloth strip of [`COLS`] × [`ROWS`]
//! particles hanging from its pinned top row (links, dihedral bends over
//! its triangulation, tethers to the top row), a cube of five tets falling
//! onto the ground, and a pressurised octahedron (links on its edges, one
//! closed-mesh volume constraint with pressure factor [`PRESSURE`]). A
//! sideways velocity makes the strip bend out of its plane, and its bottom
//! corner [`ATTACHED`] hangs on a compliant kinematic attachment whose
//! target the scene moves every frame ([`Scene::target`]).
//!
//! Every constraint's rest value is computed here from the start shape
//! with the scenario's own arithmetic (flat strip: rest angles 0; signed
//! tet volumes; the octahedron's enclosed volume), so the scene does not
//! depend on the library's builders.

use xpbd::step::{step, Colliders, Contact, Plane, StepConfig, StepError, World};
use xpbd::{Attachment, Bend, Constraints, Link, MeshVolume, MeshVolumes, Real, Tet, Tether};

use crate::{Fnv64, Scalar};

/// Strip columns.
pub const COLS: usize = 3;
/// Strip rows (the top one pinned).
pub const ROWS: usize = 4;
/// Strip particles.
pub const STRIP: usize = COLS * ROWS;
/// Particles: the strip, the cube's 8 corners, the octahedron's 6.
pub const PARTICLES: usize = STRIP + 8 + 6;
/// Strip links (horizontal, vertical, one diagonal per quad) and the
/// octahedron's 12 edges.
pub const LINKS: usize = ROWS * (COLS - 1) + (ROWS - 1) * COLS + (ROWS - 1) * (COLS - 1) + 12;
/// Bends: every interior edge of the strip's triangulation.
pub const BENDS: usize =
    (ROWS - 1) * (COLS - 1) + (ROWS - 2) * (COLS - 1) + (ROWS - 1) * (COLS - 2);
/// Tethers: every moving strip particle to the pinned particle above it.
pub const TETHERS: usize = STRIP - COLS;
/// Tets of the cube.
pub const TETS: usize = 5;
/// Octahedron faces.
pub const TRIANGLES: usize = 8;
/// Frames simulated.
pub const FRAMES: usize = 90;
/// Frame length (s).
pub const FRAME: f64 = 1.0 / 60.0;
/// Spacing of the strip (m).
pub const SPACING: f64 = 0.1;
/// Pressure factor of the octahedron.
pub const PRESSURE: f64 = 1.1;
/// Contact capacity per substep.
pub const CONTACTS: usize = PARTICLES;
/// The strip particle on the attachment: its bottom-right corner.
pub const ATTACHED: usize = STRIP - 1;
/// The attachment's compliance (m/N).
pub const ATTACH_COMPLIANCE: f64 = 1e-4;

/// The scene's state and the caller memory the step works on.
#[derive(Debug, Clone)]
pub struct Scene<T: Real> {
    /// Positions (m).
    pub x: [[T; 3]; PARTICLES],
    /// Velocities (m/s).
    pub v: [[T; 3]; PARTICLES],
    /// Inverse masses (1/kg).
    pub w: [T; PARTICLES],
    /// Links.
    pub links: [Link<T>; LINKS],
    /// Bends.
    pub bends: [Bend<T>; BENDS],
    /// Tets.
    pub tets: [Tet<T>; TETS],
    /// Tethers.
    pub tethers: [Tether<T>; TETHERS],
    /// The octahedron's volume constraint.
    pub meshes: [MeshVolume<T>; 1],
    /// The octahedron's faces.
    pub triangles: [[u32; 3]; TRIANGLES],
    /// The mesh's particles once each, in the order they first appear in
    /// its triangles.
    pub mesh_particles: [u32; 6],
    /// The mesh gradient scratch.
    pub mesh_scratch: [[T; 3]; PARTICLES],
    /// The attachment of [`ATTACHED`].
    pub attachments: [Attachment<T>; 1],
    /// The attached particle's start position (m).
    pub start: [T; 3],
    /// Frames advanced.
    pub frames: u32,
    /// Contacts of the last substep.
    pub contacts: [Contact<T>; CONTACTS],
    /// Scratch for the step.
    pub scratch: [[T; 3]; xpbd::step::scratch_len(PARTICLES, LINKS)],
    /// The ground.
    pub planes: [Plane<T, 3>; 1],
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

/// `(b − a) × (c − a) · (d − a)`: six times the signed tet volume.
fn six_volume<T: Real>(a: [T; 3], b: [T; 3], c: [T; 3], d: [T; 3]) -> T {
    let s = |p: [T; 3]| [p[0] - a[0], p[1] - a[1], p[2] - a[2]];
    let (e, f, g) = (s(b), s(c), s(d));
    let cr = [
        e[1] * f[2] - e[2] * f[1],
        e[2] * f[0] - e[0] * f[2],
        e[0] * f[1] - e[1] * f[0],
    ];
    cr[0] * g[0] + cr[1] * g[1] + cr[2] * g[2]
}

impl<T: Real> Default for Scene<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Real> Scene<T> {
    /// The scene at its start.
    #[must_use]
    #[allow(clippy::cast_precision_loss, clippy::too_many_lines)] // small indices
    pub fn new() -> Self {
        let f = T::from_f64;
        let mut x = [[T::ZERO; 3]; PARTICLES];
        let mut v = [[T::ZERO; 3]; PARTICLES];
        let mut w = [T::ONE; PARTICLES];
        let at = |r: usize, c: usize| r * COLS + c;
        for r in 0..ROWS {
            for c in 0..COLS {
                let k = at(r, c);
                x[k] = [f(c as f64 * SPACING), f(1.2 - r as f64 * SPACING), f(0.0)];
                v[k] = [f(0.0), f(0.0), f(0.3 * r as f64 * (1.0 + 0.5 * c as f64))];
                if r == 0 {
                    w[k] = T::ZERO;
                }
            }
        }
        // The cube: corner i = x + 2y + 4z, side 0.2 m, 0.3 m up.
        for i in 0..8 {
            let (cx, cy, cz) = ((i & 1) as f64, ((i >> 1) & 1) as f64, ((i >> 2) & 1) as f64);
            x[STRIP + i] = [f(0.6 + 0.2 * cx), f(0.3 + 0.2 * cy), f(0.2 * cz)];
            w[STRIP + i] = f(2.0);
        }
        // The octahedron: ±x, ±y, ±z around (1.1, 0.4, 0), radius 0.15 m.
        let o = STRIP + 8;
        let r = 0.15;
        let axes = [
            [r, 0.0, 0.0],
            [-r, 0.0, 0.0],
            [0.0, r, 0.0],
            [0.0, -r, 0.0],
            [0.0, 0.0, r],
            [0.0, 0.0, -r],
        ];
        for (k, a) in axes.iter().enumerate() {
            x[o + k] = [f(1.1 + a[0]), f(0.4 + a[1]), f(a[2])];
            w[o + k] = f(4.0);
        }

        let mut links = [Link::default(); LINKS];
        let mut n = 0;
        let mut link = |i: usize, j: usize, x: &[[T; 3]; PARTICLES], alpha: f64| {
            let d = [x[j][0] - x[i][0], x[j][1] - x[i][1], x[j][2] - x[i][2]];
            let rest = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
            links[n] = Link::new(u(i), u(j), rest, f(alpha));
            n += 1;
        };
        for r in 0..ROWS {
            for c in 0..COLS - 1 {
                link(at(r, c), at(r, c + 1), &x, 1e-7);
            }
        }
        for r in 0..ROWS - 1 {
            for c in 0..COLS {
                link(at(r, c), at(r + 1, c), &x, 1e-7);
            }
        }
        for r in 0..ROWS - 1 {
            for c in 0..COLS - 1 {
                link(at(r, c), at(r + 1, c + 1), &x, 1e-7);
            }
        }
        for a in 0..6 {
            for b in a + 1..6 {
                if a / 2 != b / 2 {
                    link(o + a, o + b, &x, 1e-5);
                }
            }
        }

        // Quad (r, c) is split along (r, c)–(r+1, c+1) into triangles
        // ((r,c), (r,c+1), (r+1,c+1)) and ((r,c), (r+1,c+1), (r+1,c)).
        let bend_alpha = f(1e-2);
        let mut bends = [Bend::default(); BENDS];
        let mut nb = 0;
        let mut bend = |e0: usize, e1: usize, w0: usize, w1: usize| {
            bends[nb] = Bend::new([u(e0), u(e1), u(w0), u(w1)], T::ZERO, bend_alpha);
            nb += 1;
        };
        for r in 0..ROWS - 1 {
            for c in 0..COLS - 1 {
                bend(at(r, c), at(r + 1, c + 1), at(r, c + 1), at(r + 1, c));
            }
        }
        for r in 1..ROWS - 1 {
            for c in 0..COLS - 1 {
                bend(at(r, c), at(r, c + 1), at(r + 1, c + 1), at(r - 1, c));
            }
        }
        for r in 0..ROWS - 1 {
            for c in 1..COLS - 1 {
                bend(at(r, c), at(r + 1, c), at(r + 1, c + 1), at(r, c - 1));
            }
        }

        let mut tethers = [Tether::default(); TETHERS];
        for (k, t) in tethers.iter_mut().enumerate() {
            let p = k + COLS;
            let c = p % COLS;
            let d = f((p / COLS) as f64 * SPACING);
            *t = Tether::new(u(p), u(c), d, f(1e-6));
        }

        let corners = [
            [0, 1, 2, 4],
            [3, 1, 2, 7],
            [5, 1, 4, 7],
            [6, 2, 4, 7],
            [1, 2, 4, 7],
        ];
        let mut tets = [Tet::default(); TETS];
        for (t, q) in tets.iter_mut().zip(corners) {
            let p = q.map(|i| STRIP + i);
            let v6 = six_volume(x[p[0]], x[p[1]], x[p[2]], x[p[3]]);
            *t = Tet::new(p.map(u), v6 / f(6.0), f(1e-7));
        }

        // Faces counter-clockwise seen from outside: (+x, +y, +z) and its
        // mirror images, reversed when an odd number of axes is mirrored.
        let mut triangles = [[0u32; 3]; TRIANGLES];
        let mut volume = T::ZERO;
        for (k, tri) in triangles.iter_mut().enumerate() {
            let (sx, sy, sz) = (k & 1, (k >> 1) & 1, (k >> 2) & 1);
            let (a, b, c) = (o + sx, o + 2 + sy, o + 4 + sz);
            *tri = if (sx + sy + sz) % 2 == 0 {
                [u(a), u(b), u(c)]
            } else {
                [u(a), u(c), u(b)]
            };
            let p = |i: u32| x[usize::try_from(i).unwrap_or(0)];
            let (pa, pb, pc) = (p(tri[0]), p(tri[1]), p(tri[2]));
            let cr = [
                pb[1] * pc[2] - pb[2] * pc[1],
                pb[2] * pc[0] - pb[0] * pc[2],
                pb[0] * pc[1] - pb[1] * pc[0],
            ];
            volume = volume + (pa[0] * cr[0] + pa[1] * cr[1] + pa[2] * cr[2]);
        }
        // The octahedron's 6 particles in the order they first appear.
        let mut mesh_particles = [0u32; 6];
        let mut listed = 0;
        for &k in triangles.as_flattened() {
            if !mesh_particles[..listed].contains(&k) {
                mesh_particles[listed] = k;
                listed += 1;
            }
        }
        let meshes = [MeshVolume {
            first_triangle: 0,
            triangle_count: u(TRIANGLES),
            first_particle: 0,
            particle_count: u(listed),
            rest_volume: volume / f(6.0),
            pressure: f(PRESSURE),
            compliance: f(1e-6),
            lambda: T::ZERO,
        }];

        let mut config = StepConfig::new([f(0.0), f(-9.81), f(0.0)]);
        config.substeps = 4;
        config.iterations = 4;
        config.damping = f(0.05);
        config.particle_radius = f(0.01);
        config.contact_compliance = f(1e-7);
        config.static_friction = f(0.3);
        config.dynamic_friction = f(0.2);
        Self {
            x,
            v,
            w,
            links,
            bends,
            tets,
            tethers,
            meshes,
            triangles,
            mesh_particles,
            mesh_scratch: [[T::ZERO; 3]; PARTICLES],
            attachments: [Attachment::new(
                u(ATTACHED),
                x[ATTACHED],
                f(ATTACH_COMPLIANCE),
            )],
            start: x[ATTACHED],
            frames: 0,
            contacts: [Contact::default(); CONTACTS],
            scratch: [[T::ZERO; 3]; xpbd::step::scratch_len(PARTICLES, LINKS)],
            planes: [Plane {
                normal: [f(0.0), f(1.0), f(0.0)],
                offset: f(0.0),
            }],
            config,
            errors: 0,
            first_error: None,
        }
    }

    /// The attachment's target after frame `frame` (m): its start point
    /// moved by `(0.004, 0.002, −0.006)·frame` (plain arithmetic, the same
    /// bits everywhere).
    #[must_use]
    pub fn target(&self, frame: u32) -> [T; 3] {
        let k = T::from_f64(f64::from(frame));
        let mut p = self.start;
        for (c, d) in p.iter_mut().zip([0.004, 0.002, -0.006]) {
            *c = *c + T::from_f64(d) * k;
        }
        p
    }

    /// Advances one frame with [`step`].
    pub fn frame(&mut self) {
        self.frames = self.frames.saturating_add(1);
        self.attachments[0].target = self.target(self.frames);
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
            groups: None,
        };
        world.groups = Some(Constraints {
            bends: &mut self.bends,
            tets: &mut self.tets,
            tethers: &mut self.tethers,
            meshes: MeshVolumes {
                volumes: &mut self.meshes,
                triangles: &self.triangles,
                particles: &self.mesh_particles,
                scratch: &mut self.mesh_scratch,
            },
            attachments: &mut self.attachments,
            skin_constraints: &mut [],
        });
        if let Err(e) = step(&mut world, T::from_f64(FRAME), &self.config) {
            self.errors = self.errors.saturating_add(1);
            self.first_error.get_or_insert(e);
        }
    }
}

/// Part 5: the scene of every constraint group under
/// [`xpbd::step::step`]; hashes every position, velocity and λ (links,
/// bends, tets, tethers, mesh, the attachment's three), then the
/// attachment's impulse, force and `previous`, after each frame and
/// returns the final state.
pub fn groups_3d<T: Scalar>(h: &mut Fnv64) -> Scene<T> {
    let mut s = Scene::<T>::new();
    for _ in 0..FRAMES {
        s.frame();
        for (x, v) in s.x.iter().zip(&s.v) {
            for c in x.iter().chain(v) {
                h.write_real(*c);
            }
        }
        let lambdas = s
            .links
            .iter()
            .map(|l| l.lambda)
            .chain(s.bends.iter().map(|b| b.lambda))
            .chain(s.tets.iter().map(|t| t.lambda))
            .chain(s.tethers.iter().map(|t| t.lambda))
            .chain(s.meshes.iter().map(|m| m.lambda))
            .chain(s.attachments.iter().flat_map(|a| a.lambda));
        for l in lambdas {
            h.write_real(l);
        }
        for a in &s.attachments {
            for c in a.impulse.iter().chain(&a.force).chain(&a.previous) {
                h.write_real(*c);
            }
        }
    }
    s
}
