//! The scene shared by `tests/hostile_groups.rs` (the system entry points)
//! and `tests/hostile_groups_world.rs` (the world step, the tether builder,
//! the f32 twins): a 3D system with every constraint group, its C structs,
//! a byte snapshot of every caller buffer, and the invalid constraints with
//! the index each must be named by.
#![allow(dead_code)]

use core::ptr;
use xpbd::ffi::*;
use xpbd::{Link, MeshVolume, Tether};

/// The substep length of the system tests (s).
pub const H: f64 = 1.0 / 60.0;
/// Links, bends, tets, tethers, meshes of the scene: the index of a
/// group's first constraint is the sum of the counts before it.
pub const L: usize = 3;
pub const BEND: usize = L;
pub const TET: usize = L + 1;
pub const TETHER: usize = L + 2;
pub const MESH: usize = L + 4;

pub fn distance(a: [f64; 3], b: [f64; 3]) -> f64 {
    {
        let d = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
        (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt()
    }
}

/// Signed volume of the tet (a, b, c, d): ((b − a) × (c − a)) · (d − a) / 6.
pub fn volume(x: &[[f64; 3]], [a, b, c, d]: [u32; 4]) -> f64 {
    let (a, b, c, d) = (x[a as usize], x[b as usize], x[c as usize], x[d as usize]);
    let u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
    let v = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
    let t = [d[0] - a[0], d[1] - a[1], d[2] - a[2]];
    let n = [
        u[1] * v[2] - u[2] * v[1],
        u[2] * v[0] - u[0] * v[2],
        u[0] * v[1] - u[1] * v[0],
    ];
    (n[0] * t[0] + n[1] * t[1] + n[2] * t[2]) / 6.0
}

pub fn bytes<T>(v: &[T]) -> Vec<u8> {
    // SAFETY: reading the bytes of a slice of plain data without padding
    // (positions, masses, bends, tets, tethers, meshes, triangles).
    unsafe { core::slice::from_raw_parts(v.as_ptr().cast::<u8>(), core::mem::size_of_val(v)) }
        .to_vec()
}

/// Every caller byte of a scene (links field by field: `Link` has padding).
#[derive(Debug, PartialEq)]
pub struct Snapshot {
    pub x: Vec<u8>,
    pub w: Vec<u8>,
    pub links: Vec<(u32, u32, u64, u64, u64, u32)>,
    pub bends: Vec<u8>,
    pub tets: Vec<u8>,
    pub tethers: Vec<u8>,
    pub meshes: Vec<u8>,
    pub triangles: Vec<u8>,
    pub particles: Vec<u8>,
    /// The mesh scratch's length only: its contents are the library's (a
    /// validation marks particles in it, a sweep its gradients).
    pub scratch: usize,
}

/// Six particles in general position (0 pinned), 3 links, one bend, one
/// tet, two tethers (particle 5 far beyond its radius, particle 4 slack)
/// and one closed mesh (the surface of the tet 1-2-3-4), every λ stale.
/// (Compare two runs on clones of one scene: Miri perturbs library float
/// functions such as `powi` at random, so two constructions may differ.)
#[derive(Clone)]
pub struct Scene {
    pub x: Vec<[f64; 3]>,
    pub w: Vec<f64>,
    pub links: Vec<XpbdLink>,
    pub bends: Vec<XpbdBend>,
    pub tets: Vec<XpbdTet>,
    pub tethers: Vec<XpbdTether>,
    pub meshes: Vec<XpbdMeshVolume>,
    pub triangles: Vec<[u32; 3]>,
    /// The mesh's particles in first-appearance order.
    pub particles: Vec<u32>,
    pub scratch: Vec<[f64; 3]>,
    pub policy: i32,
}

impl Scene {
    pub fn new() -> Self {
        let x = vec![
            [0.0, 0.0, 0.0],
            [0.5, 0.0, 0.1],
            [0.3, -0.5, 0.0],
            [0.2, 0.1, -0.5],
            [0.9, -0.8, 0.3],
            [0.0, -1.6, 0.05],
        ];
        let w = vec![0.0, 1.0, 2.0, 1.0, 1.5, 1.0];
        let link = |i: u32, j: u32| {
            let mut l = Link::new(i, j, 0.95 * distance(x[i as usize], x[j as usize]), 1e-6);
            l.lambda = 0.25;
            l
        };
        let links = vec![link(0, 1), link(1, 2), link(2, 4)];
        let mut bend = XpbdBend::new([0, 1, 2, 3], 0.5, 1e-4);
        bend.lambda = 0.25;
        let tet_particles = [0, 1, 2, 3];
        let mut tet = XpbdTet::new(tet_particles, 1.1 * volume(&x, tet_particles), 1e-6);
        tet.lambda = 0.25;
        let mut tethers = vec![Tether::new(5, 0, 1.0, 0.0), Tether::new(4, 0, 2.0, 1e-6)];
        for t in &mut tethers {
            t.lambda = -0.25;
        }
        // The surface of tet (1, 2, 3, 4), each face oriented outwards.
        let mut triangles = vec![[1, 2, 3], [1, 4, 2], [1, 3, 4], [2, 4, 3]];
        let outward = |t: [u32; 3]| {
            let other = (1..=4).find(|k| !t.contains(k)).unwrap();
            volume(&x, [t[0], t[1], t[2], other]) < 0.0
        };
        for t in &mut triangles {
            if !outward(*t) {
                t.swap(1, 2);
            }
        }
        let mut particles = Vec::new();
        for &k in triangles.iter().flatten() {
            if !particles.contains(&k) {
                particles.push(k);
            }
        }
        let mesh = MeshVolume {
            first_triangle: 0,
            triangle_count: 4,
            first_particle: 0,
            particle_count: 4,
            rest_volume: volume(&x, [1, 2, 3, 4]).abs(),
            pressure: 1.0,
            compliance: 1e-6,
            lambda: 0.25,
        };
        Scene {
            scratch: vec![[0.0; 3]; x.len()],
            x,
            w,
            links,
            bends: vec![bend],
            tets: vec![tet],
            tethers,
            meshes: vec![mesh],
            triangles,
            particles,
            policy: XPBD_ZERO_LENGTH_SKIP,
        }
    }

    pub fn system(&mut self) -> XpbdSystem3 {
        XpbdSystem3 {
            positions: self.x.as_mut_ptr(),
            inverse_masses: self.w.as_ptr(),
            particle_count: self.x.len(),
            links: self.links.as_mut_ptr(),
            link_count: self.links.len(),
            zero_length_policy: self.policy,
            substep_active: 0,
            h: 0.0,
            error_index: 0,
        }
    }

    pub fn groups(&mut self) -> XpbdConstraints3 {
        XpbdConstraints3 {
            bends: self.bends.as_mut_ptr(),
            bend_count: self.bends.len(),
            tets: self.tets.as_mut_ptr(),
            tet_count: self.tets.len(),
            tethers: self.tethers.as_mut_ptr(),
            tether_count: self.tethers.len(),
            mesh_volumes: self.meshes.as_mut_ptr(),
            mesh_volume_count: self.meshes.len(),
            triangles: self.triangles.as_ptr(),
            triangle_count: self.triangles.len(),
            mesh_scratch: self.scratch.as_mut_ptr(),
            mesh_scratch_count: self.scratch.len(),
            attachments: core::ptr::null_mut(),
            attachment_count: 0,
            mesh_particles: self.particles.as_ptr(),
            mesh_particle_count: self.particles.len(),
            skin_constraints: core::ptr::null_mut(),
            skin_constraint_count: 0,
        }
    }

    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            x: bytes(&self.x),
            w: bytes(&self.w),
            links: self
                .links
                .iter()
                .map(|l| {
                    (
                        l.i,
                        l.j,
                        l.rest.to_bits(),
                        l.compliance.to_bits(),
                        l.lambda.to_bits(),
                        l.flags,
                    )
                })
                .collect(),
            bends: bytes(&self.bends),
            tets: bytes(&self.tets),
            tethers: bytes(&self.tethers),
            meshes: bytes(&self.meshes),
            triangles: bytes(&self.triangles),
            particles: bytes(&self.particles),
            scratch: self.scratch.len(),
        }
    }
}

/// A sweep-stats output with recognisable contents.
pub fn sentinel_stats() -> XpbdSweepStats {
    XpbdSweepStats {
        applied: 7,
        skipped_static: 8,
        skipped_zero_length: 9,
        max_abs_c: 0.5,
        max_residual: 0.75,
    }
}

pub fn sentinel_convergence() -> XpbdConvergence {
    XpbdConvergence {
        iterations: 3,
        converged: 4,
        last: sentinel_stats(),
    }
}

/// Every call on an active system, each with its own output; the status
/// of each (all must agree for the cases below), outputs untouched
/// checked by the caller.
///
/// # Safety
/// As the C functions: `sys` and `g` valid or NULL, their buffers valid.
pub unsafe fn resumed_calls(
    sys: *mut XpbdSystem3,
    g: *const XpbdConstraints3,
    stats: &mut XpbdSweepStats,
    conv: &mut XpbdConvergence,
) -> [XpbdStatus; 3] {
    // SAFETY: forwarded.
    unsafe {
        [
            xpbd_system3_iterate_groups(sys, g, stats),
            xpbd_system3_iterate_until_groups(sys, g, 1e-9, 10, conv),
            xpbd_system3_measure_groups(sys, g, stats),
        ]
    }
}

// ---- Bad constraints, named after the links ----

/// One invalid constraint per case: the edit, the status and the index
/// `error_index` must name.
pub type Case = (&'static str, fn(&mut Scene), XpbdStatus, usize);

pub fn bad_cases() -> Vec<Case> {
    vec![
        (
            "bend index",
            |s| s.bends[0].particles[3] = 6,
            XpbdStatus::IndexOutOfRange,
            BEND,
        ),
        (
            "bend same particle",
            |s| s.bends[0].particles[2] = 0,
            XpbdStatus::SameParticle,
            BEND,
        ),
        (
            "bend rest angle",
            |s| s.bends[0].rest_angle = 4.0,
            XpbdStatus::InvalidRestValue,
            BEND,
        ),
        (
            "bend compliance",
            |s| s.bends[0].compliance = -1.0,
            XpbdStatus::InvalidCompliance,
            BEND,
        ),
        (
            "tet index",
            |s| s.tets[0].particles[0] = 99,
            XpbdStatus::IndexOutOfRange,
            TET,
        ),
        (
            "tet rest volume",
            |s| s.tets[0].rest_volume = 0.0,
            XpbdStatus::InvalidRestValue,
            TET,
        ),
        (
            "tether index",
            |s| s.tethers[1].anchor = 6,
            XpbdStatus::IndexOutOfRange,
            TETHER + 1,
        ),
        (
            "tether same",
            |s| s.tethers[0].anchor = 5,
            XpbdStatus::SameParticle,
            TETHER,
        ),
        (
            "tether d_max",
            |s| s.tethers[1].max_distance = -0.5,
            XpbdStatus::InvalidRestValue,
            TETHER + 1,
        ),
        (
            "tether NaN d_max",
            |s| s.tethers[0].max_distance = f64::NAN,
            XpbdStatus::InvalidRestValue,
            TETHER,
        ),
        (
            "tether compliance",
            |s| s.tethers[1].compliance = f64::INFINITY,
            XpbdStatus::InvalidCompliance,
            TETHER + 1,
        ),
        (
            "tether scale",
            |s| s.tethers[0].compliance = f64::MAX,
            XpbdStatus::UnrepresentableScale,
            TETHER,
        ),
        (
            "mesh rest volume",
            |s| s.meshes[0].rest_volume = -1.0,
            XpbdStatus::InvalidRestValue,
            MESH,
        ),
        (
            "mesh pressure",
            |s| s.meshes[0].pressure = f64::NAN,
            XpbdStatus::InvalidRestValue,
            MESH,
        ),
        (
            "mesh scratch",
            |s| s.scratch.truncate(5),
            XpbdStatus::CapacityTooSmall,
            6,
        ),
        (
            "mesh list range",
            |s| s.meshes[0].first_particle = 1,
            XpbdStatus::InvalidRestValue,
            MESH,
        ),
        (
            "mesh list index",
            |s| s.particles[3] = 6,
            XpbdStatus::IndexOutOfRange,
            MESH,
        ),
        (
            "mesh list repeated",
            |s| s.particles[3] = s.particles[0],
            XpbdStatus::SameParticle,
            MESH,
        ),
        (
            "mesh list order",
            |s| s.particles.swap(1, 2),
            XpbdStatus::InvalidRestValue,
            MESH,
        ),
        (
            "mesh list missing",
            |s| s.particles[3] = 0,
            XpbdStatus::InvalidRestValue,
            MESH,
        ),
        (
            "mesh list extra",
            |s| {
                s.particles.push(0);
                s.meshes[0].particle_count = 5;
            },
            XpbdStatus::InvalidRestValue,
            MESH,
        ),
    ]
}

// ---- The world ----

/// The world's own buffers for a scene: velocities, the C world's blocks
/// (one plane, the groups) and memory, and the Rust step's scratch and
/// contacts (as many as the C contact budget).
pub struct WorldStore {
    pub v: Vec<[f64; 3]>,
    pub scratch: Vec<[f64; 3]>,
    pub contacts: Vec<XpbdContact>,
    pub planes: Vec<XpbdPlane3>,
    /// The C blocks, one each (in vectors: their addresses are stable and
    /// every pointer to them shares one origin).
    pub colliders: Vec<XpbdColliders3>,
    pub groups: Vec<XpbdGroups3>,
    pub memory: Vec<u64>,
}

impl WorldStore {
    pub fn new(s: &Scene) -> Self {
        WorldStore {
            v: (0..s.x.len())
                .map(|k| [0.1 * k as f64, -0.2, 0.05])
                .collect(),
            scratch: vec![[0.0; 3]; xpbd_step_scratch_len(s.x.len(), s.links.len())],
            contacts: vec![XpbdContact::default(); 12],
            planes: vec![XpbdPlane3 {
                normal: [0.0, 1.0, 0.0],
                offset: -1.7,
            }],
            colliders: vec![xpbd_colliders3_default()],
            groups: vec![xpbd_groups3_default()],
            memory: Vec::new(),
        }
    }

    /// The C world over the scene: the plane (a contact budget of 12, as
    /// the Rust world's contacts) and the scene's groups as blocks, and
    /// the memory it asks for.
    pub fn world(&mut self, s: &mut Scene) -> XpbdWorld3 {
        let mut w = xpbd_world3_default();
        w.positions = s.x.as_mut_ptr();
        w.velocities = self.v.as_mut_ptr();
        w.inverse_masses = s.w.as_ptr();
        w.particle_count = s.x.len();
        w.links = s.links.as_mut_ptr();
        w.link_count = s.links.len();
        let mut c = xpbd_colliders3_default();
        c.planes = self.planes.as_ptr();
        c.plane_count = self.planes.len();
        c.contact_budget = self.contacts.len();
        self.colliders[0] = c;
        let mut g = xpbd_groups3_default();
        g.groups = s.groups();
        self.groups[0] = g;
        // SAFETY: the world and the blocks are valid; the blocks outlive it
        // (the store's vectors).
        unsafe {
            assert_eq!(
                xpbd_world3_add(&mut w, self.colliders.as_mut_ptr().cast()),
                XpbdStatus::Ok
            );
            assert_eq!(
                xpbd_world3_add(&mut w, self.groups.as_mut_ptr().cast()),
                XpbdStatus::Ok
            );
            let mut r = XpbdRequirements::default();
            assert_eq!(xpbd_world3_requirements(&mut w, &mut r), XpbdStatus::Ok);
            self.memory = vec![0; r.memory_size.div_ceil(8)];
            w.memory = self.memory.as_mut_ptr().cast();
            w.memory_size = r.memory_size;
        }
        w
    }

    /// The groups block's groups struct (to edit it between calls).
    pub fn groups_ptr(&mut self) -> *mut XpbdConstraints3 {
        // SAFETY: a field of the block the vector holds (address only).
        unsafe { ptr::addr_of_mut!((*self.groups.as_mut_ptr()).groups) }
    }
}

pub fn config() -> XpbdStepConfig3 {
    let mut c = xpbd_step_config3_default();
    c.substeps = 4;
    c.iterations = 2;
    c.damping = 0.5;
    c.zero_length_policy = XPBD_ZERO_LENGTH_SKIP;
    c
}
