//! Hostile C callers, round two (issue 14): each class of break found by the
//! campaign, through the C ABI called from Rust (so Miri checks it too).
//! Every test here failed before its fix.

use core::ptr;
use xpbd::ffi::*;
use xpbd::{color_order, rope, rope_coloring, Link};

#[path = "support/c_step.rs"]
mod c_step;
use c_step::{give_memory, memory_size};

/// A 4-particle 3D rope along x, particle 0 pinned, the last link stretched.
fn rope_parts() -> (Vec<[f64; 3]>, Vec<f64>, Vec<XpbdLink>) {
    let mut x = vec![
        [0.0, 0.0, 0.0],
        [0.5, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [1.5, 0.0, 0.0],
    ];
    let w = vec![0.0, 1.0, 1.0, 1.0];
    let mut links = vec![Link::default(); 3];
    rope(&x, 1e-6, &mut links).unwrap();
    x[3][0] = 1.8;
    (x, w, links)
}

fn system(x: &mut [[f64; 3]], w: &[f64], links: &mut [XpbdLink]) -> XpbdSystem3 {
    XpbdSystem3 {
        positions: x.as_mut_ptr(),
        inverse_masses: w.as_ptr(),
        particle_count: x.len(),
        links: links.as_mut_ptr(),
        link_count: links.len(),
        zero_length_policy: XPBD_ZERO_LENGTH_REJECT,
        substep_active: 0,
        h: 0.0,
        error_index: 0,
    }
}

/// A C world over particles and links: no block, no memory.
fn world3(x: &mut [[f64; 3]], v: &mut [[f64; 3]], w: &[f64], links: &mut [XpbdLink]) -> XpbdWorld3 {
    let mut world = xpbd_world3_default();
    world.positions = x.as_mut_ptr();
    world.velocities = v.as_mut_ptr();
    world.inverse_masses = w.as_ptr();
    world.particle_count = x.len();
    world.links = links.as_mut_ptr();
    world.link_count = links.len();
    world
}

fn bytes<T>(v: &[T]) -> Vec<u8> {
    // SAFETY: reading the initialised bytes of a slice of plain data.
    unsafe { core::slice::from_raw_parts(v.as_ptr().cast::<u8>(), core::mem::size_of_val(v)) }
        .to_vec()
}

/// The fields of every attachment, bit for bit (not their bytes: the
/// struct has padding after `particle`, which is uninitialised).
fn attachment_bits(at: &[XpbdAttachment]) -> Vec<(u32, Vec<u64>)> {
    at.iter()
        .map(|a| {
            let fields = [a.previous, a.target, a.lambda, a.impulse, a.force];
            let mut bits: Vec<u64> = fields.iter().flatten().map(|v| v.to_bits()).collect();
            bits.push(a.compliance.to_bits());
            (a.particle, bits)
        })
        .collect()
}

/// The fields of every link, bit for bit (not their bytes: `Link` has
/// padding, which is uninitialised).
fn link_bits(links: &[XpbdLink]) -> Vec<(u32, u32, u64, u64, u64, u32)> {
    links
        .iter()
        .map(|l| {
            (
                l.i,
                l.j,
                l.rest.to_bits(),
                l.compliance.to_bits(),
                l.lambda.to_bits(),
                l.flags,
            )
        })
        .collect()
}

/// The colored arrays of a rope (even/odd colors), f64, SoA-free (AoS).
struct Colored {
    x: Vec<[f64; 3]>,
    w: Vec<f64>,
    i: Vec<u32>,
    j: Vec<u32>,
    rest: Vec<f64>,
    compliance: Vec<f64>,
    lambda: Vec<f64>,
    alpha: Vec<f64>,
    g: Vec<f64>,
    starts: Vec<usize>,
    stamp: Vec<u32>,
}

impl Colored {
    /// A rope of `n` particles, 0.5 m apart, the last one pulled 0.3 m.
    fn rope(n: usize) -> Self {
        let mut x: Vec<[f64; 3]> = (0..n).map(|k| [0.5 * k as f64, 0.0, 0.0]).collect();
        let mut w = vec![1.0; n];
        w[0] = 0.0;
        let m = n - 1;
        let mut links = vec![Link::default(); m];
        rope(&x, 1e-6, &mut links).unwrap();
        x[n - 1][0] += 0.3;
        let mut colors = vec![0u32; m];
        let count = rope_coloring(m, false, &mut colors).unwrap();
        let mut order = vec![0u32; m];
        let mut starts = vec![0usize; count as usize + 1];
        color_order(&colors, count, &mut starts, &mut order).unwrap();
        let mut c = Colored {
            x,
            w,
            i: vec![0; m],
            j: vec![0; m],
            rest: vec![0.0; m],
            compliance: vec![0.0; m],
            lambda: vec![0.0; m],
            alpha: vec![0.0; m],
            g: vec![0.0; m],
            starts,
            stamp: vec![0; n],
        };
        xpbd::fill_colored_links(
            &links,
            &order,
            &mut c.i,
            &mut c.j,
            &mut c.rest,
            &mut c.compliance,
            &mut c.lambda,
        )
        .unwrap();
        c
    }

    fn system(&mut self) -> XpbdSimdLinks3 {
        XpbdSimdLinks3 {
            positions: self.x.as_mut_ptr(),
            x: ptr::null_mut(),
            y: ptr::null_mut(),
            z: ptr::null_mut(),
            inverse_masses: self.w.as_ptr(),
            particle_count: self.x.len(),
            i: self.i.as_ptr(),
            j: self.j.as_ptr(),
            rest: self.rest.as_ptr(),
            compliance: self.compliance.as_ptr(),
            lambda: self.lambda.as_mut_ptr(),
            alpha: self.alpha.as_mut_ptr(),
            inv_denominator: self.g.as_mut_ptr(),
            link_count: self.i.len(),
            color_starts: self.starts.as_ptr(),
            color_count: self.starts.len() - 1,
            stamp: self.stamp.as_mut_ptr(),
            zero_length_policy: XPBD_ZERO_LENGTH_REJECT,
            substep_active: 0,
            h: 0.0,
            error_index: 0,
            simd: 0,
        }
    }
}

// ---- 1. Outputs are checked against the other buffers ----

#[test]
fn outputs_overlapping_inputs_are_refused_and_nothing_is_written() {
    let (mut x, w, mut links) = rope_parts();
    let mut sys = system(&mut x, &w, &mut links);
    // SAFETY: valid buffers; the outputs deliberately alias them.
    unsafe {
        assert_eq!(
            xpbd_system3_begin_substep(&mut sys, 1.0 / 60.0),
            XpbdStatus::Ok
        );
        let before = (bytes(&x), link_bits(&links));
        // out_stats over the links, over the positions, over the struct.
        let over_links = links.as_mut_ptr().cast::<XpbdSweepStats>();
        assert_eq!(
            xpbd_system3_iterate(&mut sys, over_links),
            XpbdStatus::AliasedBuffers
        );
        assert_eq!(
            xpbd_system3_measure(&mut sys, x.as_mut_ptr().cast()),
            XpbdStatus::AliasedBuffers
        );
        let over_sys = ptr::addr_of_mut!(sys).cast::<XpbdConvergence>();
        assert_eq!(
            xpbd_system3_iterate_until(&mut sys, 1e-9, 10, over_sys),
            XpbdStatus::AliasedBuffers
        );
        assert_eq!((bytes(&x), link_bits(&links)), before);
    }
}

#[test]
fn colored_outputs_overlapping_inputs_are_refused() {
    let mut c = Colored::rope(9);
    let mut sys = c.system();
    // SAFETY: valid buffers; the outputs deliberately alias them.
    unsafe {
        assert_eq!(
            xpbd_simd_links3_begin_substep(&mut sys, 1.0 / 60.0),
            XpbdStatus::Ok
        );
        let before = (bytes(&c.x), bytes(&c.lambda));
        assert_eq!(
            xpbd_simd_links3_iterate(&mut sys, c.lambda.as_mut_ptr().cast()),
            XpbdStatus::AliasedBuffers
        );
        assert_eq!(
            xpbd_simd_links3_solve_job(
                &sys,
                0,
                0,
                1,
                ptr::null_mut(),
                c.rest.as_ptr().cast_mut().cast() // f64: aligned for usize
            ),
            XpbdStatus::AliasedBuffers
        );
        let mut stats = XpbdSweepStats::default();
        let at = ptr::addr_of_mut!(stats.applied);
        assert_eq!(
            xpbd_simd_links3_solve_job(&sys, 0, 0, 1, &mut stats, at),
            XpbdStatus::AliasedBuffers
        );
        assert_eq!((bytes(&c.x), bytes(&c.lambda)), before);
        let mut both = 7usize;
        assert_eq!(
            xpbd_job_range(0, 100, 0, 2, &mut both, &mut both),
            XpbdStatus::AliasedBuffers
        );
        assert_eq!(both, 7);
    }
}

#[test]
fn moving_colorings_check_the_inverse_masses_as_every_buffer() {
    // Links and tethers from particles 1..=4 to the pinned particle 0.
    let mut tethers: Vec<XpbdTether> = (1..5)
        .map(|p| XpbdTether {
            anchor: 0,
            particle: p,
            max_distance: 1.0,
            ..XpbdTether::default()
        })
        .collect();
    let links: Vec<XpbdLink> = (1..5)
        .map(|p| XpbdLink {
            i: 0,
            j: p,
            rest: 1.0,
            ..XpbdLink::default()
        })
        .collect();
    let w = [0.0, 1.0, 1.0, 1.0, 1.0];
    let g = groups_with(&mut tethers, &mut []);
    let (mut scratch, mut colors, mut count) = ([0u64; 5], [7u32; 4], 7u32);
    let (s, c, n) = (
        scratch.as_mut_ptr(),
        colors.as_mut_ptr(),
        &mut count as *mut u32,
    );
    let misaligned = w.as_ptr().cast::<u8>().wrapping_add(1).cast::<f64>();
    // The inverse masses NULL, misaligned, over the scratch, the tethers
    // (links), the groups struct (links): refused, nothing written but
    // the scratch.
    let hostile = [
        (ptr::null(), XpbdStatus::NullPointer),
        (misaligned, XpbdStatus::InvalidArgument),
        (s.cast_const().cast::<f64>(), XpbdStatus::AliasedBuffers),
        (tethers.as_ptr().cast::<f64>(), XpbdStatus::AliasedBuffers),
        (ptr::addr_of!(g).cast::<f64>(), XpbdStatus::AliasedBuffers),
    ];
    // SAFETY: valid buffers; the inverse masses deliberately hostile.
    unsafe {
        for (k, (bad, status)) in hostile.into_iter().enumerate() {
            let group =
                xpbd_color_group_moving(&g, XPBD_GROUP_TETHERS, bad, 5, s, c, n, ptr::null_mut());
            assert_eq!(group, status, "{k}");
            // The links stand for the groups' arrays.
            let bad = if k >= 3 { links.as_ptr().cast() } else { bad };
            let greedy = xpbd_color_greedy_moving(links.as_ptr(), 4, bad, 5, s, c, n);
            assert_eq!(greedy, status, "{k}");
            assert_eq!((colors, count), ([7; 4], 7), "{k}");
        }
        let ok = xpbd_color_greedy_moving(links.as_ptr(), 4, w.as_ptr(), 5, s, c, n);
        assert_eq!((ok, colors, count), (XpbdStatus::Ok, [0; 4], 1));
        let ok = xpbd_color_group_moving(
            &g,
            XPBD_GROUP_TETHERS,
            w.as_ptr(),
            5,
            s,
            c,
            n,
            ptr::null_mut(),
        );
        assert_eq!((ok, colors, count), (XpbdStatus::Ok, [0; 4], 1));
    }
}

// ---- 2. A position made non-finite between iterations ----

#[test]
fn nan_between_iterations_is_named_and_nothing_is_written() {
    for policy in [XPBD_ZERO_LENGTH_REJECT, XPBD_ZERO_LENGTH_SKIP] {
        for bad in [f64::NAN, f64::INFINITY] {
            let (mut x, w, mut links) = rope_parts();
            let mut sys = system(&mut x, &w, &mut links);
            sys.zero_length_policy = policy;
            // SAFETY: valid, disjoint buffers; the caller edits a position
            // between iterations, which the contract allows.
            unsafe {
                assert_eq!(
                    xpbd_system3_begin_substep(&mut sys, 1.0 / 60.0),
                    XpbdStatus::Ok
                );
                (*sys.positions.add(2))[1] = bad;
                let before = (bytes(&x), link_bits(&links));
                let mut stats = XpbdSweepStats::default();
                assert_eq!(
                    xpbd_system3_iterate(&mut sys, &mut stats),
                    XpbdStatus::NonFinitePosition
                );
                assert_eq!(sys.error_index, 2);
                assert_eq!((bytes(&x), link_bits(&links)), before);
                assert_eq!(stats, XpbdSweepStats::default());
            }
        }
    }
}

#[test]
fn nan_between_colored_iterations_is_named() {
    for policy in [XPBD_ZERO_LENGTH_REJECT, XPBD_ZERO_LENGTH_SKIP] {
        let mut c = Colored::rope(9);
        let mut sys = c.system();
        sys.zero_length_policy = policy;
        // SAFETY: valid, disjoint buffers.
        unsafe {
            assert_eq!(
                xpbd_simd_links3_begin_substep(&mut sys, 1.0 / 60.0),
                XpbdStatus::Ok
            );
            (*sys.positions.add(5))[2] = f64::NAN;
            let mut index = usize::MAX;
            // Particle 5 is in links 4 (color 0) and 5 (color 1).
            let status = xpbd_simd_links3_solve_job(&sys, 0, 0, 1, ptr::null_mut(), &mut index);
            assert_eq!(status, XpbdStatus::NonFinitePosition);
            assert_eq!(index, 5);
            assert!(c.x[5][2].is_nan() && c.x[4] == [2.0, 0.0, 0.0]);
            let status = xpbd_simd_links3_iterate(&mut sys, ptr::null_mut());
            assert_eq!(status, XpbdStatus::NonFinitePosition);
            assert_eq!(sys.error_index, 5);
        }
        // `iterate` re-checks every position before it writes anything, even
        // a particle only the last color (or no link) touches.
        let mut c = Colored::rope(9);
        let mut sys = c.system();
        sys.zero_length_policy = policy;
        // SAFETY: valid, disjoint buffers.
        unsafe {
            assert_eq!(
                xpbd_simd_links3_begin_substep(&mut sys, 1.0 / 60.0),
                XpbdStatus::Ok
            );
            (*sys.positions.add(8))[0] = f64::INFINITY;
            let before = (bytes(&c.x), bytes(&c.lambda));
            let status = xpbd_simd_links3_iterate(&mut sys, ptr::null_mut());
            assert_eq!(
                (status, sys.error_index),
                (XpbdStatus::NonFinitePosition, 8)
            );
            assert_eq!((bytes(&c.x), bytes(&c.lambda)), before);
        }
    }
}

// ---- 3. Colored link flags ----

#[test]
fn colored_fill_refuses_unknown_flags_and_writes_nothing() {
    let x = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0]];
    let mut links = [Link::default(); 2];
    rope(&x, 0.0, &mut links).unwrap();
    let order = [0u32, 1];
    for flags in [0xFFFF_FFFF, 4, XPBD_LINK_TENSION_ONLY | 4, 8] {
        let mut l = links;
        l[1].flags = flags;
        let (mut i, mut j) = ([9u32; 2], [9u32; 2]);
        let (mut rest, mut comp, mut lambda) = ([9.0; 2], [9.0; 2], [9.0; 2]);
        // SAFETY: every buffer valid for its count, disjoint.
        let s = unsafe {
            xpbd_colored_links_fill(
                l.as_ptr(),
                2,
                order.as_ptr(),
                2,
                i.as_mut_ptr(),
                j.as_mut_ptr(),
                rest.as_mut_ptr(),
                comp.as_mut_ptr(),
                lambda.as_mut_ptr(),
            )
        };
        assert_eq!(s, XpbdStatus::InvalidArgument, "flags {flags:#x}");
        assert_eq!(
            (i, j, rest, comp, lambda),
            ([9; 2], [9; 2], [9.0; 2], [9.0; 2], [9.0; 2])
        );
    }
}

/// One link from a static particle at (−0.0, 0, −0.0) to a free one at
/// `x1`, rest 1 m, rigid, with `flags`; `iterations` sweeps of one substep
/// through the sequential C system and through the colored C path (links
/// filled by `xpbd_colored_links_fill`). Returns both particles' bits.
fn one_link_both_paths(x1: f64, flags: u32, iterations: usize) -> [[[u64; 3]; 2]; 2] {
    let start = [[-0.0, 0.0, -0.0], [x1, 0.0, 0.0]];
    let w = [0.0, 1.0];
    let link = XpbdLink {
        flags,
        ..Link::new(0, 1, 1.0, 0.0)
    };
    let bits = |x: &[[f64; 3]]| [x[0].map(f64::to_bits), x[1].map(f64::to_bits)];

    let mut xs = start;
    let mut links = [link];
    let mut sys = system(&mut xs, &w, &mut links);
    // SAFETY: valid, disjoint buffers; one thread.
    unsafe {
        assert_eq!(xpbd_system3_begin_substep(&mut sys, 0.01), XpbdStatus::Ok);
        for _ in 0..iterations {
            assert_eq!(
                xpbd_system3_iterate(&mut sys, ptr::null_mut()),
                XpbdStatus::Ok
            );
        }
    }
    let sequential = bits(&xs);

    let mut c = Colored::rope(2);
    c.x = start.to_vec();
    c.w = w.to_vec();
    // SAFETY: every buffer valid for its count, disjoint.
    let s = unsafe {
        xpbd_colored_links_fill(
            [link].as_ptr(),
            1,
            [0u32].as_ptr(),
            1,
            c.i.as_mut_ptr(),
            c.j.as_mut_ptr(),
            c.rest.as_mut_ptr(),
            c.compliance.as_mut_ptr(),
            c.lambda.as_mut_ptr(),
        )
    };
    assert_eq!(s, XpbdStatus::Ok);
    let mut sys = c.system();
    // SAFETY: valid, disjoint buffers; one thread.
    unsafe {
        assert_eq!(
            xpbd_simd_links3_begin_substep(&mut sys, 0.01),
            XpbdStatus::Ok
        );
        for _ in 0..iterations {
            assert_eq!(
                xpbd_simd_links3_iterate(&mut sys, ptr::null_mut()),
                XpbdStatus::Ok
            );
        }
    }
    [sequential, bits(&c.x)]
}

#[test]
fn colored_path_honours_tension_only_as_the_sequential_path_does() {
    let bits = |x: [[f64; 3]; 2]| [x[0].map(f64::to_bits), x[1].map(f64::to_bits)];
    let signed_zero = [-0.0, 0.0, -0.0];
    // Compressed tension-only: left at 0.5 m by both paths (before: the
    // colored sweep pushed it to 1.0 m).
    for iterations in [1, 5] {
        let [seq, col] = one_link_both_paths(0.5, XPBD_LINK_TENSION_ONLY, iterations);
        assert_eq!(seq, bits([signed_zero, [0.5, 0.0, 0.0]]));
        assert_eq!(col, seq, "{iterations} iterations");
    }
    // Stretched tension-only: pulled to 1.0 m by both.
    let [seq, col] = one_link_both_paths(1.5, XPBD_LINK_TENSION_ONLY, 3);
    assert_eq!(seq, bits([signed_zero, [1.0, 0.0, 0.0]]));
    assert_eq!(col, seq);
    // Bilateral: the compressed link is pushed to 1.0 m by both.
    let [seq, col] = one_link_both_paths(0.5, 0, 3);
    assert_eq!(seq, bits([signed_zero, [1.0, 0.0, 0.0]]));
    assert_eq!(col, seq);
    // Disabled (either way): left where it is by both.
    for flags in [
        XPBD_LINK_DISABLED,
        XPBD_LINK_DISABLED | XPBD_LINK_TENSION_ONLY,
    ] {
        let [seq, col] = one_link_both_paths(1.5, flags, 3);
        assert_eq!(seq, bits([signed_zero, [1.5, 0.0, 0.0]]));
        assert_eq!(col, seq);
    }
}

// ---- 7. One rule for every path ----

#[test]
fn a_static_particle_keeps_its_signed_zeros_on_every_path() {
    // The static particle sits at (−0.0, 0, −0.0); the colored sweep used
    // to write it back as +0.0 (x − 0·n).
    for (x1, flags) in [(1.5, 0), (0.5, 0), (1.5, XPBD_LINK_TENSION_ONLY)] {
        let [seq, col] = one_link_both_paths(x1, flags, 2);
        assert_eq!(seq[0], [(-0.0f64).to_bits(), 0, (-0.0f64).to_bits()]);
        assert_eq!(col[0], seq[0], "x1 {x1}, flags {flags}");
    }
}

// ---- 4. The job contract ----

#[test]
fn a_job_count_other_than_the_colors_is_refused() {
    // Colors of 150 and 149 links: 3 chunks each (under Miri, CI budget,
    // 66 and 65: 2 chunks each, so job 0 of 2 still leaves color 0 half
    // done and color 1's 3 jobs still cover 2 chunks).
    let mut c = Colored::rope(if cfg!(miri) { 132 } else { 300 });
    let mut sys = c.system();
    // SAFETY: valid, disjoint buffers; one thread.
    unsafe {
        assert_eq!(
            xpbd_simd_links3_begin_substep(&mut sys, 1.0 / 60.0),
            XpbdStatus::Ok
        );
        let (n, e) = (ptr::null_mut(), ptr::null_mut());
        assert_eq!(
            xpbd_simd_links3_solve_job(&sys, 0, 0, 2, n, e),
            XpbdStatus::Ok
        );
        let before = bytes(&c.x);
        // Job 0 of 3 while color 0 runs as 2 jobs: refused, nothing written.
        assert_eq!(
            xpbd_simd_links3_solve_job(&sys, 0, 0, 3, n, e),
            XpbdStatus::JobContract
        );
        // A job of color 1 while color 0 still has a job to run: refused.
        assert_eq!(
            xpbd_simd_links3_solve_job(&sys, 1, 0, 2, n, e),
            XpbdStatus::JobContract
        );
        assert_eq!(bytes(&c.x), before);
        // The contract kept: the rest of color 0, then color 1 with 3 jobs.
        assert_eq!(
            xpbd_simd_links3_solve_job(&sys, 0, 1, 2, n, e),
            XpbdStatus::Ok
        );
        for job in 0..3 {
            assert_eq!(
                xpbd_simd_links3_solve_job(&sys, 1, job, 3, n, e),
                XpbdStatus::Ok
            );
        }
        // Job index out of range.
        assert_eq!(
            xpbd_simd_links3_solve_job(&sys, 0, 2, 2, n, e),
            XpbdStatus::InvalidArgument
        );
    }
}

// ---- 5. The stamp scratch ----

#[test]
fn a_rejected_colored_begin_changes_nothing_but_the_stamp() {
    let mut c = Colored::rope(9);
    let mut sys = c.system();
    // SAFETY: valid, disjoint buffers.
    unsafe {
        assert_eq!(
            xpbd_simd_links3_begin_substep(&mut sys, 1.0 / 60.0),
            XpbdStatus::Ok
        );
        assert_eq!(
            xpbd_simd_links3_iterate(&mut sys, ptr::null_mut()),
            XpbdStatus::Ok
        );
        c.rest[3] = f64::NAN; // (a negative one is tension-only, 0 disabled)
        let before = (
            bytes(&c.x),
            bytes(&c.lambda),
            bytes(&c.alpha),
            bytes(&c.g),
            sys.h,
        );
        assert_eq!(
            xpbd_simd_links3_begin_substep(&mut sys, 1.0 / 60.0),
            XpbdStatus::InvalidRestLength
        );
        let after = (
            bytes(&c.x),
            bytes(&c.lambda),
            bytes(&c.alpha),
            bytes(&c.g),
            sys.h,
        );
        assert_eq!(after, before);
        assert_eq!((sys.substep_active, sys.error_index), (0, 3));
    }
}

// ---- 6. Forged state ----

#[test]
fn a_forged_active_struct_has_its_h_checked() {
    let (mut x, w, mut links) = rope_parts();
    let mut sys = system(&mut x, &w, &mut links);
    sys.substep_active = 1;
    sys.h = -0.01;
    let before = (bytes(&x), link_bits(&links));
    // SAFETY: valid, disjoint buffers; the struct is forged on purpose.
    unsafe {
        assert_eq!(
            xpbd_system3_iterate(&mut sys, ptr::null_mut()),
            XpbdStatus::InvalidTimeStep
        );
    }
    assert_eq!((bytes(&x), link_bits(&links)), before);
    let mut c = Colored::rope(9);
    let mut cs = c.system();
    cs.substep_active = 1;
    cs.h = f64::NAN;
    // SAFETY: as above.
    unsafe {
        assert_eq!(
            xpbd_simd_links3_iterate(&mut cs, ptr::null_mut()),
            XpbdStatus::InvalidTimeStep
        );
    }
}

// ---- 7. One rule for every path ----

#[test]
fn a_subnormal_inverse_mass_is_refused_by_both_paths() {
    let (mut x, mut w, mut links) = rope_parts();
    w[3] = 1e-310;
    w[2] = 0.0;
    links[2].compliance = 0.0;
    let mut sys = system(&mut x, &w, &mut links);
    // SAFETY: valid, disjoint buffers.
    unsafe {
        assert_eq!(
            xpbd_system3_begin_substep(&mut sys, 1.0 / 60.0),
            XpbdStatus::UnrepresentableScale
        );
        assert_eq!(sys.error_index, 2);
    }
    let mut c = Colored::rope(9);
    c.w[8] = 1e-310;
    c.w[7] = 0.0;
    c.compliance.iter_mut().for_each(|a| *a = 0.0);
    let mut cs = c.system();
    // SAFETY: valid, disjoint buffers.
    unsafe {
        assert_eq!(
            xpbd_simd_links3_begin_substep(&mut cs, 1.0 / 60.0),
            XpbdStatus::UnrepresentableScale
        );
    }
}

#[test]
fn builders_refuse_what_begin_substep_refuses() {
    let x = [0.0, 0.0, 0.0, 1e-160, 0.0, 0.0];
    let mut links = [XpbdLink::default(); 1];
    let mut count = 9usize;
    // SAFETY: valid buffers.
    let s = unsafe { xpbd_build_rope3(x.as_ptr(), 2, 0.0, links.as_mut_ptr(), 1, &mut count) };
    assert_eq!((s, count), (XpbdStatus::InvalidRestLength, 9));
}

// ---- 8. Unbounded calls ----

#[test]
fn unbounded_work_fails_at_once() {
    let (mut x, w, mut links) = rope_parts();
    let mut v = vec![[0.0; 3]; x.len()];
    let mut world = world3(&mut x, &mut v, &w, &mut links);
    // A colliders block with no collider but a budget of 10 contacts.
    let mut colliders = xpbd_colliders3_default();
    colliders.contact_budget = 10;
    let cb = ptr::addr_of_mut!(colliders);
    // SAFETY: valid world and block; the block outlives the world's use.
    let _memory = unsafe {
        assert_eq!(xpbd_world3_add(&mut world, cb.cast()), XpbdStatus::Ok);
        give_memory(&mut world)
    };
    // Over the substep or iteration limit, then within both but over
    // MAX_WORK: 2^28 sweeps × (3 links + 10 contact slots) > 2^30 visits.
    for (substeps, iterations) in [(u32::MAX, 1), (1, u32::MAX), (4096, 65_536)] {
        let mut config = xpbd_step_config3_default();
        config.substeps = substeps;
        config.iterations = iterations;
        // SAFETY: valid, disjoint buffers.
        let s = unsafe { xpbd_world3_step(&mut world, 1.0 / 60.0, &config, ptr::null_mut()) };
        assert_eq!(s, XpbdStatus::WorkLimit, "{substeps} × {iterations}");
        assert_eq!(world.error_field, XPBD_FIELD_NONE);
    }
    let mut sys = system(&mut x, &w, &mut links);
    // SAFETY: valid, disjoint buffers.
    unsafe {
        assert_eq!(
            xpbd_system3_begin_substep(&mut sys, 1.0 / 60.0),
            XpbdStatus::Ok
        );
        let mut r = XpbdConvergence::default();
        assert_eq!(
            xpbd_system3_iterate_until(&mut sys, 0.0, u32::MAX, &mut r),
            XpbdStatus::WorkLimit
        );
        assert_eq!(r, XpbdConvergence::default());
    }
    assert_eq!(XPBD_MAX_WORK, xpbd::MAX_WORK);
}

// ---- 10. Smaller ones ----

#[test]
fn job_range_takes_huge_job_counts() {
    let (mut b, mut e) = (0usize, 0usize);
    // SAFETY: valid outputs.
    unsafe {
        assert_eq!(
            xpbd_job_range(0, 1000, 5, usize::MAX, &mut b, &mut e),
            XpbdStatus::Ok
        );
        assert_eq!((b, e), (0, 0));
        assert_eq!(
            xpbd_job_range(0, 1000, usize::MAX - 1, usize::MAX, &mut b, &mut e),
            XpbdStatus::Ok
        );
        assert_eq!(e, 1000);
    }
}

#[test]
fn plane_normals_of_any_finite_nonzero_length_are_accepted() {
    for scale in [1e-200, 1e-30, 1.0, 1e30, 1e200] {
        let mut x = [[0.0, -0.5, 0.0]];
        let mut v = [[0.0; 3]];
        let w = [1.0];
        let plane = [XpbdPlane3 {
            normal: [0.0, scale, 0.0],
            offset: 0.0,
        }];
        let mut world = world3(&mut x, &mut v, &w, &mut []);
        let mut colliders = xpbd_colliders3_default();
        colliders.planes = plane.as_ptr();
        colliders.plane_count = 1;
        let cb = ptr::addr_of_mut!(colliders);
        // SAFETY: valid world and block.
        let _memory = unsafe {
            assert_eq!(xpbd_world3_add(&mut world, cb.cast()), XpbdStatus::Ok);
            give_memory(&mut world)
        };
        let mut config = xpbd_step_config3_default();
        if cfg!(miri) {
            // One substep (CI budget): the default 20 repeat its calls.
            config.substeps = 1;
        }
        // SAFETY: valid, disjoint buffers.
        let s = unsafe { xpbd_world3_step(&mut world, 1.0 / 60.0, &config, ptr::null_mut()) };
        assert_eq!(s, XpbdStatus::Ok, "normal length {scale}");
        assert!(x[0][1] >= 0.0, "pushed out of the plane: {:?}", x[0]);
    }
}

#[test]
fn every_status_has_a_distinct_code_and_a_text() {
    let codes = [
        XpbdStatus::UnsupportedFlag,
        XpbdStatus::WorkLimit,
        XpbdStatus::JobContract,
        XpbdStatus::InvalidRestValue,
        XpbdStatus::Degenerate,
        XpbdStatus::InvalidConfig,
        XpbdStatus::InvalidSelfCollision,
        XpbdStatus::InvalidMaxForce,
        XpbdStatus::InvalidBlock,
    ];
    for s in codes {
        assert!(s.code() < -18, "{s:?} reuses an old code");
        assert_eq!(XpbdStatus::from_code(s.code()), Some(s));
        let text = xpbd_status_str(s.code());
        // SAFETY: a static NUL-terminated string.
        let text = unsafe { core::ffi::CStr::from_ptr(text) };
        assert!(!text.to_bytes().starts_with(b"unknown"));
    }
}

#[test]
fn far_from_the_origin_f32_is_reported_by_the_precision_query() {
    let mk = |offset: f32| -> (Vec<[f32; 3]>, Vec<XpbdLinkF32>) {
        let x: Vec<[f32; 3]> = (0..4)
            .map(|k| [offset + 0.1 * k as f32, 0.0, 0.0])
            .collect();
        let mut links = vec![Link::<f32>::default(); 3];
        rope(&x, 0.0, &mut links).unwrap();
        (x, links)
    };
    let config = xpbd_step_config3_default_f32();
    for (offset, coarse) in [(0.0_f32, false), (1.0e4, true), (1.0e6, true)] {
        let (mut x, mut links) = mk(offset);
        let w = [1.0_f32; 4];
        let mut world = xpbd_world3_default_f32();
        world.positions = x.as_mut_ptr();
        world.inverse_masses = w.as_ptr();
        world.particle_count = 4;
        world.links = links.as_mut_ptr();
        world.link_count = 3;
        let (mut ratio, mut particle) = (-1.0_f32, usize::MAX);
        // SAFETY: valid buffers and outputs.
        let s = unsafe { xpbd_world3_precision_f32(&world, &config, &mut ratio, &mut particle) };
        assert_eq!(s, XpbdStatus::Ok);
        assert_eq!(
            f64::from(ratio) > XPBD_PRECISION_LIMIT,
            coarse,
            "{offset}: {ratio}"
        );
        assert_eq!(particle, 3);
        // The outputs may not overlap the positions.
        // SAFETY: as above; the output deliberately aliases the positions.
        let s = unsafe {
            xpbd_world3_precision_f32(&world, &config, x.as_mut_ptr().cast(), &mut particle)
        };
        assert_eq!(s, XpbdStatus::AliasedBuffers);
    }
    // Rust: the same figure, from the same function.
    let (x, _) = mk(1.0e4);
    let p = xpbd::step::precision(&x, 0.1).unwrap();
    assert!(p.is_coarse() && p.spacing == f32::from_bits(1.0e4_f32.to_bits() + 1) - 1.0e4);
}

// ---- Issue 32, §3 and §4: one rule for every path, words that match ----

/// Empty constraint groups but `tethers` and `attachments`.
fn groups_with(tethers: &mut [XpbdTether], attachments: &mut [XpbdAttachment]) -> XpbdConstraints3 {
    XpbdConstraints3 {
        bends: ptr::null_mut(),
        bend_count: 0,
        tets: ptr::null_mut(),
        tet_count: 0,
        tethers: tethers.as_mut_ptr(),
        tether_count: tethers.len(),
        mesh_volumes: ptr::null_mut(),
        mesh_volume_count: 0,
        triangles: ptr::null(),
        triangle_count: 0,
        mesh_scratch: ptr::null_mut(),
        mesh_scratch_count: 0,
        attachments: attachments.as_mut_ptr(),
        attachment_count: attachments.len(),
        mesh_particles: ptr::null(),
        mesh_particle_count: 0,
        skin_constraints: ptr::null_mut(),
        skin_constraint_count: 0,
    }
}

#[test]
fn the_tether_builder_refuses_what_begin_substep_groups_refuses() {
    // Particle 2's squared distance to the anchor overflows (1e200² = ∞):
    // the tether would have max_distance = ∞.
    let x = [[0.0, 0.0, 0.0], [0.5, 0.0, 0.0], [1e200, 0.0, 0.0]];
    let w = [0.0, 1.0, 1.0];
    let anchors = [0u32];
    let sentinel = XpbdTether::new(9, 9, -7.0, -7.0);
    let mut out = [sentinel; 3];
    let mut count = 77usize;
    // SAFETY: valid, disjoint buffers.
    let s = unsafe {
        xpbd_build_tethers3(
            x.as_ptr().cast(),
            w.as_ptr(),
            3,
            anchors.as_ptr(),
            1,
            0.0,
            out.as_mut_ptr(),
            3,
            &mut count,
        )
    };
    assert_eq!((s, count), (XpbdStatus::InvalidRestValue, 77));
    assert_eq!(out, [sentinel; 3], "nothing written");
    // The Rust builder names the tether (the second one written).
    let mut rust = [sentinel; 3];
    assert_eq!(
        xpbd::tethers(&x, &w, &anchors, 0.0, &mut rust),
        Err(xpbd::SystemError::InvalidRestValue { constraint: 1 })
    );
    assert_eq!(rust, [sentinel; 3]);
    // Refused before the capacity: the input is wrong whatever the output.
    // SAFETY: valid, disjoint buffers.
    let s = unsafe {
        xpbd_build_tethers3(
            x.as_ptr().cast(),
            w.as_ptr(),
            3,
            anchors.as_ptr(),
            1,
            0.0,
            out.as_mut_ptr(),
            0,
            &mut count,
        )
    };
    assert_eq!(s, XpbdStatus::InvalidRestValue);
    // What the old builder wrote is what begin_substep_groups refuses.
    let mut links: [XpbdLink; 0] = [];
    let mut xs = x;
    let mut ties = [
        XpbdTether::new(1, 0, 0.5, 0.0),
        XpbdTether::new(2, 0, f64::INFINITY, 0.0),
    ];
    let g = groups_with(&mut ties, &mut []);
    let mut sys = system(&mut xs, &w, &mut links);
    // SAFETY: valid, disjoint buffers.
    let s = unsafe { xpbd_system3_begin_substep_groups(&mut sys, &g, 0.01) };
    assert_eq!((s, sys.error_index), (XpbdStatus::InvalidRestValue, 1));

    // At the edge: 1e154² is finite, so its tether is built and accepted.
    let x = [[0.0, 0.0, 0.0], [0.5, 0.0, 0.0], [1e154, 0.0, 0.0]];
    // SAFETY: valid, disjoint buffers.
    let s = unsafe {
        xpbd_build_tethers3(
            x.as_ptr().cast(),
            w.as_ptr(),
            3,
            anchors.as_ptr(),
            1,
            0.0,
            out.as_mut_ptr(),
            3,
            &mut count,
        )
    };
    assert_eq!((s, count), (XpbdStatus::Ok, 2));
    assert_eq!(out[1].max_distance, 1e154);
    let mut xs = x;
    let mut ties = [out[0], out[1]];
    let g = groups_with(&mut ties, &mut []);
    let mut sys = system(&mut xs, &w, &mut links);
    // SAFETY: valid, disjoint buffers.
    let s = unsafe { xpbd_system3_begin_substep_groups(&mut sys, &g, 0.01) };
    assert_eq!(s, XpbdStatus::Ok);

    // f32: 1e20² overflows a float.
    let x = [[0.0f32, 0.0, 0.0], [1e20, 0.0, 0.0]];
    let w = [0.0f32, 1.0];
    let sentinel = XpbdTetherF32::new(9, 9, -7.0, -7.0);
    let mut out = [sentinel; 1];
    // SAFETY: valid, disjoint buffers.
    let s = unsafe {
        xpbd_build_tethers3_f32(
            x.as_ptr().cast(),
            w.as_ptr(),
            2,
            anchors.as_ptr(),
            1,
            0.0,
            out.as_mut_ptr(),
            1,
            &mut count,
        )
    };
    assert_eq!(
        (s, count, out),
        (XpbdStatus::InvalidRestValue, 2, [sentinel])
    );
}

/// A 1-particle world with one box of `axes` far from it: the step's status
/// and `error_index`.
fn step_with_box(axes: [[f64; 3]; 3]) -> (XpbdStatus, usize) {
    let mut x = [[5.0, 5.0, 5.0]];
    let mut v = [[0.0; 3]];
    let w = [1.0];
    let mut b = XpbdBox3::new([0.0; 3], [0.1; 3]);
    b.axes = axes;
    let boxes = [b];
    let mut world = world3(&mut x, &mut v, &w, &mut []);
    let mut colliders = xpbd_colliders3_default();
    colliders.boxes = boxes.as_ptr();
    colliders.box_count = 1;
    let cb = ptr::addr_of_mut!(colliders);
    // SAFETY: valid world and block.
    let _memory = unsafe {
        assert_eq!(xpbd_world3_add(&mut world, cb.cast()), XpbdStatus::Ok);
        give_memory(&mut world)
    };
    // One substep: the axes are checked before any (and the default 20
    // took most of this file's time under Miri).
    let mut config = xpbd_step_config3_default();
    config.substeps = 1;
    // SAFETY: valid, disjoint buffers.
    let s = unsafe { xpbd_world3_step(&mut world, 1.0 / 60.0, &config, ptr::null_mut()) };
    (s, world.error_index)
}

#[test]
fn box_axes_are_checked_by_their_length_as_documented() {
    // The rule, as the docs state it: | |a_i| − 1 | ≤ 1e-3 and
    // |a_i · a_j| ≤ 1e-3. Each length is exact here (sqrt(s²) = s), and
    // 1.001 and 0.999_000_000_000_000_1 are the doubles nearest the
    // boundary inside it (the double 0.999 lies just outside: 1 − 0.999
    // is 1.0000000000000009e-3).
    let with = |k: usize, s: f64| {
        let mut a = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
        a[k][k] = s;
        step_with_box(a)
    };
    let refused = (XpbdStatus::InvalidCollider, 0);
    // Under Miri (CI budget) one length of each kind per axis: the other
    // lengths take the same C calls, differing in the rule's arithmetic.
    let (inside, beyond): (&[f64], &[f64]) = if cfg!(miri) {
        (&[1.001], &[0.9989])
    } else {
        (
            &[1.001, 0.999_000_000_000_000_1, 1.0006, 0.9994],
            &[1.0011, 0.9989, 1.002, 0.99],
        )
    };
    for k in 0..3 {
        // Accepted by the words, so by the check; the |a|² rule refused
        // every one of these (|a|² − 1 = ±2e-3 at the boundary, 1.2e-3
        // at 1.0006).
        for &s in inside {
            assert_eq!(with(k, s).0, XpbdStatus::Ok, "axis {k} of length {s}");
        }
        // Just beyond, on both sides.
        for &s in beyond {
            assert_eq!(with(k, s), refused, "axis {k} of length {s}");
        }
    }
    // Orthogonality on the dot product, at and beyond 1e-3 (unit axes).
    let tilted = |d: f64| {
        let n = (1.0 + d * d).sqrt();
        step_with_box([[1.0, 0.0, 0.0], [d / n, 1.0 / n, 0.0], [0.0, 0.0, 1.0]])
    };
    assert_eq!(tilted(0.9e-3).0, XpbdStatus::Ok);
    assert_eq!(tilted(1.1e-3), refused);
}

#[test]
fn a_non_finite_attachment_target_has_a_status_that_says_so() {
    let (mut x, w, mut links) = rope_parts();
    let mut at = [
        XpbdAttachment::new(3, [1.5, 0.0, 0.0], 0.0),
        XpbdAttachment::new(1, [0.5, 0.0, 0.0], 0.0),
    ];
    at[1].target[2] = f64::NAN;
    let before = (bytes(&x), attachment_bits(&at));
    let g = groups_with(&mut [], &mut at);
    let mut sys = system(&mut x, &w, &mut links);
    // SAFETY: valid, disjoint buffers.
    let s = unsafe { xpbd_system3_begin_substep_groups(&mut sys, &g, 0.01) };
    // Named after the 3 links: the second attachment.
    assert_eq!((s, sys.error_index), (XpbdStatus::InvalidRestValue, 4));
    assert_eq!((bytes(&x), attachment_bits(&at)), before);
    // The status's documented meaning covers it: the text, the header's
    // comment on the constant and the status table of docs/c-api.md.
    // SAFETY: a static NUL-terminated string.
    let text = unsafe { core::ffi::CStr::from_ptr(xpbd_status_str(s.code())) };
    assert!(
        text.to_str().unwrap().contains("attachment point"),
        "{text:?}"
    );
    if cfg!(miri) {
        return; // the text checks below: safe Rust, minutes in the interpreter
    }
    let header = include_str!("../include/xpbd.h");
    let doc = header
        .split("XPBD_STATUS_JOB_CONTRACT = -21,")
        .nth(1)
        .and_then(|h| h.split("XPBD_STATUS_INVALID_REST_VALUE = -22").next())
        .unwrap();
    assert!(doc.contains("attachment's"), "{doc}");
    let row = include_str!("../docs/c-api.md")
        .lines()
        .find(|l| l.starts_with("| `XPBD_STATUS_INVALID_REST_VALUE`"))
        .unwrap();
    assert!(row.contains("attachment's `previous` or `target`"), "{row}");
}

#[test]
#[cfg_attr(miri, ignore)] // text checks only: safe Rust, minutes in the interpreter
fn the_status_table_names_the_function_returning_unsupported_flag() {
    let row = include_str!("../docs/c-api.md")
        .lines()
        .find(|l| l.starts_with("| `XPBD_STATUS_UNSUPPORTED_FLAG`"))
        .unwrap();
    assert!(row.contains("xpbd_simd_links3_set_simd"), "{row}");
    assert!(!row.contains("no function"), "{row}");
    // The header says the same of the constant.
    let header = include_str!("../include/xpbd.h");
    let doc = header
        .split("XPBD_STATUS_INVALID_COLLIDER = -18,")
        .nth(1)
        .and_then(|h| h.split("XPBD_STATUS_UNSUPPORTED_FLAG = -19").next())
        .unwrap();
    assert!(doc.contains("xpbd_simd_links3_set_simd"), "{doc}");
}

#[test]
#[cfg_attr(miri, ignore)] // text checks only: safe Rust, minutes in the interpreter
fn the_group_job_order_in_the_header_includes_the_attachments() {
    let header = include_str!("../include/xpbd.h");
    for f in [
        "xpbd_system3_solve_group_job(",
        "xpbd_system3_solve_group_job_f32(",
    ] {
        let before = header.split(f).next().unwrap();
        let doc = before
            .rsplit("*/")
            .nth(1)
            .and_then(|d| d.rsplit("/**").next())
            .unwrap();
        assert!(doc.contains("_ATTACHMENTS"), "{f}: {doc}");
        assert!(doc.contains("then every attachment"), "{f}: {doc}");
    }
}

// ---- Issue 33: the world's blocks, memory and field codes ----

/// Positions, velocities, inverse masses, links.
type Particles = (Vec<[f64; 3]>, Vec<[f64; 3]>, Vec<f64>, Vec<XpbdLink>);

/// Three particles 0.5 m apart (0 pinned), two links, moving.
fn three() -> Particles {
    let x = vec![[0.0, 1.0, 0.0], [0.5, 1.0, 0.0], [1.0, 1.0, 0.0]];
    let mut links = vec![Link::default(); 2];
    rope(&x, 1e-6, &mut links).unwrap();
    let v = vec![[0.0; 3], [0.1, 0.2, 0.0], [0.0, -0.3, 0.1]];
    (x, v, vec![0.0, 1.0, 1.0], links)
}

/// The bits of positions and velocities.
fn state(x: &[[f64; 3]], v: &[[f64; 3]]) -> Vec<u64> {
    x.iter().chain(v).flatten().map(|c| c.to_bits()).collect()
}

/// One step of `world` (error_index and error_field preset to 77):
/// status, error_index, error_field.
///
/// # Safety
/// As `xpbd_world3_step`.
unsafe fn step_named(
    world: *mut XpbdWorld3,
    dt: f64,
    config: &XpbdStepConfig3,
) -> (XpbdStatus, usize, i32) {
    // SAFETY: forwarded.
    unsafe {
        (*world).error_index = 77;
        (*world).error_field = 77;
        let s = xpbd_world3_step(world, dt, config, ptr::null_mut());
        (s, (*world).error_index, (*world).error_field)
    }
}

#[test]
fn forged_blocks_are_refused_by_their_position_writing_nothing() {
    let (mut x, mut v, w, mut links) = three();
    let before = state(&x, &v);
    let config = xpbd_step_config3_default();
    let mut memory = vec![0u64; 512];
    let plane = [XpbdPlane3 {
        normal: [0.0, 1.0, 0.0],
        offset: 0.0,
    }];
    let max_force = [1e9, 1e9];
    // Every block kind, valid, and forged headers; each reached through
    // one raw pointer (the chain holds them).
    let mut colliders = xpbd_colliders3_default();
    colliders.planes = plane.as_ptr();
    colliders.plane_count = 1;
    let mut colliders2 = colliders;
    let mut sc = xpbd_self_collision3_default();
    let mut tearing = xpbd_tearing3_default();
    tearing.max_force = max_force.as_ptr();
    let mut engine = xpbd_engine_contacts3_default();
    let mut groups = xpbd_groups3_default();
    let mut wind = xpbd_wind3_default();
    let mut local = xpbd_local_space3_default();
    let mut forged = XpbdBlock {
        kind: 99,
        size: core::mem::size_of::<XpbdBlock>() as u32,
        next: ptr::null_mut(),
    };
    let mut tearing_f32 = xpbd_tearing3_default_f32();
    let c = ptr::addr_of_mut!(colliders).cast::<XpbdBlock>();
    let c2 = ptr::addr_of_mut!(colliders2).cast::<XpbdBlock>();
    let scp = ptr::addr_of_mut!(sc).cast::<XpbdBlock>();
    let t = ptr::addr_of_mut!(tearing).cast::<XpbdBlock>();
    let e = ptr::addr_of_mut!(engine).cast::<XpbdBlock>();
    let g = ptr::addr_of_mut!(groups).cast::<XpbdBlock>();
    let wd = ptr::addr_of_mut!(wind).cast::<XpbdBlock>();
    let ls = ptr::addr_of_mut!(local).cast::<XpbdBlock>();
    let fb = ptr::addr_of_mut!(forged);
    let t32 = ptr::addr_of_mut!(tearing_f32).cast::<XpbdBlock>();
    let all = [c, c2, scp, t, e, g, wd, ls, fb, t32];
    // SAFETY: every block is valid for its kind's size; the chains are
    // forged through their `next` fields; the world's buffers are valid.
    unsafe {
        let reset = || {
            for b in all {
                (*b).next = ptr::null_mut();
            }
            (*c).size = core::mem::size_of::<XpbdColliders3>() as u32;
            (*fb).kind = 99;
        };
        // (what, the chain's blocks in order, the edit, the position named)
        type Edit = fn(*mut XpbdBlock);
        let keep: Edit = |_| {};
        let cases: [(&str, Vec<*mut XpbdBlock>, Edit, usize); 9] = [
            ("unknown kind", vec![c, fb], keep, 1),
            ("kind 0", vec![fb], |b| (*b).kind = 0, 0),
            (
                "kind with the f32 flag only",
                vec![fb],
                |b| (*b).kind = XPBD_BLOCK_F32,
                0,
            ),
            ("size 8 short", vec![c], |b| (*b).size -= 8, 0),
            ("size 8 long", vec![t, c], |b| (*b).size += 8, 1),
            ("an f32 block in an f64 world", vec![g, t32], keep, 1),
            ("the same kind twice", vec![c, t, c2], keep, 2),
            ("a block that is its own next", vec![e, e], keep, 1),
            // Seven distinct kinds, the last one's next the first: a chain
            // longer than XPBD_MAX_BLOCKS.
            (
                "an 8-block cycle",
                vec![c, scp, t, e, g, wd, ls, c],
                keep,
                XPBD_MAX_BLOCKS,
            ),
        ];
        for (what, chain, edit, at) in cases {
            reset();
            for pair in chain.windows(2) {
                (*pair[0]).next = pair[1];
            }
            let target = if what == "size 8 long" { c } else { chain[0] };
            edit(target);
            let mut world = world3(&mut x, &mut v, &w, &mut links);
            world.blocks = chain[0];
            world.memory = memory.as_mut_ptr().cast();
            world.memory_size = memory.len() * 8;
            let got = step_named(&mut world, 1.0 / 60.0, &config);
            assert_eq!(
                got,
                (XpbdStatus::InvalidBlock, at, XPBD_FIELD_BLOCK),
                "{what}"
            );
            assert_eq!(state(&x, &v), before, "{what}: a refused step wrote");
            // The requirements refuse the same chain, naming the same block.
            let sentinel = XpbdRequirements {
                memory_size: 5,
                ..Default::default()
            };
            let mut r = sentinel;
            world.error_index = 77;
            let got = xpbd_world3_requirements(&mut world, &mut r);
            assert_eq!(
                (got, world.error_index),
                (XpbdStatus::InvalidBlock, at),
                "{what}"
            );
            assert_eq!(r, sentinel, "{what}: requirements written");
        }
        // An f64 block in an f32 world.
        reset();
        let (mut xf, mut vf) = ([[0.0f32, 1.0, 0.0]; 1], [[0.5f32; 3]; 1]);
        let wf = [1.0f32];
        let mut world = xpbd_world3_default_f32();
        world.positions = xf.as_mut_ptr();
        world.velocities = vf.as_mut_ptr();
        world.inverse_masses = wf.as_ptr();
        world.particle_count = 1;
        world.memory = memory.as_mut_ptr().cast();
        world.memory_size = memory.len() * 8;
        assert_eq!(xpbd_world3_add_f32(&mut world, t), XpbdStatus::Ok);
        let config = xpbd_step_config3_default_f32();
        let got = xpbd_world3_step_f32(&mut world, 1.0 / 60.0, &config, ptr::null_mut());
        assert_eq!(
            (got, world.error_index, world.error_field),
            (XpbdStatus::InvalidBlock, 0, XPBD_FIELD_BLOCK)
        );
        assert_eq!((xf, vf), ([[0.0, 1.0, 0.0]], [[0.5; 3]]));
        // Adding the chain's head again is refused (it would be a cycle).
        reset();
        let mut world = world3(&mut x, &mut v, &w, &mut links);
        assert_eq!(xpbd_world3_add(&mut world, c), XpbdStatus::Ok);
        assert_eq!(xpbd_world3_add(&mut world, c), XpbdStatus::InvalidBlock);
        assert_eq!((world.blocks, (*c).next), (c, ptr::null_mut()));
        assert_eq!(xpbd_world3_add(ptr::null_mut(), c), XpbdStatus::NullPointer);
        assert_eq!(
            xpbd_world3_add(&mut world, ptr::null_mut()),
            XpbdStatus::NullPointer
        );
    }
}

#[test]
fn memory_too_small_null_or_misaligned_is_named_writing_nothing() {
    let (mut x, mut v, w, mut links) = three();
    let before = state(&x, &v);
    let mut config = xpbd_step_config3_default();
    config.substeps = 2;
    let plane = [XpbdPlane3 {
        normal: [0.0, 1.0, 0.0],
        offset: 0.0,
    }];
    let mut colliders = xpbd_colliders3_default();
    colliders.planes = plane.as_ptr();
    colliders.plane_count = 1;
    let cb = ptr::addr_of_mut!(colliders);
    let mut world = world3(&mut x, &mut v, &w, &mut links);
    // SAFETY: valid world and block.
    let needed = unsafe {
        assert_eq!(xpbd_world3_add(&mut world, cb.cast()), XpbdStatus::Ok);
        memory_size(&mut world)
    };
    // What it is made of: 3 × 3 scratch positions and two state entries
    // per link (2 links), 3 × 1 contacts, the stamp; no self-collision.
    let mut r = XpbdRequirements::default();
    // SAFETY: as above.
    assert_eq!(
        unsafe { xpbd_world3_requirements(&mut world, &mut r) },
        XpbdStatus::Ok
    );
    assert_eq!(
        (
            r.scratch,
            r.contacts,
            r.pairs,
            r.hash_table,
            r.hash_ids,
            r.adjacency,
            r.stamp
        ),
        (13, 3, 0, 0, 0, 0, 3)
    );
    assert!(needed >= 13 * 24 + 3 * core::mem::size_of::<XpbdContact>() + 3 * 4);
    // A buffer larger than needed, filled with a pattern.
    let pattern = 0xA5A5_A5A5_A5A5_A5A5u64;
    let mut buf = vec![pattern; needed.div_ceil(8) + 2];
    let base = buf.as_mut_ptr().cast::<u8>();
    let cases: [(&str, *mut u8, usize); 6] = [
        ("one byte short", base, needed - 1),
        ("empty", base, 0),
        ("NULL with its size", ptr::null_mut(), needed),
        ("NULL and empty", ptr::null_mut(), 0),
        ("misaligned by 4", base.wrapping_add(4), needed),
        ("misaligned by 1", base.wrapping_add(1), needed),
    ];
    for (what, memory, size) in cases {
        world.memory = memory.cast();
        world.memory_size = size;
        // SAFETY: valid buffers; the memory is refused before any access.
        let got = unsafe { step_named(&mut world, 1.0 / 60.0, &config) };
        assert_eq!(
            got,
            (XpbdStatus::CapacityTooSmall, needed, XPBD_FIELD_MEMORY),
            "{what}"
        );
        assert_eq!(state(&x, &v), before, "{what}: a refused step wrote");
        assert!(buf.iter().all(|&b| b == pattern), "{what}: memory written");
    }
    // Exactly the size asked, aligned: the step runs.
    world.memory = base.cast();
    world.memory_size = needed;
    // SAFETY: valid, disjoint buffers.
    let got = unsafe { step_named(&mut world, 1.0 / 60.0, &config) };
    // A success clears the error fields.
    assert_eq!(got, (XpbdStatus::Ok, 0, XPBD_FIELD_NONE));
    assert_ne!(state(&x, &v), before);
}

#[test]
fn memory_over_another_buffer_is_aliased_writing_nothing() {
    let (x0, v0, w, mut links) = three();
    let mut config = xpbd_step_config3_default();
    config.substeps = 2;
    let mut out = XpbdStepStats::default();
    let plane = [XpbdPlane3 {
        normal: [0.0, 1.0, 0.0],
        offset: 0.0,
    }];
    let mut colliders = xpbd_colliders3_default();
    colliders.planes = plane.as_ptr();
    colliders.plane_count = 1;
    let cb = ptr::addr_of_mut!(colliders);
    let mut world = xpbd_world3_default();
    world.inverse_masses = w.as_ptr();
    world.particle_count = 3;
    world.links = links.as_mut_ptr();
    world.link_count = 2;
    // SAFETY: valid world and block.
    let needed = unsafe {
        assert_eq!(xpbd_world3_add(&mut world, cb.cast()), XpbdStatus::Ok);
        memory_size(&mut world)
    };
    // The memory's room, the positions (72 bytes), the velocities (72) and
    // room again share one allocation.
    let pad = needed.next_multiple_of(8);
    let mut arena = vec![0u64; (2 * pad + 144) / 8];
    let a = arena.as_mut_ptr().cast::<u8>();
    let (xp, vp) = (
        a.wrapping_add(pad).cast::<[f64; 3]>(),
        a.wrapping_add(pad + 72).cast::<[f64; 3]>(),
    );
    // SAFETY: in the arena, aligned, 3 entries each.
    unsafe {
        ptr::copy_nonoverlapping(x0.as_ptr(), xp, 3);
        ptr::copy_nonoverlapping(v0.as_ptr(), vp, 3);
    }
    world.positions = xp;
    world.velocities = vp;
    let state_bits = || {
        // SAFETY: the arena's positions and velocities, read between calls.
        unsafe { core::slice::from_raw_parts(xp.cast_const().cast::<u64>(), 18) }.to_vec()
    };
    let before = state_bits();
    let wp = ptr::addr_of_mut!(world);
    let cases: [(&str, *mut u8); 10] = [
        ("over the last position", a.wrapping_add(pad + 64)),
        ("over the positions", a.wrapping_add(pad)),
        ("over the velocities", a.wrapping_add(pad + 72)),
        ("running into the first position", a.wrapping_add(8)),
        ("over the inverse masses", w.as_ptr().cast_mut().cast()),
        ("over the links", links.as_mut_ptr().cast()),
        ("over the planes", plane.as_ptr().cast_mut().cast()),
        ("over the colliders block", cb.cast()),
        ("over the world", wp.cast()),
        ("over the output", ptr::addr_of_mut!(out).cast()),
    ];
    for (what, memory) in cases {
        // SAFETY: valid buffers; the overlapping memory is refused before
        // any access.
        let got = unsafe {
            (*wp).memory = memory.cast();
            (*wp).memory_size = needed;
            (*wp).error_index = 77;
            let s = xpbd_world3_step(wp, 1.0 / 60.0, &config, &mut out);
            (s, (*wp).error_index, (*wp).error_field)
        };
        assert_eq!(
            got,
            (XpbdStatus::AliasedBuffers, 0, XPBD_FIELD_NONE),
            "{what}"
        );
        assert_eq!(state_bits(), before, "{what}: a refused step wrote");
        assert_eq!(out, XpbdStepStats::default(), "{what}: output written");
    }
    // Over the configuration.
    let cp = ptr::addr_of!(config);
    // SAFETY: as above.
    let got = unsafe {
        (*wp).memory = cp.cast_mut().cast();
        xpbd_world3_step(wp, 1.0 / 60.0, cp, ptr::null_mut())
    };
    assert_eq!(got, XpbdStatus::AliasedBuffers);
    // Before the positions, or after the velocities: disjoint, the step
    // runs.
    // SAFETY: valid, disjoint buffers.
    let got = unsafe {
        (*wp).memory = a.cast();
        xpbd_world3_step(wp, 1.0 / 60.0, &config, &mut out)
    };
    assert_eq!((got, out.substeps), (XpbdStatus::Ok, 2));
    let once = state_bits();
    assert_ne!(once, before);
    // SAFETY: valid, disjoint buffers.
    let got = unsafe {
        (*wp).memory = a.wrapping_add(pad + 144).cast();
        xpbd_world3_step(wp, 1.0 / 60.0, &config, &mut out)
    };
    assert_eq!((got, out.substeps), (XpbdStatus::Ok, 2));
    assert_ne!(state_bits(), once);
}

#[test]
fn config_and_feature_values_are_named_by_their_field() {
    let (mut x, mut v, w, mut links) = three();
    let before = (state(&x, &v), link_bits(&links));
    let mut max_force = [1e9, 1e9];
    let mut rest = [[0.0, 1.0, 0.0], [0.5, 1.0, 0.0], [1.0, 1.0, 0.0]];
    // One pointer each, for the blocks and the edits between calls.
    let (mp, rp) = (max_force.as_mut_ptr(), rest.as_mut_ptr());
    let mut sc = xpbd_self_collision3_default();
    sc.rest_positions = rp;
    let mut tearing = xpbd_tearing3_default();
    tearing.max_force = mp;
    let (scp, tp) = (ptr::addr_of_mut!(sc), ptr::addr_of_mut!(tearing));
    let mut world = world3(&mut x, &mut v, &w, &mut links);
    // SAFETY: valid world and blocks.
    let _memory = unsafe {
        assert_eq!(xpbd_world3_add(&mut world, scp.cast()), XpbdStatus::Ok);
        assert_eq!(xpbd_world3_add(&mut world, tp.cast()), XpbdStatus::Ok);
        give_memory(&mut world)
    };
    let good = {
        let mut c = xpbd_step_config3_default();
        c.substeps = 2;
        c
    };
    type Edit = fn(&mut XpbdStepConfig3);
    let config_cases: [(&str, Edit, XpbdStatus, i32); 14] = [
        (
            "substeps 0",
            |c| c.substeps = 0,
            XpbdStatus::InvalidConfig,
            XPBD_FIELD_SUBSTEPS,
        ),
        (
            "iterations 0",
            |c| c.iterations = 0,
            XpbdStatus::InvalidConfig,
            XPBD_FIELD_ITERATIONS,
        ),
        (
            "gravity NaN",
            |c| c.gravity[2] = f64::NAN,
            XpbdStatus::InvalidConfig,
            XPBD_FIELD_GRAVITY,
        ),
        (
            "tolerance -1",
            |c| c.tolerance = -1.0,
            XpbdStatus::InvalidConfig,
            XPBD_FIELD_TOLERANCE,
        ),
        (
            "damping ∞",
            |c| c.damping = f64::INFINITY,
            XpbdStatus::InvalidConfig,
            XPBD_FIELD_DAMPING,
        ),
        (
            "radius -0.01",
            |c| c.particle_radius = -0.01,
            XpbdStatus::InvalidConfig,
            XPBD_FIELD_PARTICLE_RADIUS,
        ),
        (
            "contact compliance NaN",
            |c| c.contact_compliance = f64::NAN,
            XpbdStatus::InvalidConfig,
            XPBD_FIELD_CONTACT_COMPLIANCE,
        ),
        (
            "static friction -0.5",
            |c| c.static_friction = -0.5,
            XpbdStatus::InvalidConfig,
            XPBD_FIELD_STATIC_FRICTION,
        ),
        (
            "dynamic friction -∞",
            |c| c.dynamic_friction = f64::NEG_INFINITY,
            XpbdStatus::InvalidConfig,
            XPBD_FIELD_DYNAMIC_FRICTION,
        ),
        (
            "zero-length policy 7",
            |c| c.zero_length_policy = 7,
            XpbdStatus::InvalidConfig,
            XPBD_FIELD_ZERO_LENGTH_POLICY,
        ),
        (
            "contact overflow -1",
            |c| c.contact_overflow = -1,
            XpbdStatus::InvalidConfig,
            XPBD_FIELD_CONTACT_OVERFLOW,
        ),
        (
            "radius 0 with self-collision",
            |c| c.particle_radius = 0.0,
            XpbdStatus::InvalidSelfCollision,
            XPBD_FIELD_PARTICLE_RADIUS,
        ),
        // The bare configuration of old (radius 0) with self-collision.
        (
            "radius -0.0 with self-collision",
            |c| c.particle_radius = -0.0,
            XpbdStatus::InvalidSelfCollision,
            XPBD_FIELD_PARTICLE_RADIUS,
        ),
        (
            "the good configuration",
            |_| {},
            XpbdStatus::Ok,
            XPBD_FIELD_NONE,
        ),
    ];
    let wp = ptr::addr_of_mut!(world);
    // Under Miri (CI budget) one refusal of each kind (a configuration
    // field, the self-collision radius, the frame time, a maximum force,
    // a rest position): the others take the same C calls and reads,
    // refused by other fields' arithmetic.
    let miri = cfg!(miri);
    for (case, (what, edit, status, field)) in config_cases.into_iter().enumerate() {
        if status == XpbdStatus::Ok {
            break; // run below, after every refusal
        }
        if miri && ![0, 11].contains(&case) {
            continue;
        }
        let mut config = good;
        edit(&mut config);
        // SAFETY: valid, disjoint buffers.
        let got = unsafe { step_named(wp, 1.0 / 60.0, &config) };
        assert_eq!(got, (status, 0, field), "{what}");
        assert_eq!((state(&x, &v), link_bits(&links)), before, "{what}: wrote");
    }
    let dts = [f64::NAN, 0.0, -1.0 / 60.0, f64::INFINITY];
    for dt in if miri { &dts[..1] } else { &dts[..] } {
        let dt = *dt;
        // SAFETY: as above.
        let got = unsafe { step_named(wp, dt, &good) };
        assert_eq!(
            got,
            (XpbdStatus::InvalidTimeStep, 0, XPBD_FIELD_FRAME_TIME),
            "dt {dt}"
        );
        assert_eq!((state(&x, &v), link_bits(&links)), before, "dt {dt}: wrote");
    }
    // Block values: a rest position, a maximum force (naming the link).
    let forces = [(1, 0.0), (0, f64::NAN), (1, -1.0), (0, -0.0)];
    for &(k, bad) in if miri { &forces[..1] } else { &forces[..] } {
        // SAFETY: the maximum forces, written between calls; as above.
        let got = unsafe {
            *mp.add(k) = bad;
            let got = step_named(wp, 1.0 / 60.0, &good);
            *mp.add(k) = 1e9;
            got
        };
        assert_eq!(
            got,
            (XpbdStatus::InvalidMaxForce, k, XPBD_FIELD_NONE),
            "max force {bad} on link {k}"
        );
        assert_eq!(
            (state(&x, &v), link_bits(&links)),
            before,
            "max force: wrote"
        );
    }
    for bad in if miri {
        &[f64::NAN][..]
    } else {
        &[f64::NAN, f64::INFINITY][..]
    } {
        let bad = *bad;
        // SAFETY: the rest positions, written between calls; as above.
        let got = unsafe {
            (*rp.add(2))[1] = bad;
            let got = step_named(wp, 1.0 / 60.0, &good);
            (*rp.add(2))[1] = 1.0;
            got
        };
        assert_eq!(
            got,
            (
                XpbdStatus::InvalidSelfCollision,
                0,
                XPBD_FIELD_REST_POSITIONS
            ),
            "rest {bad}"
        );
        assert_eq!((state(&x, &v), link_bits(&links)), before, "rest: wrote");
    }
    // Everything restored: the step runs.
    // SAFETY: as above.
    let got = unsafe { step_named(wp, 1.0 / 60.0, &good) };
    assert_eq!(got, (XpbdStatus::Ok, 0, XPBD_FIELD_NONE));
}

// Issue 35's blocks (wind, local space) and the overlap check with every
// block kind: `hostile_c/blocks.rs`.
#[path = "hostile_c/blocks.rs"]
mod blocks;
