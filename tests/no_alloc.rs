//! Zero heap allocation in every solve path: a counting global allocator
//! wraps the system one, and every solver entry point (1D solve, sequential
//! systems, colorings, colored sweeps on AoS and SoA, job ranges, and the C
//! ABI called from Rust, colored stepping of 2D and 3D worlds) runs with
//! the count checked to stay unchanged.
//! The test data itself is allocated before counting starts, and only the
//! test's own thread is counted (the test harness allocates on its own
//! threads meanwhile).

use std::alloc::{GlobalAlloc, Layout, System as SystemAlloc};
use std::cell::Cell;

use xpbd::ffi::XpbdSweepStats;
use xpbd::ffi::{
    xpbd_simd_links3_begin_substep, xpbd_simd_links3_iterate, xpbd_simd_links3_solve_job,
    XpbdSimdLinks3,
};
use xpbd::step::{
    scratch_len, step, step_colored, Colliders, Contact, Jobs, OneThread, Plane, StepConfig, World,
};
use xpbd::{
    cloth, cloth_coloring, cloth_link_count, color_order, fill_colored_links, greedy_coloring,
    rope, rope_coloring, Aos, ColoredLinks, DistanceConstraint, GroupColors, Link, SimdLinks, Soa,
    System, ZeroLength,
};

struct Counting;

thread_local! {
    /// Whether this thread's allocations are being counted.
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    /// This thread's allocations while counting.
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

fn count_one() {
    let on = COUNTING.try_with(Cell::get).unwrap_or(false);
    if on {
        let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
    }
}

// SAFETY: forwards to the system allocator unchanged, only counting calls.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count_one();
        // SAFETY: forwarded contract.
        unsafe { SystemAlloc.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded contract.
        unsafe { SystemAlloc.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count_one();
        // SAFETY: forwarded contract.
        unsafe { SystemAlloc.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Runs `f` and returns how many allocations it made on this thread.
fn allocations(f: impl FnOnce()) -> usize {
    ALLOCATIONS.with(|c| c.set(0));
    COUNTING.with(|c| c.set(true));
    f();
    COUNTING.with(|c| c.set(false));
    ALLOCATIONS.with(Cell::get)
}

#[test]
fn no_solve_path_allocates() {
    // The counter works: one vector is one allocation.
    assert_eq!(
        allocations(|| {
            std::hint::black_box(vec![1u8; 10]);
        }),
        1
    );
    // Everything allocated up front.
    // Under Miri a smaller cloth (the interpreter is ~1000× slower).
    let (rows, cols) = if cfg!(miri) { (4, 5) } else { (20, 30) };
    let n = rows * cols;
    let mut x: Vec<[f64; 3]> = (0..n)
        .map(|k| [(k % cols) as f64 * 0.1, (k / cols) as f64 * 0.1, 0.0])
        .collect();
    let w: Vec<f64> = (0..n).map(|k| if k < cols { 0.0 } else { 1.0 }).collect();
    let m = cloth_link_count(rows, cols, true).unwrap();
    let mut links = vec![Link::<f64>::default(); m];
    let mut rope_links = vec![Link::<f64>::default(); n - 1];
    let mut colors = vec![0u32; m];
    let mut used = vec![0u64; n];
    let mut order = vec![0u32; m];
    let mut starts = vec![0usize; 65];
    let (mut i, mut j) = (vec![0u32; m], vec![0u32; m]);
    let (mut rest, mut comp, mut lambda) = (vec![0.0; m], vec![0.0; m], vec![0.0; m]);
    let (mut alpha, mut g) = (vec![0.0; m], vec![0.0; m]);
    let mut stamp = vec![0u32; n];
    let [mut xs, mut ys, mut zs] = [0, 1, 2].map(|c| x.iter().map(|p| p[c]).collect::<Vec<f64>>());
    let mut count = 0;

    assert_eq!(
        allocations(|| {
            // 1D seed.
            let mut c = DistanceConstraint::<f64>::new();
            let (mut a, mut b) = (0.0, 2.0);
            c.begin_substep();
            for _ in 0..10 {
                c.solve(&mut a, &mut b, 1.0, 1.0, 1.0, 0.01, 0.1).unwrap();
            }
            // Builders, colorings.
            cloth(&x, rows, cols, true, 1e-6, &mut links).unwrap();
            rope(&x, 1e-6, &mut rope_links).unwrap();
            let mut rope_colors = [0u32; 8];
            rope_coloring(8, true, &mut rope_colors).unwrap();
            cloth_coloring(rows, cols, true, &mut colors).unwrap();
            count = greedy_coloring(&links, n, &mut used, &mut colors).unwrap();
            color_order(
                &colors,
                count,
                &mut starts[..count as usize + 1],
                &mut order,
            )
            .unwrap();
            fill_colored_links(
                &links,
                &order,
                &mut i,
                &mut j,
                &mut rest,
                &mut comp,
                &mut lambda,
            )
            .unwrap();
        }),
        0
    );
    let starts = &starts[..count as usize + 1];
    for p in x.iter_mut() {
        p[2] += 0.01;
        p[0] *= 1.05;
    }
    let mut x_seq = x.clone();
    let mut seq_links = links.clone();
    // The most sweeps of `iterate_until` (under Miri, CI budget, two: a
    // sweep that goes on and the last; the others repeat them).
    let until = if cfg!(miri) { 2 } else { 5 };
    assert_eq!(
        allocations(|| {
            // Sequential system.
            let mut s = System::new(&mut x_seq, &w, &mut seq_links)
                .unwrap()
                .with_zero_length(ZeroLength::Skip);
            let mut sub = s.begin_substep(1.0 / 60.0).unwrap();
            sub.iterate().unwrap();
            sub.iterate_until(1e-9, until).unwrap();
            sub.measure().unwrap();
            // Colored AoS.
            let lk = ColoredLinks {
                i: &i,
                j: &j,
                rest: &rest,
                compliance: &comp,
                lambda: &mut lambda,
                alpha: &mut alpha,
                inv_denominator: &mut g,
                color_starts: starts,
            };
            let mut c = SimdLinks::new(
                Aos {
                    positions: &mut x,
                    w: &w,
                },
                lk,
                &mut stamp,
            )
            .unwrap();
            let mut sub = c.begin_substep(1.0 / 60.0).unwrap();
            sub.iterate().unwrap();
            sub.iterate_until(1e-9, until).unwrap();
            for color in 0..sub.color_count() {
                for job in sub.jobs(color, 3).unwrap() {
                    job.run().unwrap();
                }
            }
        }),
        0
    );
    assert_eq!(
        allocations(|| {
            // Colored SoA.
            let lk = ColoredLinks {
                i: &i,
                j: &j,
                rest: &rest,
                compliance: &comp,
                lambda: &mut lambda,
                alpha: &mut alpha,
                inv_denominator: &mut g,
                color_starts: starts,
            };
            let mut c = SimdLinks::new(
                Soa {
                    x: &mut xs,
                    y: &mut ys,
                    z: &mut zs,
                    w: &w,
                },
                lk,
                &mut stamp,
            )
            .unwrap();
            let mut sub = c.begin_substep(1.0 / 60.0).unwrap();
            sub.iterate().unwrap();
            for color in 0..sub.color_count() {
                for job in sub.jobs(color, 2).unwrap() {
                    job.run().unwrap();
                }
            }
        }),
        0
    );
    // The C ABI, called from Rust.
    let mut sys = XpbdSimdLinks3 {
        positions: x.as_mut_ptr(),
        x: std::ptr::null_mut(),
        y: std::ptr::null_mut(),
        z: std::ptr::null_mut(),
        inverse_masses: w.as_ptr(),
        particle_count: n,
        i: i.as_ptr(),
        j: j.as_ptr(),
        rest: rest.as_ptr(),
        compliance: comp.as_ptr(),
        lambda: lambda.as_mut_ptr(),
        alpha: alpha.as_mut_ptr(),
        inv_denominator: g.as_mut_ptr(),
        link_count: m,
        color_starts: starts.as_ptr(),
        color_count: count as usize,
        stamp: stamp.as_mut_ptr(),
        zero_length_policy: 0,
        substep_active: 0,
        h: 0.0,
        error_index: 0,
        simd: 0,
    };
    let mut stats = XpbdSweepStats::default();
    assert_eq!(
        allocations(|| {
            // SAFETY: every buffer is valid for its count and unaliased.
            unsafe {
                assert_eq!(
                    xpbd_simd_links3_begin_substep(&mut sys, 1.0 / 60.0).code(),
                    0
                );
                assert_eq!(xpbd_simd_links3_iterate(&mut sys, &mut stats).code(), 0);
                for c in 0..count as usize {
                    assert_eq!(
                        xpbd_simd_links3_solve_job(&sys, c, 0, 1, &mut stats, std::ptr::null_mut())
                            .code(),
                        0
                    );
                }
            }
        }),
        0
    );
}

/// Runs a phase's tasks in order on the calling thread (the counted one),
/// asking for 3 per phase.
struct ThreeTasks;

impl Jobs for ThreeTasks {
    fn split(&self) -> usize {
        3
    }
    fn run(&self, count: usize, task: &(dyn Fn(usize) + Sync)) {
        (0..count).for_each(task);
    }
}

/// A cloth over a ground plane in `D` dimensions (its first row pinned),
/// links in colored order, stepped by `step_colored` on one thread and as
/// several tasks, and by `step`: nothing allocates.
fn colored_frames_do_not_allocate<const D: usize>() {
    let (rows, cols) = if cfg!(miri) { (3, 4) } else { (20, 30) };
    let n = rows * cols;
    let mut x: Vec<[f64; D]> = (0..n)
        .map(|k| {
            let mut p = [0.0; D];
            p[0] = (k % cols) as f64 * 0.1;
            p[D - 1] = (k / cols) as f64 * 0.1;
            p
        })
        .collect();
    let w: Vec<f64> = (0..n).map(|k| if k < cols { 0.0 } else { 1.0 }).collect();
    let m = cloth_link_count(rows, cols, true).unwrap();
    let mut links = vec![Link::<f64>::default(); m];
    cloth(&x, rows, cols, true, 1e-6, &mut links).unwrap();
    let (mut colors, mut used, mut order) = (vec![0u32; m], vec![0u64; n], vec![0u32; m]);
    let count = greedy_coloring(&links, n, &mut used, &mut colors).unwrap();
    let mut starts = vec![0usize; count as usize + 1];
    color_order(&colors, count, &mut starts, &mut order).unwrap();
    let mut colored = links.clone();
    for (dst, &k) in colored.iter_mut().zip(&order) {
        *dst = links[k as usize];
    }
    let mut v = vec![[0.0; D]; n];
    let mut contacts = vec![Contact::default(); 2 * n];
    let mut scratch = vec![[0.0; D]; scratch_len(n, 3 * m)];
    let mut stamp = vec![0u32; n];
    let mut normal = [0.0; D];
    normal[D - 1] = 1.0;
    let planes = [Plane {
        normal,
        offset: -0.05,
    }];
    let mut gravity = [0.0; D];
    gravity[D - 1] = -9.81;
    let mut config = StepConfig::new(gravity);
    // Under Miri (CI budget) one substep: a second runs the same passes.
    config.substeps = if cfg!(miri) { 1 } else { 2 };
    config.particle_radius = 0.01;
    let colors = GroupColors {
        links: &starts,
        ..Default::default()
    };
    let mut world = World::new(&mut x, &mut v, &w, &mut contacts, &mut scratch);
    world.links = &mut colored;
    world.colliders = Some(Colliders {
        planes: &planes,
        ..Default::default()
    });
    assert_eq!(
        allocations(|| {
            for jobs in [&OneThread as &dyn Jobs, &ThreeTasks] {
                step_colored(&mut world, &colors, &mut stamp, 1.0 / 60.0, &config, jobs).unwrap();
            }
            step(&mut world, 1.0 / 60.0, &config).unwrap();
        }),
        0
    );
}

#[test]
fn no_colored_step_allocates() {
    colored_frames_do_not_allocate::<2>();
    colored_frames_do_not_allocate::<3>();
}
