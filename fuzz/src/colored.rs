//! Fuzzing the colored ABI (3D, f64 and f32): colorings (`xpbd_color_rope`,
//! `xpbd_color_cloth`, `xpbd_color_greedy`, `xpbd_color_order`), the link
//! fill (`xpbd_colored_links_fill`), the colored system
//! (`xpbd_colored3_begin_substep`, `xpbd_colored3_iterate`,
//! `xpbd_colored3_solve_job`), `xpbd_job_range` and
//! `xpbd_sweep_stats_merge`, on one caller arena of [`REGIONS`] regions
//! (one per buffer; a pointer may be NULL or land in another buffer's
//! region, so overlaps are reached), with arbitrary floats, indices,
//! counts, colorings (proper or not) and AoS / SoA / both / neither.
//!
//! Checks after every call, besides no crash and no sanitizer report: the
//! status is documented (−18 … 1), and on an error:
//! - colorings, order, fill, job range: nothing written (outputs written
//!   only on success; the greedy coloring's `scratch` excepted);
//! - `begin_substep`: no byte of the arena written except the `stamp`
//!   scratch of the coloring check;
//! - `iterate` / `solve_job` (per link, documented: the rest of the color
//!   is applied): only the positions and λ regions may have changed.

use xpbd::ffi::XpbdStatus;
use xpbd::ffi_colored::*;
use xpbd::ffi_system::{XpbdLink, XpbdLinkF32, XpbdSweepStats, XpbdSweepStatsF32};

use crate::Input;

/// Bytes per region.
pub const REGION: usize = 768;
/// Regions in the arena.
pub const REGIONS: usize = 18;
const AOS: usize = 0;
const X: usize = 1;
const Y: usize = 2;
const MASS: usize = 3;
const I: usize = 4;
const J: usize = 5;
const REST: usize = 6;
const COMPLIANCE: usize = 7;
const LAMBDA: usize = 8;
const ALPHA: usize = 9;
const INV_DEN: usize = 10;
const STARTS: usize = 11;
const STAMP: usize = 12;
const LINKS: usize = 13;
const COLORS: usize = 14;
const ORDER: usize = 15;
const SCRATCH: usize = 16;
const Z: usize = 17;

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
            // SAFETY: in bounds (checked); the arena is 8-aligned and every
            // element type has alignment ≤ 8 dividing its size.
            unsafe { self.region(r).add(k * size).cast::<E>().write(e) };
        }
    }
    fn ptr<E>(&mut self, r: Option<usize>) -> *mut E {
        match r {
            Some(r) => self.region(r).cast(),
            None => core::ptr::null_mut(),
        }
    }
}

/// A pointer choice: own region (usually), another region, or NULL.
fn place(inp: &mut Input<'_>, own: usize) -> Option<usize> {
    match inp.byte() % 32 {
        0 => None,
        1 => Some(usize::from(inp.byte()) % REGIONS),
        _ => Some(own),
    }
}

/// A count: usually `natural`, sometimes anything up to `cap`, or 0.
fn count(inp: &mut Input<'_>, natural: usize, cap: usize) -> usize {
    match inp.byte() % 16 {
        0 => usize::from(inp.byte()) % (cap + 1),
        1 => 0,
        _ => natural.min(cap),
    }
}

fn documented(s: XpbdStatus) -> bool {
    (-21..=1).contains(&s.code())
}

/// No region.
const NONE: [usize; 5] = [usize::MAX; 5];

/// One region (or none).
fn one(r: Option<usize>) -> [usize; 5] {
    let mut out = NONE;
    out[0] = r.unwrap_or(usize::MAX);
    out
}

/// The region `p` points into (`usize::MAX` for NULL or outside).
fn region_of(a: &Arena, p: *const u8) -> usize {
    let base = a.0.as_ptr() as usize;
    (p as usize)
        .checked_sub(base)
        .map(|off| off / REGION)
        .filter(|r| *r < REGIONS)
        .unwrap_or(usize::MAX)
}

/// Every region except `except` is unchanged.
fn same_except(a: &Arena, b: &Arena, except: &[usize]) -> bool {
    (0..REGIONS).all(|r| except.contains(&r) || a.0[r] == b.0[r])
}

/// Largest particle count (fits `[f64; 3]` regions), link count (fits f64
/// regions) and color count (+1 fits a usize region).
const MAX_P: usize = REGION / 24;
const MAX_L: usize = REGION / 16;
const MAX_C: usize = REGION / 8 - 1;

/// The colored harness for one precision.
macro_rules! colored_abi {
    ($m:ident, $T:ty, $Link:ident, $Sys:ident, $Stats:ident, $greedy:ident, $fill:ident,
     $begin:ident, $iterate:ident, $job:ident, $merge:ident) => {
        /// The colored harness for one precision.
        pub mod $m {
            #[allow(unused_imports)]
            use super::*;

            /// The colored target for one precision.
            pub fn colored(data: &[u8]) {
                let mut inp = Input::new(data);
                let mut a = Arena([[0; REGION]; REGIONS]);
                let n = usize::from(inp.byte() % 16);
                let m = usize::from(inp.byte() % 24);
                for k in 0..n {
                    let p = [inp.real::<$T>(), inp.real(), inp.real()];
                    a.put(AOS, k, p);
                    a.put(X, k, p[0]);
                    a.put(Y, k, p[1]);
                    a.put(Z, k, p[2]);
                    a.put(MASS, k, inp.real::<$T>());
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
                let mut color_count: u32 = 0;
                let layout = inp.byte() % 4;
                let mut sys = $Sys {
                    positions: core::ptr::null_mut(),
                    x: core::ptr::null_mut(),
                    y: core::ptr::null_mut(),
                    z: core::ptr::null_mut(),
                    inverse_masses: core::ptr::null(),
                    particle_count: 0,
                    i: core::ptr::null(),
                    j: core::ptr::null(),
                    rest: core::ptr::null(),
                    compliance: core::ptr::null(),
                    lambda: core::ptr::null_mut(),
                    alpha: core::ptr::null_mut(),
                    inv_denominator: core::ptr::null_mut(),
                    link_count: 0,
                    color_starts: core::ptr::null(),
                    color_count: 0,
                    stamp: core::ptr::null_mut(),
                    zero_length_policy: i32::from(inp.byte() % 3),
                    substep_active: 0,
                    h: 0.0,
                    error_index: 0,
                };
                let mut calls = 0;
                while !inp.is_empty() && calls < 16 {
                    calls += 1;
                    let before = a;
                    let op = inp.byte() % 12;
                    // Positions and λ, wherever the system points them: what a failed
                    // sweep may have written.
                    let sweep_regions = [
                        region_of(&a, sys.positions.cast()),
                        region_of(&a, sys.x.cast()),
                        region_of(&a, sys.y.cast()),
                        region_of(&a, sys.z.cast()),
                        region_of(&a, sys.lambda.cast()),
                    ];
                    // SAFETY: every pointer is NULL or into the arena with a count that
                    // fits its region (counts are capped per element type); the arena
                    // and the locals outlive the calls.
                    let (status, may_write): (XpbdStatus, [usize; 5]) = unsafe {
                        match op {
                            0 => {
                                let cap = count(&mut inp, m, MAX_L);
                                let colors = a.ptr::<u32>(place(&mut inp, COLORS));
                                let mut cc = u32::MAX;
                                let out = if inp.byte() % 16 == 0 {
                                    core::ptr::null_mut()
                                } else {
                                    &mut cc as *mut u32
                                };
                                let s = if inp.byte() % 2 == 0 {
                                    xpbd_color_rope(
                                        count(&mut inp, m, 4 * MAX_L),
                                        i32::from(inp.byte() % 2),
                                        colors,
                                        cap,
                                        out,
                                    )
                                } else {
                                    let rows = usize::from(inp.byte() % 6);
                                    let cols = usize::from(inp.byte() % 6);
                                    xpbd_color_cloth(
                                        rows,
                                        cols,
                                        i32::from(inp.byte() % 2),
                                        colors,
                                        cap,
                                        out,
                                    )
                                };
                                if s.code() == 0 {
                                    color_count = cc;
                                }
                                (s, NONE)
                            }
                            1 => {
                                let lc = count(&mut inp, m, MAX_L);
                                let pc = count(&mut inp, n, MAX_P);
                                let links = a.ptr::<$Link>(place(&mut inp, LINKS));
                                let scratch_at = place(&mut inp, SCRATCH);
                                let scratch = a.ptr::<u64>(scratch_at);
                                let colors = a.ptr::<u32>(place(&mut inp, COLORS));
                                let mut cc = u32::MAX;
                                let out = if inp.byte() % 16 == 0 {
                                    core::ptr::null_mut()
                                } else {
                                    &mut cc as *mut u32
                                };
                                let s = $greedy(links, lc, pc, scratch, colors, out);
                                if s.code() == 0 {
                                    color_count = cc;
                                }
                                (s, one(scratch_at))
                            }
                            2 => {
                                let lc = count(&mut inp, m, MAX_L);
                                let cc = if inp.byte() % 8 == 0 {
                                    u32::from(inp.byte())
                                } else {
                                    color_count
                                };
                                let cc = cc.min(MAX_C as u32);
                                let colors = a.ptr::<u32>(place(&mut inp, COLORS));
                                let starts = a.ptr::<usize>(place(&mut inp, STARTS));
                                let order = a.ptr::<u32>(place(&mut inp, ORDER));
                                let s = xpbd_color_order(colors, lc, cc, starts, order);
                                if s.code() == 0 {
                                    color_count = cc;
                                }
                                (s, NONE)
                            }
                            3 => {
                                let sc = count(&mut inp, m, MAX_L);
                                let lc = count(&mut inp, m, MAX_L);
                                let links = a.ptr::<$Link>(place(&mut inp, LINKS));
                                let order = a.ptr::<u32>(place(&mut inp, ORDER));
                                let i = a.ptr::<u32>(place(&mut inp, I));
                                let j = a.ptr::<u32>(place(&mut inp, J));
                                let rest = a.ptr::<$T>(place(&mut inp, REST));
                                let compliance = a.ptr::<$T>(place(&mut inp, COMPLIANCE));
                                let lambda = a.ptr::<$T>(place(&mut inp, LAMBDA));
                                (
                                    $fill(links, sc, order, lc, i, j, rest, compliance, lambda),
                                    NONE,
                                )
                            }
                            4 => {
                                // (Re)configure the system's buffers and counts.
                                let (aos, soa) = match layout {
                                    0 => (true, false),
                                    1 => (false, true),
                                    2 => (true, true),
                                    _ => (false, false),
                                };
                                sys.positions = if aos {
                                    a.ptr(place(&mut inp, AOS))
                                } else {
                                    core::ptr::null_mut()
                                };
                                sys.x = if soa {
                                    a.ptr(place(&mut inp, X))
                                } else {
                                    core::ptr::null_mut()
                                };
                                sys.y = if soa {
                                    a.ptr(place(&mut inp, Y))
                                } else {
                                    core::ptr::null_mut()
                                };
                                sys.z = if soa {
                                    a.ptr(place(&mut inp, Z))
                                } else {
                                    core::ptr::null_mut()
                                };
                                sys.inverse_masses = a.ptr::<$T>(place(&mut inp, MASS));
                                sys.particle_count = count(&mut inp, n, MAX_P);
                                sys.i = a.ptr::<u32>(place(&mut inp, I));
                                sys.j = a.ptr::<u32>(place(&mut inp, J));
                                sys.rest = a.ptr::<$T>(place(&mut inp, REST));
                                sys.compliance = a.ptr::<$T>(place(&mut inp, COMPLIANCE));
                                sys.lambda = a.ptr(place(&mut inp, LAMBDA));
                                sys.alpha = a.ptr(place(&mut inp, ALPHA));
                                sys.inv_denominator = a.ptr(place(&mut inp, INV_DEN));
                                sys.link_count = count(&mut inp, m, MAX_L);
                                sys.color_starts = a.ptr::<usize>(place(&mut inp, STARTS));
                                sys.color_count = count(&mut inp, color_count as usize, MAX_C);
                                sys.stamp = a.ptr(place(&mut inp, STAMP));
                                continue;
                            }
                            5 | 6 => {
                                let stamp = region_of(&a, sys.stamp.cast_const().cast());
                                let s = $begin(&mut sys, inp.real());
                                (s, one(Some(stamp)))
                            }
                            7 | 8 => {
                                let mut st = core::mem::zeroed();
                                let out = if inp.byte() % 8 == 0 {
                                    core::ptr::null_mut()
                                } else {
                                    &mut st
                                };
                                ($iterate(&mut sys, out), sweep_regions)
                            }
                            9 => {
                                let color = usize::from(inp.byte() % 8);
                                let job = usize::from(inp.byte() % 4);
                                let jobs = usize::from(inp.byte() % 4);
                                let mut st = core::mem::zeroed();
                                let mut e = usize::MAX;
                                let out = if inp.byte() % 8 == 0 {
                                    core::ptr::null_mut()
                                } else {
                                    &mut st
                                };
                                let err = if inp.byte() % 8 == 0 {
                                    core::ptr::null_mut()
                                } else {
                                    &mut e as *mut usize
                                };
                                ($job(&sys, color, job, jobs, out, err), sweep_regions)
                            }
                            10 => {
                                let (b, e) = (usize::from(inp.byte()), usize::from(inp.byte()));
                                let (job, jobs) =
                                    (usize::from(inp.byte()), usize::from(inp.byte() % 8));
                                let (mut ob, mut oe) = (usize::MAX, usize::MAX);
                                let pb = if inp.byte() % 16 == 0 {
                                    core::ptr::null_mut()
                                } else {
                                    &mut ob as *mut usize
                                };
                                let pe = if inp.byte() % 16 == 0 {
                                    core::ptr::null_mut()
                                } else {
                                    &mut oe as *mut usize
                                };
                                let s = xpbd_job_range(b, e, job, jobs, pb, pe);
                                if s.code() != 0 {
                                    assert!(
                                        ob == usize::MAX && oe == usize::MAX,
                                        "job_range wrote on error"
                                    );
                                } else {
                                    assert!(
                                        b <= ob && ob <= oe && oe <= e.max(b),
                                        "job range {ob}..{oe} outside {b}..{e}"
                                    );
                                }
                                (s, NONE)
                            }
                            _ => {
                                let mut acc = $Stats {
                                    applied: usize::from(inp.byte()),
                                    skipped_static: 0,
                                    skipped_zero_length: 0,
                                    max_abs_c: inp.real(),
                                    max_residual: inp.real(),
                                };
                                let part = acc;
                                let pa = if inp.byte() % 16 == 0 {
                                    core::ptr::null_mut()
                                } else {
                                    &mut acc as *mut $Stats
                                };
                                let pp = match inp.byte() % 16 {
                                    0 => core::ptr::null(),
                                    1 => pa.cast_const(),
                                    _ => &part as *const $Stats,
                                };
                                ($merge(pa, pp), NONE)
                            }
                        }
                    };
                    assert!(documented(status), "undocumented status {}", status.code());
                    if status.code() < 0 {
                        assert!(
                            same_except(&a, &before, &may_write),
                            "op {op}: wrote on error {} outside {may_write:?}",
                            status.code()
                        );
                    }
                }
            }
        }
    };
}

colored_abi!(
    c64,
    f64,
    XpbdLink,
    XpbdColoredSystem3,
    XpbdSweepStats,
    xpbd_color_greedy,
    xpbd_colored_links_fill,
    xpbd_colored3_begin_substep,
    xpbd_colored3_iterate,
    xpbd_colored3_solve_job,
    xpbd_sweep_stats_merge
);
colored_abi!(
    c32,
    f32,
    XpbdLinkF32,
    XpbdColoredSystem3F32,
    XpbdSweepStatsF32,
    xpbd_color_greedy_f32,
    xpbd_colored_links_fill_f32,
    xpbd_colored3_begin_substep_f32,
    xpbd_colored3_iterate_f32,
    xpbd_colored3_solve_job_f32,
    xpbd_sweep_stats_merge_f32
);

/// The colored target: the first byte picks f64 or f32.
pub fn colored(data: &[u8]) {
    let (sel, rest) = data.split_first().map_or((0, data), |(s, r)| (*s, r));
    if sel % 2 == 0 {
        c64::colored(rest)
    } else {
        c32::colored(rest)
    }
}
