//! Fuzzing the system ABI (`xpbd_system{2,3}_*`, `xpbd_build_*{2,3}`, f64
//! and f32) and stepping (`xpbd_world3_step`, f64 and f32) on one caller
//! arena.
//!
//! The arena is [`REGIONS`] aligned regions of [`REGION`] bytes: positions,
//! inverse masses, links, velocities, scratch, contacts, planes, spheres,
//! the step's maximum link forces and its torn-link list, capsules, boxes
//! and engine contacts.
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
//! - the status is a documented code (`XPBD_STATUS_*`, −21 … 1);
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
//! - `xpbd_world3_step` on error: positions, velocities, inverse masses,
//!   planes, spheres, capsules and boxes unchanged (λ, contacts and scratch
//!   are per-substep state the library may leave written, as documented,
//!   and so are the engine contacts' λ and `impulse`), and every engine
//!   contact's `force` unchanged;
//! - `xpbd_world3_step` always: capsules and boxes never written, an
//!   engine contact's own fields (particle, normal, point, velocity,
//!   friction) never written; a capsule, box or engine contact the model
//!   finds invalid (not finite, negative radius, extent or friction, axes
//!   not orthonormal within 1e-3, a zero normal, a particle out of range)
//!   fails the step, and `INVALID_COLLIDER` names exactly the first invalid
//!   collider (planes, spheres, capsules, boxes, then engine contacts);
//! - `xpbd_world3_step` on success: every position, velocity, engine
//!   contact λ, impulse and force finite, the forces ≥ 0.
//!
//! The step's capsules, boxes and engine contacts are valid (three in
//! four: moderate values, boxes turned by a random rotation), valid but
//! for one hostile field (NaN, ±∞, ±MAX, −1, 1e30, a subnormal, −0, raw
//! bits; a box's axes skewed, stretched, repeated or zeroed; a contact's
//! particle out of range or its normal zero), or raw floats; their arrays
//! may also be NULL with a count, misaligned, over another buffer, over
//! the world struct or over the configuration; between frames one of them
//! (or a position) may be rewritten, NaN included. The frame time is 1/60
//! or 1/30 s three times in four, any float otherwise.

use xpbd::ffi::XpbdStatus;
use xpbd::ffi_step::*;
use xpbd::ffi_system::*;
use xpbd::ffi_system_fns::*;

use crate::{same_outside, Held, Input, Place, Pre, Span};

pub use crate::REGION;
/// Regions in the arena.
pub const REGIONS: usize = 20;
const POS: usize = 0;
const MASS: usize = 1;
const LINKS: usize = 2;
const VEL: usize = 3;
const SCRATCH: usize = 4;
const CONTACTS: usize = 5;
const PLANES: usize = 6;
const SPHERES: usize = 7;
/// The outputs' own regions (`out_stats`, `out`, `out_count`).
const OUT: usize = 8;
/// The step's `link_max_force` (N per link).
const MAXF: usize = 10;
/// The step's `torn` list.
const TORN: usize = 11;
/// The step's capsules.
const CAPSULES: usize = 12;
/// The step's boxes.
const BOXES: usize = 13;
/// The step's engine contacts.
const ENGINE: usize = 14;
/// Self-collision: the pair storage.
const PAIRS: usize = 15;
/// Self-collision: the hash table.
const TABLE: usize = 16;
/// Self-collision: the particle ids.
const IDS: usize = 17;
/// Self-collision: the adjacency.
const ADJ: usize = 18;
/// Self-collision: the rest positions.
const REST: usize = 19;

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
    (-23..=1).contains(&s.code())
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

            /// Every field of two system structs is the same (h by bits).
            fn same_struct(x: &$Sys, y: &$Sys) -> bool {
                x.positions == y.positions
                    && x.inverse_masses == y.inverse_masses
                    && x.particle_count == y.particle_count
                    && x.links == y.links
                    && x.link_count == y.link_count
                    && x.zero_length_policy == y.zero_length_policy
                    && x.substep_active == y.substep_active
                    && x.h.to_bits() == y.h.to_bits()
                    && x.error_index == y.error_index
            }

            /// Position `k` of the positions region `p` (None past the region).
            fn pos_at(a: &Arena, p: usize, k: usize) -> Option<[$T; $D]> {
                let size = core::mem::size_of::<[$T; $D]>();
                let lo = k * size;
                // SAFETY: in bounds (checked); an unaligned read of plain data.
                (lo + size <= REGION)
                    .then(|| unsafe { a.0[p].as_ptr().add(lo).cast::<[$T; $D]>().read_unaligned() })
            }

            /// Whether particle `k` of region `p` has a NaN or infinite coordinate.
            fn non_finite(a: &Arena, p: usize, k: usize) -> bool {
                pos_at(a, p, k).is_some_and(|x| !x.iter().all(|c| c.is_finite()))
            }

            /// An edit between iterations (the C contract allows moving
            /// particles inside a substep): one coordinate of one particle
            /// becomes NaN, ±infinity or any float (a legal move when finite).
            fn edit(inp: &mut Input<'_>, a: &mut Arena, s: &$Sys, pr: Option<usize>) {
                let Some(p) = pr else { return };
                if s.particle_count == 0 {
                    return;
                }
                let k = usize::from(inp.byte()) % s.particle_count;
                let d = usize::from(inp.byte()) % $D;
                let v: $T = match inp.byte() % 4 {
                    0 => <$T>::NAN,
                    1 => <$T>::INFINITY,
                    2 => <$T>::NEG_INFINITY,
                    _ => inp.real(),
                };
                a.put(p, k * $D + d, v);
            }

            /// The system target: up to 16 calls of the system ABI and builders,
            /// and edits of positions between them.
            pub fn system(data: &[u8]) {
                let mut inp = Input::new(data);
                let mut a = Arena([[0; REGION]; REGIONS]);
                let n = usize::from(inp.byte() % 12);
                let m = usize::from(inp.byte() % 16);
                fill(&mut inp, &mut a, n, m);
                let (pr, pc) = buffer::<[$T; $D]>(&mut inp, POS, n);
                let (mr, mc) = buffer::<$T>(&mut inp, MASS, n);
                let (lr, lc) = buffer::<$Link>(&mut inp, LINKS, m);
                let mut h = Held::new($Sys {
                    positions: ptr_of(&mut a, pr),
                    inverse_masses: ptr_of::<$T>(&mut a, mr),
                    particle_count: pc.min(mc),
                    links: ptr_of(&mut a, lr),
                    link_count: lc,
                    zero_length_policy: i32::from(inp.byte() % 3),
                    substep_active: 0,
                    h: 0.0,
                    error_index: 0,
                });
                if inp.byte() % 8 == 0 {
                    h.s.particle_count = pc; // a count that may not match the masses' region
                }
                let base = a.base();
                let own = OUT * REGION;
                let size_sys = core::mem::size_of::<$Sys>();
                let mut calls = 0;
                while !inp.is_empty() && calls < 16 {
                    calls += 1;
                    let before = a;
                    let sb = h.s;
                    let op = inp.byte() % 9;
                    if op == 8 {
                        edit(&mut inp, &mut a, &sb, pr);
                        continue;
                    }
                    let held = core::ptr::addr_of_mut!(h).cast::<u8>();
                    let sysp = core::ptr::addr_of_mut!(h.s);
                    let bufs = [
                        Span::of(sb.positions, sb.particle_count),
                        Span::of(sb.inverse_masses, sb.particle_count),
                        Span::of(sb.links, sb.link_count),
                        Span::of(sysp, 1),
                    ];
                    let (pos_span, link_span) = (bufs[0].range(), bufs[2].range());
                    // What the documented checks refuse before any work.
                    let mut pre = Pre::default();
                    if matches!(op, 2..=5) && sb.substep_active != 1 {
                        pre.add(XpbdStatus::NoSubstep);
                    }
                    if op <= 5 && !matches!(sb.zero_length_policy, 0 | 1) {
                        pre.add(XpbdStatus::InvalidArgument); // an unknown policy code
                    }
                    // The spans a success may write (buffers, then the output).
                    let mut ok_spans = [pos_span, link_span, None];
                    // SAFETY: every pointer is NULL, into the arena with a count that
                    // fits its region, or into `h` (struct and slack); the arena and
                    // `h` outlive the calls.
                    let status = unsafe {
                        match op {
                            0 | 1 => {
                                pre.buffers(&bufs);
                                ok_spans[0] = None;
                                $begin(sysp, inp.real())
                            }
                            2..=5 => {
                                let size = if op == 4 {
                                    core::mem::size_of::<xpbd::Convergence<$T>>()
                                } else {
                                    core::mem::size_of::<xpbd::SweepStats<$T>>()
                                };
                                let place =
                                    Place::pick(&mut inp, REGIONS, own, size, size_sys, None);
                                let out = place.ptr::<u8>(base, held);
                                let o = if op == 4 {
                                    Span::out(out.cast::<xpbd::Convergence<$T>>())
                                } else {
                                    Span::out(out.cast::<xpbd::SweepStats<$T>>())
                                };
                                let out_span = o.range();
                                ok_spans[2] = out_span;
                                if op == 5 {
                                    // measure: the output is required; it writes nothing else.
                                    ok_spans = [None, None, out_span];
                                    if out.is_null() {
                                        pre = Pre::default();
                                        pre.add(XpbdStatus::NullPointer);
                                    }
                                }
                                pre.buffers(&[bufs[0], bufs[1], bufs[2], bufs[3], o]);
                                match op {
                                    4 => $until(
                                        sysp,
                                        inp.real(),
                                        u32::from(inp.byte() % 8),
                                        out.cast(),
                                    ),
                                    5 => $measure(sysp, out.cast()),
                                    _ => $iterate(sysp, out.cast()),
                                }
                            }
                            _ => {
                                let (s, p, spans) = build(&mut inp, &mut a, op);
                                pre = p;
                                ok_spans = spans;
                                s
                            }
                        }
                    };
                    assert!(documented(status), "undocumented status {}", status.code());
                    assert!(h.slack == [0; 8], "op {op} wrote past the struct");
                    if !pre.is_empty() {
                        // A call the documented checks refuse: that status, no
                        // byte of the arena changed, and on ALIASED_BUFFERS (or
                        // NO_SUBSTEP, NULL_POINTER) not the struct either (a
                        // begin_substep clears substep_active first).
                        assert!(
                            pre.contains(status),
                            "op {op}: status {} where the model refuses ({:#x})",
                            status.code(),
                            pre.0
                        );
                        assert!(
                            same_all(&a, &before),
                            "op {op}: wrote on refused {}",
                            status.code()
                        );
                        let mut want = sb;
                        if op <= 1 {
                            want.substep_active = 0;
                        }
                        if matches!(
                            status,
                            XpbdStatus::AliasedBuffers
                                | XpbdStatus::NoSubstep
                                | XpbdStatus::NullPointer
                        ) {
                            assert!(
                                same_struct(&h.s, &want),
                                "op {op}: refused call wrote the struct"
                            );
                        }
                        continue;
                    }
                    assert!(
                        !matches!(
                            status,
                            XpbdStatus::AliasedBuffers
                                | XpbdStatus::NoSubstep
                                | XpbdStatus::NullPointer
                        ),
                        "op {op}: {} though every buffer is valid and disjoint",
                        status.code()
                    );
                    // A non-finite position (an edit between iterations): iterate
                    // and iterate_until answer NON_FINITE_POSITION naming it and
                    // write nothing but error_index.
                    let bad = match pr {
                        Some(p) if matches!(op, 2..=4) => {
                            (0..sb.particle_count).find(|k| non_finite(&before, p, *k))
                        }
                        _ => None,
                    };
                    if let (Some(bad), Some(p)) = (bad, pr) {
                        assert_eq!(
                            status,
                            XpbdStatus::NonFinitePosition,
                            "op {op}: particle {bad} is not finite"
                        );
                        assert!(
                            non_finite(&before, p, h.s.error_index),
                            "op {op}: error_index {} names a finite particle ({bad} is not)",
                            h.s.error_index
                        );
                        assert!(
                            same_all(&a, &before),
                            "op {op}: wrote with a non-finite position"
                        );
                        let mut want = sb;
                        want.error_index = h.s.error_index;
                        assert!(same_struct(&h.s, &want), "op {op}: wrote the struct");
                        continue;
                    }
                    if status.code() == 0 {
                        assert!(
                            same_outside(a.bytes(), before.bytes(), base as usize, &ok_spans),
                            "op {op}: success wrote outside its buffers and output"
                        );
                    } else if status.code() < 0 {
                        // The system struct: only the library's diagnostic fields.
                        assert!(
                            h.s.positions == sb.positions
                                && h.s.inverse_masses == sb.inverse_masses
                                && h.s.particle_count == sb.particle_count
                                && h.s.links == sb.links
                                && h.s.link_count == sb.link_count
                                && h.s.zero_length_policy == sb.zero_length_policy
                        );
                        // Outputs are written only on success.
                        ok_spans[2] = None;
                        assert!(
                            same_outside(a.bytes(), before.bytes(), base as usize, &ok_spans),
                            "op {op}: error {} wrote outside its buffers",
                            status.code()
                        );
                        match op {
                            2 | 3 => iterate_error(&a, &before, &h.s, pr, lr),
                            // Earlier sweeps of iterate_until may have succeeded: only
                            // the per-link rule of the failed sweep's own changes holds,
                            // which this harness cannot see; the other regions must not
                            // change, and nothing must change over NULL or aliased
                            // buffers.
                            4 => {
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

            /// One builder call (rope, loop or cloth), positions from the arena,
            /// links into the arena, `out_count` anywhere (its own region,
            /// NULL, over the positions or links, misaligned): the status, what
            /// the documented checks refuse, and the spans a success may write.
            ///
            /// # Safety
            /// As the builders.
            unsafe fn build(
                inp: &mut Input<'_>,
                a: &mut Arena,
                op: u8,
            ) -> (XpbdStatus, Pre, [Option<(usize, usize)>; 3]) {
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
                let place = Place::pick(inp, REGIONS, OUT * REGION, 8, 0, None);
                let out = place.ptr::<usize>(a.base(), core::ptr::null_mut());
                let (rope, rows) = if op == 6 {
                    (inp.byte() % 2, 0)
                } else {
                    (2, usize::from(inp.byte() % 5))
                };
                let cols = if rows == 0 { 0 } else { pc / rows };
                let particles = if op == 6 { pc } else { rows * cols };
                let mut pre = Pre::default();
                let bufs = [
                    Span::of(pos.cast_const(), particles * $D),
                    Span::of(links, lc),
                    Span::of(out, 1),
                ];
                if out.is_null() {
                    pre.add(XpbdStatus::NullPointer);
                } else {
                    pre.buffers(&bufs);
                }
                // SAFETY: forwarded.
                let s = unsafe {
                    match rope {
                        0 => $rope(pos, pc, compliance, links, lc, out),
                        1 => $loop_(pos, pc, compliance, links, lc, out),
                        _ => $cloth(
                            pos,
                            rows,
                            cols,
                            i32::from(inp.byte() % 3),
                            compliance,
                            links,
                            lc,
                            out,
                        ),
                    }
                };
                (s, pre, [None, bufs[1].range(), bufs[2].range()])
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

/// Where a capsule, box or engine-contact array goes: a region of the
/// arena (its own, another or NULL, as [`buffer`]), misaligned in it, over
/// the world struct or over the configuration; the pointer, its region
/// (None when NULL or outside the arena) and the count.
fn site<E>(
    inp: &mut Input<'_>,
    a: &mut Arena,
    own: usize,
    natural: usize,
    structs: [(*mut u8, usize); 2],
) -> (*mut E, Option<usize>, usize) {
    let (r, count) = buffer::<E>(inp, own, natural);
    let size = core::mem::size_of::<E>();
    let s = inp.byte();
    match (s % 16, r) {
        (0 | 1, _) => {
            let (p, len) = structs[usize::from(s % 2)];
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

/// The step harness for one precision.
macro_rules! step_abi {
    ($m:ident, $sysm:ident, $T:ty, $Link:ident, $World:ident, $Plane:ident, $Sphere:ident,
     $Contact:ident, $Capsule:ident, $Box:ident, $Engine:ident, $Pair:ident, $StepStats:ident,
     $default:ident, $step:ident) => {
        /// The step harness for one precision.
        pub mod $m {
            #[allow(unused_imports)]
            use super::*;
            use xpbd_scenarios::Scalar;

            /// A moderate float: a multiple of 1/16 in [−8, 8).
            fn nice(inp: &mut Input<'_>) -> $T {
                #[allow(clippy::cast_possible_wrap)]
                let b = inp.byte() as i8;
                <$T>::from(b) / 16.0
            }

            fn nice3(inp: &mut Input<'_>) -> [$T; 3] {
                [nice(inp), nice(inp), nice(inp)]
            }

            /// A moderate non-negative float (a radius, a friction).
            fn small(inp: &mut Input<'_>) -> $T {
                nice(inp).abs() / 4.0
            }

            /// A hostile value for one field.
            fn hostile(inp: &mut Input<'_>) -> $T {
                match inp.byte() % 10 {
                    0 => <$T>::NAN,
                    1 => <$T>::INFINITY,
                    2 => <$T>::NEG_INFINITY,
                    3 => <$T>::MAX,
                    4 => -<$T>::MAX,
                    5 => -1.0,
                    6 => 1e30,
                    7 => <$T>::MIN_POSITIVE / 4.0,
                    8 => -0.0,
                    _ => inp.real(),
                }
            }

            /// A capsule: valid, valid but for one hostile field, or raw.
            fn capsule(inp: &mut Input<'_>) -> $Capsule {
                let mode = inp.byte() % 16;
                if mode == 15 {
                    return $Capsule {
                        center: [inp.real(), inp.real(), inp.real()],
                        half_axis: [inp.real(), inp.real(), inp.real()],
                        radius: inp.real(),
                        velocity: [inp.real(), inp.real(), inp.real()],
                        angular_velocity: [inp.real(), inp.real(), inp.real()],
                        static_friction: inp.real(),
                        dynamic_friction: inp.real(),
                    };
                }
                let mut c = $Capsule {
                    center: nice3(inp),
                    half_axis: nice3(inp).map(|v| v / 4.0),
                    radius: small(inp),
                    velocity: nice3(inp),
                    angular_velocity: nice3(inp),
                    static_friction: small(inp),
                    dynamic_friction: small(inp),
                };
                if mode >= 12 {
                    let v = hostile(inp);
                    let k = usize::from(inp.byte() % 15);
                    *match k {
                        0..=2 => &mut c.center[k],
                        3..=5 => &mut c.half_axis[k - 3],
                        6 => &mut c.radius,
                        7..=9 => &mut c.velocity[k - 7],
                        10..=12 => &mut c.angular_velocity[k - 10],
                        13 => &mut c.static_friction,
                        _ => &mut c.dynamic_friction,
                    } = v;
                }
                c
            }

            /// The rows of the rotation of a random quaternion (identity
            /// for a zero one).
            fn rotation(inp: &mut Input<'_>) -> [[$T; 3]; 3] {
                let q = [nice(inp), nice(inp), nice(inp), nice(inp)];
                let l2: $T = q.iter().map(|v| v * v).sum();
                if l2 == 0.0 {
                    return [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
                }
                let [w, x, y, z] = q.map(|v| v / l2.sqrt());
                [
                    [
                        1.0 - 2.0 * (y * y + z * z),
                        2.0 * (x * y - w * z),
                        2.0 * (x * z + w * y),
                    ],
                    [
                        2.0 * (x * y + w * z),
                        1.0 - 2.0 * (x * x + z * z),
                        2.0 * (y * z - w * x),
                    ],
                    [
                        2.0 * (x * z - w * y),
                        2.0 * (y * z + w * x),
                        1.0 - 2.0 * (x * x + y * y),
                    ],
                ]
            }

            /// A box: valid (a random rotation), valid but for one hostile
            /// field or skewed, stretched, repeated or zeroed axes, or raw.
            fn oriented_box(inp: &mut Input<'_>) -> $Box {
                let mode = inp.byte() % 16;
                if mode == 15 {
                    let r3 = |inp: &mut Input<'_>| [inp.real(), inp.real(), inp.real()];
                    return $Box {
                        center: r3(inp),
                        axes: [r3(inp), r3(inp), r3(inp)],
                        half_extents: r3(inp),
                        velocity: r3(inp),
                        angular_velocity: r3(inp),
                        static_friction: inp.real(),
                        dynamic_friction: inp.real(),
                    };
                }
                let mut b = $Box {
                    center: nice3(inp),
                    axes: rotation(inp),
                    half_extents: [small(inp), small(inp), small(inp)],
                    velocity: nice3(inp),
                    angular_velocity: nice3(inp),
                    static_friction: small(inp),
                    dynamic_friction: small(inp),
                };
                if mode >= 12 {
                    let (i, j) = (usize::from(inp.byte() % 3), usize::from(inp.byte() % 3));
                    match inp.byte() % 4 {
                        0 | 1 => {
                            let v = hostile(inp);
                            let k = usize::from(inp.byte() % 14);
                            *match k {
                                0..=2 => &mut b.center[k],
                                3 => &mut b.axes[i][j],
                                4..=6 => &mut b.half_extents[k - 4],
                                7..=9 => &mut b.velocity[k - 7],
                                10..=12 => &mut b.angular_velocity[k - 10],
                                _ => &mut b.static_friction,
                            } = v;
                        }
                        // Skewed: off by a little (within 1e-3 or not) or a lot.
                        2 => {
                            const SKEW: [f64; 6] = [1e-5, 4e-4, 6e-4, 2e-3, 0.1, -0.5];
                            let d = SKEW[usize::from(inp.byte() % 6)];
                            b.axes[i][j] += <$T as xpbd::Real>::from_f64(d);
                        }
                        _ => match inp.byte() % 4 {
                            0 => b.axes[i] = b.axes[j],
                            1 => b.axes[i] = [0.0; 3],
                            2 => b.axes[i] = b.axes[i].map(|v| -v), // a reflection: still orthonormal
                            _ => b.axes[i] = b.axes[i].map(|v| v * 1.01),
                        },
                    }
                }
                b
            }

            /// An engine contact of one of `n` particles: valid, valid but
            /// for one hostile field, a particle out of range or a zero (or
            /// extreme) normal, or raw; λ, impulse and force arbitrary.
            fn engine_contact(inp: &mut Input<'_>, n: usize) -> $Engine {
                let mode = inp.byte() % 16;
                let n32 = u32::try_from(n).unwrap_or(u32::MAX);
                if mode == 15 {
                    let r3 = |inp: &mut Input<'_>| [inp.real(), inp.real(), inp.real()];
                    #[allow(clippy::cast_possible_truncation)]
                    let particle = inp.bits(4) as u32;
                    return $Engine {
                        particle,
                        normal: r3(inp),
                        point: r3(inp),
                        velocity: r3(inp),
                        static_friction: inp.real(),
                        dynamic_friction: inp.real(),
                        lambda: inp.real(),
                        impulse: inp.real(),
                        force: inp.real(),
                    };
                }
                let mut e = $Engine {
                    particle: u32::from(inp.byte()) % n32.max(1),
                    normal: nice3(inp),
                    point: nice3(inp),
                    velocity: nice3(inp).map(|v| v / 4.0),
                    static_friction: small(inp),
                    dynamic_friction: small(inp),
                    lambda: inp.real(),
                    impulse: inp.real(),
                    force: inp.real(),
                };
                if mode >= 12 {
                    match inp.byte() % 4 {
                        0 | 1 => {
                            let v = hostile(inp);
                            let k = usize::from(inp.byte() % 11);
                            *match k {
                                0..=2 => &mut e.normal[k],
                                3..=5 => &mut e.point[k - 3],
                                6..=8 => &mut e.velocity[k - 6],
                                9 => &mut e.static_friction,
                                _ => &mut e.dynamic_friction,
                            } = v;
                        }
                        2 => {
                            e.particle = match inp.byte() % 4 {
                                0 => n32,
                                1 => n32.saturating_add(1),
                                2 => u32::MAX,
                                _ => 1 << 31,
                            }
                        }
                        _ => {
                            e.normal = match inp.byte() % 4 {
                                0 => [0.0; 3],
                                1 => [-0.0, 0.0, -0.0],
                                // Valid, of extreme length (rescaled).
                                2 => [<$T>::MIN_POSITIVE / 4.0, 0.0, 0.0],
                                _ => [<$T>::MAX, <$T>::MAX, 0.0],
                            }
                        }
                    }
                }
                e
            }

            // The model of the documented field rules (written from the
            // docs: every value finite, radii, extents and frictions ≥ 0,
            // normals non-zero, axes orthonormal within 1e-3).
            fn fin(v: &[$T]) -> bool {
                v.iter().all(|x| x.is_finite())
            }
            fn nonneg(x: $T) -> bool {
                x.is_finite() && x >= 0.0
            }
            fn direction(v: &[$T; 3]) -> bool {
                fin(v) && v.iter().any(|x| *x != 0.0)
            }
            fn dot(a: &[$T; 3], b: &[$T; 3]) -> $T {
                a.iter().zip(b).fold(0.0, |acc, (x, y)| acc + x * y)
            }
            fn plane_ok(p: &$Plane) -> bool {
                direction(&p.normal) && p.offset.is_finite()
            }
            fn sphere_ok(s: &$Sphere) -> bool {
                fin(&s.center) && nonneg(s.radius)
            }
            fn capsule_ok(c: &$Capsule) -> bool {
                fin(&c.center)
                    && fin(&c.half_axis)
                    && fin(&c.velocity)
                    && fin(&c.angular_velocity)
                    && nonneg(c.radius)
                    && nonneg(c.static_friction)
                    && nonneg(c.dynamic_friction)
            }
            fn box_ok(b: &$Box) -> bool {
                let tolerance = <$T as xpbd::Real>::from_f64(1e-3);
                let axes = (0..3).all(|i| {
                    fin(&b.axes[i])
                        && (0..3).all(|j| {
                            let want = if i == j { 1.0 } else { 0.0 };
                            (dot(&b.axes[i], &b.axes[j]) - want).abs() <= tolerance
                        })
                });
                axes && fin(&b.center)
                    && fin(&b.velocity)
                    && fin(&b.angular_velocity)
                    && b.half_extents.iter().all(|e| nonneg(*e))
                    && nonneg(b.static_friction)
                    && nonneg(b.dynamic_friction)
            }
            fn engine_ok(e: &$Engine, n: usize) -> bool {
                usize::try_from(e.particle).is_ok_and(|k| k < n)
                    && direction(&e.normal)
                    && fin(&e.point)
                    && fin(&e.velocity)
                    && nonneg(e.static_friction)
                    && nonneg(e.dynamic_friction)
            }

            /// The model's first invalid collider of an accepted world
            /// (planes, spheres, capsules, boxes, then engine contacts).
            fn first_invalid(a: &Arena, base: *const u8, w: &$World) -> Option<usize> {
                let n = w.particle_count;
                let planes = elems(a, base, w.planes, w.plane_count);
                let spheres = elems(a, base, w.spheres, w.sphere_count);
                let capsules = elems(a, base, w.capsules, w.capsule_count);
                let boxes = elems(a, base, w.boxes, w.box_count);
                let engine = elems(
                    a,
                    base,
                    w.engine_contacts.cast_const(),
                    w.engine_contact_count,
                );
                let ok = planes
                    .iter()
                    .map(plane_ok)
                    .chain(spheres.iter().map(sphere_ok))
                    .chain(capsules.iter().map(capsule_ok))
                    .chain(boxes.iter().map(box_ok))
                    .chain(engine.iter().map(|e| engine_ok(e, n)));
                ok.enumerate().find(|(_, ok)| !ok).map(|(k, _)| k)
            }

            /// An engine contact's own fields, by bits (what the library
            /// never writes).
            fn own_fields(e: &$Engine) -> [u64; 12] {
                let f = |v: $T| Scalar::bits(v);
                [
                    u64::from(e.particle),
                    f(e.normal[0]),
                    f(e.normal[1]),
                    f(e.normal[2]),
                    f(e.point[0]),
                    f(e.point[1]),
                    f(e.point[2]),
                    f(e.velocity[0]),
                    f(e.velocity[1]),
                    f(e.velocity[2]),
                    f(e.static_friction),
                    f(e.dynamic_friction),
                ]
            }

            /// An edit between frames: one capsule, box or engine contact
            /// rewritten (valid or hostile: NaN, ±∞, …), or one coordinate
            /// of a position made NaN, ±∞ or any float.
            fn edit(inp: &mut Input<'_>, a: &mut Arena, w: &$World, n: usize) {
                let base = a.base().cast_const();
                let k = usize::from(inp.byte());
                match inp.byte() % 5 {
                    0 if w.capsule_count > 0 => {
                        let at = w.capsules.wrapping_add(k % w.capsule_count);
                        if let Some(off) = offset_in(at.cast(), base) {
                            let c = capsule(inp);
                            write_at(a, off, c);
                        }
                    }
                    1 if w.box_count > 0 => {
                        let at = w.boxes.wrapping_add(k % w.box_count);
                        if let Some(off) = offset_in(at.cast(), base) {
                            let b = oriented_box(inp);
                            write_at(a, off, b);
                        }
                    }
                    2 if w.engine_contact_count > 0 => {
                        let at = w.engine_contacts.wrapping_add(k % w.engine_contact_count);
                        if let Some(off) = offset_in(at.cast(), base) {
                            let e = engine_contact(inp, n);
                            write_at(a, off, e);
                        }
                    }
                    4 if w.particle_count > 0 && !w.rest_positions.is_null() => {
                        let at = w.rest_positions.wrapping_add(k % w.particle_count);
                        if let Some(off) = offset_in(at.cast(), base) {
                            let d = usize::from(inp.byte() % 3);
                            let v = hostile(inp);
                            write_at(a, off + d * core::mem::size_of::<$T>(), v);
                        }
                    }
                    3 if w.particle_count > 0 => {
                        let at = w.positions.wrapping_add(k % w.particle_count);
                        if let Some(off) = offset_in(at.cast(), base) {
                            let d = usize::from(inp.byte() % 3);
                            let v: $T = match inp.byte() % 4 {
                                0 => <$T>::NAN,
                                1 => <$T>::INFINITY,
                                2 => <$T>::NEG_INFINITY,
                                _ => inp.real(),
                            };
                            write_at(a, off + d * core::mem::size_of::<$T>(), v);
                        }
                    }
                    _ => {}
                }
            }

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
                // Moving colliders and engine contacts: a few each (the
                // rest of each region is zero: zero capsules are valid,
                // zero boxes and engine contacts are not).
                let nc = usize::from(inp.byte() % 4);
                let nb = usize::from(inp.byte() % 3);
                let ne = usize::from(inp.byte() % 7);
                for k in 0..nc {
                    let c = capsule(&mut inp);
                    a.put(CAPSULES, k, c);
                }
                for k in 0..nb {
                    let b = oriented_box(&mut inp);
                    a.put(BOXES, k, b);
                }
                for k in 0..ne {
                    let e = engine_contact(&mut inp, n);
                    a.put(ENGINE, k, e);
                }
                // Maximum forces: mostly positive (tearing runs), any float
                // now and then (NaN, 0, negative: INVALID_ARGUMENT).
                for k in 0..m {
                    let f: $T = inp.real();
                    a.put(MAXF, k, if inp.byte() % 4 == 0 { f } else { f.abs() });
                }
                let (pr, pc) = buffer::<[$T; 3]>(&mut inp, POS, n);
                let (vr, _) = buffer::<[$T; 3]>(&mut inp, VEL, n);
                let (mr, _) = buffer::<$T>(&mut inp, MASS, n);
                let (lr, lc) = buffer::<$Link>(&mut inp, LINKS, m);
                let (plr, plc) = buffer::<$Plane>(&mut inp, PLANES, 1);
                let (spr, spc) = buffer::<$Sphere>(&mut inp, SPHERES, 1);
                let (cr, cc) = buffer::<$Contact>(&mut inp, CONTACTS, 2 * n);
                let (scr, scc) = buffer::<[$T; 3]>(&mut inp, SCRATCH, 3 * n);
                // `link_max_force` has no count of its own (`link_count`):
                // NULL (no tearing) or a region.
                let (mfr, _) = buffer::<$T>(&mut inp, MAXF, m);
                let (tr, tc) = buffer::<u32>(&mut inp, TORN, m);
                let pc = pc.min(24);
                let mut world = Held::new($World {
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
                    link_max_force: ptr_of::<$T>(&mut a, mfr),
                    torn: ptr_of(&mut a, tr),
                    torn_capacity: tc,
                    capsules: core::ptr::null(),
                    capsule_count: 0,
                    boxes: core::ptr::null(),
                    box_count: 0,
                    engine_contacts: core::ptr::null_mut(),
                    engine_contact_count: 0,
                    particle_contacts: core::ptr::null_mut(),
                    particle_contact_capacity: 0,
                    hash_table: core::ptr::null_mut(),
                    hash_table_count: 0,
                    hash_ids: core::ptr::null_mut(),
                    hash_id_count: 0,
                    adjacency: core::ptr::null_mut(),
                    adjacency_count: 0,
                    rest_positions: core::ptr::null(),
                });
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
                    config.contact_overflow = i32::from(inp.byte() % 3);
                } else {
                    config.gravity = [0.0, -9.81, 0.0];
                    config.substeps = 2;
                    config.iterations = 2;
                }
                let mut config = Held::new(config);
                let size_world = core::mem::size_of::<$World>();
                let size_config = core::mem::size_of_val(&config.s);
                // The new arrays: their region, NULL with a count,
                // misaligned, over another buffer, the world or the
                // configuration (each refused).
                let structs = [
                    (core::ptr::addr_of_mut!(world.s).cast::<u8>(), size_world),
                    (core::ptr::addr_of_mut!(config.s).cast::<u8>(), size_config),
                ];
                let (caps, car, capc) = site::<$Capsule>(&mut inp, &mut a, CAPSULES, nc, structs);
                let (boxes, bxr, boxc) = site::<$Box>(&mut inp, &mut a, BOXES, nb, structs);
                let (engine, er, ec) = site::<$Engine>(&mut inp, &mut a, ENGINE, ne, structs);
                world.s.capsules = caps.cast_const();
                world.s.capsule_count = capc;
                world.s.boxes = boxes.cast_const();
                world.s.box_count = boxc;
                world.s.engine_contacts = engine;
                world.s.engine_contact_count = ec;
                // Self-collision in half the runs: the pair storage (a
                // capacity of 1, 2, every pair or any), the hash table, ids
                // and adjacency (sized by the length functions, one short
                // now and then), rest positions (NULL, given, a hostile
                // coordinate now and then); each array also NULL with a
                // count, misaligned, over another buffer, the world or the
                // configuration. The radius: 0, subnormal, tiny, huge, MAX,
                // any float or a usual one; half the time a cluster of
                // particles half a metre across (so that pairs are found).
                let (mut ppr, mut tbr, mut idr, mut adr, mut rsr) = (None, None, None, None, None);
                if inp.byte() % 2 == 1 {
                    let np = pc;
                    if inp.byte() % 2 == 0 {
                        for k in 0..np {
                            let x = nice3(&mut inp).map(|v| v / 8.0);
                            a.put(POS, k, x);
                            a.put(VEL, k, nice3(&mut inp).map(|v| v / 4.0));
                            let w: $T = if inp.byte() % 8 == 0 { 0.0 } else { 1.0 };
                            a.put(MASS, k, w);
                        }
                        let n32 = u32::try_from(np).unwrap_or(u32::MAX);
                        for k in 0..lc {
                            if np < 2 {
                                break;
                            }
                            let i = u32::from(inp.byte()) % n32;
                            let j = (i + 1 + u32::from(inp.byte()) % (n32 - 1)) % n32;
                            let link = $Link {
                                i,
                                j,
                                rest: small(&mut inp) + 0.05,
                                compliance: small(&mut inp) / 1024.0,
                                lambda: 0.0,
                                flags: u32::from(inp.byte() % 2),
                            };
                            a.put(LINKS, k, link);
                        }
                        let c = &mut config.s;
                        c.gravity = [0.0, -9.81, 0.0];
                        c.substeps = 1 + u32::from(inp.byte() % 4);
                        c.iterations = 1 + u32::from(inp.byte() % 3);
                        c.tolerance = 0.0;
                        c.damping = small(&mut inp);
                        c.contact_compliance = small(&mut inp) / 1024.0;
                        c.static_friction = small(&mut inp);
                        c.dynamic_friction = small(&mut inp);
                        c.zero_length_policy = 0;
                    }
                    config.s.particle_radius = match inp.byte() % 10 {
                        0 => 0.0,
                        1 => <$T>::MIN_POSITIVE / 4.0,
                        2 => <$T as xpbd::Real>::from_f64(1e-30),
                        3 => <$T as xpbd::Real>::from_f64(1e30),
                        4 => <$T>::MAX,
                        5 => inp.real(),
                        _ => small(&mut inp) / 4.0 + 0.01,
                    };
                    config.s.contact_overflow = i32::from(inp.byte() % 2);
                    // One short (or the count as chosen).
                    let short = |inp: &mut Input<'_>, c: usize| {
                        if inp.byte() % 8 == 0 {
                            c.saturating_sub(1)
                        } else {
                            c
                        }
                    };
                    let pairs = match inp.byte() % 4 {
                        0 => 1,
                        1 => 2,
                        _ => np * np.saturating_sub(1) / 2 + 1,
                    };
                    let (pp, r, pcap) = site::<$Pair>(&mut inp, &mut a, PAIRS, pairs, structs);
                    ppr = r;
                    let table = xpbd_self_collision_table_len(np);
                    let (tp, r, tcount) = site::<u32>(&mut inp, &mut a, TABLE, table, structs);
                    tbr = r;
                    let tcount = short(&mut inp, tcount);
                    let (ip, r, icount) = site::<u32>(&mut inp, &mut a, IDS, np, structs);
                    idr = r;
                    let icount = short(&mut inp, icount);
                    let adjacency = xpbd_self_collision_adjacency_len(np, lc);
                    let (ap, r, acount) = site::<u32>(&mut inp, &mut a, ADJ, adjacency, structs);
                    adr = r;
                    let acount = short(&mut inp, acount);
                    let rest = if inp.byte() % 3 == 0 {
                        core::ptr::null_mut()
                    } else {
                        for k in 0..np {
                            let x = nice3(&mut inp).map(|v| v / 8.0);
                            a.put(REST, k, x);
                        }
                        if np > 0 && inp.byte() % 4 == 0 {
                            let k = usize::from(inp.byte()) % (3 * np);
                            let v = hostile(&mut inp);
                            a.put(REST, k, v);
                        }
                        let (p, r, _) = site::<[$T; 3]>(&mut inp, &mut a, REST, np, structs);
                        rsr = r;
                        p
                    };
                    world.s.particle_contacts = pp;
                    world.s.particle_contact_capacity = pcap;
                    world.s.hash_table = tp;
                    world.s.hash_table_count = tcount;
                    world.s.hash_ids = ip;
                    world.s.hash_id_count = icount;
                    world.s.adjacency = ap;
                    world.s.adjacency_count = acount;
                    world.s.rest_positions = rest.cast_const();
                }
                let protected = [pr, vr, mr, plr, spr, mfr, car, bxr, rsr];
                let writable = [lr, cr, scr, tr, er, ppr, tbr, idr, adr];
                let base = a.base();
                for frame in 0..4 {
                    if frame > 0 && inp.byte() % 4 == 0 {
                        let w = world.s;
                        edit(&mut inp, &mut a, &w, n);
                    }
                    let before = a;
                    let wb = world.s;
                    // The frame: mostly a usual one (so that frames run),
                    // any float now and then (NaN, ±∞, 0, subnormal, …).
                    let dt: $T = match inp.byte() % 4 {
                        0 => inp.real(),
                        1 => 1.0 / 30.0,
                        _ => 1.0 / 60.0,
                    };
                    // The output: its own region, NULL, inside a buffer, over the
                    // world struct or the configuration, misaligned.
                    let size = core::mem::size_of::<$StepStats>();
                    let mut place =
                        Place::pick(&mut inp, REGIONS, OUT * REGION, size, size_world, None);
                    let wp = core::ptr::addr_of_mut!(world.s);
                    let cp = core::ptr::addr_of!(config.s);
                    let mut held = core::ptr::addr_of_mut!(world).cast::<u8>();
                    if let Place::Struct(o) = place {
                        if inp.byte() % 2 == 0 {
                            place = Place::Struct(o % size_config);
                            held = core::ptr::addr_of_mut!(config).cast::<u8>();
                        }
                    }
                    let out = place.ptr::<$StepStats>(base, held);
                    let cfg = if inp.byte() % 32 == 0 {
                        core::ptr::null()
                    } else {
                        cp
                    };
                    let w = &wb;
                    let n = w.particle_count;
                    let bufs = [
                        Span::of(w.positions, n),
                        Span::of(w.velocities, n),
                        Span::of(w.inverse_masses, n),
                        Span::of(w.links, w.link_count),
                        Span::of(w.planes, w.plane_count),
                        Span::of(w.spheres, w.sphere_count),
                        Span::of(w.contacts, w.contact_capacity),
                        Span::of(w.scratch, w.scratch_count),
                        Span::of(wp, 1),
                        Span::of(cp, 1),
                        Span::out(out),
                        Span::of(
                            w.link_max_force,
                            if w.link_max_force.is_null() {
                                0
                            } else {
                                w.link_count
                            },
                        ),
                        Span::of(w.torn, w.torn_capacity),
                        Span::of(w.capsules, w.capsule_count),
                        Span::of(w.boxes, w.box_count),
                        Span::of(w.engine_contacts, w.engine_contact_count),
                        Span::of(w.particle_contacts, w.particle_contact_capacity),
                        Span::of(w.hash_table, w.hash_table_count),
                        Span::of(w.hash_ids, w.hash_id_count),
                        Span::of(w.adjacency, w.adjacency_count),
                        Span::of(
                            w.rest_positions,
                            if w.rest_positions.is_null() { 0 } else { n },
                        ),
                    ];
                    let mut pre = Pre::default();
                    if cfg.is_null() {
                        pre.add(XpbdStatus::NullPointer);
                    } else {
                        pre.buffers(&bufs);
                        if !matches!(config.s.zero_length_policy, 0 | 1)
                            || !matches!(config.s.contact_overflow, 0 | 1)
                        {
                            pre.add(XpbdStatus::InvalidArgument);
                        }
                    }
                    // SAFETY: every pointer is NULL, into the arena with a count that
                    // fits its region, or into `world` / `config` (struct and slack;
                    // an array over them is refused before any access).
                    let status = unsafe { $step(wp, dt, cfg, out) };
                    assert!(documented(status), "undocumented status {}", status.code());
                    assert!(
                        world.slack == [0; 8] && config.slack == [0; 8],
                        "step wrote past a struct"
                    );
                    let ws = world.s;
                    let same_world = ws.positions == wb.positions
                        && ws.velocities == wb.velocities
                        && ws.inverse_masses == wb.inverse_masses
                        && ws.particle_count == wb.particle_count
                        && ws.links == wb.links
                        && ws.link_count == wb.link_count
                        && ws.planes == wb.planes
                        && ws.plane_count == wb.plane_count
                        && ws.spheres == wb.spheres
                        && ws.sphere_count == wb.sphere_count
                        && ws.contacts == wb.contacts
                        && ws.contact_capacity == wb.contact_capacity
                        && ws.scratch == wb.scratch
                        && ws.scratch_count == wb.scratch_count
                        && ws.link_max_force == wb.link_max_force
                        && ws.torn == wb.torn
                        && ws.torn_capacity == wb.torn_capacity
                        && ws.capsules == wb.capsules
                        && ws.capsule_count == wb.capsule_count
                        && ws.boxes == wb.boxes
                        && ws.box_count == wb.box_count
                        && ws.engine_contacts == wb.engine_contacts
                        && ws.engine_contact_count == wb.engine_contact_count
                        && ws.particle_contacts == wb.particle_contacts
                        && ws.particle_contact_capacity == wb.particle_contact_capacity
                        && ws.hash_table == wb.hash_table
                        && ws.hash_table_count == wb.hash_table_count
                        && ws.hash_ids == wb.hash_ids
                        && ws.hash_id_count == wb.hash_id_count
                        && ws.adjacency == wb.adjacency
                        && ws.adjacency_count == wb.adjacency_count
                        && ws.rest_positions == wb.rest_positions;
                    assert!(same_world, "step changed a buffer field of the world");
                    if !pre.is_empty() {
                        // Refused by the documented checks (an output or an
                        // array over a buffer, the world, the configuration;
                        // NULL with a count; misaligned): that status and no
                        // caller byte changed.
                        assert!(
                            pre.contains(status),
                            "step: status {} where the model refuses ({:#x})",
                            status.code(),
                            pre.0
                        );
                        assert!(a.0 == before.0, "step wrote on refused {}", status.code());
                        assert!(
                            ws.error_index == wb.error_index,
                            "refused step wrote error_index"
                        );
                        continue;
                    }
                    assert!(
                        !matches!(status, XpbdStatus::AliasedBuffers | XpbdStatus::NullPointer),
                        "step: {} though every buffer is valid and disjoint",
                        status.code()
                    );
                    // Per-substep state (λ, contacts, scratch, the engine
                    // contacts' λ and impulse) may be left written; the
                    // output only on success, positions and velocities too.
                    // Self-collision's pairs and hash scratch are per-substep
                    // state too; rest positions are never written.
                    let mut spans = [
                        bufs[3].range(),
                        bufs[6].range(),
                        bufs[7].range(),
                        bufs[15].range(),
                        bufs[16].range(),
                        bufs[17].range(),
                        bufs[18].range(),
                        bufs[19].range(),
                        None,
                        None,
                        None,
                        None,
                    ];
                    if status.code() >= 0 {
                        spans[8] = bufs[0].range();
                        spans[9] = bufs[1].range();
                        spans[10] = bufs[10].range();
                        spans[11] = bufs[12].range();
                    }
                    assert!(
                        same_outside(a.bytes(), before.bytes(), base as usize, &spans),
                        "step {} wrote outside its writable buffers",
                        status.code()
                    );
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
                    // The model of self-collision's rules: on (a pair
                    // capacity), it needs a radius > 0, the hash scratch of
                    // the length functions and finite rest positions (when
                    // given); otherwise the step fails before any write.
                    let sc_on = w.particle_contact_capacity > 0;
                    if sc_on {
                        let rest_bad = !w.rest_positions.is_null()
                            && elems(&before, base, w.rest_positions, n)
                                .iter()
                                .any(|p| !fin(p));
                        let r = config.s.particle_radius;
                        let bad = !(r > 0.0)
                            || w.hash_table_count < xpbd_self_collision_table_len(n)
                            || w.hash_id_count < n
                            || w.adjacency_count
                                < xpbd_self_collision_adjacency_len(n, w.link_count)
                            || rest_bad;
                        if bad {
                            assert!(
                                status.code() < 0,
                                "step {} with invalid self-collision",
                                status.code()
                            );
                            assert!(
                                a.0 == before.0,
                                "step {} wrote with invalid self-collision",
                                status.code()
                            );
                        }
                    }
                    // The statistics of a success: capacities bound the
                    // maxima; a drop only under keep-first, and only when a
                    // substep filled the contacts or the pairs.
                    if status == XpbdStatus::Ok {
                        if let Some(off) = offset_in(out.cast_const().cast(), base) {
                            let st: $StepStats = read_at(&a, off).expect("the output fits");
                            assert!(
                                st.max_pairs <= w.particle_contact_capacity
                                    && st.max_contacts <= w.contact_capacity,
                                "max_pairs {} / {} max_contacts {} / {}",
                                st.max_pairs,
                                w.particle_contact_capacity,
                                st.max_contacts,
                                w.contact_capacity
                            );
                            if !sc_on {
                                assert!(
                                    st.max_pairs == 0 && st.clamped == 0,
                                    "self-collision off: max_pairs {} clamped {}",
                                    st.max_pairs,
                                    st.clamped
                                );
                            }
                            if config.s.contact_overflow == 0 {
                                assert_eq!(st.contacts_dropped, 0, "reject policy dropped");
                            } else if st.contacts_dropped > 0 {
                                assert!(
                                    st.max_contacts == w.contact_capacity
                                        || (sc_on && st.max_pairs == w.particle_contact_capacity),
                                    "{} dropped, no capacity full: contacts {} / {}, \
                                     pairs {} / {}",
                                    st.contacts_dropped,
                                    st.max_contacts,
                                    w.contact_capacity,
                                    st.max_pairs,
                                    w.particle_contact_capacity
                                );
                            }
                        }
                    }
                    // The model of the colliders' field rules.
                    let first_bad = first_invalid(&before, base, w);
                    if status == XpbdStatus::InvalidCollider {
                        assert_eq!(
                            Some(ws.error_index),
                            first_bad,
                            "INVALID_COLLIDER names {} where the model's first invalid \
                             collider is {first_bad:?}",
                            ws.error_index
                        );
                    }
                    if let Some(k) = first_bad {
                        assert!(
                            status.code() < 0,
                            "step {} with collider {k} invalid",
                            status.code()
                        );
                    }
                    // Engine contacts: their own fields never written, the
                    // force only on success.
                    let eb = elems(
                        &before,
                        base,
                        w.engine_contacts.cast_const(),
                        w.engine_contact_count,
                    );
                    let ea = elems(
                        &a,
                        base,
                        w.engine_contacts.cast_const(),
                        w.engine_contact_count,
                    );
                    for (k, (x, y)) in eb.iter().zip(&ea).enumerate() {
                        assert!(
                            own_fields(x) == own_fields(y),
                            "step {} wrote engine contact {k}'s own fields",
                            status.code()
                        );
                        if status.code() < 0 {
                            assert!(
                                Scalar::bits(x.force) == Scalar::bits(y.force),
                                "step {} wrote engine contact {k}'s force",
                                status.code()
                            );
                        } else {
                            assert!(
                                y.lambda.is_finite()
                                    && y.impulse.is_finite()
                                    && y.force.is_finite()
                                    && y.lambda >= 0.0
                                    && y.force >= 0.0,
                                "step OK left engine contact {k} at λ {} impulse {} force {}",
                                y.lambda,
                                y.impulse,
                                y.force
                            );
                        }
                    }
                    if status.code() >= 0 {
                        let x = elems(&a, base, w.positions.cast_const(), n);
                        let v = elems(&a, base, w.velocities.cast_const(), n);
                        for (k, p) in x.iter().chain(&v).enumerate() {
                            assert!(fin(p), "step OK left state {k} non-finite: {p:?}");
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
    XpbdCapsule3,
    XpbdBox3,
    XpbdEngineContact,
    XpbdParticleContact,
    XpbdStepStats,
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
    XpbdCapsule3F32,
    XpbdBox3F32,
    XpbdEngineContactF32,
    XpbdParticleContactF32,
    XpbdStepStatsF32,
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
