//! The colored harness, one module per precision (`colored_abi!`, invoked
//! in `super`): the calls, the model of the documented refusals and the
//! checks the parent module describes.

/// The colored harness for one precision.
macro_rules! colored_abi {
    ($m:ident, $T:ty, $Link:ident, $Sys:ident, $Stats:ident, $greedy:ident, $fill:ident,
     $begin:ident, $iterate:ident, $job:ident, $merge:ident) => {
        /// The colored harness for one precision.
        pub mod $m {
            #[allow(unused_imports)]
            use super::*;

            /// The job contract of docs/c-api.md ("Threading") as the harness
            /// follows it: the color in flight, its job count, the jobs left.
            #[derive(Clone, Copy, Debug)]
            struct Flight {
                color: usize,
                jobs: usize,
                left: usize,
            }

            /// What the harness knows between calls.
            struct Known {
                /// Since the last successful begin_substep nothing but
                /// sweeps, jobs, edits of positions and calls writing only
                /// their own output regions ran (the coloring is proper,
                /// the indices valid).
                clean: bool,
                /// The contract state, when known (`Some(None)`: no color
                /// in flight).
                contract: Option<Option<Flight>>,
            }

            /// Every field of two SIMD link system structs is the same.
            fn same_struct(x: &$Sys, y: &$Sys) -> bool {
                x.positions == y.positions
                    && x.x == y.x
                    && x.y == y.y
                    && x.z == y.z
                    && x.inverse_masses == y.inverse_masses
                    && x.particle_count == y.particle_count
                    && x.i == y.i
                    && x.j == y.j
                    && x.rest == y.rest
                    && x.compliance == y.compliance
                    && x.lambda == y.lambda
                    && x.alpha == y.alpha
                    && x.inv_denominator == y.inv_denominator
                    && x.link_count == y.link_count
                    && x.color_starts == y.color_starts
                    && x.color_count == y.color_count
                    && x.stamp == y.stamp
                    && x.zero_length_policy == y.zero_length_policy
                    && x.substep_active == y.substep_active
                    && x.h.to_bits() == y.h.to_bits()
                    && x.error_index == y.error_index
            }

            /// Element `k` of the buffer at `p` in the snapshot `a` of the arena
            /// at `bs` (None when NULL or outside the arena).
            fn read_at<E: Copy>(a: &Arena, bs: usize, p: *const E, k: usize) -> Option<E> {
                let size = core::mem::size_of::<E>();
                let off = (p as usize)
                    .checked_sub(bs)?
                    .checked_add(k.checked_mul(size)?)?;
                let bytes = a.bytes();
                // SAFETY: in bounds (checked); an unaligned read of plain data.
                (!p.is_null() && off + size <= bytes.len())
                    .then(|| unsafe { bytes.as_ptr().add(off).cast::<E>().read_unaligned() })
            }

            /// Particle `k` through the struct's layout, in the snapshot `a`.
            fn particle(a: &Arena, bs: usize, s: &$Sys, k: usize) -> Option<[$T; 3]> {
                if !s.positions.is_null() {
                    read_at(a, bs, s.positions.cast_const(), k)
                } else {
                    Some([
                        read_at(a, bs, s.x.cast_const(), k)?,
                        read_at(a, bs, s.y.cast_const(), k)?,
                        read_at(a, bs, s.z.cast_const(), k)?,
                    ])
                }
            }

            /// Whether particle `k` has a NaN or infinite coordinate.
            fn non_finite(a: &Arena, bs: usize, s: &$Sys, k: usize) -> bool {
                k < s.particle_count
                    && particle(a, bs, s, k).is_some_and(|p| !p.iter().all(|c| c.is_finite()))
            }

            /// The byte ranges of the positions (AoS or SoA).
            fn pos_spans(s: &$Sys) -> [Option<(usize, usize)>; 3] {
                let n = s.particle_count;
                if !s.positions.is_null() {
                    [Span::of(s.positions, n).range(), None, None]
                } else {
                    [
                        Span::of(s.x, n).range(),
                        Span::of(s.y, n).range(),
                        Span::of(s.z, n).range(),
                    ]
                }
            }

            /// What the documented checks refuse for a call on `s` at `sysp`
            /// with the outputs `outs` (`active`: iterate and jobs, which need
            /// a begun substep with a valid h).
            fn refused(s: &$Sys, sysp: *const $Sys, outs: &[Span], active: bool) -> Pre {
                let mut pre = Pre::default();
                if active {
                    if s.substep_active != 1 {
                        pre.add(XpbdStatus::NoSubstep);
                    }
                    if !(s.h.is_finite() && s.h > 0.0) {
                        pre.add(XpbdStatus::InvalidTimeStep);
                    }
                }
                if !matches!(s.zero_length_policy, 0 | 1) {
                    pre.add(XpbdStatus::InvalidArgument); // an unknown policy code
                }
                let (n, m) = (s.particle_count, s.link_count);
                let aos = !s.positions.is_null();
                let soa = !s.x.is_null() || !s.y.is_null() || !s.z.is_null();
                if (aos && soa) || (!aos && !soa && n != 0) {
                    pre.add(XpbdStatus::InvalidArgument);
                }
                let np = if soa && !aos { 0 } else { n };
                let nx = if soa { n } else { 0 };
                let mut bufs = [Span::of(core::ptr::null::<u8>(), 0); 17];
                let all = [
                    Span::of(s.positions, np),
                    Span::of(s.x, nx),
                    Span::of(s.y, nx),
                    Span::of(s.z, nx),
                    Span::of(s.inverse_masses, n),
                    Span::of(s.i, m),
                    Span::of(s.j, m),
                    Span::of(s.rest, m),
                    Span::of(s.compliance, m),
                    Span::of(s.lambda, m),
                    Span::of(s.alpha, m),
                    Span::of(s.inv_denominator, m),
                    Span::of(s.color_starts, s.color_count + 1),
                    Span::of(s.stamp, n),
                    Span::of(sysp, 1),
                ];
                bufs[..15].copy_from_slice(&all);
                bufs[15..15 + outs.len()].copy_from_slice(outs);
                pre.buffers(&bufs[..15 + outs.len()]);
                pre
            }

            /// In a clean state: no link with a non-finite particle was
            /// applied (its λ and that particle keep their bits).
            fn untouched_non_finite(a: &Arena, before: &Arena, bs: usize, s: &$Sys, what: &str) {
                for k in 0..s.link_count {
                    let (Some(i), Some(j)) = (read_at(before, bs, s.i, k), read_at(before, bs, s.j, k)) else {
                        return;
                    };
                    for q in [i as usize, j as usize] {
                        if non_finite(before, bs, s, q) {
                            let l0 = read_at(before, bs, s.lambda.cast_const(), k).map(|v| v.to_bits());
                            let l1 = read_at(a, bs, s.lambda.cast_const(), k).map(|v| v.to_bits());
                            assert!(l0 == l1, "{what}: link {k} of non-finite particle {q} applied");
                            let p0 = particle(before, bs, s, q).map(|p| p.map(|c| c.to_bits()));
                            let p1 = particle(a, bs, s, q).map(|p| p.map(|c| c.to_bits()));
                            assert!(p0 == p1, "{what}: non-finite particle {q} moved");
                        }
                    }
                }
            }

            /// One job, checked against the model: the documented refusals
            /// (buffers and outputs, color, job, job contract) with nothing
            /// written but the stamp; otherwise only the positions, λ, the
            /// stamp and the one output of the outcome written, a non-finite
            /// particle named, and the contract followed. Returns the status.
            ///
            /// # Safety
            /// The struct's buffers are into `a`, valid for their counts.
            #[allow(clippy::too_many_arguments)]
            unsafe fn job(
                a: &mut Arena,
                hs: &mut Held<$Sys>,
                known: &mut Known,
                color: usize,
                job: usize,
                jobs: usize,
                ps: Place,
                pe: Place,
            ) -> XpbdStatus {
                let before = *a;
                let sb = hs.s;
                let base = a.base();
                let bs = base as usize;
                let held = core::ptr::addr_of_mut!(*hs).cast::<u8>();
                let sysp = core::ptr::addr_of_mut!(hs.s);
                let out = ps.ptr::<$Stats>(base, held);
                let err = pe.ptr::<usize>(base, held);
                let outs = [Span::out(out), Span::out(err)];
                let mut pre = refused(&sb, sysp, &outs, true);
                if pre.is_empty() {
                    let bounds = (color < sb.color_count)
                        .then(|| {
                            Some((
                                read_at(&before, bs, sb.color_starts, color)?,
                                read_at(&before, bs, sb.color_starts, color + 1)?,
                            ))
                        })
                        .flatten()
                        .filter(|(b, e)| b <= e && *e <= sb.link_count);
                    if bounds.is_none() || jobs == 0 || job >= jobs {
                        pre.add(XpbdStatus::InvalidArgument);
                    }
                }
                let tracked = sb.particle_count != 0 && color <= 0x7ff && jobs <= 0x3ff;
                let state = known.contract.filter(|_| tracked);
                let contract = pre.is_empty()
                    && matches!(state, Some(Some(f)) if f.left > 0 && (f.color != color || f.jobs != jobs));
                // SAFETY: forwarded; the outputs are into the arena or `hs`.
                let status = unsafe { $job(sysp, color, job, jobs, out, err) };
                assert!(documented(status), "undocumented status {}", status.code());
                assert!(same_struct(&hs.s, &sb), "solve_job wrote the struct");
                assert!(hs.slack == [0; 8], "solve_job wrote past the struct");
                let stamp = Span::of(sb.stamp, sb.particle_count).range();
                let refusal = !pre.is_empty() || contract || status == XpbdStatus::JobContract;
                if !pre.is_empty() {
                    assert!(
                        pre.contains(status),
                        "solve_job: status {} where the model refuses ({:#x}): color {color} job {job}/{jobs} {:?} {:?} {:?}",
                        status.code(),
                        pre.0, sb, ps, pe
                    );
                } else if contract {
                    assert_eq!(status, XpbdStatus::JobContract, "job {job}/{jobs} of color {color} in {state:?}");
                } else if state.is_some() {
                    assert!(
                        status != XpbdStatus::JobContract,
                        "job {job}/{jobs} of color {color} refused in {state:?}"
                    );
                }
                if refusal {
                    // Nothing written (the stamp is the library's scratch).
                    assert!(
                        same_outside(a.bytes(), before.bytes(), base as usize, &[stamp]),
                        "refused job ({}) wrote",
                        status.code()
                    );
                    if status == XpbdStatus::JobContract && !contract {
                        known.contract = None;
                    }
                    return status;
                }
                assert!(
                    !matches!(
                        status,
                        XpbdStatus::AliasedBuffers | XpbdStatus::NullPointer | XpbdStatus::NoSubstep
                    ),
                    "solve_job: {} though the model accepts",
                    status.code()
                );
                if let Some(s) = state {
                    known.contract = Some(Some(match s {
                        Some(f) if f.left > 0 => Flight { left: f.left - 1, ..f },
                        _ => Flight {
                            color,
                            jobs,
                            left: jobs - 1,
                        },
                    }));
                }
                let p = pos_spans(&sb);
                let lambda = Span::of(sb.lambda, sb.link_count).range();
                let written = if status.code() == 0 { outs[0].range() } else { outs[1].range() };
                assert!(
                    same_outside(
                        a.bytes(),
                        before.bytes(),
                        base as usize,
                        &[p[0], p[1], p[2], lambda, stamp, written]
                    ),
                    "solve_job ({}) wrote outside the positions, λ, stamp and its output",
                    status.code()
                );
                if status == XpbdStatus::NonFinitePosition && !err.is_null() {
                    let e = read_at(a, bs, err.cast_const(), 0).unwrap_or(usize::MAX);
                    assert!(non_finite(&before, bs, &sb, e), "solve_job named finite particle {e}");
                }
                if known.clean {
                    untouched_non_finite(a, &before, bs, &sb, "solve_job");
                }
                status
            }

            /// A whole sweep by jobs (op 13), when the harness knows the state
            /// (clean, no color in flight, the outputs disjoint): per color a
            /// job count of 1–4, its jobs in a rotated order, and sometimes,
            /// while the color is in flight, a job with another job count or
            /// of another color (the model expects JOB_CONTRACT with nothing
            /// written). When `xpbd_simd_links3_iterate` on a copy of the arena
            /// succeeds, every job succeeds, and the positions, λ and merged
            /// statistics are bit-identical to it.
            ///
            /// # Safety
            /// As `job`.
            unsafe fn sweep(inp: &mut Input<'_>, a: &mut Arena, hs: &mut Held<$Sys>, known: &mut Known) {
                let sb = hs.s;
                let base = a.base();
                let bs = base as usize;
                let (ps, pe) = (Place::At(OUT * REGION), Place::At(OUT2 * REGION));
                let outs = [
                    Span::out(ps.ptr::<$Stats>(base, core::ptr::null_mut())),
                    Span::out(pe.ptr::<usize>(base, core::ptr::null_mut())),
                ];
                if !known.clean
                    || !matches!(known.contract, Some(None))
                    || sb.particle_count == 0
                    || sb.color_count > 16
                    || !refused(&sb, core::ptr::addr_of!(hs.s), &outs, true).is_empty()
                {
                    return;
                }
                // The reference: iterate on a copy of the arena.
                let mut r = *a;
                let to = r.base();
                let rb = |p: *const u8| -> *mut u8 {
                    if p.is_null() {
                        core::ptr::null_mut()
                    } else {
                        to.wrapping_add((p as usize).wrapping_sub(base as usize))
                    }
                };
                let mut rs = sb;
                rs.positions = rb(sb.positions.cast()).cast();
                rs.x = rb(sb.x.cast()).cast();
                rs.y = rb(sb.y.cast()).cast();
                rs.z = rb(sb.z.cast()).cast();
                rs.inverse_masses = rb(sb.inverse_masses.cast()).cast();
                rs.i = rb(sb.i.cast()).cast();
                rs.j = rb(sb.j.cast()).cast();
                rs.rest = rb(sb.rest.cast()).cast();
                rs.compliance = rb(sb.compliance.cast()).cast();
                rs.lambda = rb(sb.lambda.cast()).cast();
                rs.alpha = rb(sb.alpha.cast()).cast();
                rs.inv_denominator = rb(sb.inv_denominator.cast()).cast();
                rs.color_starts = rb(sb.color_starts.cast()).cast();
                rs.stamp = rb(sb.stamp.cast()).cast();
                let mut want = <$Stats>::default();
                // SAFETY: the same buffers, moved to the copy.
                let reference = unsafe { $iterate(&mut rs, &mut want) };
                let mut got = <$Stats>::default();
                let mut all_ok = true;
                for c in 0..sb.color_count {
                    let jobs = 1 + usize::from(inp.byte() % 4);
                    let rot = usize::from(inp.byte());
                    for t in 0..jobs {
                        if t > 0 && inp.byte() % 4 == 0 {
                            // A mismatched job while color c is in flight.
                            let (other, count) = if sb.color_count < 2 || inp.byte() % 2 == 0 {
                                (c, jobs + 1 + usize::from(inp.byte() % 3))
                            } else {
                                let k = 1 + usize::from(inp.byte()) % (sb.color_count - 1);
                                ((c + k) % sb.color_count, jobs)
                            };
                            // SAFETY: forwarded.
                            let s = unsafe { job(a, hs, known, other, 0, count, Place::Null, Place::Null) };
                            all_ok &= s == XpbdStatus::JobContract;
                        }
                        // SAFETY: forwarded.
                        let s = unsafe { job(a, hs, known, c, (t + rot) % jobs, jobs, ps, pe) };
                        if s.code() == 0 {
                            let part = read_at(a, bs, ps.ptr::<$Stats>(base, core::ptr::null_mut()), 0)
                                .unwrap_or_default();
                            // SAFETY: two locals.
                            assert_eq!(unsafe { $merge(&mut got, &part) }, XpbdStatus::Ok);
                        } else {
                            all_ok = false;
                        }
                    }
                }
                if reference == XpbdStatus::Ok {
                    assert!(all_ok, "iterate succeeds where a job (or a refusal) did not");
                    let stamp = Span::of(sb.stamp, sb.particle_count).range();
                    let o = base as usize + OUT * REGION;
                    assert!(
                        same_outside(
                            a.bytes(),
                            r.bytes(),
                            base as usize,
                            &[stamp, Some((o, o + 2 * REGION))]
                        ),
                        "jobs and iterate differ"
                    );
                    assert!(
                        got.applied == want.applied
                            && got.skipped_static == want.skipped_static
                            && got.skipped_zero_length == want.skipped_zero_length
                            && got.max_abs_c.to_bits() == want.max_abs_c.to_bits()
                            && got.max_residual.to_bits() == want.max_residual.to_bits(),
                        "merged job statistics {got:?} differ from iterate's {want:?}"
                    );
                }
            }

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
                let mut hs = Held::new($Sys {
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
                    simd: 0,
                });
                let mut known = Known {
                    clean: false,
                    contract: None,
                };
                let base = a.base();
                let bs = base as usize;
                let size_sys = core::mem::size_of::<$Sys>();
                let mut calls = 0;
                while !inp.is_empty() && calls < 16 {
                    calls += 1;
                    let before = a;
                    let op = inp.byte() % 14;
                    if op <= 4 {
                        // Colorings, order and fill write caller memory the system
                        // may use; a reconfiguration changes it.
                        known.clean = false;
                        known.contract = None;
                    }
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
                                // The source links fit one region (any region
                                // may be picked, the arena's last too).
                                let sc = count(&mut inp, m, MAX_L)
                                    .min(REGION / core::mem::size_of::<$Link>());
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
                                hs.s.positions = if aos {
                                    a.ptr(place(&mut inp, AOS))
                                } else {
                                    core::ptr::null_mut()
                                };
                                hs.s.x = if soa {
                                    a.ptr(place(&mut inp, X))
                                } else {
                                    core::ptr::null_mut()
                                };
                                hs.s.y = if soa {
                                    a.ptr(place(&mut inp, Y))
                                } else {
                                    core::ptr::null_mut()
                                };
                                hs.s.z = if soa {
                                    a.ptr(place(&mut inp, Z))
                                } else {
                                    core::ptr::null_mut()
                                };
                                hs.s.inverse_masses = a.ptr::<$T>(place(&mut inp, MASS));
                                hs.s.particle_count = count(&mut inp, n, MAX_P);
                                hs.s.i = a.ptr::<u32>(place(&mut inp, I));
                                hs.s.j = a.ptr::<u32>(place(&mut inp, J));
                                hs.s.rest = a.ptr::<$T>(place(&mut inp, REST));
                                hs.s.compliance = a.ptr::<$T>(place(&mut inp, COMPLIANCE));
                                hs.s.lambda = a.ptr(place(&mut inp, LAMBDA));
                                hs.s.alpha = a.ptr(place(&mut inp, ALPHA));
                                hs.s.inv_denominator = a.ptr(place(&mut inp, INV_DEN));
                                hs.s.link_count = count(&mut inp, m, MAX_L);
                                hs.s.color_starts = a.ptr::<usize>(place(&mut inp, STARTS));
                                hs.s.color_count = count(&mut inp, color_count as usize, MAX_C);
                                hs.s.stamp = a.ptr(place(&mut inp, STAMP));
                                continue;
                            }
                            5 | 6 => {
                                let sb = hs.s;
                                let sysp = core::ptr::addr_of_mut!(hs.s);
                                let pre = refused(&sb, sysp, &[], false);
                                let s = $begin(sysp, inp.real());
                                assert!(documented(s), "undocumented status {}", s.code());
                                assert!(hs.slack == [0; 8], "begin_substep wrote past the struct");
                                let stamp = Span::of(sb.stamp, sb.particle_count).range();
                                known.clean = s.code() == 0;
                                known.contract = known.clean.then_some(None);
                                if !pre.is_empty() {
                                    assert!(
                                        pre.contains(s),
                                        "begin: status {} where the model refuses ({:#x})",
                                        s.code(),
                                        pre.0
                                    );
                                    let mut want = sb;
                                    want.substep_active = 0;
                                    if s == XpbdStatus::AliasedBuffers || s == XpbdStatus::NullPointer {
                                        assert!(same_struct(&hs.s, &want), "refused begin wrote the struct");
                                    }
                                } else {
                                    assert!(
                                        !matches!(s, XpbdStatus::AliasedBuffers | XpbdStatus::NullPointer),
                                        "begin: {} though every buffer is valid and disjoint",
                                        s.code()
                                    );
                                }
                                let spans = if s.code() == 0 {
                                    [
                                        Span::of(sb.lambda, sb.link_count).range(),
                                        Span::of(sb.alpha, sb.link_count).range(),
                                        Span::of(sb.inv_denominator, sb.link_count).range(),
                                        stamp,
                                    ]
                                } else {
                                    [stamp, None, None, None]
                                };
                                assert!(
                                    same_outside(a.bytes(), before.bytes(), base as usize, &spans),
                                    "begin ({}) wrote outside λ, α̃, 1/den and the stamp",
                                    s.code()
                                );
                                continue;
                            }
                            7 | 8 => {
                                let sb = hs.s;
                                let held = core::ptr::addr_of_mut!(hs).cast::<u8>();
                                let sysp = core::ptr::addr_of_mut!(hs.s);
                                let size = core::mem::size_of::<$Stats>();
                                let ps = Place::pick(&mut inp, REGIONS, OUT * REGION, size, size_sys, None);
                                let out = ps.ptr::<$Stats>(base, held);
                                let o = Span::out(out);
                                let pre = refused(&sb, sysp, &[o], true);
                                let s = $iterate(sysp, out);
                                assert!(documented(s), "undocumented status {}", s.code());
                                assert!(hs.slack == [0; 8], "iterate wrote past the struct");
                                if !pre.is_empty() {
                                    assert!(
                                        pre.contains(s),
                                        "iterate: status {} where the model refuses ({:#x})",
                                        s.code(),
                                        pre.0
                                    );
                                    assert!(a.0 == before.0, "refused iterate wrote");
                                    assert!(same_struct(&hs.s, &sb), "refused iterate wrote the struct");
                                    continue;
                                }
                                assert!(
                                    !matches!(
                                        s,
                                        XpbdStatus::AliasedBuffers
                                            | XpbdStatus::NullPointer
                                            | XpbdStatus::NoSubstep
                                            | XpbdStatus::InvalidTimeStep
                                    ),
                                    "iterate: {} though the model accepts",
                                    s.code()
                                );
                                let mut want = sb;
                                want.error_index = hs.s.error_index;
                                assert!(same_struct(&hs.s, &want), "iterate wrote the struct");
                                let bad = (0..sb.particle_count).find(|k| non_finite(&before, bs, &sb, *k));
                                if s == XpbdStatus::NonFinitePosition {
                                    assert!(
                                        non_finite(&before, bs, &sb, hs.s.error_index),
                                        "iterate named finite particle {}",
                                        hs.s.error_index
                                    );
                                }
                                if let (Some(bad), true) = (bad, STRICT_COLORED_NAN) {
                                    // docs/c-api.md: iterate re-checks every position
                                    // first and writes nothing.
                                    assert_eq!(s, XpbdStatus::NonFinitePosition, "particle {bad} is not finite");
                                    assert!(a.0 == before.0, "iterate wrote with particle {bad} not finite");
                                }
                                let p = pos_spans(&sb);
                                let lambda = Span::of(sb.lambda, sb.link_count).range();
                                let written = if s.code() == 0 { o.range() } else { None };
                                assert!(
                                    same_outside(a.bytes(), before.bytes(), base as usize, &[p[0], p[1], p[2], lambda, written]),
                                    "iterate ({}) wrote outside the positions, λ and its output",
                                    s.code()
                                );
                                if known.clean {
                                    untouched_non_finite(&a, &before, bs, &sb, "iterate");
                                }
                                continue;
                            }
                            9 => {
                                let color = usize::from(inp.byte() % 8);
                                let jb = usize::from(inp.byte() % 4);
                                let jobs = usize::from(inp.byte() % 4);
                                let size = core::mem::size_of::<$Stats>();
                                let ps = Place::pick(&mut inp, REGIONS, OUT * REGION, size, size_sys, None);
                                let pe = Place::pick(&mut inp, REGIONS, OUT2 * REGION, 8, size_sys, Some(ps));
                                job(&mut a, &mut hs, &mut known, color, jb, jobs, ps, pe);
                                continue;
                            }
                            10 => {
                                let (b, e) = (usize::from(inp.byte()), usize::from(inp.byte()));
                                let (jb, jobs) = (usize::from(inp.byte()), usize::from(inp.byte() % 8));
                                let pb = Place::pick(&mut inp, REGIONS, OUT * REGION, 8, 0, None);
                                let pe = Place::pick(&mut inp, REGIONS, OUT2 * REGION, 8, 0, Some(pb));
                                if pb != Place::At(OUT * REGION) || pe != Place::At(OUT2 * REGION) {
                                    // The outputs may land in the system's buffers.
                                    known.clean = false;
                                    known.contract = None;
                                }
                                let ob = pb.ptr::<usize>(base, core::ptr::null_mut());
                                let oe = pe.ptr::<usize>(base, core::ptr::null_mut());
                                let spans = [Span::of(ob, 1), Span::of(oe, 1)];
                                let mut pre = Pre::default();
                                if ob.is_null() || oe.is_null() {
                                    pre.add(XpbdStatus::NullPointer);
                                } else {
                                    pre.buffers(&spans);
                                }
                                if pre.is_empty() && (jobs == 0 || jb >= jobs || e < b) {
                                    pre.add(XpbdStatus::InvalidArgument);
                                }
                                let s = xpbd_job_range(b, e, jb, jobs, ob, oe);
                                if pre.is_empty() {
                                    assert_eq!(s, XpbdStatus::Ok, "job_range({b}, {e}, {jb}, {jobs})");
                                    let r0 = read_at(&a, bs, ob.cast_const(), 0).unwrap_or(0);
                                    let r1 = read_at(&a, bs, oe.cast_const(), 0).unwrap_or(0);
                                    assert!(
                                        b <= r0 && r0 <= r1 && r1 <= e,
                                        "job range {r0}..{r1} outside {b}..{e}"
                                    );
                                    assert!(
                                        same_outside(a.bytes(), before.bytes(), base as usize, &[spans[0].range(), spans[1].range()]),
                                        "job_range wrote outside its outputs"
                                    );
                                } else {
                                    assert!(pre.contains(s), "job_range: status {} ({:#x})", s.code(), pre.0);
                                    assert!(a.0 == before.0, "job_range wrote on error");
                                }
                                continue;
                            }
                            12 => {
                                // An edit between iterations: one coordinate of one
                                // particle, NaN, ±infinity or any float.
                                let sb = hs.s;
                                if sb.particle_count == 0 {
                                    continue;
                                }
                                let k = usize::from(inp.byte()) % sb.particle_count;
                                let d = usize::from(inp.byte()) % 3;
                                let v: $T = match inp.byte() % 4 {
                                    0 => <$T>::NAN,
                                    1 => <$T>::INFINITY,
                                    2 => <$T>::NEG_INFINITY,
                                    _ => inp.real(),
                                };
                                let at = if !sb.positions.is_null() {
                                    sb.positions.cast::<$T>().wrapping_add(3 * k + d)
                                } else {
                                    [sb.x, sb.y, sb.z][d].wrapping_add(k)
                                };
                                let off = (at as usize).wrapping_sub(base as usize);
                                if !at.is_null() && off + core::mem::size_of::<$T>() <= REGIONS * REGION {
                                    at.write(v);
                                }
                                continue;
                            }
                            13 => {
                                sweep(&mut inp, &mut a, &mut hs, &mut known);
                                continue;
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
