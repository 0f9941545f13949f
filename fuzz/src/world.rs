//! Fuzzing the system ABI (`xpbd_system{2,3}_*`, `xpbd_build_*{2,3}`, f64
//! and f32) and stepping (`xpbd_world3_step`, f64 and f32) on one caller
//! arena.
//!
//! The arena is [`REGIONS`] aligned regions of [`REGION`] bytes: positions,
//! inverse masses, links, velocities, scratch, contacts, planes, spheres.
//! Each buffer pointer of a call is its own region, another region (so
//! buffers overlap: the library must answer `ALIASED_BUFFERS` or work
//! correctly), or NULL; each count is the natural one or any count that
//! fits the region (so null with a non-zero count, too-small capacities and
//! zero counts are reached). Contents are arbitrary floats and indices.
//!
//! Checks after every call, besides no crash and no sanitizer report:
//! - the status is a documented code (`XPBD_STATUS_*`, −18 … 1);
//! - `begin_substep`, `measure` and the builders on error: no byte of the
//!   arena changed (the system struct may change only in `substep_active`,
//!   `h` and `error_index`); `measure` never writes the arena;
//! - `iterate` on error: per link (documented): the links
//!   before `error_index` were applied, so only their particles and their λ
//!   may have changed; λ of the failing link and of every later link and
//!   every particle no earlier link touches are unchanged. Checked when the
//!   positions and links buffers are disjoint (otherwise the call must fail
//!   with no write at all); `iterate_until` on error: no region other than
//!   the positions' and the links' changed (earlier sweeps may have been
//!   applied in full);
//! - `xpbd_world3_step` on error: positions, velocities, inverse masses,
//!   planes and spheres unchanged (λ, contacts and scratch are per-substep
//!   state the library may leave written, as documented).

use xpbd::ffi::XpbdStatus;
use xpbd::ffi_step::*;
use xpbd::ffi_system::*;
use xpbd::ffi_system_fns::*;

use crate::Input;

/// Bytes per region.
pub const REGION: usize = 768;
/// Regions in the arena.
pub const REGIONS: usize = 8;
const POS: usize = 0;
const MASS: usize = 1;
const LINKS: usize = 2;
const VEL: usize = 3;
const SCRATCH: usize = 4;
const CONTACTS: usize = 5;
const PLANES: usize = 6;
const SPHERES: usize = 7;

#[repr(C, align(8))]
#[derive(Clone, Copy)]
pub(crate) struct Arena([[u8; REGION]; REGIONS]);

impl Arena {
    fn region(&mut self, r: usize) -> *mut u8 {
        self.0[r].as_mut_ptr()
    }
    fn put<E: Copy>(&mut self, r: usize, k: usize, e: E) {
        let size = core::mem::size_of::<E>();
        if (k + 1) * size <= REGION {
            // SAFETY: in bounds (checked), the arena is 8-aligned and every
            // element type has alignment ≤ 8 and size a multiple of it.
            unsafe { self.region(r).add(k * size).cast::<E>().write(e) };
        }
    }
}

/// A buffer choice: region (or None = NULL) and element count.
fn buffer<E>(inp: &mut Input<'_>, own: usize, natural: usize) -> (Option<usize>, usize) {
    let cap = REGION / core::mem::size_of::<E>();
    let s = inp.byte();
    let region = match s % 32 {
        0 => None,
        1 => Some(usize::from(inp.byte()) % REGIONS),
        _ => Some(own),
    };
    let count = match (s / 32) % 8 {
        0 => usize::from(inp.byte()) % (cap + 1),
        1 => 0,
        _ => natural.min(cap),
    };
    (region, count)
}

fn ptr_of<E>(a: &mut Arena, r: Option<usize>) -> *mut E {
    match r {
        Some(r) => a.region(r).cast(),
        None => core::ptr::null_mut(),
    }
}

fn documented(s: XpbdStatus) -> bool {
    (-21..=1).contains(&s.code())
}

/// Bytes `[r·REGION + k·size, + size)` of the two arenas are equal.
fn same_elem(a: &Arena, b: &Arena, r: usize, k: usize, size: usize) -> bool {
    let lo = k * size;
    let hi = (lo + size).min(REGION);
    lo >= REGION || a.0[r][lo..hi] == b.0[r][lo..hi]
}

/// The system harness for one dimension and precision.
macro_rules! system_abi {
    ($m:ident, $T:ty, $D:expr, $Link:ident, $Sys:ident, $begin:ident, $iterate:ident, $until:ident,
     $measure:ident, $rope:ident, $loop_:ident, $cloth:ident) => {
        /// The system harness for one dimension and precision.
        pub mod $m {
            #[allow(unused_imports)]
            use super::*;

            /// Fills the arena from the input: arbitrary floats, indices within (or
            /// just past) the particle count, flags 0–3.
            pub(crate) fn fill(inp: &mut Input<'_>, a: &mut Arena, n: usize, m: usize) {
                for k in 0..n {
                    a.put(POS, k, core::array::from_fn::<$T, $D, _>(|_| inp.real()));
                    a.put(MASS, k, inp.real::<$T>());
                    a.put(VEL, k, core::array::from_fn::<$T, $D, _>(|_| inp.real()));
                }
                for k in 0..m {
                    let link = $Link {
                        i: u32::from(inp.byte()) % (n as u32 + 1),
                        j: u32::from(inp.byte()) % (n as u32 + 1),
                        rest: inp.real(),
                        compliance: inp.real(),
                        lambda: inp.real(),
                        flags: u32::from(inp.byte() % 4),
                    };
                    a.put(LINKS, k, link);
                }
            }

            /// The system target: up to 16 calls of the system ABI and builders.
            pub fn system(data: &[u8]) {
                let mut inp = Input::new(data);
                let mut a = Arena([[0; REGION]; REGIONS]);
                let n = usize::from(inp.byte() % 12);
                let m = usize::from(inp.byte() % 16);
                fill(&mut inp, &mut a, n, m);
                let (pr, pc) = buffer::<[$T; $D]>(&mut inp, POS, n);
                let (mr, mc) = buffer::<$T>(&mut inp, MASS, n);
                let (lr, lc) = buffer::<$Link>(&mut inp, LINKS, m);
                let mut sys = $Sys {
                    positions: ptr_of(&mut a, pr),
                    inverse_masses: ptr_of::<$T>(&mut a, mr),
                    particle_count: pc.min(mc),
                    links: ptr_of(&mut a, lr),
                    link_count: lc,
                    zero_length_policy: i32::from(inp.byte() % 3),
                    substep_active: 0,
                    h: 0.0,
                    error_index: 0,
                };
                if inp.byte() % 8 == 0 {
                    sys.particle_count = pc; // a count that may not match the masses' region
                }
                let mut calls = 0;
                while !inp.is_empty() && calls < 16 {
                    calls += 1;
                    let before = a;
                    let sys_before = sys;
                    let op = inp.byte() % 8;
                    // SAFETY: every pointer is NULL or into the arena with a count that
                    // fits its region; the arena outlives the calls.
                    let status = unsafe {
                        match op {
                            0 | 1 => $begin(&mut sys, inp.real()),
                            2 | 3 => {
                                let mut st = core::mem::zeroed();
                                let out = if inp.byte() % 4 == 0 {
                                    core::ptr::null_mut()
                                } else {
                                    &mut st
                                };
                                $iterate(&mut sys, out)
                            }
                            4 => {
                                let mut c = core::mem::zeroed();
                                $until(&mut sys, inp.real(), u32::from(inp.byte() % 8), &mut c)
                            }
                            5 => {
                                let mut st = core::mem::zeroed();
                                let out = if inp.byte() % 8 == 0 {
                                    core::ptr::null_mut()
                                } else {
                                    &mut st
                                };
                                let s = $measure(&mut sys, out);
                                assert!(same_all(&a, &before), "measure wrote the arena");
                                s
                            }
                            _ => build(&mut inp, &mut a, op),
                        }
                    };
                    assert!(documented(status), "undocumented status {}", status.code());
                    if status.code() < 0 {
                        // The system struct: only the library's diagnostic fields.
                        assert!(
                            sys.positions == sys_before.positions
                                && sys.inverse_masses == sys_before.inverse_masses
                                && sys.particle_count == sys_before.particle_count
                                && sys.links == sys_before.links
                                && sys.link_count == sys_before.link_count
                                && sys.zero_length_policy == sys_before.zero_length_policy
                        );
                        match op {
                            2 | 3 => iterate_error(&a, &before, &sys, pr, lr),
                            // Earlier sweeps of iterate_until may have succeeded: only
                            // the per-link rule of the failed sweep's own changes holds,
                            // which this harness cannot see; the other regions must not
                            // change, and nothing must change over NULL or aliased
                            // buffers.
                            _ if op == 4 => {
                                if pr.is_none() || lr.is_none() || pr == lr {
                                    assert!(same_all(&a, &before), "iterate_until wrote on error");
                                }
                                for r in 0..REGIONS {
                                    if Some(r) != pr && Some(r) != lr {
                                        assert!(
                                            a.0[r] == before.0[r],
                                            "region {r} changed by iterate_until"
                                        );
                                    }
                                }
                            }
                            _ => assert!(
                                same_all(&a, &before),
                                "op {op} wrote on error {}",
                                status.code()
                            ),
                        }
                    }
                }
            }

            fn same_all(a: &Arena, b: &Arena) -> bool {
                a.0 == b.0
            }

            /// Per-link semantics of a failed sweep.
            fn iterate_error(
                a: &Arena,
                before: &Arena,
                sys: &$Sys,
                pr: Option<usize>,
                lr: Option<usize>,
            ) {
                let (Some(p), Some(l)) = (pr, lr) else {
                    assert!(same_all(a, before), "iterate wrote with a NULL buffer");
                    return;
                };
                if p == l || sys.link_count == 0 {
                    assert!(same_all(a, before), "iterate wrote over aliased buffers");
                    return;
                }
                let e = sys.error_index.min(sys.link_count);
                let lsize = core::mem::size_of::<$Link>();
                let mut touched = [false; 32];
                for k in 0..e {
                    // SAFETY: k < link_count, which fits the region.
                    let link =
                        unsafe { before.0[l].as_ptr().add(k * lsize).cast::<$Link>().read() };
                    for q in [link.i, link.j] {
                        if let Some(t) = touched.get_mut(q as usize) {
                            *t = true;
                        }
                    }
                }
                for k in e..sys.link_count {
                    assert!(
                        same_elem(a, before, l, k, lsize),
                        "link {k} ≥ error_index {e} changed"
                    );
                }
                for (q, t) in touched.iter().enumerate() {
                    if !t && q < sys.particle_count {
                        assert!(
                            same_elem(a, before, p, q, core::mem::size_of::<[$T; $D]>()),
                            "particle {q} changed, no link before {e} touches it"
                        );
                    }
                }
                for r in 0..REGIONS {
                    if r != p && r != l {
                        assert!(a.0[r] == before.0[r], "region {r} changed by iterate");
                    }
                }
            }

            /// One builder call (rope, loop or cloth, 3D f64), positions from the
            /// arena, links into the arena.
            ///
            /// # Safety
            /// As the builders.
            unsafe fn build(inp: &mut Input<'_>, a: &mut Arena, op: u8) -> XpbdStatus {
                let (pr, pc) = buffer::<[$T; $D]>(inp, POS, 8);
                let (lr, lc) = buffer::<$Link>(inp, LINKS, 16);
                // Builders take disjoint buffers by contract: keep them apart.
                let lr = if pr.is_some() && pr == lr {
                    Some(LINKS)
                } else {
                    lr
                };
                let lr = if pr == Some(LINKS) { Some(VEL) } else { lr };
                let pos = ptr_of::<$T>(a, pr);
                let links = ptr_of::<$Link>(a, lr);
                let compliance = inp.real();
                let mut count = usize::MAX;
                let out = if inp.byte() % 16 == 0 {
                    core::ptr::null_mut()
                } else {
                    &mut count as *mut usize
                };
                // SAFETY: forwarded.
                unsafe {
                    if op == 6 {
                        if inp.byte() % 2 == 0 {
                            $rope(pos, pc, compliance, links, lc, out)
                        } else {
                            $loop_(pos, pc, compliance, links, lc, out)
                        }
                    } else {
                        let rows = usize::from(inp.byte() % 5);
                        let cols = if rows == 0 { 0 } else { pc / rows };
                        $cloth(
                            pos,
                            rows,
                            cols,
                            i32::from(inp.byte() % 3),
                            compliance,
                            links,
                            lc,
                            out,
                        )
                    }
                }
            }
        }
    };
}

system_abi!(
    s3,
    f64,
    3,
    XpbdLink,
    XpbdSystem3,
    xpbd_system3_begin_substep,
    xpbd_system3_iterate,
    xpbd_system3_iterate_until,
    xpbd_system3_measure,
    xpbd_build_rope3,
    xpbd_build_loop3,
    xpbd_build_cloth3
);
system_abi!(
    s3f,
    f32,
    3,
    XpbdLinkF32,
    XpbdSystem3F32,
    xpbd_system3_begin_substep_f32,
    xpbd_system3_iterate_f32,
    xpbd_system3_iterate_until_f32,
    xpbd_system3_measure_f32,
    xpbd_build_rope3_f32,
    xpbd_build_loop3_f32,
    xpbd_build_cloth3_f32
);
system_abi!(
    s2,
    f64,
    2,
    XpbdLink,
    XpbdSystem2,
    xpbd_system2_begin_substep,
    xpbd_system2_iterate,
    xpbd_system2_iterate_until,
    xpbd_system2_measure,
    xpbd_build_rope2,
    xpbd_build_loop2,
    xpbd_build_cloth2
);
system_abi!(
    s2f,
    f32,
    2,
    XpbdLinkF32,
    XpbdSystem2F32,
    xpbd_system2_begin_substep_f32,
    xpbd_system2_iterate_f32,
    xpbd_system2_iterate_until_f32,
    xpbd_system2_measure_f32,
    xpbd_build_rope2_f32,
    xpbd_build_loop2_f32,
    xpbd_build_cloth2_f32
);

/// The system target: the first byte picks 3D f64, 3D f32, 2D f64 or 2D f32.
pub fn system(data: &[u8]) {
    let (sel, rest) = data.split_first().map_or((0, data), |(s, r)| (*s, r));
    match sel % 4 {
        0 => s3::system(rest),
        1 => s3f::system(rest),
        2 => s2::system(rest),
        _ => s2f::system(rest),
    }
}

/// The step harness for one precision.
macro_rules! step_abi {
    ($m:ident, $sysm:ident, $T:ty, $Link:ident, $World:ident, $Plane:ident, $Sphere:ident,
     $Contact:ident, $default:ident, $step:ident) => {
        /// The step harness for one precision.
        pub mod $m {
            #[allow(unused_imports)]
            use super::*;

            /// The step target: one world, up to 4 frames.
            pub fn step(data: &[u8]) {
                let mut inp = Input::new(data);
                let mut a = Arena([[0; REGION]; REGIONS]);
                let n = usize::from(inp.byte() % 10);
                let m = usize::from(inp.byte() % 12);
                super::$sysm::fill(&mut inp, &mut a, n, m);
                for k in 0..2 {
                    a.put(
                        PLANES,
                        k,
                        $Plane {
                            normal: [inp.real(), inp.real(), inp.real()],
                            offset: inp.real(),
                        },
                    );
                    a.put(
                        SPHERES,
                        k,
                        $Sphere {
                            center: [inp.real(), inp.real(), inp.real()],
                            radius: inp.real(),
                        },
                    );
                }
                let (pr, pc) = buffer::<[$T; 3]>(&mut inp, POS, n);
                let (vr, _) = buffer::<[$T; 3]>(&mut inp, VEL, n);
                let (mr, _) = buffer::<$T>(&mut inp, MASS, n);
                let (lr, lc) = buffer::<$Link>(&mut inp, LINKS, m);
                let (plr, plc) = buffer::<$Plane>(&mut inp, PLANES, 1);
                let (spr, spc) = buffer::<$Sphere>(&mut inp, SPHERES, 1);
                let (cr, cc) = buffer::<$Contact>(&mut inp, CONTACTS, 2 * n);
                let (scr, scc) = buffer::<[$T; 3]>(&mut inp, SCRATCH, 3 * n);
                let pc = pc.min(24);
                let mut world = $World {
                    positions: ptr_of(&mut a, pr),
                    velocities: ptr_of(&mut a, vr),
                    inverse_masses: ptr_of::<$T>(&mut a, mr),
                    particle_count: pc,
                    links: ptr_of(&mut a, lr),
                    link_count: lc,
                    planes: ptr_of::<$Plane>(&mut a, plr),
                    plane_count: plc.min(2),
                    spheres: ptr_of::<$Sphere>(&mut a, spr),
                    sphere_count: spc.min(2),
                    contacts: ptr_of(&mut a, cr),
                    contact_capacity: cc,
                    scratch: ptr_of(&mut a, scr),
                    scratch_count: scc,
                    error_index: 0,
                };
                let mut config = $default();
                if inp.byte() % 2 == 0 {
                    config.gravity = [inp.real(), inp.real(), inp.real()];
                    config.substeps = u32::from(inp.byte() % 6);
                    config.iterations = u32::from(inp.byte() % 6);
                    config.tolerance = inp.real();
                    config.damping = inp.real();
                    config.particle_radius = inp.real();
                    config.contact_compliance = inp.real();
                    config.static_friction = inp.real();
                    config.dynamic_friction = inp.real();
                    config.zero_length_policy = i32::from(inp.byte() % 3);
                } else {
                    config.gravity = [0.0, -9.81, 0.0];
                    config.substeps = 2;
                    config.iterations = 2;
                }
                let protected = [pr, vr, mr, plr, spr];
                let writable = [lr, cr, scr];
                for _ in 0..4 {
                    let before = a;
                    let dt = inp.real();
                    let mut stats = unsafe { core::mem::zeroed() };
                    let out = if inp.byte() % 4 == 0 {
                        core::ptr::null_mut()
                    } else {
                        &mut stats
                    };
                    let cfg = if inp.byte() % 32 == 0 {
                        core::ptr::null()
                    } else {
                        &config as *const _
                    };
                    // SAFETY: every pointer is NULL or into the arena with a count that
                    // fits its region.
                    let status = unsafe { $step(&mut world, dt, cfg, out) };
                    assert!(documented(status), "undocumented status {}", status.code());
                    if status.code() < 0 {
                        for r in protected.iter().flatten() {
                            if !writable.contains(&Some(*r)) {
                                assert!(
                                    a.0[*r] == before.0[*r],
                                    "step wrote region {r} on error {}",
                                    status.code()
                                );
                            }
                        }
                    }
                    if inp.is_empty() {
                        break;
                    }
                }
            }
        }
    };
}

step_abi!(
    w3,
    s3,
    f64,
    XpbdLink,
    XpbdWorld3,
    XpbdPlane3,
    XpbdSphere3,
    XpbdContact,
    xpbd_step_config3_default,
    xpbd_world3_step
);
step_abi!(
    w3f,
    s3f,
    f32,
    XpbdLinkF32,
    XpbdWorld3F32,
    XpbdPlane3F32,
    XpbdSphere3F32,
    XpbdContactF32,
    xpbd_step_config3_default_f32,
    xpbd_world3_step_f32
);

/// The step target: the first byte picks f64 or f32.
pub fn step(data: &[u8]) {
    let (sel, rest) = data.split_first().map_or((0, data), |(s, r)| (*s, r));
    if sel % 2 == 0 {
        w3::step(rest)
    } else {
        w3f::step(rest)
    }
}
