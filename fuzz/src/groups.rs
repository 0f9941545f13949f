//! Fuzzing the constraint-group ABI (`xpbd_system3_*_groups`,
//! `xpbd_world3_step` with a groups block, `xpbd_build_tethers3`,
//! `xpbd_build_tethers_along_links3`, f64 and f32) on one
//! caller arena.
//!
//! The bytes build a small 3D scene (≤ 16 particles, links, bends, tets,
//! tethers, at most one closed mesh with its triangles and scratch, kinematic
//! attachments) whose
//! values are mostly valid but sometimes hostile (NaN, ±∞, huge, negative,
//! out-of-range or repeated indices), and whose arrays are usually their
//! own region of the arena but sometimes NULL (with or without a count),
//! another region (overlap), misaligned, or inside the system or groups
//! struct; then a byte-chosen sequence of begin / iterate / iterate_until /
//! measure / step / build_tethers calls, with outputs anywhere
//! ([`Place::pick`]).
//!
//! Checks after every call, besides no crash and no sanitizer report:
//! - the status is a documented code (−29 … 1);
//! - the groups block (its header and groups struct) is never written,
//!   nothing past any struct is written, the system struct changes only
//!   in `substep_active`, `h` and `error_index`, the world struct only in
//!   `error_index` and `error_field`;
//! - the world (issue 33) holds the groups in a block (or none, when the
//!   groups pointer is NULL) and a memory the size asked (its own two
//!   regions), sometimes NULL, one byte short, misaligned, over another
//!   region or the world: CAPACITY_TOO_SMALL with `XPBD_FIELD_MEMORY` and
//!   the bytes needed, or a buffer refusal; an unknown policy code:
//!   INVALID_CONFIG naming it;
//! - the documented buffer rules ([`Pre`]): a NULL-with-count, misaligned
//!   or overlapping buffer (struct and output included) gives a status the
//!   model allows with no caller byte written; when the model accepts,
//!   never `ALIASED_BUFFERS` or `NULL_POINTER`;
//! - iterate / iterate_until / measure without a successful begin:
//!   `NO_SUBSTEP` (or a buffer refusal);
//! - on a refusal of begin, measure or build_tethers: no arena byte changed;
//!   of iterate / iterate_until (which apply constraints before the failing
//!   one): nothing but positions, λ fields and mesh scratch changed; of a
//!   step: nothing but λ fields, attachment impulses, the memory and the
//!   mesh scratch (positions, velocities, attachment forces and `previous`
//!   as before, documented);
//! - on OK: every position finite (after a step every attachment force
//!   too), and nothing outside the call's writable buffers and output
//!   changed (a step: attachment forces and `previous` too).

use core::mem::{offset_of, size_of};
use xpbd::ffi::XpbdStatus;
use xpbd::ffi::*;

use crate::{Held, Input, Place, Pre, Span, REGION};

const REGIONS: usize = 16;
const POS: usize = 0;
const MASS: usize = 1;
const LINKS: usize = 2;
const VEL: usize = 3;
/// The world's memory: regions 4 and 5.
const MEMORY: usize = 4;
const MEMORY_BYTES: usize = 2 * REGION;
const BENDS: usize = 6;
const TETS: usize = 7;
const TETHERS: usize = 8;
const MESH: usize = 9;
const TRIS: usize = 10;
const MSCRATCH: usize = 11;
const ANCHORS: usize = 12;
const OUT: usize = 13;
const ATTACH: usize = 14;
const MPARTS: usize = 15;
const BYTES: usize = REGIONS * REGION;

#[repr(C, align(8))]
#[derive(Clone, Copy)]
struct Arena([u8; BYTES]);

impl Arena {
    fn base(&mut self) -> *mut u8 {
        self.0.as_mut_ptr()
    }
    fn put<E: Copy>(&mut self, r: usize, k: usize, e: E) {
        let size = size_of::<E>();
        if (k + 1) * size <= REGION {
            // SAFETY: in bounds (checked); an unaligned write of plain data.
            unsafe {
                self.base()
                    .add(r * REGION + k * size)
                    .cast::<E>()
                    .write_unaligned(e)
            };
        }
    }
}

/// Bytes that a call may change (absolute address ranges, clipped).
struct Mask([bool; BYTES]);

impl Mask {
    fn new() -> Self {
        Self([false; BYTES])
    }
    fn allow(&mut self, base: usize, addr: usize, len: usize) {
        if addr == 0 {
            return;
        }
        let lo = addr.saturating_sub(base).min(BYTES);
        let hi = (addr + len).saturating_sub(base).min(BYTES);
        for b in &mut self.0[lo..hi] {
            *b = true;
        }
    }
    fn span(&mut self, base: usize, s: Span) {
        if let Some((lo, hi)) = s.range() {
            self.allow(base, lo, hi - lo);
        }
    }
    /// The λ field (of `size_of::<T>()` bytes at `off`) of each element.
    fn lambdas<E, T>(&mut self, base: usize, p: *const E, count: usize, off: usize) {
        if p.is_null() {
            return;
        }
        for k in 0..count.min(BYTES) {
            self.allow(base, p as usize + k * size_of::<E>() + off, size_of::<T>());
        }
    }
    /// The first byte that changed outside the mask.
    fn check(&self, a: &Arena, b: &Arena) -> Option<usize> {
        (0..BYTES).find(|&k| !self.0[k] && a.0[k] != b.0[k])
    }
}

/// Where an array goes: its own region (usually), NULL, another region,
/// misaligned, or the start of the system or groups struct (count ≤ 1).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Loc {
    Null,
    At(usize),
    Sys,
    Groups,
}

fn array<E>(inp: &mut Input<'_>, own: usize, natural: usize) -> (Loc, usize) {
    let cap = REGION / size_of::<E>();
    let s = inp.byte();
    let loc = match s % 32 {
        0 => Loc::Null,
        1 => Loc::At(REGION * (usize::from(inp.byte()) % (REGIONS - 1))),
        2 => Loc::At(REGION * own + 1 + usize::from(inp.byte() % 7)),
        3 => Loc::Sys,
        4 => Loc::Groups,
        _ => Loc::At(REGION * own),
    };
    let mut count = match (s / 32) % 8 {
        0 => usize::from(inp.byte()) % (cap + 1),
        1 => 0,
        _ => natural.min(cap),
    };
    match loc {
        Loc::At(o) if o % REGION != 0 => count = count.min(cap - 1),
        Loc::Sys | Loc::Groups => count = count.min(1),
        _ => {}
    }
    (loc, count)
}

fn documented(s: XpbdStatus) -> bool {
    (-29..=1).contains(&s.code())
}

macro_rules! groups_abi {
    ($m:ident, $T:ty, $Link:ident, $Sys:ident, $World:ident, $G:ident, $GB:ident, $Bend:ident,
     $Tet:ident, $Tether:ident, $Mesh:ident, $Attach:ident, $StepStats:ident, $default:ident,
     $begin:ident, $iterate:ident, $until:ident, $measure:ident, $step:ident, $tethers:ident,
     $along:ident, $world_default:ident, $groups_default:ident, $add:ident,
     $requirements:ident) => {
        /// The groups harness for one precision.
        pub mod $m {
            use super::*;
            type T = $T;

            /// A mostly valid value: `good` for 7 of 8 selector values, else any float.
            fn val(inp: &mut Input<'_>, good: f64) -> T {
                if inp.byte() % 8 == 0 {
                    inp.real::<T>()
                } else {
                    good as T
                }
            }
            /// `val` around `off + byte / scale`.
            fn vb(inp: &mut Input<'_>, off: f64, scale: f64) -> T {
                let b = f64::from(inp.byte());
                val(inp, off + b / scale)
            }
            /// A particle index: mostly in `0..n`, sometimes `n` or huge.
            fn idx(inp: &mut Input<'_>, n: usize) -> u32 {
                let b = inp.byte();
                match b % 32 {
                    0 => n as u32,
                    1 => u32::MAX,
                    _ => (u32::from(b / 32) + u32::from(inp.byte())) % (n.max(1) as u32),
                }
            }

            fn same_sys(x: &$Sys, y: &$Sys) -> bool {
                x.positions == y.positions
                    && x.inverse_masses == y.inverse_masses
                    && x.particle_count == y.particle_count
                    && x.links == y.links
                    && x.link_count == y.link_count
                    && x.zero_length_policy == y.zero_length_policy
            }
            fn same_groups(x: &$G, y: &$G) -> bool {
                x.bends == y.bends
                    && x.bend_count == y.bend_count
                    && x.tets == y.tets
                    && x.tet_count == y.tet_count
                    && x.tethers == y.tethers
                    && x.tether_count == y.tether_count
                    && x.mesh_volumes == y.mesh_volumes
                    && x.mesh_volume_count == y.mesh_volume_count
                    && x.triangles == y.triangles
                    && x.triangle_count == y.triangle_count
                    && x.mesh_scratch == y.mesh_scratch
                    && x.mesh_scratch_count == y.mesh_scratch_count
                    && x.attachments == y.attachments
                    && x.attachment_count == y.attachment_count
                    && x.mesh_particles == y.mesh_particles
                    && x.mesh_particle_count == y.mesh_particle_count
            }
            fn same_world(x: &$World, y: &$World) -> bool {
                x.positions == y.positions
                    && x.velocities == y.velocities
                    && x.inverse_masses == y.inverse_masses
                    && x.particle_count == y.particle_count
                    && x.links == y.links
                    && x.link_count == y.link_count
                    && x.memory == y.memory
                    && x.memory_size == y.memory_size
                    && x.blocks == y.blocks
            }

            /// Fills the arena: a small lattice, links, bends, tets, tethers and
            /// one closed mesh (a tetrahedron's four faces), mostly valid.
            fn fill(inp: &mut Input<'_>, a: &mut Arena, n: usize, c: [usize; 6]) {
                for k in 0..n {
                    let g = [(k % 4) as f64, ((k / 4) % 4) as f64, (k / 16) as f64];
                    let p: [T; 3] = core::array::from_fn(|d| {
                        vb(inp, g[d], 2560.0)
                    });
                    a.put(POS, k, p);
                    let w = if inp.byte() % 6 == 0 { 0.0 } else { 1.0 };
                    a.put(MASS, k, val(inp, w));
                    a.put(VEL, k, [val(inp, 0.0), val(inp, 0.0), val(inp, 0.0)]);
                }
                for k in 0..c[0] {
                    let link = $Link {
                        i: idx(inp, n),
                        j: idx(inp, n),
                        rest: val(inp, 1.0),
                        compliance: val(inp, 0.0),
                        lambda: val(inp, 0.0),
                        flags: u32::from(inp.byte() % 4),
                    };
                    a.put(LINKS, k, link);
                }
                for k in 0..c[1] {
                    let b = $Bend {
                        particles: [idx(inp, n), idx(inp, n), idx(inp, n), idx(inp, n)],
                        rest_angle: vb(inp, -2.0, 64.0),
                        compliance: val(inp, 1e-3),
                        lambda: val(inp, 0.0),
                    };
                    a.put(BENDS, k, b);
                }
                for k in 0..c[2] {
                    let t = $Tet {
                        particles: [idx(inp, n), idx(inp, n), idx(inp, n), idx(inp, n)],
                        rest_volume: vb(inp, -0.25, 512.0),
                        compliance: val(inp, 0.0),
                        lambda: val(inp, 0.0),
                    };
                    a.put(TETS, k, t);
                }
                for k in 0..c[3] {
                    let t = $Tether {
                        particle: idx(inp, n),
                        anchor: idx(inp, n),
                        max_distance: vb(inp, 0.0, 64.0),
                        compliance: val(inp, 0.0),
                        lambda: val(inp, 0.0),
                    };
                    a.put(TETHERS, k, t);
                }
                // Faces of the tetrahedron 0, 1, 4, 16 (counter-clockwise outside).
                let faces = [[0u32, 4, 1], [0, 1, 16], [0, 16, 4], [1, 4, 16]];
                let mut faces_put = [[0u32; 3]; 4];
                let mut list = [0u32; 4];
                for (k, f) in faces.iter().enumerate() {
                    let f = if inp.byte() % 16 == 0 {
                        [idx(inp, n), idx(inp, n), idx(inp, n)]
                    } else {
                        f.map(|q| q % (n.max(1) as u32))
                    };
                    a.put(TRIS, k, f);
                    faces_put[k] = f;
                }
                // The mesh's particle list: first-appearance order, sometimes forged.
                let mut listed = 0;
                for &q in faces_put.as_flattened() {
                    if !list[..listed].contains(&q) && listed < 4 {
                        list[listed] = q;
                        listed += 1;
                    }
                }
                for (k, &q) in list.iter().enumerate() {
                    let q = if inp.byte() % 32 == 0 { idx(inp, n) } else { q };
                    a.put(MPARTS, k, q);
                }
                if c[4] > 0 {
                    let mv = $Mesh {
                        first_triangle: if inp.byte() % 16 == 0 { u32::from(inp.byte()) } else { 0 },
                        triangle_count: if inp.byte() % 16 == 0 { u32::from(inp.byte()) } else { 4 },
                        first_particle: if inp.byte() % 16 == 0 { u32::from(inp.byte()) } else { 0 },
                        particle_count: if inp.byte() % 16 == 0 { u32::from(inp.byte()) } else { listed as u32 },
                        rest_volume: val(inp, 1.0 / 6.0),
                        pressure: val(inp, 1.0),
                        compliance: val(inp, 0.0),
                        lambda: val(inp, 0.0),
                    };
                    a.put(MESH, 0, mv);
                }
                for k in 0..c[5] {
                    let p = [vb(inp, 0.0, 64.0), vb(inp, 0.0, 64.0), vb(inp, 0.0, 64.0)];
                    let at = $Attach {
                        particle: idx(inp, n),
                        previous: p,
                        target: [val(inp, p[0] as f64), vb(inp, -1.0, 128.0), val(inp, p[2] as f64)],
                        compliance: val(inp, 0.0),
                        lambda: [val(inp, 0.0), val(inp, 0.0), val(inp, 0.0)],
                        impulse: [val(inp, 0.0), val(inp, 0.0), val(inp, 0.0)],
                        force: [val(inp, 0.0), val(inp, 0.0), val(inp, 0.0)],
                    };
                    a.put(ATTACH, k, at);
                }
            }

            /// The groups target: one scene, up to 16 calls.
            pub fn run(data: &[u8]) {
                let mut inp = Input::new(data);
                let mut a = Arena([0; BYTES]);
                let n = 1 + usize::from(inp.byte() % 16);
                let counts = [
                    usize::from(inp.byte() % 8),
                    usize::from(inp.byte() % 4),
                    usize::from(inp.byte() % 4),
                    usize::from(inp.byte() % 4),
                    usize::from(inp.byte() % 2),
                    usize::from(inp.byte() % 4),
                ];
                fill(&mut inp, &mut a, n, counts);
                let mut hs = Held::new($Sys {
                    positions: core::ptr::null_mut(),
                    inverse_masses: core::ptr::null(),
                    particle_count: 0,
                    links: core::ptr::null_mut(),
                    link_count: 0,
                    zero_length_policy: i32::from(inp.byte() % 3),
                    substep_active: 0,
                    h: 0.0,
                    error_index: 0,
                });
                // The groups struct in its block (the system calls take the
                // struct, the world the block).
                let mut hg = Held::new($groups_default());
                let base = a.base();
                let sysb = core::ptr::addr_of_mut!(hs).cast::<u8>();
                let grpb = core::ptr::addr_of_mut!(hg.s.groups).cast::<u8>();
                let ptr = |l: Loc| -> *mut u8 {
                    match l {
                        Loc::Null => core::ptr::null_mut(),
                        Loc::At(o) => base.wrapping_add(o),
                        Loc::Sys => sysb,
                        Loc::Groups => grpb,
                    }
                };
                // System buffers: never inside a struct (the struct's own
                // fields would be read as positions before any check).
                let sysarr = |inp: &mut Input<'_>, own: usize, nat: usize, sz: usize| {
                    let (l, c) = array::<[u8; 8]>(inp, own, nat * sz / 8);
                    match l {
                        Loc::Sys | Loc::Groups => (Loc::At(own * REGION), nat),
                        _ => (l, c * 8 / sz),
                    }
                };
                let (pl, pc) = sysarr(&mut inp, POS, n, size_of::<[T; 3]>());
                let (ml, mc) = sysarr(&mut inp, MASS, n, size_of::<T>());
                let (ll, lc) = sysarr(&mut inp, LINKS, counts[0], size_of::<$Link>());
                hs.s.positions = ptr(pl).cast();
                hs.s.inverse_masses = ptr(ml).cast_const().cast();
                hs.s.particle_count = if inp.byte() % 8 == 0 { pc } else { pc.min(mc) };
                hs.s.links = ptr(ll).cast();
                hs.s.link_count = lc;
                let (l, c) = array::<$Bend>(&mut inp, BENDS, counts[1]);
                (hg.s.groups.bends, hg.s.groups.bend_count) = (ptr(l).cast(), c);
                let (l, c) = array::<$Tet>(&mut inp, TETS, counts[2]);
                (hg.s.groups.tets, hg.s.groups.tet_count) = (ptr(l).cast(), c);
                let (l, c) = array::<$Tether>(&mut inp, TETHERS, counts[3]);
                (hg.s.groups.tethers, hg.s.groups.tether_count) = (ptr(l).cast(), c);
                let (l, c) = array::<$Mesh>(&mut inp, MESH, counts[4]);
                (hg.s.groups.mesh_volumes, hg.s.groups.mesh_volume_count) = (ptr(l).cast(), c);
                let (l, c) = array::<[u32; 3]>(&mut inp, TRIS, 4);
                (hg.s.groups.triangles, hg.s.groups.triangle_count) = (ptr(l).cast_const().cast(), c);
                let (l, c) = array::<[T; 3]>(&mut inp, MSCRATCH, n);
                (hg.s.groups.mesh_scratch, hg.s.groups.mesh_scratch_count) = (ptr(l).cast(), c);
                let (l, c) = array::<u32>(&mut inp, MPARTS, 4);
                (hg.s.groups.mesh_particles, hg.s.groups.mesh_particle_count) = (ptr(l).cast_const().cast(), c);
                let (l, c) = array::<$Attach>(&mut inp, ATTACH, counts[5]);
                (hg.s.groups.attachments, hg.s.groups.attachment_count) = (ptr(l).cast(), c);
                // The world shares the system's buffers and adds its own.
                let (vl, _) = sysarr(&mut inp, VEL, n, size_of::<[T; 3]>());
                let mut hw = Held::new($world_default());
                hw.s.positions = hs.s.positions;
                hw.s.velocities = ptr(vl).cast();
                hw.s.inverse_masses = hs.s.inverse_masses;
                hw.s.particle_count = hs.s.particle_count.min(16);
                hw.s.links = hs.s.links;
                // At most 4 links: with 16 particles the world's memory
                // (3 · 16 + 2 · links scratch entries, the stamp) fits
                // its two regions.
                hw.s.link_count = hs.s.link_count.min(4);
                let block = core::ptr::addr_of_mut!(hg.s).cast::<XpbdBlock>();
                // SAFETY: the world and the block are valid and disjoint.
                let added = unsafe { $add(core::ptr::addr_of_mut!(hw.s), block) };
                assert_eq!(added, XpbdStatus::Ok, "xpbd_world3_add refused the groups block");
                let mut req = XpbdRequirements::default();
                // SAFETY: the world, its chain and the output are valid.
                let rs = unsafe { $requirements(core::ptr::addr_of_mut!(hw.s), &mut req) };
                assert_eq!(rs, XpbdStatus::Ok, "requirements of a groups world");
                let np = hw.s.particle_count;
                assert!(
                    (req.scratch, req.contacts, req.pairs, req.stamp)
                        == (3 * np + (6 * hw.s.link_count).div_ceil(3), 0, 0, np),
                    "requirements {req:?} of {np} particles without colliders or self-collision"
                );
                let needed = req.memory_size;
                assert!(needed <= MEMORY_BYTES, "{needed} bytes of memory");
                // The memory: its own regions (mostly), NULL, one byte short,
                // misaligned, another region, over the world.
                let own_memory = base.wrapping_add(MEMORY * REGION);
                let (mp, msize) = match inp.byte() % 32 {
                    0 => (core::ptr::null_mut(), needed),
                    1 => (own_memory, needed.saturating_sub(1)),
                    2 => (own_memory.wrapping_add(1 + usize::from(inp.byte() % 7)), needed),
                    3 => {
                        let r = usize::from(inp.byte()) % REGIONS;
                        let r = if r * REGION + needed <= BYTES { r } else { MEMORY };
                        (base.wrapping_add(r * REGION), needed)
                    }
                    4 => (core::ptr::addr_of_mut!(hw.s).cast::<u8>(), needed),
                    _ => (own_memory, needed),
                };
                hw.s.memory = mp.cast();
                hw.s.memory_size = msize;
                let mut config = Held::new($default());
                config.s.substeps = 1 + u32::from(inp.byte() % 3);
                config.s.iterations = 1 + u32::from(inp.byte() % 3);
                config.s.zero_length_policy = hs.s.zero_length_policy;
                let own = OUT * REGION;
                let bu = base as usize;
                let mut begun = false;
                for _ in 0..16 {
                    if inp.is_empty() {
                        break;
                    }
                    let before = a;
                    let op = inp.byte() % 8;
                    let sysp = core::ptr::addr_of_mut!(hs.s);
                    let grp = if inp.byte() % 64 == 0 {
                        core::ptr::null()
                    } else {
                        core::ptr::addr_of!(hg.s.groups)
                    };
                    // The world holds the groups block, or no block when the
                    // groups pointer is NULL.
                    hw.s.blocks = if grp.is_null() { core::ptr::null_mut() } else { block };
                    let (sb, gb, wb) = (hs.s, hg.s.groups, hw.s);
                    let header = hg.s.block;
                    let g = &gb;
                    let gspans = [
                        Span::of(g.bends, g.bend_count),
                        Span::of(g.tets, g.tet_count),
                        Span::of(g.tethers, g.tether_count),
                        Span::of(g.mesh_volumes, g.mesh_volume_count),
                        Span::of(g.triangles, g.triangle_count),
                        Span::of(g.mesh_scratch, g.mesh_scratch_count),
                        Span::of(g.attachments, g.attachment_count),
                        Span::of(grp, 1),
                        Span::of(g.mesh_particles, g.mesh_particle_count),
                    ];
                    let sspans = [
                        Span::of(sb.positions, sb.particle_count),
                        Span::of(sb.inverse_masses, sb.particle_count),
                        Span::of(sb.links, sb.link_count),
                        Span::of(sysp, 1),
                    ];
                    // What a refusal may leave written, what a success may write.
                    let mut on_err = Mask::new();
                    let mut on_ok = Mask::new();
                    let lam = |m: &mut Mask, links: *const $Link, lcount: usize| {
                        m.lambdas::<_, T>(bu, links, lcount, offset_of!($Link, lambda));
                        m.lambdas::<_, T>(bu, g.bends, g.bend_count, offset_of!($Bend, lambda));
                        m.lambdas::<_, T>(bu, g.tets, g.tet_count, offset_of!($Tet, lambda));
                        m.lambdas::<_, T>(bu, g.tethers, g.tether_count, offset_of!($Tether, lambda));
                        m.lambdas::<_, T>(bu, g.mesh_volumes, g.mesh_volume_count, offset_of!($Mesh, lambda));
                        m.span(bu, Span::of(g.mesh_scratch, g.mesh_scratch_count));
                        m.lambdas::<_, [T; 3]>(bu, g.attachments, g.attachment_count, offset_of!($Attach, lambda));
                    };
                    let mut pre = Pre::default();
                    // (The world step without groups has no groups pointer.)
                    if grp.is_null() && op != 7 && op != 6 {
                        pre.add(XpbdStatus::NullPointer);
                    }
                    if op != 7 && !matches!(sb.zero_length_policy, 0 | 1) {
                        // An unknown policy code: the step names it.
                        pre.add(if op == 6 {
                            XpbdStatus::InvalidConfig
                        } else {
                            XpbdStatus::InvalidArgument
                        });
                    }
                    let (positions, pcount) = if op == 6 {
                        (wb.positions, wb.particle_count)
                    } else {
                        (sb.positions, sb.particle_count)
                    };
                    let size_sys = size_of::<$Sys>();
                    let held = sysb;
                    // SAFETY: every pointer is NULL, into the arena with a count
                    // that fits its region, or at the start of a held struct with
                    // a count ≤ 1 (the struct plus slack covers the element).
                    let status = unsafe {
                        match op {
                            0 | 1 => {
                                pre.buffers(&[sspans[0], sspans[1], sspans[2], sspans[3], gspans[0], gspans[1], gspans[2], gspans[3], gspans[4], gspans[5], gspans[6], gspans[7], gspans[8]]);
                                lam(&mut on_ok, sb.links, sb.link_count);
                                // The validation marks particles in the mesh scratch.
                                on_err.span(bu, gspans[5]);
                                $begin(sysp, grp, val(&mut inp, 0.01))
                            }
                            2..=5 => {
                                let size = if op == 4 {
                                    size_of::<xpbd::Convergence<T>>()
                                } else {
                                    size_of::<xpbd::SweepStats<T>>()
                                };
                                let place = Place::pick(&mut inp, REGIONS, own, size, size_sys, None);
                                let out = place.ptr::<u8>(base, held);
                                let o = if op == 4 {
                                    Span::out(out.cast::<xpbd::Convergence<T>>())
                                } else {
                                    Span::out(out.cast::<xpbd::SweepStats<T>>())
                                };
                                if op == 5 && out.is_null() {
                                    pre.add(XpbdStatus::NullPointer);
                                }
                                pre.buffers(&[sspans[0], sspans[1], sspans[2], sspans[3], gspans[0], gspans[1], gspans[2], gspans[3], gspans[4], gspans[5], gspans[6], gspans[7], gspans[8], o]);
                                if !begun {
                                    pre.add(XpbdStatus::NoSubstep);
                                }
                                on_ok.span(bu, o);
                                if op != 5 {
                                    lam(&mut on_ok, sb.links, sb.link_count);
                                    lam(&mut on_err, sb.links, sb.link_count);
                                    on_ok.span(bu, sspans[0]);
                                    on_err.span(bu, sspans[0]);
                                }
                                match op {
                                    4 => $until(sysp, grp, val(&mut inp, 1e-6), u32::from(inp.byte() % 6), out.cast()),
                                    5 => $measure(sysp, grp, out.cast()),
                                    _ => $iterate(sysp, grp, out.cast()),
                                }
                            }
                            6 => {
                                let wp = core::ptr::addr_of_mut!(hw.s);
                                let size = size_of::<$StepStats>();
                                let place = Place::pick(&mut inp, REGIONS, own, size, size_of::<$World>(), None);
                                let out = place.ptr::<$StepStats>(base, core::ptr::addr_of_mut!(hw).cast());
                                let w = &wb;
                                // The memory: refused as such when short, NULL or
                                // misaligned (before the buffers are checked).
                                let aligned = (w.memory as usize) % XPBD_MEMORY_ALIGN == 0;
                                if w.memory_size < needed
                                    || (needed > 0 && (w.memory.is_null() || !aligned))
                                {
                                    pre.add(XpbdStatus::CapacityTooSmall);
                                }
                                let mem_bytes = if w.memory.is_null() { 0 } else { needed };
                                let ws = [
                                    Span::of(w.positions, w.particle_count),
                                    Span::of(w.velocities, w.particle_count),
                                    Span::of(w.inverse_masses, w.particle_count),
                                    Span::of(w.links, w.link_count),
                                    Span::of(w.memory.cast_const().cast::<u8>(), mem_bytes),
                                    Span::of(wp, 1),
                                    Span::of(core::ptr::addr_of!(config.s), 1),
                                    Span::out(out),
                                    // The block's header (the groups struct after it
                                    // is among the groups' spans).
                                    Span::of(w.blocks.cast_const(), usize::from(!w.blocks.is_null())),
                                ];
                                let mut all = ws.to_vec();
                                if !grp.is_null() {
                                    all.extend(gspans);
                                }
                                pre.buffers(&all);
                                lam(&mut on_ok, w.links, w.link_count);
                                lam(&mut on_err, w.links, w.link_count);
                                // Attachments: the impulse is the step's working sum
                                // (also on error); force and previous on success only.
                                for m in [&mut on_ok, &mut on_err] {
                                    m.lambdas::<_, [T; 3]>(bu, g.attachments, g.attachment_count, offset_of!($Attach, impulse));
                                }
                                on_ok.lambdas::<_, [T; 3]>(bu, g.attachments, g.attachment_count, offset_of!($Attach, force));
                                on_ok.lambdas::<_, [T; 3]>(bu, g.attachments, g.attachment_count, offset_of!($Attach, previous));
                                on_ok.span(bu, ws[4]);
                                on_err.span(bu, ws[4]);
                                for s in [ws[0], ws[1], ws[7]] {
                                    on_ok.span(bu, s);
                                }
                                $step(wp, val(&mut inp, 1.0 / 60.0), core::ptr::addr_of!(config.s), out)
                            }
                            _ if inp.byte() % 2 == 1 => {
                                // build_tethers_along_links: positions, masses, the
                                // system's links, anchors, two scratches, out, out_count.
                                let np = if inp.byte() % 8 == 0 { usize::from(inp.byte() % 32) } else { pc.min(mc) };
                                let ac = usize::from(inp.byte() % 4);
                                for k in 0..ac {
                                    a.put(ANCHORS, k, idx(&mut inp, np));
                                }
                                let before2 = a;
                                let own_region = |l: Loc, r: usize| if matches!(l, Loc::Sys | Loc::Groups) { Loc::At(r * REGION) } else { l };
                                let (tl, tc) = array::<$Tether>(&mut inp, TETHERS, 16);
                                let outp = ptr(own_region(tl, TETHERS)).cast::<$Tether>();
                                let (dl, dc) = array::<T>(&mut inp, MSCRATCH, np);
                                let (nl, nc) = array::<u32>(&mut inp, VEL, np);
                                let sc = if inp.byte() % 8 == 0 { dc.max(nc) } else { dc.min(nc) };
                                let dist = ptr(own_region(dl, MSCRATCH)).cast::<T>();
                                let near = ptr(own_region(nl, VEL)).cast::<u32>();
                                let place = Place::pick(&mut inp, REGIONS, own, 8, 0, None);
                                let oc = place.ptr::<usize>(base, core::ptr::null_mut());
                                let pos = ptr(pl).cast_const().cast::<T>();
                                let mass = ptr(ml).cast_const().cast::<T>();
                                let anch = if inp.byte() % 16 == 0 { core::ptr::null() } else { base.add(ANCHORS * REGION).cast_const().cast::<u32>() };
                                let (lp, lcount) = (sb.links.cast_const(), sb.link_count);
                                let bs = [
                                    Span::of(pos, 3 * np),
                                    Span::of(mass, np),
                                    Span::of(lp, lcount),
                                    Span::of(anch, ac),
                                    Span::of(dist, sc),
                                    Span::of(near, sc),
                                    Span::of(outp, tc),
                                    Span::of(oc, 1),
                                ];
                                if oc.is_null() {
                                    pre.add(XpbdStatus::NullPointer);
                                }
                                pre.buffers(&bs);
                                let comp = val(&mut inp, 0.0);
                                // Positions and masses beyond their region are not
                                // read: np ≤ 31 fits both regions; the scratch counts
                                // fit their regions (`array`).
                                let s = $along(pos, mass, np, lp, lcount, anch, ac, comp, dist, near, sc, outp, tc, oc);
                                let mut allowed = Mask::new();
                                if s == XpbdStatus::Ok {
                                    let written = oc.read_unaligned();
                                    assert!(written <= tc, "build_tethers_along_links wrote {written} > capacity {tc}");
                                    assert!(sc >= np, "build_tethers_along_links accepted {sc} scratch entries for {np} particles");
                                    allowed.span(bu, Span::of(outp, written));
                                    allowed.span(bu, bs[7]);
                                }
                                if s == XpbdStatus::Ok || s == XpbdStatus::CapacityTooSmall {
                                    // The scratch is the library's once the inputs are valid.
                                    allowed.span(bu, bs[4]);
                                    allowed.span(bu, bs[5]);
                                }
                                if let Some(k) = allowed.check(&a, &before2) {
                                    panic!("build_tethers_along_links ({}) wrote byte {k} outside out[..count], out_count and the scratch", s.code());
                                }
                                assert!(documented(s), "undocumented status {}", s.code());
                                assert!(pre.is_empty() || pre.contains(s), "build_tethers_along_links: {} where the model refuses ({:#x})", s.code(), pre.0);
                                continue;
                            }
                            _ => {
                                // build_tethers: positions, masses, anchors, out, out_count.
                                let np = if inp.byte() % 8 == 0 { usize::from(inp.byte() % 32) } else { pc.min(mc) };
                                let ac = usize::from(inp.byte() % 4);
                                for k in 0..ac {
                                    a.put(ANCHORS, k, idx(&mut inp, np));
                                }
                                let before2 = a;
                                let (tl, tc) = array::<$Tether>(&mut inp, TETHERS, 16);
                                let tl = if matches!(tl, Loc::Sys | Loc::Groups) { Loc::At(TETHERS * REGION) } else { tl };
                                let outp = ptr(tl).cast::<$Tether>();
                                let place = Place::pick(&mut inp, REGIONS, own, 8, 0, None);
                                let oc = place.ptr::<usize>(base, core::ptr::null_mut());
                                let pos = ptr(pl).cast_const().cast::<T>();
                                let mass = ptr(ml).cast_const().cast::<T>();
                                let anch = if inp.byte() % 16 == 0 { core::ptr::null() } else { base.add(ANCHORS * REGION).cast_const().cast::<u32>() };
                                let bs = [
                                    Span::of(pos, 3 * np),
                                    Span::of(mass, np),
                                    Span::of(anch, ac),
                                    Span::of(outp, tc),
                                    Span::of(oc, 1),
                                ];
                                if oc.is_null() {
                                    pre.add(XpbdStatus::NullPointer);
                                }
                                pre.buffers(&bs);
                                let comp = val(&mut inp, 0.0);
                                // Positions and masses beyond their region are not
                                // read: np ≤ 31 fits both regions.
                                let s = $tethers(pos, mass, np, anch, ac, comp, outp, tc, oc);
                                if s == XpbdStatus::Ok {
                                    let written = oc.read_unaligned();
                                    assert!(written <= tc, "build_tethers wrote {written} > capacity {tc}");
                                    on_ok.span(bu, Span::of(outp, written));
                                    on_ok.span(bu, bs[4]);
                                }
                                assert!(on_ok.check(&a, &before2).is_none() || s == XpbdStatus::Ok,
                                    "build_tethers wrote on error {}", s.code());
                                if let Some(k) = on_ok.check(&a, &before2) {
                                    panic!("build_tethers wrote byte {k} outside out[..count], out_count");
                                }
                                assert!(documented(s), "undocumented status {}", s.code());
                                assert!(pre.is_empty() || pre.contains(s), "build_tethers: {} where the model refuses ({:#x})", s.code(), pre.0);
                                continue;
                            }
                        }
                    };
                    assert!(documented(status), "op {op}: undocumented status {}", status.code());
                    assert!(hs.slack == [0; 8] && hg.slack == [0; 8] && hw.slack == [0; 8] && config.slack == [0; 8], "op {op} wrote past a struct");
                    assert!(same_groups(&hg.s.groups, &gb), "op {op} wrote the groups struct");
                    let h = hg.s.block;
                    assert!(
                        h.kind == header.kind && h.size == header.size && h.next == header.next,
                        "op {op} wrote the groups block's header"
                    );
                    assert!(same_sys(&hs.s, &sb), "op {op} wrote a buffer field of the system");
                    assert!(same_world(&hw.s, &wb), "op {op} wrote a buffer field of the world");
                    if op == 6 {
                        assert!(hs.s.substep_active == sb.substep_active && hs.s.error_index == sb.error_index, "step wrote the system struct");
                    } else {
                        assert!(
                            hw.s.error_index == wb.error_index && hw.s.error_field == wb.error_field,
                            "op {op} wrote the world struct"
                        );
                    }
                    let ok = matches!(status, XpbdStatus::Ok | XpbdStatus::Skipped);
                    if op <= 1 {
                        begun = status == XpbdStatus::Ok;
                    }
                    if !pre.is_empty() {
                        assert!(pre.contains(status), "op {op}: status {} where the model refuses ({:#x})", status.code(), pre.0);
                        if op == 6 {
                            // The world's report of a refusal.
                            let report = (hw.s.error_index, hw.s.error_field);
                            let want = match status {
                                XpbdStatus::CapacityTooSmall => (needed, XPBD_FIELD_MEMORY),
                                XpbdStatus::InvalidConfig => (0, XPBD_FIELD_ZERO_LENGTH_POLICY),
                                _ => (0, XPBD_FIELD_NONE),
                            };
                            assert_eq!(report, want, "step refused with {}", status.code());
                        }
                        if let Some(k) = Mask::new().check(&a, &before) {
                            panic!("op {op}: refused {} wrote arena byte {k}", status.code());
                        }
                        continue;
                    }
                    assert!(
                        !matches!(status, XpbdStatus::AliasedBuffers | XpbdStatus::NullPointer | XpbdStatus::NoSubstep),
                        "op {op}: {} though every buffer is valid and disjoint and a substep begun",
                        status.code()
                    );
                    if ok {
                        if let Some(k) = on_ok.check(&a, &before) {
                            panic!("op {op}: success wrote arena byte {k} outside its buffers");
                        }
                        if status == XpbdStatus::Ok && !positions.is_null() {
                            for k in 0..pcount {
                                // SAFETY: the call accepted the buffer: valid for pcount.
                                let p = unsafe { positions.add(k).read_unaligned() };
                                assert!(p.iter().all(|c| c.is_finite()), "op {op}: OK left particle {k} non-finite: {p:?}");
                            }
                        }
                        if status == XpbdStatus::Ok && op == 6 && !grp.is_null() && !g.attachments.is_null() {
                            // A successful step reports finite forces (one beyond
                            // the float range fails it with INVALID_RESULT); a
                            // world without the groups block never reads them.
                            for k in 0..g.attachment_count {
                                // SAFETY: the call accepted the buffer: valid for its count.
                                let at = unsafe { g.attachments.add(k).read_unaligned() };
                                assert!(at.force.iter().all(|f| f.is_finite()), "step OK left attachment {k} force {:?}", at.force);
                            }
                        }
                    } else if let Some(k) = on_err.check(&a, &before) {
                        panic!("op {op}: error {} wrote arena byte {k} (region {})", status.code(), k / REGION);
                    }
                }
            }
        }
    };
}

groups_abi!(
    g64,
    f64,
    XpbdLink,
    XpbdSystem3,
    XpbdWorld3,
    XpbdConstraints3,
    XpbdGroups3,
    XpbdBend,
    XpbdTet,
    XpbdTether,
    XpbdMeshVolume,
    XpbdAttachment,
    XpbdStepStats,
    xpbd_step_config3_default,
    xpbd_system3_begin_substep_groups,
    xpbd_system3_iterate_groups,
    xpbd_system3_iterate_until_groups,
    xpbd_system3_measure_groups,
    xpbd_world3_step,
    xpbd_build_tethers3,
    xpbd_build_tethers_along_links3,
    xpbd_world3_default,
    xpbd_groups3_default,
    xpbd_world3_add,
    xpbd_world3_requirements
);
groups_abi!(
    g32,
    f32,
    XpbdLinkF32,
    XpbdSystem3F32,
    XpbdWorld3F32,
    XpbdConstraints3F32,
    XpbdGroups3F32,
    XpbdBendF32,
    XpbdTetF32,
    XpbdTetherF32,
    XpbdMeshVolumeF32,
    XpbdAttachmentF32,
    XpbdStepStatsF32,
    xpbd_step_config3_default_f32,
    xpbd_system3_begin_substep_groups_f32,
    xpbd_system3_iterate_groups_f32,
    xpbd_system3_iterate_until_groups_f32,
    xpbd_system3_measure_groups_f32,
    xpbd_world3_step_f32,
    xpbd_build_tethers3_f32,
    xpbd_build_tethers_along_links3_f32,
    xpbd_world3_default_f32,
    xpbd_groups3_default_f32,
    xpbd_world3_add_f32,
    xpbd_world3_requirements_f32
);

/// The groups target: the first byte picks f64 or f32.
pub fn groups(data: &[u8]) {
    let (sel, rest) = data.split_first().map_or((0, data), |(s, r)| (*s, r));
    if sel % 2 == 0 {
        g64::run(rest)
    } else {
        g32::run(rest)
    }
}
