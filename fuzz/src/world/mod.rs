//! Fuzzing the system ABI (`xpbd_system{2,3}_*`, `xpbd_build_*{2,3}`, f64
//! and f32) and stepping (`xpbd_world3_step`, `xpbd_world3_add`,
//! `xpbd_world3_requirements`, f64 and f32) on one caller arena.
//!
//! The arena is [`REGIONS`] aligned regions of [`REGION`] bytes: positions,
//! inverse masses, links, velocities, heightfields, signed distance fields
//! (SDFs), planes, spheres, the outputs, the tearing block's maximum link
//! forces and torn-link list, capsules, boxes, engine contacts, the fields'
//! samples, the wind's triangles and per-particle wind, rest positions, and
//! last the world's memory ([`MEM_BYTES`] bytes over several regions).
//! Each buffer pointer of a call is its own region, another region (so
//! buffers overlap: the library must answer `ALIASED_BUFFERS` or work
//! correctly), or NULL; each count is the natural one or any count that
//! fits the region (so null with a non-zero count, too-small capacities and
//! zero counts are reached). Contents are arbitrary floats and indices.
//!
//! Output pointers (`out_stats`, `out`, `out_count`, the step's
//! `out_stats`) go to their own output region, NULL, anywhere in the arena
//! (inside a buffer of the call or not), over the call's struct (or the
//! step's configuration), or misaligned; between calls the system target
//! edits positions (NaN, ±∞ or any float).
//!
//! Checks after every call, besides no crash and no sanitizer report:
//! - the status is a documented code (`XPBD_STATUS_*`, −29 … 1);
//! - the documented refusals, modelled ([`Pre`]): when a buffer, the struct
//!   or an output is NULL with a count, misaligned or overlapping another,
//!   the policy unknown or no substep begun, the status is one the model
//!   allows and no caller byte changed (arena, struct and its slack); when
//!   the model accepts, none of ALIASED_BUFFERS, NULL_POINTER, NO_SUBSTEP;
//! - a non-finite position at `iterate` / `iterate_until`:
//!   NON_FINITE_POSITION, `error_index` naming a non-finite particle,
//!   nothing else written;
//! - on success nothing outside the call's writable buffers and its output
//!   changed; on an error not the output either;
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
//! - the step's world (issue 33): a chain of feature blocks (colliders,
//!   engine contacts, tearing, self-collision, wind, local space) in a
//!   byte-chosen order,
//!   built with `xpbd_world3_add` (the head added twice: INVALID_BLOCK),
//!   now and then hostile (a kind twice, a forged header: an unknown kind,
//!   the other precision's flag, a wrong size; a cycle). The model walks
//!   the chain as documented (at most `XPBD_MAX_BLOCKS`, known kinds of
//!   this precision at their size, each once): a bad chain is refused by
//!   `xpbd_world3_requirements` and the step with INVALID_BLOCK naming its
//!   position, nothing written; a valid one gets the documented
//!   requirements (scratch 3n + 2 links, the contact and pair budgets (the
//!   default contact budget particles × colliders, heightfields and SDFs
//!   counted), the hash buffers, the stamp; the memory size their bytes
//!   plus alignment). The memory is the size asked, one byte short,
//!   larger, NULL, misaligned, over another region or a struct:
//!   CAPACITY_TOO_SMALL with `XPBD_FIELD_MEMORY` and the bytes needed, or
//!   ALIASED_BUFFERS;
//! - `xpbd_world3_step`: every field of the world but `error_index` and
//!   `error_field`, and every block, never written (but a local-space
//!   block's `previous` and `teleport` after a success); a refusal's report
//!   matches its status (the block's position, the bytes needed, the
//!   policy's field, 0 and `XPBD_FIELD_NONE` for a buffer refusal);
//! - `xpbd_world3_step`, the values it validates before any write: a bad
//!   frame time (INVALID_TIME_STEP, `XPBD_FIELD_FRAME_TIME`) or
//!   configuration value (INVALID_CONFIG naming one of the bad fields),
//!   self-collision with radius ≤ 0 or non-finite rest positions
//!   (INVALID_SELF_COLLISION naming which), a maximum force not > 0
//!   (INVALID_MAX_FORCE naming the first such link), a wind block's
//!   non-finite velocity or per-particle wind, bad density or bad triangle
//!   (INVALID_WIND naming the first, in the documented order), a
//!   local-space block's non-finite or non-unit transform, inertia outside
//!   [0, 1] or negative or NaN limit (INVALID_LOCAL_SPACE naming the
//!   first, in the documented order; the block unwritten, and after a
//!   success `previous ← target`, `teleport ← 0`, nothing else): the step
//!   fails and writes nothing; CAPACITY_TOO_SMALL after the checks only under the
//!   reject policy, naming `XPBD_FIELD_CONTACTS` or `XPBD_FIELD_PAIRS` with
//!   a count beyond that budget;
//! - `xpbd_world3_step` on error: positions, velocities, inverse masses,
//!   planes, spheres, capsules, boxes, heightfields, SDFs, samples, maximum
//!   forces and rest positions unchanged (λ, the memory and the engine
//!   contacts' λ and `impulse` are per-substep state the library may leave
//!   written, as documented), and every engine contact's `force` unchanged;
//! - `xpbd_world3_step` always: capsules, boxes, heightfields, SDFs and
//!   samples never written, an engine contact's own fields (particle,
//!   normal, point, velocity, friction) never written; a capsule, box,
//!   field or engine contact the model finds invalid (not finite, negative
//!   radius, extent or friction, axes not orthonormal within 1e-3, a zero
//!   normal, a particle out of range; a field's node count below 2 on an
//!   axis, its spacing or cell not > 0, its sample range `first .. first +
//!   product(counts)` overflowing or past `sample_count`, or a non-finite
//!   sample inside that range: one outside every field's range does not
//!   count) fails the step, and `INVALID_COLLIDER` names exactly the first
//!   invalid collider (planes, spheres, capsules, boxes, heightfields,
//!   SDFs, then engine contacts);
//! - `xpbd_world3_step` on success: every position, velocity, engine
//!   contact λ, impulse and force finite, the forces ≥ 0; the statistics
//!   within the budgets.
//!
//! The step's capsules, boxes, heightfields, SDFs and engine contacts are
//! valid (three in four: moderate values, boxes turned by a random
//! rotation, fields too half the time, fields of 2 … 4 nodes per axis with
//! their sample range inside the samples), valid but for one hostile field (NaN, ±∞, ±MAX,
//! −1, 1e30, a subnormal, −0, raw bits; a box's or field's axes skewed,
//! stretched, repeated or zeroed; a contact's particle out of range or its
//! normal zero; a field's count 0, 1 or huge, the three counts' product
//! overflowing, a zero or negative spacing or cell, its first sample past
//! the end or `first + count` overflowing), or raw values. The samples
//! (up to the region's worth) are moderate (one level or a pseudo-random
//! walk), up to two of the region hostile (inside a field's range or not,
//! inside the array or past it). Their arrays may also be NULL with a
//! count, misaligned, over another buffer, over the world struct, the
//! configuration or the blocks (the fields' three arrays one run in four;
//! otherwise in their regions); between frames one of them (or a sample,
//! a position, or a rest position) may be rewritten, NaN included. The
//! frame time is 1/60 or 1/30 s three times in four, any float otherwise.

use xpbd::ffi::XpbdStatus;
use xpbd::ffi::*;

use crate::{same_outside, Held, Input, Place, Pre, Span};

pub use crate::REGION;
/// Regions in the arena (the last 16 are the step's memory).
pub const REGIONS: usize = MEM + MEM_REGIONS;
const POS: usize = 0;
const MASS: usize = 1;
const LINKS: usize = 2;
const VEL: usize = 3;
/// The colliders block's heightfields.
const HFIELDS: usize = 4;
/// The colliders block's signed distance fields.
const SDFS: usize = 5;
const PLANES: usize = 6;
const SPHERES: usize = 7;
/// The outputs' own regions (`out_stats`, `out`, `out_count`).
const OUT: usize = 8;
/// The tearing block's `max_force` (N per link).
const MAXF: usize = 10;
/// The tearing block's `torn` list.
const TORN: usize = 11;
/// The colliders block's capsules.
const CAPSULES: usize = 12;
/// The colliders block's boxes.
const BOXES: usize = 13;
/// The engine contacts block's contacts.
const ENGINE: usize = 14;
/// The colliders block's samples (heightfields' and SDFs').
const SAMPLES: usize = 15;
/// The wind block's triangles.
const TRIS: usize = 16;
/// The wind block's per-particle wind.
const PWIND: usize = 17;
/// The self-collision block's rest positions.
const REST: usize = 19;
/// The world's memory: the first of its regions.
const MEM: usize = 20;
/// Regions of the world's memory.
const MEM_REGIONS: usize = 16;
/// Bytes of the world's memory area.
pub const MEM_BYTES: usize = MEM_REGIONS * REGION;

#[repr(C, align(8))]
#[derive(Clone, Copy)]
pub(crate) struct Arena([[u8; REGION]; REGIONS]);

impl Arena {
    fn region(&mut self, r: usize) -> *mut u8 {
        self.0[r].as_mut_ptr()
    }
    fn base(&mut self) -> *mut u8 {
        self.0.as_mut_ptr().cast()
    }
    fn bytes(&self) -> &[u8] {
        self.0.as_flattened()
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
    (-29..=1).contains(&s.code())
}

/// Bytes `[r·REGION + k·size, + size)` of the two arenas are equal.
fn same_elem(a: &Arena, b: &Arena, r: usize, k: usize, size: usize) -> bool {
    let lo = k * size;
    let hi = (lo + size).min(REGION);
    lo >= REGION || a.0[r][lo..hi] == b.0[r][lo..hi]
}

#[macro_use]
mod step_parts;
mod step;
mod system;

/// The byte offset of `p` in the arena at `base` (None outside it).
fn offset_in(p: *const u8, base: *const u8) -> Option<usize> {
    let off = (p as usize).checked_sub(base as usize)?;
    (off < REGIONS * REGION).then_some(off)
}

/// Reads an `E` at byte `off` of an arena (None past its end).
fn read_at<E: Copy>(a: &Arena, off: usize) -> Option<E> {
    let bytes = a.bytes();
    (off.checked_add(core::mem::size_of::<E>())? <= bytes.len())
        // SAFETY: in bounds (checked); an unaligned read of plain data.
        .then(|| unsafe { bytes.as_ptr().add(off).cast::<E>().read_unaligned() })
}

/// Writes an `E` at byte `off` of an arena (nothing past its end).
fn write_at<E: Copy>(a: &mut Arena, off: usize, e: E) {
    if off + core::mem::size_of::<E>() <= REGIONS * REGION {
        // SAFETY: in bounds (checked); an unaligned write of plain data.
        unsafe { a.base().add(off).cast::<E>().write_unaligned(e) };
    }
}

/// The `count` elements of the array `p` of an arena at `base`, read from
/// the snapshot `a` (empty for a zero count; the caller knows that `p` is
/// in the arena, the model having accepted the call).
fn elems<E: Copy>(a: &Arena, base: *const u8, p: *const E, count: usize) -> Vec<E> {
    if count == 0 {
        return Vec::new();
    }
    let off = offset_in(p.cast(), base).expect("an accepted array is in the arena");
    let size = core::mem::size_of::<E>();
    (0..count)
        .map(|k| read_at(a, off + k * size).expect("an accepted array fits the arena"))
        .collect()
}

/// Where a capsule, box, engine-contact or rest-position array goes: a
/// region of the arena (its own, another or NULL, as [`buffer`]),
/// misaligned in it, or over one of the held `structs` (the world, the
/// configuration, the blocks); the pointer, its region (None when NULL or
/// outside the arena) and the count.
fn site<E>(
    inp: &mut Input<'_>,
    a: &mut Arena,
    own: usize,
    natural: usize,
    structs: &[(*mut u8, usize)],
) -> (*mut E, Option<usize>, usize) {
    let (r, count) = buffer::<E>(inp, own, natural);
    let size = core::mem::size_of::<E>();
    let s = inp.byte();
    match (s % 16, r) {
        (0 | 1, _) => {
            let (p, len) = structs[usize::from(inp.byte()) % structs.len()];
            let off = 8 * (usize::from(inp.byte()) % (len / 8));
            (p.wrapping_add(off).cast(), None, 1 + count % 2)
        }
        (2, Some(r)) => {
            let off = 1 + usize::from(inp.byte() % 7);
            let count = count.min((REGION - off) / size);
            (a.region(r).wrapping_add(off).cast(), Some(r), count)
        }
        _ => (ptr_of(a, r), r, count),
    }
}

/// The system target: the first byte picks 3D f64, 3D f32, 2D f64 or 2D f32.
pub fn system(data: &[u8]) {
    let (sel, rest) = data.split_first().map_or((0, data), |(s, r)| (*s, r));
    match sel % 4 {
        0 => system::s3::system(rest),
        1 => system::s3f::system(rest),
        2 => system::s2::system(rest),
        _ => system::s2f::system(rest),
    }
}

/// The step target: the first byte picks f64 or f32.
pub fn step(data: &[u8]) {
    let (sel, rest) = data.split_first().map_or((0, data), |(s, r)| (*s, r));
    if sel % 2 == 0 {
        step::w3::step(rest)
    } else {
        step::w3f::step(rest)
    }
}
