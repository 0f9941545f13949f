//! Colored solving: bit-identical to a plain scalar implementation of the
//! documented colored equations (SoA and AoS, f64 and f32), identical across
//! job splits and thread counts and between the Rust and C entry points,
//! close to the sequential sweep over the same order, and the rejections and
//! failure semantics.

#[path = "support/colored_plan.rs"]
mod colored_plan;

use colored_plan::*;
use xpbd::{
    cloth, cloth_coloring, greedy_coloring, rope, rope_coloring, Aos, Link, SimdLinks, SystemError,
    ZeroLength,
};

#[test]
fn f32_rope_and_cloth_match_the_reference() {
    // 259 links: colors of 130 and 129, not multiples of 4 (under Miri 69
    // links: colors of 35 and 34, still a chunk remainder; fewer steps).
    let n = if cfg!(miri) { 70 } else { 260 };
    let x0: Vec<[f32; 3]> = (0..n).map(|k| [k as f32 * 0.01, 0.0, 0.0]).collect();
    let w: Vec<f32> = (0..n).map(|k| if k == 0 { 0.0 } else { 1.0 }).collect();
    let mut links = vec![Link::default(); n - 1];
    rope(&x0, 1e-5, &mut links).unwrap();
    let x: Vec<[f32; 3]> = x0
        .iter()
        .enumerate()
        .map(|(k, p)| [p[0] * 1.1, (k % 3) as f32 * 0.001, 0.0])
        .collect();
    let mut colors = vec![0; n - 1];
    let count = rope_coloring(n - 1, false, &mut colors).unwrap();
    compare(&x, &w, &links, &colors, count, 6);
    let (rows, cols) = if cfg!(miri) { (4, 5) } else { (9, 13) };
    let (xc, wc) = stretched_cloth(rows, cols);
    let xc: Vec<[f32; 3]> = xc.iter().map(|p| p.map(|v| v as f32)).collect();
    let wc: Vec<f32> = wc.iter().map(|v| *v as f32).collect();
    let m = xpbd::cloth_link_count(rows, cols, true).unwrap();
    let mut cl = vec![Link::default(); m];
    cloth(&xc, rows, cols, true, 1e-6, &mut cl).unwrap();
    let mut colors = vec![0; m];
    let count = cloth_coloring(rows, cols, true, &mut colors).unwrap();
    let xp: Vec<[f32; 3]> = xc
        .iter()
        .enumerate()
        .map(|(k, p)| [p[0] * 1.05, p[1], (k % 4) as f32 * 0.01])
        .collect();
    compare(&xp, &wc, &cl, &colors, count, 4);
}

#[test]
fn huge_finite_coordinates_are_applied_in_both_precisions() {
    // y = z = 0.3 × MAX everywhere: every result is finite (the links lie
    // along x), but the seven outputs of a lane sum past MAX. The kernels'
    // fast paths test finiteness on such a sum and must leave these groups
    // to the exact test, which applies them.
    fn run<T: xpbd::Real>(links: usize) {
        let big = T::from_f64(if T::from_f64(0.1).to_f64() == 0.1 {
            0.3 * f64::MAX
        } else {
            0.3 * f64::from(f32::MAX)
        });
        let n = links + 1;
        let x0: Vec<[T; 3]> = (0..n)
            .map(|k| [T::from_f64(k as f64 * 0.01), big, big])
            .collect();
        let w: Vec<T> = (0..n)
            .map(|k| T::from_f64(if k == 0 { 0.0 } else { 1.0 }))
            .collect();
        let mut l = vec![Link::default(); links];
        rope(&x0, T::from_f64(1e-6), &mut l).unwrap();
        // Stretched by 5 %: every link moves its particles.
        let x: Vec<[T; 3]> = x0
            .iter()
            .map(|p| [p[0] * T::from_f64(1.05), p[1], p[2]])
            .collect();
        let mut colors = vec![0; links];
        let count = rope_coloring(links, false, &mut colors).unwrap();
        compare(&x, &w, &l, &colors, count, 3);
    }
    let links = if cfg!(miri) { 21 } else { 67 };
    run::<f64>(links);
    run::<f32>(links);
}

#[test]
fn contiguous_groups_with_special_lanes_match_the_reference() {
    // In SoA particles the kernels load a group whose particles are
    // contiguous directly: runs (link t joins i0 + t and j0 + t: a cloth's
    // vertical and diagonal colors) and neighbour pairs (i0 + 2t,
    // i0 + 2t + 1: its rows). Static particles inside the cloth fall in
    // such groups (links stretched and compressed, a little out of
    // plane), and so do tension-only and disabled links; every kernel
    // must give the reference's bits, in both precisions.
    fn run<T: xpbd::Real>() {
        let (rows, cols) = if cfg!(miri) { (3, 6) } else { (9, 21) };
        let (x0, w0) = stretched_cloth(rows, cols);
        let x: Vec<[T; 3]> = x0.iter().map(|p| p.map(T::from_f64)).collect();
        let w: Vec<T> = w0
            .iter()
            .enumerate()
            .map(|(k, v)| T::from_f64(if k % 11 == 5 { 0.0 } else { *v }))
            .collect();
        let m = xpbd::cloth_link_count(rows, cols, true).unwrap();
        let mut cl = vec![Link::default(); m];
        cloth(&x, rows, cols, true, T::from_f64(1e-6), &mut cl).unwrap();
        // Tension-only links (stretched ones pull, compressed ones go
        // slack) and disabled ones in the same groups.
        for (k, l) in cl.iter_mut().enumerate() {
            if k % 5 == 1 {
                l.flags |= Link::<T>::TENSION_ONLY;
            } else if k % 13 == 7 {
                l.flags |= Link::<T>::DISABLED;
            }
        }
        let mut colors = vec![0; m];
        let count = cloth_coloring(rows, cols, true, &mut colors).unwrap();
        let xp: Vec<[T; 3]> = x
            .iter()
            .enumerate()
            .map(|(k, p)| {
                // ±4 mm along the rows on 10 cm links, a little out of
                // plane; some at z = −0.0, which a particle that does not
                // move (static, or its link idle) keeps.
                [
                    p[0] + T::from_f64(0.004 * ((k % 3) as f64 - 1.0)),
                    p[1],
                    T::from_f64(if k % 8 == 0 {
                        -0.0
                    } else {
                        (k % 4) as f64 * 0.002
                    }),
                ]
            })
            .collect();
        compare(&xp, &w, &cl, &colors, count, 4);
    }
    run::<f64>();
    run::<f32>();
}

#[test]
fn idle_tension_only_links_keep_their_particles_bits() {
    // Disjoint links (particles 2t, 2t + 1: one color, neighbour-pair
    // groups), all tension-only. Two of three are compressed: slack with
    // λ = 0, so idle, and their particles, moved by no other link, must
    // keep their bits, −0.0 coordinates included (x − (w·(−0))·n would
    // turn a −0.0 into +0.0 where n points the other way). Every third is
    // stretched and pulls. Every kernel against the reference, in both
    // precisions.
    fn run<T: xpbd::Real>() {
        let m = if cfg!(miri) { 12 } else { 67 };
        let mut x = Vec::new();
        let mut links = Vec::new();
        for t in 0..m {
            let k = (2 * t) as u32;
            let (a, b) = if t % 3 == 2 {
                (
                    [0.1 * t as f64, 0.0, 0.0],
                    [0.1 * t as f64 + 1.5, 0.25, -0.5],
                )
            } else {
                // n has x > 0 (a.x = −0.0 would become +0.0) and y < 0
                // (b.y = −0.0 would).
                (
                    [-0.0, 0.2, 0.01 * t as f64],
                    [0.3, -0.0, 0.01 * t as f64 + 0.1],
                )
            };
            x.push(a.map(T::from_f64));
            x.push(b.map(T::from_f64));
            links.push(Link {
                i: k,
                j: k + 1,
                rest: T::ONE,
                compliance: T::from_f64(1e-7),
                lambda: T::ZERO,
                flags: Link::<T>::TENSION_ONLY,
            });
        }
        let w: Vec<T> = (0..2 * m)
            .map(|k| T::from_f64(1.0 + (k % 3) as f64 * 0.5))
            .collect();
        let colors = vec![0; m];
        compare(&x, &w, &links, &colors, 1, 3);
    }
    run::<f64>();
    run::<f32>();
}

#[test]
fn a_link_that_would_overflow_is_untouched_and_named_the_rest_applied() {
    // Link 2 of a 4-link rope: C ≈ −1e308 and g = 1/(w_2 + w_3) = 500 give
    // Δλ = +inf.
    let mut x = vec![
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [2.0, 0.0, 0.0],
        [3.0, 0.0, 0.0],
        [4.0, 0.0, 0.0],
    ];
    let w = [1.0, 1.0, 1e-3, 1e-3, 1.0];
    let mut links = vec![Link::default(); 4];
    rope(&x, 0.0, &mut links).unwrap();
    links[2].rest = 1e308;
    for p in x.iter_mut() {
        p[0] *= 1.5;
    }
    let mut colors = vec![0; 4];
    let count = rope_coloring(4, false, &mut colors).unwrap();
    let mut plan = Plan::new(&links, &colors, count);
    let mut xr = x.clone();
    let (_, _, err) = reference(&mut xr, &w, &plan, 0.01, 1, true);
    // (2,3) is link 2: colored position 1 (color 0 = links 0, 2).
    assert_eq!(err, Some(SystemError::InvalidResult { constraint: 1 }));
    let mut stamp = [0; 5];
    let mut xa = x.clone();
    {
        let mut sys = SimdLinks::new(
            Aos {
                positions: &mut xa,
                w: &w,
            },
            plan.links(),
            &mut stamp,
        )
        .unwrap();
        let mut sub = sys.begin_substep(0.01).unwrap();
        assert_eq!(
            sub.iterate(),
            Err(SystemError::InvalidResult { constraint: 1 })
        );
    }
    // Link 0 of the color was applied, link 2 untouched, color 1 not run.
    assert_eq!(bits(&xa), bits(&xr));
    assert_eq!(xa[2], x[2]);
    assert_eq!(xa[3], x[3]);
    assert_ne!(xa[1], x[1]);
}

#[test]
fn begin_substep_rejects_and_writes_nothing() {
    let x0 = vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0]];
    let mut links = vec![Link::default(); 2];
    rope(&x0, 1e-3, &mut links).unwrap();
    let mut colors = vec![0; 2];
    let count = rope_coloring(2, false, &mut colors).unwrap();
    for (case, want) in [
        (0, SystemError::InvalidTimeStep),
        (1, SystemError::NonFinitePosition { particle: 1 }),
        (2, SystemError::InvalidInverseMass { particle: 2 }),
        (3, SystemError::InvalidRestLength { constraint: 1 }),
        (4, SystemError::InvalidCompliance { constraint: 0 }),
    ] {
        let mut plan = Plan::new(&links, &colors, count);
        plan.lambda = vec![7.0; 2];
        plan.alpha = vec![9.0; 2];
        let mut x = x0.clone();
        let mut w = vec![1.0; 3];
        let mut h = 0.01;
        match case {
            0 => h = f64::NAN,
            1 => x[1][2] = f64::INFINITY,
            2 => w[2] = -1.0,
            3 => plan.rest[1] = f64::NAN, // (0 is a disabled link)
            _ => plan.compliance[0] = -1.0,
        }
        let mut stamp = [0; 3];
        let mut xa = x.clone();
        {
            let mut sys = SimdLinks::new(
                Aos {
                    positions: &mut xa,
                    w: &w,
                },
                plan.links(),
                &mut stamp,
            )
            .unwrap();
            assert_eq!(sys.begin_substep(h).err(), Some(want));
        }
        assert_eq!(bits(&xa), bits(&x));
        assert_eq!(plan.lambda, vec![7.0; 2]);
        assert_eq!(plan.alpha, vec![9.0; 2]);
    }
}

#[test]
fn rope_colored_equals_sequential_in_colored_order() {
    // 1001 links: odd color sizes exercise the remainder path (under Miri,
    // smaller for time: 133 links, colors of 67 and 66: one 64-link chunk
    // and a remainder).
    let n = if cfg!(miri) { 134 } else { 1002 };
    let mut x: Vec<[f64; 3]> = (0..n).map(|k| [k as f64 * 0.01, 0.0, 0.0]).collect();
    let w: Vec<f64> = (0..n).map(|k| if k == 0 { 0.0 } else { 1.0 }).collect();
    let mut links = vec![Link::default(); n - 1];
    rope(&x, 1e-5, &mut links).unwrap();
    perturb(&mut x);
    let mut colors = vec![0; n - 1];
    let count = rope_coloring(n - 1, false, &mut colors).unwrap();
    compare(&x, &w, &links, &colors, count, 7);
}

#[test]
fn cloth_colored_equals_sequential_in_colored_order() {
    // Under Miri a smaller cloth (the interpreter is ~1000× slower): colors
    // of 6 to 8 links.
    let (rows, cols) = if cfg!(miri) { (4, 5) } else { (23, 31) };
    let (mut x, w) = stretched_cloth(rows, cols);
    let m = xpbd::cloth_link_count(rows, cols, true).unwrap();
    let mut links = vec![Link::default(); m];
    cloth(&x, rows, cols, true, 1e-6, &mut links).unwrap();
    perturb(&mut x);
    let mut colors = vec![0; m];
    let count = cloth_coloring(rows, cols, true, &mut colors).unwrap();
    assert_eq!(count, 8);
    compare(&x, &w, &links, &colors, count, 5);
    // Greedy on the same graph.
    let mut used = vec![0u64; x.len()];
    let count = greedy_coloring(&links, x.len(), &mut used, &mut colors).unwrap();
    compare(&x, &w, &links, &colors, count, 5);
}

#[test]
fn improper_coloring_is_rejected() {
    let x = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0]];
    let mut links = [Link::default(); 2];
    rope(&x, 0.0, &mut links).unwrap();
    let mut plan = Plan::new(&links, &[0, 0], 1);
    let (mut xa, w) = (x, [1.0; 3]);
    let mut stamp = [0; 3];
    let r = SimdLinks::new(
        Aos {
            positions: &mut xa,
            w: &w,
        },
        plan.links(),
        &mut stamp,
    );
    assert_eq!(r.err(), Some(SystemError::InvalidShape));
}

#[test]
fn zero_length_rejected_or_skipped() {
    let mut x = vec![
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [2.0, 0.0, 0.0],
        [3.0, 0.0, 0.0],
    ];
    let w = [1.0; 4];
    let mut links = vec![Link::default(); 3];
    rope(&x, 0.0, &mut links).unwrap();
    // Links (0,1) and (2,3) stay at rest, link (1,2) has zero length.
    x[2] = x[1];
    x[3] = [2.0, 0.0, 0.0];
    let mut colors = vec![0; 3];
    let count = rope_coloring(3, false, &mut colors).unwrap();
    let mut plan = Plan::new(&links, &colors, count);
    let mut stamp = [0; 4];
    let mut xa = x.clone();
    let mut sys = SimdLinks::new(
        Aos {
            positions: &mut xa,
            w: &w,
        },
        plan.links(),
        &mut stamp,
    )
    .unwrap();
    // Link (1,2) is colored position 2 (odd color).
    assert_eq!(
        sys.begin_substep(0.01).err(),
        Some(SystemError::ZeroLength { constraint: 2 })
    );
    let mut sys = sys.with_zero_length(ZeroLength::Skip);
    let mut sub = sys.begin_substep(0.01).unwrap();
    let s = sub.iterate().unwrap();
    assert_eq!(s.skipped_zero_length, 1);
    assert_eq!(s.applied, 2);
}

#[test]
fn rust_and_c_entry_points_give_the_same_bits() {
    use xpbd::ffi::{
        xpbd_simd_links3_begin_substep, xpbd_simd_links3_iterate, xpbd_simd_links3_solve_job,
        XpbdSimdLinks3,
    };
    // Under Miri a smaller cloth (the interpreter is ~1000× slower) and
    // one sweep per entry point (the later ones run the same calls).
    let (rows, cols) = if cfg!(miri) { (4, 6) } else { (11, 17) };
    let sweeps = if cfg!(miri) { 1 } else { 2 };
    let (mut x, w) = stretched_cloth(rows, cols);
    let m = xpbd::cloth_link_count(rows, cols, true).unwrap();
    let mut links = vec![Link::default(); m];
    cloth(&x, rows, cols, true, 1e-6, &mut links).unwrap();
    perturb(&mut x);
    let mut colors = vec![0; m];
    let count = cloth_coloring(rows, cols, true, &mut colors).unwrap();
    let mut plan = Plan::new(&links, &colors, count);
    let h = 1.0 / 120.0;
    // Rust.
    let mut xr = x.clone();
    let mut stamp = vec![0u32; x.len()];
    {
        let mut sys = SimdLinks::new(
            Aos {
                positions: &mut xr,
                w: &w,
            },
            plan.links(),
            &mut stamp,
        )
        .unwrap();
        let mut sub = sys.begin_substep(h).unwrap();
        for _ in 0..2 * sweeps {
            sub.iterate().unwrap();
        }
    }
    let rust_lambda = bits1(&plan.lambda);
    // C ABI, SoA: sweeps 1-2 by iterate, 3-4 by 3 concurrent jobs per color
    // (under Miri sweep 1 by iterate, 2 by the jobs).
    let [mut xs, mut ys, mut zs] = soa(&x);
    let mut sys = XpbdSimdLinks3 {
        positions: std::ptr::null_mut(),
        x: xs.as_mut_ptr(),
        y: ys.as_mut_ptr(),
        z: zs.as_mut_ptr(),
        inverse_masses: w.as_ptr(),
        particle_count: x.len(),
        i: plan.i.as_ptr(),
        j: plan.j.as_ptr(),
        rest: plan.rest.as_ptr(),
        compliance: plan.compliance.as_ptr(),
        lambda: plan.lambda.as_mut_ptr(),
        alpha: plan.alpha.as_mut_ptr(),
        inv_denominator: plan.g.as_mut_ptr(),
        link_count: m,
        color_starts: plan.starts.as_ptr(),
        color_count: count as usize,
        stamp: stamp.as_mut_ptr(),
        zero_length_policy: 0,
        substep_active: 0,
        h: 0.0,
        error_index: 0,
        simd: 0,
    };
    // SAFETY: every buffer is valid for its count and unaliased.
    unsafe {
        assert_eq!(xpbd_simd_links3_begin_substep(&mut sys, h).code(), 0);
        for _ in 0..sweeps {
            assert_eq!(
                xpbd_simd_links3_iterate(&mut sys, std::ptr::null_mut()).code(),
                0
            );
        }
    }
    // Sweeps 3-4 (under Miri 2): the C job entry point on 3 std::threads
    // per color.
    // (Sweeps 1-2 above went through xpbd_simd_links3_iterate.)
    struct Shared(*const XpbdSimdLinks3);
    // SAFETY: the jobs of one color touch disjoint particles and λ, and
    // `xpbd_simd_links3_solve_job` only reads the struct.
    unsafe impl Sync for Shared {}
    let shared = Shared(&sys);
    for _ in 0..sweeps {
        for c in 0..count as usize {
            std::thread::scope(|sc| {
                for job in 0..3 {
                    let shared = &shared;
                    sc.spawn(move || {
                        // SAFETY: as above; the buffers outlive the scope.
                        let status = unsafe {
                            xpbd_simd_links3_solve_job(
                                shared.0,
                                c,
                                job,
                                3,
                                std::ptr::null_mut(),
                                std::ptr::null_mut(),
                            )
                        };
                        assert_eq!(status.code(), 0);
                    });
                }
            });
        }
    }
    let back: Vec<[f64; 3]> = (0..xs.len()).map(|k| [xs[k], ys[k], zs[k]]).collect();
    assert_eq!(bits(&back), bits(&xr));
    assert_eq!(bits1(&plan.lambda), rust_lambda);
}

#[test]
fn job_ranges_cover_a_color_exactly_on_chunk_boundaries() {
    for (begin, end) in [(0, 0), (0, 1), (5, 70), (100, 1000), (64, 64 * 9 + 3)] {
        for jobs in 1..9 {
            let mut next = begin;
            for job in 0..jobs {
                let (b, e) = xpbd::job_range(begin, end, job, jobs).unwrap();
                assert_eq!(b, next);
                assert!(e >= b && e <= end);
                assert!(b == end || (b - begin) % xpbd::colored::CHUNK == 0);
                next = e;
            }
            assert_eq!(next, end);
            assert_eq!(xpbd::job_range(begin, end, jobs, jobs), None);
        }
    }
    assert_eq!(xpbd::job_range(0, 10, 0, 0), None);
}

/// Found by the `colored` fuzz target: the greedy coloring and the colored
/// link fill used to leave their outputs partly written on error.
#[test]
fn greedy_coloring_and_link_fill_write_nothing_on_error() {
    let l = |i, j| Link::new(i, j, 1.0_f64, 0.0);
    // Link 2 joins a particle to itself: links 0 and 1 were colored first.
    let links = [l(0, 1), l(1, 2), l(2, 2)];
    let mut used = [0; 3];
    let mut colors = [7_u32; 3];
    assert_eq!(
        greedy_coloring(&links, 3, &mut used, &mut colors),
        Err(xpbd::SystemError::SameParticle { constraint: 2 })
    );
    assert_eq!(colors, [7; 3]);
    // Order entry 1 names no link: entry 0 was filled first.
    let (mut i, mut j) = ([9_u32; 2], [9_u32; 2]);
    let (mut rest, mut compliance, mut lambda) = ([9.0; 2], [9.0; 2], [9.0; 2]);
    assert_eq!(
        xpbd::fill_colored_links(
            &links,
            &[0, 5],
            &mut i,
            &mut j,
            &mut rest,
            &mut compliance,
            &mut lambda
        ),
        Err(xpbd::SystemError::IndexOutOfRange { constraint: 1 })
    );
    assert_eq!(
        (i, j, rest, compliance, lambda),
        ([9; 2], [9; 2], [9.0; 2], [9.0; 2], [9.0; 2])
    );
}
