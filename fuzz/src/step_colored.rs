//! Fuzzing colored stepping (`xpbd_world3_step_colored`, f64) against the
//! step (`xpbd_world3_step`) on the same world, its groups in a block.
//!
//! The bytes build a small 3D world (≤ 12 particles with velocities,
//! links, bends, tets, tethers, up to two planes and a sphere, a
//! heightfield and a signed distance field over one samples array, a
//! contact buffer, tearing limits) with mostly valid but sometimes hostile
//! values (NaN, ±∞, huge, negative, out-of-range or repeated indices, a
//! field's first sample out of range), color each
//! group through the C calls (`xpbd_color_greedy`, `xpbd_color_group`),
//! put it in colored order (`xpbd_color_order`), sometimes corrupt a color
//! boundary or shorten the world's memory (which holds the stamp), and step
//! a few frames two ways from the same start: the step with the groups
//! block, and the colored step on a byte-chosen job
//! system (none; the calling thread with a split of 1 … 40, tasks run in
//! order or reversed; or an engine that skips a task).
//!
//! Checks, besides no crash and no sanitizer report:
//! - every status is a documented code (−29 … 1);
//! - a refused colored step leaves positions and velocities as they were
//!   (bit for bit; λ and the memory are documented scratch); a memory one
//!   byte short: CAPACITY_TOO_SMALL; no byte of the memory's allocation
//!   past the size asked is ever written;
//! - an engine that skips a task gets `JOB_CONTRACT` (or an earlier
//!   refusal), never OK;
//! - with a proper coloring, unchanged boundaries, the memory asked for
//!   and an honest job system, the colored step returns the step's
//!   status, and on OK the same bits: positions, velocities, every λ,
//!   the torn list and the statistics.

use core::ffi::c_void;
use xpbd::ffi::XpbdStatus;
use xpbd::ffi::*;

use crate::coloring::{color_all, documented, group_colors, order, value};
use crate::Input;

/// A world in caller memory (the vectors are never resized after the
/// structs point into them).
#[derive(Clone)]
struct Scene {
    x: Vec<[f64; 3]>,
    v: Vec<[f64; 3]>,
    w: Vec<f64>,
    links: Vec<XpbdLink>,
    max_force: Vec<f64>,
    torn: Vec<u32>,
    bends: Vec<XpbdBend>,
    tets: Vec<XpbdTet>,
    tethers: Vec<XpbdTether>,
    planes: Vec<XpbdPlane3>,
    spheres: Vec<XpbdSphere3>,
    heightfields: Vec<XpbdHeightfield3>,
    sdfs: Vec<XpbdSdf3>,
    /// The fields' samples.
    samples: Vec<f64>,
    /// The contact budget (0: particles × colliders).
    contact_budget: usize,
    starts: [Vec<usize>; 4],
    counts: [usize; 4],
}

/// The world's blocks (the caller keeps them where the chain points).
struct Blocks {
    colliders: XpbdColliders3,
    tearing: XpbdTearing3,
    groups: XpbdGroups3,
}

/// A pattern the library never writes past the memory it asked for.
const GUARD: u64 = 0xA5A5_A5A5_A5A5_A5A5;

/// Points `p` at `v`, or NULL when `v` is empty.
fn at<E>(v: &mut [E]) -> *mut E {
    if v.is_empty() {
        core::ptr::null_mut()
    } else {
        v.as_mut_ptr()
    }
}

impl Scene {
    /// Positions and velocities (what a refusal must leave as it was).
    fn state(&self) -> Vec<u64> {
        self.x
            .iter()
            .chain(&self.v)
            .flatten()
            .map(|c| c.to_bits())
            .collect()
    }

    /// Everything a successful step writes that both paths must agree on.
    fn bits(&self) -> Vec<u64> {
        let mut b = self.state();
        b.extend(self.links.iter().map(|l| l.lambda.to_bits()));
        b.extend(self.bends.iter().map(|e| e.lambda.to_bits()));
        b.extend(self.tets.iter().map(|t| t.lambda.to_bits()));
        b.extend(self.tethers.iter().map(|t| t.lambda.to_bits()));
        b.extend(self.links.iter().map(|l| u64::from(l.flags)));
        b.extend(self.torn.iter().map(|&t| u64::from(t)));
        b
    }

    /// The world over this scene's buffers, its blocks in `blocks`
    /// (colliders, tearing when there are maximum forces, groups), and
    /// the colors struct; the memory is the caller's to give.
    fn structs(&mut self, blocks: &mut Blocks) -> (XpbdWorld3, XpbdGroupColors) {
        let mut w = xpbd_world3_default();
        w.positions = self.x.as_mut_ptr();
        w.velocities = self.v.as_mut_ptr();
        w.inverse_masses = self.w.as_ptr();
        w.particle_count = self.x.len();
        w.links = at(&mut self.links);
        w.link_count = self.links.len();
        let c = &mut blocks.colliders;
        *c = xpbd_colliders3_default();
        c.planes = at(&mut self.planes);
        c.plane_count = self.planes.len();
        c.spheres = at(&mut self.spheres);
        c.sphere_count = self.spheres.len();
        c.heightfields = at(&mut self.heightfields);
        c.heightfield_count = self.heightfields.len();
        c.sdfs = at(&mut self.sdfs);
        c.sdf_count = self.sdfs.len();
        c.samples = at(&mut self.samples);
        c.sample_count = self.samples.len();
        c.contact_budget = self.contact_budget;
        blocks.tearing = xpbd_tearing3_default();
        if !self.max_force.is_empty() {
            blocks.tearing.max_force = self.max_force.as_ptr();
            blocks.tearing.torn = at(&mut self.torn);
            blocks.tearing.torn_capacity = self.torn.len();
        }
        let g = &mut blocks.groups;
        *g = xpbd_groups3_default();
        g.groups.bends = at(&mut self.bends);
        g.groups.bend_count = self.bends.len();
        g.groups.tets = at(&mut self.tets);
        g.groups.tet_count = self.tets.len();
        g.groups.tethers = at(&mut self.tethers);
        g.groups.tether_count = self.tethers.len();
        // SAFETY: the world and the blocks are valid, distinct and outlive
        // the world's use (the caller's).
        unsafe {
            let add = |w: &mut XpbdWorld3, b: *mut XpbdBlock| {
                assert_eq!(xpbd_world3_add(w, b), XpbdStatus::Ok);
            };
            add(&mut w, core::ptr::addr_of_mut!(blocks.colliders).cast());
            if !self.max_force.is_empty() {
                add(&mut w, core::ptr::addr_of_mut!(blocks.tearing).cast());
            }
            add(&mut w, core::ptr::addr_of_mut!(blocks.groups).cast());
        }
        let c = group_colors(&self.starts, self.counts);
        (w, c)
    }
}

/// The world's memory: the size the library asks (`xpbd_world3_requirements`),
/// or `short` bytes less, in a guarded allocation (8-aligned, `GUARD` words
/// after it). The vector and the size asked.
fn memory(w: &mut XpbdWorld3, short: usize) -> (Vec<u64>, usize) {
    let mut r = XpbdRequirements::default();
    // SAFETY: the world and its blocks are valid.
    let s = unsafe { xpbd_world3_requirements(w, &mut r) };
    assert_eq!(s, XpbdStatus::Ok);
    let needed = r.memory_size;
    let mut m = vec![GUARD; needed.div_ceil(8) + 2];
    w.memory = m.as_mut_ptr().cast();
    w.memory_size = needed - short.min(needed);
    (m, needed)
}

/// The bytes of `m` past `needed` are all the guard's.
fn guarded(m: &[u64], needed: usize) -> bool {
    let bytes: Vec<u8> = m.iter().flat_map(|v| v.to_le_bytes()).collect();
    bytes[needed..].iter().all(|&b| b == 0xA5)
}

/// `K` particle indices among the first `n` (the fuzzed particles):
/// usually distinct (consecutive from a byte-chosen start), sometimes one
/// repeated or `total` (out of range).
fn indices<const K: usize>(input: &mut Input, (n, total): (usize, usize)) -> [u32; K] {
    let start = usize::from(input.byte());
    let mut p: [u32; K] = core::array::from_fn(|k| ((start + k) % n) as u32);
    let hostile = input.byte();
    if hostile >= 248 {
        let k = usize::from(hostile) % K;
        p[k] = if hostile & 1 == 0 {
            total as u32
        } else {
            p[(k + 1) % K]
        };
    }
    p
}

/// Particles of the optional chain appended to the fuzzed ones: enough
/// that the particle phases split into two tasks (1,024 particles per
/// task at least) and the link colors into several.
const CHAIN: usize = 2100;

/// How the fuzzed engine runs a phase's tasks (its `user` pointer).
#[derive(Clone, Copy)]
struct Engine {
    /// Run the tasks last to first.
    reversed: bool,
    /// Skip this task of every phase (`u32::MAX`: none).
    skip: u32,
}

/// The fuzzed engine's `run`: every task once, on this thread.
unsafe extern "C" fn engine_run(user: *mut c_void, count: u32, task: XpbdTaskFn, ctx: *mut c_void) {
    // SAFETY: `user` is the `Engine` the fuzz target lent for the step.
    let e = unsafe { *user.cast::<Engine>() };
    for k in 0..count {
        let t = if e.reversed { count - 1 - k } else { k };
        if t != e.skip {
            // SAFETY: the library's task with its context, while `run` runs.
            unsafe { task(ctx, t) };
        }
    }
}

/// The fuzz target.
pub fn step_colored(data: &[u8]) {
    let mut input = Input::new(data);
    let small = 4 + usize::from(input.byte() % 9);
    let chain = input.byte() >= 224;
    let n = small + if chain { CHAIN } else { 0 };
    let r = (small, n);
    let mut x = Vec::with_capacity(n);
    for k in 0..small {
        let j = 0.01 * f64::from(input.byte()) / 255.0;
        x.push([
            value(&mut input, (k % 3) as f64 * 0.1 + j),
            value(&mut input, (k / 3 % 2) as f64 * 0.1 + 0.05),
            value(&mut input, (k / 6) as f64 * 0.1 - j),
        ]);
    }
    let mut v: Vec<[f64; 3]> = (0..small)
        .map(|_| [value(&mut input, 0.0), value(&mut input, -0.5), 0.0])
        .collect();
    let mut w: Vec<f64> = (0..small)
        .map(|k| value(&mut input, if k == 0 { 0.0 } else { 1.0 }))
        .collect();
    // The chain: a straight rope along x from 1 m, its first particle
    // pinned, valid values (its links come first in the link group).
    for k in small..n {
        x.push([1.0 + (k - small) as f64 * 0.01, 0.05, 0.0]);
        v.push([0.0; 3]);
        w.push(if k == small { 0.0 } else { 1.0 });
    }
    let count = |input: &mut Input, most: u8| usize::from(input.byte() % (most + 1));
    let (nl, nb, nt, ne) = (
        count(&mut input, 8),
        count(&mut input, 4),
        count(&mut input, 4),
        count(&mut input, 4),
    );
    let mut links: Vec<XpbdLink> = (small + 1..n)
        .map(|j| XpbdLink {
            i: (j - 1) as u32,
            j: j as u32,
            rest: 0.01,
            compliance: 0.0,
            lambda: 0.0,
            flags: 0,
        })
        .collect();
    for _ in 0..nl {
        let [i, j] = indices(&mut input, r);
        links.push(XpbdLink {
            i,
            j,
            rest: value(&mut input, 0.1),
            compliance: value(&mut input, 1e-6),
            lambda: 0.0,
            flags: u32::from(input.byte() == 7),
        });
    }
    let four = |input: &mut Input| indices::<4>(input, r);
    let bends: Vec<XpbdBend> = (0..nb)
        .map(|_| XpbdBend {
            particles: four(&mut input),
            rest_angle: value(&mut input, 0.2),
            compliance: value(&mut input, 1e-3),
            lambda: 0.0,
        })
        .collect();
    let tets: Vec<XpbdTet> = (0..nt)
        .map(|_| XpbdTet {
            particles: four(&mut input),
            rest_volume: value(&mut input, 1e-4),
            compliance: value(&mut input, 1e-6),
            lambda: 0.0,
        })
        .collect();
    let tethers: Vec<XpbdTether> = (0..ne)
        .map(|_| {
            let [particle, anchor] = indices(&mut input, r);
            XpbdTether {
                particle,
                anchor,
                max_distance: value(&mut input, 0.15),
                compliance: value(&mut input, 0.0),
                lambda: 0.0,
            }
        })
        .collect();
    let planes: Vec<XpbdPlane3> = (0..count(&mut input, 2))
        .map(|k| XpbdPlane3 {
            normal: [0.0, value(&mut input, 1.0), value(&mut input, 0.0)],
            offset: value(&mut input, -0.2 * (k as f64 + 1.0)),
        })
        .collect();
    let spheres: Vec<XpbdSphere3> = (0..count(&mut input, 1))
        .map(|_| XpbdSphere3 {
            center: [0.1, value(&mut input, -0.3), 0.0],
            radius: value(&mut input, 0.25),
        })
        .collect();
    // A heightfield (3 × 3 nodes 0.25 m apart about the particles, heights
    // near −0.1 m, turned by up to 0.3 rad about z) and a signed distance
    // field (a sphere's distances on 3 × 3 × 3 nodes 0.2 m apart), each
    // moving slowly, over one samples array (the SDF's first); any value
    // hostile now and then (`value`), the first sample out of range too.
    let mut samples: Vec<f64> = Vec::new();
    let heightfields: Vec<XpbdHeightfield3> = (0..count(&mut input, 1))
        .map(|_| {
            let first = samples.len();
            for _ in 0..9 {
                let h = -0.1 + 0.02 * f64::from(input.byte() % 8);
                samples.push(value(&mut input, h));
            }
            let turn = 0.1 * f64::from(input.byte() % 4);
            let tilt = value(&mut input, turn);
            let (c, s) = (tilt.cos(), tilt.sin());
            XpbdHeightfield3 {
                center: [0.1, 0.0, 0.0],
                axes: [[c, s, 0.0], [-s, c, 0.0], [0.0, 0.0, 1.0]],
                velocity: [0.0, value(&mut input, 0.1), 0.0],
                angular_velocity: [0.0, value(&mut input, 0.5), 0.0],
                offset: [-0.25, 0.0, -0.25],
                spacing: [value(&mut input, 0.25), 0.25],
                height_scale: value(&mut input, 1.0),
                counts: [3, 3],
                first: if input.byte() >= 248 {
                    usize::MAX
                } else {
                    first
                },
                static_friction: value(&mut input, 0.5),
                dynamic_friction: value(&mut input, 0.4),
            }
        })
        .collect();
    let sdfs: Vec<XpbdSdf3> = (0..count(&mut input, 1))
        .map(|_| {
            let first = samples.len();
            let r = value(&mut input, 0.15);
            for k in 0..27 {
                let p = [k % 3, k / 3 % 3, k / 9].map(|i| 0.2 * (i as f64 - 1.0));
                let d = (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt() - r;
                samples.push(value(&mut input, d));
            }
            XpbdSdf3 {
                center: [0.1, value(&mut input, -0.1), 0.0],
                axes: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
                velocity: [value(&mut input, 0.0), 0.0, 0.0],
                angular_velocity: [0.0, 0.0, value(&mut input, 0.5)],
                offset: [-0.2; 3],
                cell: value(&mut input, 0.2),
                counts: [3, 3, 3],
                first: if input.byte() >= 248 { 1 << 40 } else { first },
                static_friction: value(&mut input, 0.5),
                dynamic_friction: value(&mut input, 0.4),
            }
        })
        .collect();
    // Room for every particle against every collider (the default
    // budget), sometimes less.
    let room = n * (planes.len() + spheres.len() + heightfields.len() + sdfs.len());
    let short = input.byte();
    let contact_budget = if short >= 240 { (room / 2).max(1) } else { 0 };
    let tearing = input.byte() >= 192;
    let max_force: Vec<f64> = if tearing {
        (0..links.len()).map(|_| value(&mut input, 50.0)).collect()
    } else {
        vec![]
    };
    let torn = vec![0u32; if tearing { count(&mut input, 4) } else { 0 }];
    let mut scene = Scene {
        x,
        v,
        w,
        links,
        max_force,
        torn,
        bends,
        tets,
        tethers,
        planes,
        spheres,
        heightfields,
        sdfs,
        samples,
        contact_budget,
        starts: Default::default(),
        counts: [0; 4],
    };
    // Color every group through the C calls; stop on a refusal (the
    // coloring's own refusals are `groups_colored`'s to check).
    // SAFETY: all-zero is a valid value of these plain C structs.
    let mut blocks: Blocks = unsafe { core::mem::zeroed() };
    let (world, _) = scene.structs(&mut blocks);
    let Some([l, b, t, e]) = color_all((world.links, world.link_count), &blocks.groups.groups, n)
    else {
        return;
    };
    // Tearing limits follow their links into colored order.
    let mut paired: Vec<(XpbdLink, f64)> = scene
        .links
        .iter()
        .enumerate()
        .map(|(k, &link)| (link, scene.max_force.get(k).copied().unwrap_or(0.0)))
        .collect();
    let groups = [
        order(&mut paired, l),
        order(&mut scene.bends, b),
        order(&mut scene.tets, t),
        order(&mut scene.tethers, e),
    ];
    scene.links = paired.iter().map(|p| p.0).collect();
    if tearing {
        scene.max_force = paired.iter().map(|p| p.1).collect();
    }
    for (k, (starts, count)) in groups.into_iter().enumerate() {
        scene.starts[k] = starts;
        scene.counts[k] = count;
    }
    // Sometimes a corrupt boundary or a short stamp.
    let corrupt = input.byte();
    if corrupt >= 232 {
        let k = usize::from(corrupt % 4);
        if let Some(s) = scene.starts[k].get_mut(usize::from(input.byte()) % 3) {
            *s = s
                .wrapping_add(usize::from(input.byte() % 3))
                .wrapping_sub(1);
        }
    }
    // The memory one byte short (the stamp is carved from it).
    let short = usize::from(input.byte() >= 248);
    let mut config = xpbd_step_config3_default();
    config.substeps = 1 + u32::from(input.byte() % 3);
    config.iterations = 1 + u32::from(input.byte() % 3);
    config.particle_radius = value(&mut input, 0.01);
    config.static_friction = value(&mut input, 0.4);
    config.dynamic_friction = value(&mut input, 0.3);
    config.zero_length_policy = i32::from(input.byte() % 2);
    config.contact_overflow = i32::from(input.byte() % 2);
    let dt = value(&mut input, 1.0 / 60.0);
    let kind = input.byte();
    let engine = Engine {
        reversed: kind & 1 == 1,
        skip: if kind >= 240 {
            u32::from(kind % 4)
        } else {
            u32::MAX
        },
    };
    let jobs = XpbdJobSystem {
        run: if kind % 8 == 2 {
            None
        } else {
            Some(engine_run)
        },
        user: (&engine as *const Engine).cast_mut().cast(),
        split: u32::from(input.byte() % 41),
    };
    let jp: *const XpbdJobSystem = if kind & 7 == 0 {
        core::ptr::null()
    } else {
        &jobs
    };
    let honest = corrupt < 232 && short == 0 && engine.skip == u32::MAX;
    let mut grouped = scene.clone();
    let mut colored = scene;
    let frames = 1 + usize::from(input.byte() % 3);
    for _ in 0..frames {
        // SAFETY: all-zero is a valid value of these plain C structs.
        let mut ba: Blocks = unsafe { core::mem::zeroed() };
        let (mut wa, _) = grouped.structs(&mut ba);
        let (ma, _) = memory(&mut wa, 0);
        let mut sa = XpbdStepStats::default();
        // SAFETY: the structs name live, disjoint vectors of their counts.
        let a = unsafe { xpbd_world3_step(&mut wa, dt, &config, &mut sa) };
        drop(ma);
        let before = colored.state();
        // SAFETY: as above.
        let mut bb: Blocks = unsafe { core::mem::zeroed() };
        let (mut wb, cb) = colored.structs(&mut bb);
        let (mb, needed) = memory(&mut wb, short);
        let mut sb = XpbdStepStats::default();
        // SAFETY: as above; the memory holds `memory_size` ≤ its length.
        let s = unsafe { xpbd_world3_step_colored(&mut wb, &cb, dt, &config, jp, &mut sb) };
        assert!(documented(a) && documented(s), "{} {}", a.code(), s.code());
        assert!(guarded(&mb, needed), "written past the memory asked for");
        if s != XpbdStatus::Ok {
            assert_eq!(colored.state(), before, "a refused colored step moved");
        }
        if short > 0 {
            assert_eq!(
                (s, wb.error_index, wb.error_field),
                (XpbdStatus::CapacityTooSmall, needed, XPBD_FIELD_MEMORY),
                "a memory one byte short"
            );
        }
        if chain && !jp.is_null() && jobs.run.is_some() && jobs.split >= 2 && engine.skip <= 1 {
            // The prediction phase of the chain runs as two tasks: a
            // skipped one is seen.
            assert_ne!(s, XpbdStatus::Ok, "a skipped task went unnoticed");
        }
        if honest {
            assert_eq!(a, s, "colored and grouped steps disagree on the status");
            if s == XpbdStatus::Ok {
                assert_eq!(grouped.bits(), colored.bits(), "colored bits differ");
                assert_eq!(
                    (sa.substeps, sa.iterations, sa.converged_substeps),
                    (sb.substeps, sb.iterations, sb.converged_substeps)
                );
                assert_eq!((sa.max_contacts, sa.torn), (sb.max_contacts, sb.torn));
                assert_eq!(sa.last, sb.last, "statistics differ");
            }
        }
        if a != XpbdStatus::Ok || s != XpbdStatus::Ok {
            return;
        }
    }
}
