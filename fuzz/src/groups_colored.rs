//! Fuzzing the colored group ABI (`xpbd_color_group`,
//! `xpbd_system3_begin_substep_colored`, `xpbd_system3_iterate_colored`,
//! `xpbd_system3_solve_group_job`, f64; `xpbd_color_group_f32`).
//!
//! The bytes build a small 3D scene (≤ 12 particles, links, bends, tets,
//! tethers) with mostly valid but sometimes hostile values (NaN, ±∞,
//! negative compliance, out-of-range or repeated indices), color each group
//! through the C calls, put it in colored order, sometimes corrupt a color
//! boundary, and run one substep three ways: the sequential
//! `xpbd_system3_iterate_groups`, `xpbd_system3_iterate_colored`, and the
//! jobs (a byte-chosen job count, jobs of a color in a byte-chosen order).
//!
//! Checks, besides no crash and no sanitizer report:
//! - every status is a documented code (−23 … 1);
//! - a refused coloring writes no color and no count;
//! - a refused colored begin writes no position and no λ;
//! - when the sequential run and a colored run both succeed, their
//!   positions, λ and statistics are the same bits;
//! - a colored begin with unchanged boundaries succeeds exactly when the
//!   sequential begin does.

use xpbd::ffi::XpbdStatus;
use xpbd::ffi::*;

use crate::coloring::{color_all, documented, group_colors, order, value};
use crate::Input;

/// A scene in caller memory (the vectors are never resized after the
/// structs point into them).
#[derive(Clone)]
struct Scene {
    x: Vec<[f64; 3]>,
    w: Vec<f64>,
    links: Vec<XpbdLink>,
    bends: Vec<XpbdBend>,
    tets: Vec<XpbdTet>,
    tethers: Vec<XpbdTether>,
    starts: [Vec<usize>; 4],
    counts: [usize; 4],
}

impl Scene {
    fn bits(&self) -> Vec<u64> {
        let mut v: Vec<u64> = self.x.iter().flatten().map(|c| c.to_bits()).collect();
        v.extend(self.links.iter().map(|l| l.lambda.to_bits()));
        v.extend(self.bends.iter().map(|b| b.lambda.to_bits()));
        v.extend(self.tets.iter().map(|t| t.lambda.to_bits()));
        v.extend(self.tethers.iter().map(|t| t.lambda.to_bits()));
        v
    }

    /// The three structs over this scene's memory.
    fn structs(&mut self) -> (XpbdSystem3, XpbdConstraints3, XpbdGroupColors) {
        // SAFETY: all-zero is a valid value of these plain C structs.
        let (mut sys, mut g): (XpbdSystem3, XpbdConstraints3) = unsafe { core::mem::zeroed() };
        sys.positions = self.x.as_mut_ptr();
        sys.inverse_masses = self.w.as_ptr();
        sys.particle_count = self.x.len();
        sys.links = self.links.as_mut_ptr();
        sys.link_count = self.links.len();
        g.bends = self.bends.as_mut_ptr();
        g.bend_count = self.bends.len();
        g.tets = self.tets.as_mut_ptr();
        g.tet_count = self.tets.len();
        g.tethers = self.tethers.as_mut_ptr();
        g.tether_count = self.tethers.len();
        let c = group_colors(&self.starts, self.counts);
        (sys, g, c)
    }
}

/// A particle index: usually below `n`, sometimes `n` (out of range).
fn index(input: &mut Input, n: usize) -> u32 {
    let b = usize::from(input.byte());
    (if b >= 250 { n } else { b % n }) as u32
}

/// One substep of `iterations` sweeps: 0 sequential, 1 colored, 2 jobs.
/// Returns the statuses' outcome (`None` on any refusal) and the last
/// statistics.
fn run(
    scene: &mut Scene,
    how: u8,
    iterations: usize,
    jobs: usize,
    order: u8,
) -> Option<XpbdSweepStats> {
    let n = scene.x.len();
    let counts = scene.counts;
    let (mut sys, g, c) = scene.structs();
    let mut stamp = vec![0u32; n];
    let before = scene.bits();
    // SAFETY: the structs name live, disjoint vectors of their counts.
    let begun = unsafe {
        if how == 0 {
            xpbd_system3_begin_substep_groups(&mut sys, &g, 1.0 / 240.0)
        } else {
            xpbd_system3_begin_substep_colored(&mut sys, &g, &c, stamp.as_mut_ptr(), 1.0 / 240.0)
        }
    };
    assert!(documented(begun));
    if begun != XpbdStatus::Ok {
        assert_eq!(scene.bits(), before, "a refused begin wrote");
        return None;
    }
    let mut last = XpbdSweepStats::default();
    for _ in 0..iterations {
        let mut total = XpbdSweepStats::default();
        // SAFETY: as above; one thread.
        let s = unsafe {
            match how {
                0 => xpbd_system3_iterate_groups(&mut sys, &g, &mut total),
                1 => xpbd_system3_iterate_colored(&mut sys, &g, &c, &mut total),
                _ => {
                    let groups = [
                        XPBD_GROUP_LINKS,
                        XPBD_GROUP_BENDS,
                        XPBD_GROUP_TETS,
                        XPBD_GROUP_TETHERS,
                    ];
                    let mut status = XpbdStatus::Ok;
                    'all: for (k, &group) in groups.iter().enumerate() {
                        for color in 0..counts[k] {
                            for step in 0..jobs {
                                let job = if order & 1 == 1 {
                                    jobs - 1 - step
                                } else {
                                    step
                                };
                                let mut part = XpbdSweepStats::default();
                                let mut at = usize::MAX;
                                let s = xpbd_system3_solve_group_job(
                                    &sys, &g, &c, group, color, job, jobs, &mut part, &mut at,
                                );
                                assert!(documented(s));
                                if s != XpbdStatus::Ok {
                                    status = s;
                                    break 'all;
                                }
                                assert_eq!(at, usize::MAX, "error index written on success");
                                xpbd_sweep_stats_merge(&mut total, &part);
                            }
                        }
                    }
                    status
                }
            }
        };
        assert!(documented(s));
        if s != XpbdStatus::Ok {
            return None;
        }
        last = total;
    }
    Some(last)
}

/// The fuzz target.
pub fn groups_colored(data: &[u8]) {
    let mut input = Input::new(data);
    let n = 4 + usize::from(input.byte() % 9);
    let x: Vec<[f64; 3]> = (0..n)
        .map(|k| {
            let j = 0.01 * f64::from(input.byte()) / 255.0;
            [
                value(&mut input, (k % 3) as f64 * 0.1 + j),
                value(&mut input, (k / 3 % 2) as f64 * 0.1),
                value(&mut input, (k / 6) as f64 * 0.1 - j),
            ]
        })
        .collect();
    let w: Vec<f64> = (0..n)
        .map(|k| value(&mut input, if k == 0 { 0.0 } else { 1.0 }))
        .collect();
    let count = |input: &mut Input, most: u8| usize::from(input.byte() % (most + 1));
    let (nl, nb, nt, ne) = (
        count(&mut input, 8),
        count(&mut input, 4),
        count(&mut input, 4),
        count(&mut input, 4),
    );
    let mut links = Vec::with_capacity(nl);
    for _ in 0..nl {
        let (i, j) = (index(&mut input, n), index(&mut input, n));
        let rest = value(&mut input, 0.1);
        let compliance = value(&mut input, 1e-6);
        links.push(XpbdLink {
            i,
            j,
            rest,
            compliance,
            lambda: 0.0,
            flags: u32::from(input.byte() == 7),
        });
    }
    let four = |input: &mut Input| [0; 4].map(|_| index(input, n));
    let mut bends = Vec::with_capacity(nb);
    for _ in 0..nb {
        let p = four(&mut input);
        bends.push(XpbdBend {
            particles: p,
            rest_angle: value(&mut input, 0.2),
            compliance: value(&mut input, 1e-3),
            lambda: 0.0,
        });
    }
    let mut tets = Vec::with_capacity(nt);
    for _ in 0..nt {
        let p = four(&mut input);
        tets.push(XpbdTet {
            particles: p,
            rest_volume: value(&mut input, 1e-4),
            compliance: value(&mut input, 1e-6),
            lambda: 0.0,
        });
    }
    let mut tethers = Vec::with_capacity(ne);
    for _ in 0..ne {
        let (particle, anchor) = (index(&mut input, n), index(&mut input, n));
        tethers.push(XpbdTether {
            particle,
            anchor,
            max_distance: value(&mut input, 0.15),
            compliance: value(&mut input, 0.0),
            lambda: 0.0,
        });
    }
    let mut scene = Scene {
        x,
        w,
        links,
        bends,
        tets,
        tethers,
        starts: Default::default(),
        counts: [0; 4],
    };
    let mut scratch = vec![0u64; n];
    // Color every group through the C calls; stop on a refusal.
    let (sys, g, _) = scene.structs();
    let Some([l, b, t, e]) = color_all((sys.links, nl), &g, n) else {
        return;
    };
    let groups = [
        order(&mut scene.links, l),
        order(&mut scene.bends, b),
        order(&mut scene.tets, t),
        order(&mut scene.tethers, e),
    ];
    for (k, (starts, count)) in groups.into_iter().enumerate() {
        scene.starts[k] = starts;
        scene.counts[k] = count;
    }
    // Sometimes a corrupt boundary.
    let corrupt = input.byte();
    if corrupt >= 224 {
        let k = usize::from(corrupt % 4);
        if let Some(s) = scene.starts[k].get_mut(usize::from(input.byte()) % 3) {
            *s = s
                .wrapping_add(usize::from(input.byte() % 3))
                .wrapping_sub(1);
        }
    }
    let iterations = 1 + usize::from(input.byte() % 3);
    let jobs = 1 + usize::from(input.byte() % 8);
    let order = input.byte();
    let mut seq = scene.clone();
    let mut colored = scene.clone();
    let mut jobbed = scene.clone();
    let r0 = run(&mut seq, 0, iterations, jobs, order);
    let r1 = run(&mut colored, 1, iterations, jobs, order);
    let r2 = run(&mut jobbed, 2, iterations, jobs, order);
    if let (Some(a), Some(b)) = (r0, r1) {
        assert_eq!(
            seq.bits(),
            colored.bits(),
            "iterate_colored differs from iterate_groups"
        );
        assert_eq!(a, b);
    }
    if let (Some(a), Some(b)) = (r0, r2) {
        assert_eq!(seq.bits(), jobbed.bits(), "jobs differ from iterate_groups");
        assert_eq!(a, b);
    }
    if corrupt < 224 {
        // Unchanged boundaries of a proper coloring: the colored begin
        // refuses exactly what the sequential begin refuses.
        let mut a = scene.clone();
        let mut b = scene.clone();
        let begun = |s: &mut Scene, colored: bool| {
            let (mut sys, g, c) = s.structs();
            let mut stamp = vec![0u32; s.x.len()];
            // SAFETY: live, disjoint buffers.
            unsafe {
                if colored {
                    xpbd_system3_begin_substep_colored(
                        &mut sys,
                        &g,
                        &c,
                        stamp.as_mut_ptr(),
                        1.0 / 240.0,
                    )
                } else {
                    xpbd_system3_begin_substep_groups(&mut sys, &g, 1.0 / 240.0)
                }
            }
        };
        assert_eq!(begun(&mut a, false), begun(&mut b, true));
    }
    // The float twin of the coloring, on the tets' indices.
    let tets32: Vec<XpbdTetF32> = scene
        .tets
        .iter()
        .map(|t| XpbdTetF32 {
            particles: t.particles,
            rest_volume: 1e-4,
            compliance: 0.0,
            lambda: 0.0,
        })
        .collect();
    // SAFETY: all-zero is a valid groups struct.
    let mut g32: XpbdConstraints3F32 = unsafe { core::mem::zeroed() };
    g32.tets = tets32.as_ptr().cast_mut();
    g32.tet_count = tets32.len();
    let mut colors = vec![0u32; tets32.len()];
    let mut count = 0;
    // SAFETY: valid, disjoint buffers; the tets are only read.
    let s = unsafe {
        xpbd_color_group_f32(
            &g32,
            XPBD_GROUP_TETS,
            n,
            scratch.as_mut_ptr(),
            colors.as_mut_ptr(),
            &mut count,
            core::ptr::null_mut(),
        )
    };
    assert_eq!(s, XpbdStatus::Ok, "the tets were colored in f64");
}
