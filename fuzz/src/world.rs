//! Fuzzing the 3D f64 system ABI (`xpbd_system3_*`, `xpbd_build_*3`) and
//! stepping (`xpbd_world3_step`) on one caller arena.
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
struct Arena([[u8; REGION]; REGIONS]);

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
    (-18..=1).contains(&s.code())
}

/// Bytes `[r·REGION + k·size, + size)` of the two arenas are equal.
fn same_elem(a: &Arena, b: &Arena, r: usize, k: usize, size: usize) -> bool {
    let lo = k * size;
    let hi = (lo + size).min(REGION);
    lo >= REGION || a.0[r][lo..hi] == b.0[r][lo..hi]
}

/// Fills the arena from the input: arbitrary floats, indices within (or
/// just past) the particle count, flags 0–3.
fn fill(inp: &mut Input<'_>, a: &mut Arena, n: usize, m: usize) {
    for k in 0..n {
        a.put(POS, k, [inp.real::<f64>(), inp.real(), inp.real()]);
        a.put(MASS, k, inp.real::<f64>());
        a.put(VEL, k, [inp.real::<f64>(), inp.real(), inp.real()]);
    }
    for k in 0..m {
        let link = XpbdLink {
            i: u32::from(inp.byte()) % (n as u32 + 1),
            j: u32::from(inp.byte()) % (n as u32 + 1),
            rest: inp.real(),
            compliance: inp.real(),
            lambda: inp.real(),
            flags: u32::from(inp.byte() % 4),
        };
        a.put(LINKS, k, link);
    }
    for k in 0..2 {
        a.put(
            PLANES,
            k,
            XpbdPlane3 {
                normal: [inp.real(), inp.real(), inp.real()],
                offset: inp.real(),
            },
        );
        a.put(
            SPHERES,
            k,
            XpbdSphere3 {
                center: [inp.real(), inp.real(), inp.real()],
                radius: inp.real(),
            },
        );
    }
}

/// The system target: up to 16 calls of the 3D f64 system ABI and builders.
pub fn system(data: &[u8]) {
    let mut inp = Input::new(data);
    let mut a = Arena([[0; REGION]; REGIONS]);
    let n = usize::from(inp.byte() % 12);
    let m = usize::from(inp.byte() % 16);
    fill(&mut inp, &mut a, n, m);
    let (pr, pc) = buffer::<[f64; 3]>(&mut inp, POS, n);
    let (mr, mc) = buffer::<f64>(&mut inp, MASS, n);
    let (lr, lc) = buffer::<XpbdLink>(&mut inp, LINKS, m);
    let mut sys = XpbdSystem3 {
        positions: ptr_of(&mut a, pr),
        inverse_masses: ptr_of::<f64>(&mut a, mr),
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
                0 | 1 => xpbd_system3_begin_substep(&mut sys, inp.real()),
                2 | 3 => {
                    let mut st = core::mem::zeroed();
                    let out = if inp.byte() % 4 == 0 {
                        core::ptr::null_mut()
                    } else {
                        &mut st
                    };
                    xpbd_system3_iterate(&mut sys, out)
                }
                4 => {
                    let mut c = core::mem::zeroed();
                    xpbd_system3_iterate_until(
                        &mut sys,
                        inp.real(),
                        u32::from(inp.byte() % 8),
                        &mut c,
                    )
                }
                5 => {
                    let mut st = core::mem::zeroed();
                    let out = if inp.byte() % 8 == 0 {
                        core::ptr::null_mut()
                    } else {
                        &mut st
                    };
                    let s = xpbd_system3_measure(&mut sys, out);
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
                            assert!(a.0[r] == before.0[r], "region {r} changed by iterate_until");
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
    sys: &XpbdSystem3,
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
    let lsize = core::mem::size_of::<XpbdLink>();
    let mut touched = [false; 32];
    for k in 0..e {
        // SAFETY: k < link_count, which fits the region.
        let link = unsafe {
            before.0[l]
                .as_ptr()
                .add(k * lsize)
                .cast::<XpbdLink>()
                .read()
        };
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
                same_elem(a, before, p, q, 24),
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
    let (pr, pc) = buffer::<[f64; 3]>(inp, POS, 8);
    let (lr, lc) = buffer::<XpbdLink>(inp, LINKS, 16);
    // Builders take disjoint buffers by contract: keep them apart.
    let lr = if pr.is_some() && pr == lr {
        Some(LINKS)
    } else {
        lr
    };
    let lr = if pr == Some(LINKS) { Some(VEL) } else { lr };
    let pos = ptr_of::<f64>(a, pr);
    let links = ptr_of::<XpbdLink>(a, lr);
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
                xpbd_build_rope3(pos, pc, compliance, links, lc, out)
            } else {
                xpbd_build_loop3(pos, pc, compliance, links, lc, out)
            }
        } else {
            let rows = usize::from(inp.byte() % 5);
            let cols = if rows == 0 { 0 } else { pc / rows };
            xpbd_build_cloth3(
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

/// The step target: one world, up to 4 frames of `xpbd_world3_step`.
pub fn step(data: &[u8]) {
    let mut inp = Input::new(data);
    let mut a = Arena([[0; REGION]; REGIONS]);
    let n = usize::from(inp.byte() % 10);
    let m = usize::from(inp.byte() % 12);
    fill(&mut inp, &mut a, n, m);
    let (pr, pc) = buffer::<[f64; 3]>(&mut inp, POS, n);
    let (vr, _) = buffer::<[f64; 3]>(&mut inp, VEL, n);
    let (mr, _) = buffer::<f64>(&mut inp, MASS, n);
    let (lr, lc) = buffer::<XpbdLink>(&mut inp, LINKS, m);
    let (plr, plc) = buffer::<XpbdPlane3>(&mut inp, PLANES, 1);
    let (spr, spc) = buffer::<XpbdSphere3>(&mut inp, SPHERES, 1);
    let (cr, cc) = buffer::<XpbdContact>(&mut inp, CONTACTS, 2 * n);
    let (scr, scc) = buffer::<[f64; 3]>(&mut inp, SCRATCH, 3 * n);
    let pc = pc.min(24);
    let mut world = XpbdWorld3 {
        positions: ptr_of(&mut a, pr),
        velocities: ptr_of(&mut a, vr),
        inverse_masses: ptr_of::<f64>(&mut a, mr),
        particle_count: pc,
        links: ptr_of(&mut a, lr),
        link_count: lc,
        planes: ptr_of::<XpbdPlane3>(&mut a, plr),
        plane_count: plc.min(2),
        spheres: ptr_of::<XpbdSphere3>(&mut a, spr),
        sphere_count: spc.min(2),
        contacts: ptr_of(&mut a, cr),
        contact_capacity: cc,
        scratch: ptr_of(&mut a, scr),
        scratch_count: scc,
        error_index: 0,
    };
    let mut config = xpbd_step_config3_default();
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
        let status = unsafe { xpbd_world3_step(&mut world, dt, cfg, out) };
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
