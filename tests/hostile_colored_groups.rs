//! The colored group C ABI (`xpbd_color_group`,
//! `xpbd_system3_begin_substep_colored`, `xpbd_system3_iterate_colored`,
//! `xpbd_system3_solve_group_job`) called from Rust, so that Miri checks
//! every access the C layer makes: jobs of one color on real threads give
//! the bits of the sequential `xpbd_system3_iterate_groups`; NULL,
//! misaligned and aliased buffers, bad codes, bad boundaries, an improper
//! coloring and a job before the colored begin are refused with nothing
//! written.

use core::ptr;
use xpbd::ffi::*;
use xpbd::{
    bends_count_for_cloth, bends_for_cloth, cloth, cloth_link_count, color_instances, color_order,
    fill_in_order, tethers, Bend, Instance, Link, Tether,
};

const H: f64 = 1.0 / 240.0;

fn colored<const N: usize, K: Instance<N>>(items: &mut [K], n: usize) -> Vec<usize> {
    let (mut used, mut colors) = (vec![0u64; n], vec![0u32; items.len()]);
    let count = color_instances(items, n, &mut used, &mut colors).unwrap();
    let mut starts = vec![0usize; count as usize + 1];
    let mut order = vec![0u32; items.len()];
    color_order(&colors, count, &mut starts, &mut order).unwrap();
    let copy = items.to_vec();
    fill_in_order(&copy, &order, items).unwrap();
    starts
}

#[derive(Clone)]
struct Scene {
    x: Vec<[f64; 3]>,
    w: Vec<f64>,
    links: Vec<Link<f64>>,
    bends: Vec<Bend<f64>>,
    tethers: Vec<Tether<f64>>,
    starts: [Vec<usize>; 3],
}

impl Scene {
    fn new() -> Self {
        Self::sized(if cfg!(miri) { (3, 4) } else { (9, 9) })
    }

    /// A cloth of `rows × cols` particles, the first row pinned, with
    /// links, bends and tethers to the first row, in colored order.
    fn sized((rows, cols): (usize, usize)) -> Self {
        let n = rows * cols;
        let mut x: Vec<[f64; 3]> = (0..n)
            .map(|k| [(k % cols) as f64 * 0.1, (k / cols) as f64 * 0.1, 0.0])
            .collect();
        let w: Vec<f64> = (0..n).map(|k| if k < cols { 0.0 } else { 1.0 }).collect();
        let mut links = vec![Link::default(); cloth_link_count(rows, cols, false).unwrap()];
        cloth(&x, rows, cols, false, 1e-7, &mut links).unwrap();
        let mut bends = vec![Bend::default(); bends_count_for_cloth(rows, cols)];
        bends_for_cloth(&x, rows, cols, 1e-3, &mut bends).unwrap();
        let anchors: Vec<u32> = (0..cols as u32).collect();
        let mut t = vec![Tether::default(); n];
        let count = tethers(&x, &w, &anchors, 0.0, &mut t).unwrap();
        t.truncate(count);
        for (k, p) in x.iter_mut().enumerate().skip(cols) {
            p[1] *= 1.25;
            p[2] = 0.01 * (k % 3) as f64;
        }
        let l = colored(&mut links, n);
        let b = colored(&mut bends, n);
        let e = colored(&mut t, n);
        Scene {
            x,
            w,
            links,
            bends,
            tethers: t,
            starts: [l, b, e],
        }
    }

    fn structs(&mut self) -> (XpbdSystem3, XpbdConstraints3, XpbdGroupColors) {
        // SAFETY: all-zero is a valid value of these plain C structs.
        let (mut s, mut g, mut c): (XpbdSystem3, XpbdConstraints3, XpbdGroupColors) =
            unsafe { core::mem::zeroed() };
        s.positions = self.x.as_mut_ptr();
        s.inverse_masses = self.w.as_ptr();
        s.particle_count = self.x.len();
        s.links = self.links.as_mut_ptr();
        s.link_count = self.links.len();
        g.bends = self.bends.as_mut_ptr();
        g.bend_count = self.bends.len();
        g.tethers = self.tethers.as_mut_ptr();
        g.tether_count = self.tethers.len();
        c.link_color_starts = self.starts[0].as_ptr();
        c.link_color_count = self.starts[0].len() - 1;
        c.bend_color_starts = self.starts[1].as_ptr();
        c.bend_color_count = self.starts[1].len() - 1;
        c.tether_color_starts = self.starts[2].as_ptr();
        c.tether_color_count = self.starts[2].len() - 1;
        (s, g, c)
    }

    fn bits(&self) -> Vec<u64> {
        let mut v: Vec<u64> = self.x.iter().flatten().map(|c| c.to_bits()).collect();
        v.extend(self.links.iter().map(|l| l.lambda.to_bits()));
        v.extend(self.bends.iter().map(|b| b.lambda.to_bits()));
        v.extend(self.tethers.iter().map(|t| t.lambda.to_bits()));
        v
    }
}

/// Raw pointers that may cross threads (the C contract makes the jobs of
/// one color safe to run at once).
#[derive(Clone, Copy)]
struct Shared(
    *const XpbdSystem3,
    *const XpbdConstraints3,
    *const XpbdGroupColors,
);
// SAFETY: the jobs only read the structs and write disjoint ranges.
unsafe impl Send for Shared {}
// SAFETY: as above.
unsafe impl Sync for Shared {}

#[test]
fn jobs_on_threads_match_the_sequential_iteration_bit_for_bit() {
    // Under Miri (CI budget) two rows: fewer colors of each group (each
    // job call checks every buffer, a quarter of a second there).
    let start = Scene::sized(if cfg!(miri) { (2, 4) } else { (9, 9) });
    // Under Miri one iteration: every job of every color runs on its
    // thread in each (the second added 14 s of interpretation).
    let iterations = if cfg!(miri) { 1 } else { 2 };
    let mut seq = start.clone();
    let (mut s, g, _) = seq.structs();
    let mut seq_stats = XpbdSweepStats::default();
    // SAFETY: the structs name live, disjoint vectors.
    unsafe {
        assert_eq!(
            xpbd_system3_begin_substep_groups(&mut s, &g, H),
            XpbdStatus::Ok
        );
        for _ in 0..iterations {
            assert_eq!(
                xpbd_system3_iterate_groups(&mut s, &g, &mut seq_stats),
                XpbdStatus::Ok
            );
        }
    }
    // Under Miri every color is shorter than a 64-instance chunk, so one of
    // 2 jobs runs the whole color as 1 job would; 2 adds an empty job and
    // the concurrency (a third job would be empty too, and each call
    // checks every buffer: a quarter of a second in the interpreter).
    let counts: &[usize] = if cfg!(miri) { &[2] } else { &[1, 2, 3] };
    for &threads in counts {
        let mut par = start.clone();
        let counts = [
            par.starts[0].len() - 1,
            par.starts[1].len() - 1,
            par.starts[2].len() - 1,
        ];
        let (mut s, g, c) = par.structs();
        let mut stamp = vec![0u32; par.x.len()];
        // SAFETY: as above.
        let begun =
            unsafe { xpbd_system3_begin_substep_colored(&mut s, &g, &c, stamp.as_mut_ptr(), H) };
        assert_eq!(begun, XpbdStatus::Ok);
        let shared = Shared(&s, &g, &c);
        let mut total = XpbdSweepStats::default();
        for _ in 0..iterations {
            total = XpbdSweepStats::default();
            for (k, group) in [XPBD_GROUP_LINKS, XPBD_GROUP_BENDS, XPBD_GROUP_TETHERS]
                .into_iter()
                .enumerate()
            {
                for color in 0..counts[k] {
                    let parts: Vec<XpbdSweepStats> = std::thread::scope(|scope| {
                        let handles: Vec<_> = (0..threads)
                            .map(|job| {
                                scope.spawn(move || {
                                    let sh = shared;
                                    let mut part = XpbdSweepStats::default();
                                    // SAFETY: the structs outlive the scope; jobs of
                                    // one color only (the scope joins them all).
                                    let r = unsafe {
                                        xpbd_system3_solve_group_job(
                                            sh.0,
                                            sh.1,
                                            sh.2,
                                            group,
                                            color,
                                            job,
                                            threads,
                                            &mut part,
                                            ptr::null_mut(),
                                        )
                                    };
                                    assert_eq!(r, XpbdStatus::Ok);
                                    part
                                })
                            })
                            .collect();
                        handles.into_iter().map(|h| h.join().unwrap()).collect()
                    });
                    for p in parts {
                        // SAFETY: valid, distinct stats.
                        unsafe { xpbd_sweep_stats_merge(&mut total, &p) };
                    }
                }
            }
        }
        assert_eq!(par.bits(), seq.bits(), "{threads} threads");
        assert_eq!(total, seq_stats);
        // The colored iteration gives the same bits too.
        let mut one = start.clone();
        let (mut s, g, c) = one.structs();
        let mut st = XpbdSweepStats::default();
        // SAFETY: as above.
        unsafe {
            assert_eq!(
                xpbd_system3_begin_substep_colored(&mut s, &g, &c, stamp.as_mut_ptr(), H),
                XpbdStatus::Ok
            );
            for _ in 0..iterations {
                assert_eq!(
                    xpbd_system3_iterate_colored(&mut s, &g, &c, &mut st),
                    XpbdStatus::Ok
                );
            }
        }
        assert_eq!(one.bits(), seq.bits());
        assert_eq!(st, seq_stats);
    }
}

#[test]
fn rejected_calls_write_nothing() {
    let mut sc = Scene::new();
    let before = sc.bits();
    let n = sc.x.len();
    let (mut s, g, c) = sc.structs();
    let mut stamp = vec![0u32; n];
    let mut scratch = vec![0u64; n];
    let mut colors = vec![7u32; sc.bends.len()];
    let mut count = 99u32;
    let mut index = 1234usize;
    let mut stats = XpbdSweepStats {
        applied: 5,
        ..Default::default()
    };
    let sentinel = stats;
    // SAFETY: every pointer is NULL, valid, or deliberately hostile in a
    // way the checks refuse before any access.
    unsafe {
        // Coloring one group.
        assert_eq!(
            xpbd_color_group(
                &g,
                XPBD_GROUP_LINKS,
                n,
                scratch.as_mut_ptr(),
                colors.as_mut_ptr(),
                &mut count,
                &mut index
            ),
            XpbdStatus::InvalidArgument
        );
        assert_eq!(
            xpbd_color_group(
                ptr::null(),
                XPBD_GROUP_BENDS,
                n,
                scratch.as_mut_ptr(),
                colors.as_mut_ptr(),
                &mut count,
                &mut index
            ),
            XpbdStatus::NullPointer
        );
        assert_eq!(
            xpbd_color_group(
                &g,
                XPBD_GROUP_BENDS,
                n,
                scratch.as_mut_ptr(),
                colors.as_mut_ptr(),
                ptr::null_mut(),
                &mut index
            ),
            XpbdStatus::NullPointer
        );
        let misaligned = colors.as_mut_ptr().cast::<u8>().add(1).cast::<u32>();
        assert_eq!(
            xpbd_color_group(
                &g,
                XPBD_GROUP_BENDS,
                n,
                scratch.as_mut_ptr(),
                misaligned,
                &mut count,
                &mut index
            ),
            XpbdStatus::InvalidArgument
        );
        assert_eq!(
            xpbd_color_group(
                &g,
                XPBD_GROUP_BENDS,
                n,
                scratch.as_mut_ptr(),
                sc.bends.as_mut_ptr().cast(),
                &mut count,
                &mut index
            ),
            XpbdStatus::AliasedBuffers
        );
        assert_eq!(
            xpbd_color_group(
                &g,
                XPBD_GROUP_BENDS,
                n,
                scratch.as_mut_ptr(),
                colors.as_mut_ptr(),
                ptr::addr_of!(g).cast_mut().cast(),
                &mut index
            ),
            XpbdStatus::AliasedBuffers
        );
        assert!(colors.iter().all(|&k| k == 7) && count == 99 && index == 1234);

        // A job before the colored begin.
        assert_eq!(
            xpbd_system3_solve_group_job(
                &s,
                &g,
                &c,
                XPBD_GROUP_BENDS,
                0,
                0,
                1,
                &mut stats,
                &mut index
            ),
            XpbdStatus::NoSubstep
        );
        // An improper coloring: every bend in one color.
        let one = [0usize, sc.bends.len()];
        let mut bad = c;
        bad.bend_color_starts = one.as_ptr();
        bad.bend_color_count = 1;
        assert_eq!(
            xpbd_system3_begin_substep_colored(&mut s, &g, &bad, stamp.as_mut_ptr(), H),
            XpbdStatus::InvalidArgument
        );
        assert_eq!(s.substep_active, 0);
        // Boundaries that do not end at the group's length.
        let short = [0usize, sc.bends.len() - 1];
        bad.bend_color_starts = short.as_ptr();
        assert_eq!(
            xpbd_system3_begin_substep_colored(&mut s, &g, &bad, stamp.as_mut_ptr(), H),
            XpbdStatus::InvalidArgument
        );
        // A count without boundaries; boundaries over the positions.
        bad.bend_color_starts = ptr::null();
        assert_eq!(
            xpbd_system3_begin_substep_colored(&mut s, &g, &bad, stamp.as_mut_ptr(), H),
            XpbdStatus::NullPointer
        );
        let mut over = c;
        over.bend_color_starts = sc.x.as_ptr().cast();
        assert_eq!(
            xpbd_system3_begin_substep_colored(&mut s, &g, &over, stamp.as_mut_ptr(), H),
            XpbdStatus::AliasedBuffers
        );
        // The scratch over the inverse masses, or too short to hold.
        assert_eq!(
            xpbd_system3_begin_substep_colored(&mut s, &g, &c, sc.w.as_ptr().cast_mut().cast(), H),
            XpbdStatus::AliasedBuffers
        );
        assert_eq!(
            xpbd_system3_begin_substep_colored(&mut s, &g, &c, ptr::null_mut(), H),
            XpbdStatus::NullPointer
        );
        assert_eq!(sc.bits(), before, "nothing written");

        // After a successful begin: bad codes, colors, jobs, outputs.
        assert_eq!(
            xpbd_system3_begin_substep_colored(&mut s, &g, &c, stamp.as_mut_ptr(), H),
            XpbdStatus::Ok
        );
        let after_begin = sc.bits();
        let bends_colors = sc.starts[1].len() - 1;
        for (group, color, job, jobs) in [
            (-1, 0, 0, 1),
            (5, 0, 0, 1),
            (XPBD_GROUP_BENDS, bends_colors, 0, 1),
            (XPBD_GROUP_BENDS, 0, 1, 1),
            (XPBD_GROUP_BENDS, 0, 0, 0),
            (XPBD_GROUP_TETS, 0, 0, 1),
            (XPBD_GROUP_MESHES, 0, 0, 1),
        ] {
            assert_eq!(
                xpbd_system3_solve_group_job(
                    &s, &g, &c, group, color, job, jobs, &mut stats, &mut index
                ),
                XpbdStatus::InvalidArgument,
                "group {group}, color {color}, job {job} of {jobs}"
            );
        }
        assert_eq!(
            xpbd_system3_solve_group_job(
                &s,
                &g,
                &c,
                XPBD_GROUP_BENDS,
                0,
                0,
                1,
                sc.bends.as_mut_ptr().cast(),
                &mut index
            ),
            XpbdStatus::AliasedBuffers
        );
        let sp: *mut XpbdSweepStats = &mut stats;
        assert_eq!(
            xpbd_system3_solve_group_job(
                &s,
                &g,
                &c,
                XPBD_GROUP_BENDS,
                0,
                0,
                1,
                sp,
                ptr::addr_of_mut!((*sp).applied)
            ),
            XpbdStatus::AliasedBuffers
        );
        assert_eq!(
            xpbd_system3_solve_group_job(
                ptr::null(),
                &g,
                &c,
                XPBD_GROUP_BENDS,
                0,
                0,
                1,
                &mut stats,
                &mut index
            ),
            XpbdStatus::NullPointer
        );
        let mut forged = s;
        forged.h = f64::NAN;
        assert_eq!(
            xpbd_system3_solve_group_job(
                &forged,
                &g,
                &c,
                XPBD_GROUP_BENDS,
                0,
                0,
                1,
                &mut stats,
                &mut index
            ),
            XpbdStatus::InvalidTimeStep
        );
        assert_eq!(
            xpbd_system3_iterate_colored(&mut s, &g, &bad, &mut stats),
            XpbdStatus::NullPointer
        );
        bad.bend_color_starts = short.as_ptr();
        assert_eq!(
            xpbd_system3_iterate_colored(&mut s, &g, &bad, &mut stats),
            XpbdStatus::InvalidArgument
        );
        assert_eq!(
            xpbd_system3_iterate_colored(&mut s, &g, &c, sc.links.as_mut_ptr().cast()),
            XpbdStatus::AliasedBuffers
        );
        assert_eq!(stats, sentinel);
        assert_eq!(index, 1234);
        assert_eq!(sc.bits(), after_begin, "nothing written");
    }
}
