//! Fuzzing the colored ABI (3D, f64 and f32): colorings (`xpbd_color_rope`,
//! `xpbd_color_cloth`, `xpbd_color_greedy`, `xpbd_color_order`), the link
//! fill (`xpbd_colored_links_fill`), the SIMD link system
//! (`xpbd_simd_links3_begin_substep`, `xpbd_simd_links3_iterate`,
//! `xpbd_simd_links3_solve_job`), `xpbd_job_range` and
//! `xpbd_sweep_stats_merge`, on one caller arena of [`REGIONS`] regions
//! (one per buffer; a pointer may be NULL or land in another buffer's
//! region, so overlaps are reached), with arbitrary floats, indices,
//! counts, colorings (proper or not) and AoS / SoA / both / neither.
//!
//! Outputs go to their own output regions, NULL, anywhere in the arena,
//! over the struct, over the call's other output or misaligned; positions
//! are edited between calls (NaN, ±∞ or any float); whole sweeps by jobs
//! (with mismatched jobs injected) are compared with
//! `xpbd_simd_links3_iterate` on a copy of the arena.
//!
//! Checks after every call, besides no crash and no sanitizer report: the
//! status is documented (−21 … 1); the documented refusals, modelled
//! ([`Pre`]: buffers, struct and outputs NULL with a count, misaligned or
//! overlapping, unknown policy, layout, no substep, bad h, color or job out
//! of range, the job contract): that status and no byte written but the
//! stamp; a NON_FINITE_POSITION names a non-finite particle and no link of
//! one is applied; when the model accepts a job, no JOB_CONTRACT; a sweep by
//! jobs is bit-identical to `iterate` (positions, λ, merged statistics)
//! when `iterate` succeeds; and on an error:
//! - colorings, order, fill, job range: nothing written (outputs written
//!   only on success; the greedy coloring's `scratch` excepted);
//! - `begin_substep`: no byte of the arena written except the `stamp`
//!   scratch of the coloring check;
//! - `iterate` / `solve_job` (per link, documented: the rest of the color
//!   is applied): only the positions and λ regions may have changed.

use xpbd::ffi::XpbdStatus;
use xpbd::ffi::*;
use xpbd::ffi::{XpbdLink, XpbdLinkF32, XpbdSweepStats, XpbdSweepStatsF32};

use crate::{same_outside, Held, Input, Place, Pre, Span};

pub use crate::REGION;
/// Regions in the arena.
pub const REGIONS: usize = 20;
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
/// The outputs' own regions (`out_stats`, `out_error_index`, `out_begin`,
/// `out_end`).
const OUT: usize = 18;
const OUT2: usize = 19;

/// docs/c-api.md ("Edits inside a substep"): `xpbd_simd_links3_iterate`
/// re-checks every position first and writes nothing when one is NaN or
/// infinite. This target found that the library once solved color by color
/// and named a non-finite particle only from a failing link (a NaN particle
/// of a later color left the earlier colors applied, one in no link gave
/// `XPBD_STATUS_OK`); fixed, and asserted. Off, the target would still
/// check that a NON_FINITE_POSITION names a non-finite particle and that no
/// link of a non-finite particle is applied.
const STRICT_COLORED_NAN: bool = true;

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
    fn base(&mut self) -> *mut u8 {
        self.0.as_mut_ptr().cast()
    }
    fn bytes(&self) -> &[u8] {
        self.0.as_flattened()
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
    (-23..=1).contains(&s.code())
}

/// No region.
const NONE: [usize; 5] = [usize::MAX; 5];

/// One region (or none).
fn one(r: Option<usize>) -> [usize; 5] {
    let mut out = NONE;
    out[0] = r.unwrap_or(usize::MAX);
    out
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

#[macro_use]
mod harness;

colored_abi!(
    c64,
    f64,
    XpbdLink,
    XpbdSimdLinks3,
    XpbdSweepStats,
    xpbd_color_greedy,
    xpbd_colored_links_fill,
    xpbd_simd_links3_begin_substep,
    xpbd_simd_links3_iterate,
    xpbd_simd_links3_solve_job,
    xpbd_sweep_stats_merge
);
colored_abi!(
    c32,
    f32,
    XpbdLinkF32,
    XpbdSimdLinks3F32,
    XpbdSweepStatsF32,
    xpbd_color_greedy_f32,
    xpbd_colored_links_fill_f32,
    xpbd_simd_links3_begin_substep_f32,
    xpbd_simd_links3_iterate_f32,
    xpbd_simd_links3_solve_job_f32,
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
