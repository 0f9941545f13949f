//! The system harness (begin_substep, iterate, iterate_until, measure,
//! the builders; 3D and 2D, f64 and f32): one module per dimension and
//! precision (`system_abi!`).

#[allow(unused_imports)]
use super::*;

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
