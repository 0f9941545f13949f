//! Threads: the colored SoA cloth on one and two threads, through the Rust
//! jobs (`std::thread::scope` per color) and through the C ABI's
//! `xpbd_simd_links3_solve_job` as a persistent job system runs it.

use xpbd::SimdLinks;
use xpbd::Soa;

use crate::links::{bench_isa, cloth_scene, Plan, Scene};
use crate::report::{ratio, Ratio};
use crate::timing::{soa_bits, soa_of, sweeps_for, time, Figure, Settings, H};

/// The buffers of the threaded cases: allocated once, so that one and two
/// threads run over the very same memory. (Arrays this large are mapped
/// page-aligned at addresses that change from run to run; which of them
/// then share cache sets changes the speed of a run by up to ~20 %. With
/// one allocation for every case, that placement is the same for the
/// numerator and the denominator of a ratio.)
pub(crate) struct Bufs {
    plan: Plan<f64>,
    stamp: Vec<u32>,
    x: Vec<f64>,
    y: Vec<f64>,
    z: Vec<f64>,
}

impl Bufs {
    fn new(scene: &Scene<f64>) -> Result<Self, String> {
        let [x, y, z] = soa_of(&scene.x);
        Ok(Bufs {
            plan: Plan::new(scene)?,
            stamp: vec![0; scene.x.len()],
            x,
            y,
            z,
        })
    }

    /// Back to the scene's positions (λ and the scratch are reset by
    /// `begin_substep`).
    fn reset(&mut self, scene: &Scene<f64>) {
        for (k, p) in scene.x.iter().enumerate() {
            if let (Some(x), Some(y), Some(z)) =
                (self.x.get_mut(k), self.y.get_mut(k), self.z.get_mut(k))
            {
                (*x, *y, *z) = (p[0], p[1], p[2]);
            }
        }
    }
}

/// Colored SoA on `threads` threads (std::thread::scope per color; the
/// calling thread runs job 0).
pub(crate) fn threaded_case(
    s: &Settings,
    scene: &Scene<f64>,
    threads: usize,
    b: &mut Bufs,
) -> Result<(f64, Vec<u64>), String> {
    let m = scene.links.len();
    let sweeps = sweeps_for(s, m);
    b.reset(scene);
    let Bufs {
        plan,
        stamp,
        x,
        y,
        z,
    } = b;
    let mut failed = false;
    let (ps, _) = {
        let mut sys = SimdLinks::new_with_isa(
            Soa {
                x: &mut *x,
                y: &mut *y,
                z: &mut *z,
                w: &scene.w,
            },
            plan.links(),
            &mut *stamp,
            bench_isa(),
        )
        .map_err(|e| e.to_string())?;
        let mut sub = sys.begin_substep(H).map_err(|e| e.to_string())?;
        time(s.reps, sweeps * m, || {
            for _ in 0..sweeps {
                for c in 0..sub.color_count() {
                    let Ok(mut jobs) = sub.jobs(c, threads) else {
                        failed = true;
                        return;
                    };
                    let first = jobs.next();
                    let ok = std::thread::scope(|sc| {
                        let handles: Vec<_> = jobs.map(|j| sc.spawn(move || j.run())).collect();
                        let mine = first.map(|j| j.run());
                        let mut ok = !matches!(mine, Some(Err(_)));
                        for hnd in handles {
                            ok &= matches!(hnd.join(), Ok(Ok(_)));
                        }
                        ok
                    });
                    failed |= !ok;
                }
            }
        })
    };
    if failed {
        return Err(format!("threaded sweep on {threads} threads failed"));
    }
    Ok((ps, soa_bits(x, y, z)))
}

/// The same sweeps as [`threaded_case`] through the C ABI as an engine's
/// job system runs them: `threads - 1` workers started once (not per
/// color), woken per color by an atomic counter; every thread runs its
/// `xpbd_simd_links3_solve_job` share and the caller waits for all before the
/// next color (a spinning fork/join, as persistent job systems do).
pub(crate) fn pooled_case(
    s: &Settings,
    scene: &Scene<f64>,
    threads: usize,
    b: &mut Bufs,
) -> Result<(f64, Vec<u64>), String> {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use xpbd::ffi::XpbdStatus;
    use xpbd::ffi::{xpbd_simd_links3_begin_substep, xpbd_simd_links3_solve_job, XpbdSimdLinks3};

    /// The system shared by the workers.
    struct Shared(XpbdSimdLinks3);
    // SAFETY: the workers only call `xpbd_simd_links3_solve_job` on it, which
    // reads `*system` and writes the particles and λ of its own range; the
    // fork/join below runs one color at a time, so ranges never overlap.
    unsafe impl Sync for Shared {}
    impl Shared {
        fn get(&self) -> *const XpbdSimdLinks3 {
            &self.0
        }
    }

    let m = scene.links.len();
    let sweeps = sweeps_for(s, m);
    let n = scene.x.len();
    b.reset(scene);
    let Bufs {
        plan,
        stamp,
        x,
        y,
        z,
    } = b;
    let mut sys = XpbdSimdLinks3 {
        positions: std::ptr::null_mut(),
        x: x.as_mut_ptr(),
        y: y.as_mut_ptr(),
        z: z.as_mut_ptr(),
        inverse_masses: scene.w.as_ptr(),
        particle_count: n,
        i: plan.i.as_ptr(),
        j: plan.j.as_ptr(),
        rest: plan.rest.as_ptr(),
        compliance: plan.compliance.as_ptr(),
        lambda: plan.lambda.as_mut_ptr(),
        alpha: plan.alpha.as_mut_ptr(),
        inv_denominator: plan.g.as_mut_ptr(),
        link_count: m,
        color_starts: plan.starts.as_ptr(),
        color_count: plan.starts.len() - 1,
        stamp: stamp.as_mut_ptr(),
        zero_length_policy: 0,
        substep_active: 0,
        h: 0.0,
        error_index: 0,
        // The kernels of the Rust cases (`bench_isa`: those detected, or
        // the subset `XPBD_BENCH_ISA_MASK` names), so that the ratios
        // compare threads, not kernels (0 would be the SSE2 baseline).
        simd: bench_isa().bits(),
    };
    // SAFETY: every buffer above lives until the end of this function and
    // holds its count of entries.
    if unsafe { xpbd_simd_links3_begin_substep(&mut sys, H) } != XpbdStatus::Ok {
        return Err("pooled: begin_substep failed".into());
    }
    let shared = Shared(sys);
    let colors = shared.0.color_count;
    // `posted`: how many colors were posted; `done`: jobs finished in all.
    let posted = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let failed = AtomicBool::new(false);
    let run = |color: usize, job: usize| {
        // SAFETY: `shared.0` is active; jobs of one color run concurrently
        // only (see the fork/join), as the function requires.
        let st = unsafe {
            xpbd_simd_links3_solve_job(
                shared.get(),
                color,
                job,
                threads,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            )
        };
        if st != XpbdStatus::Ok {
            failed.store(true, Ordering::Relaxed);
        }
    };
    // A short spin, then parked until the other side unparks this thread
    // (as `examples/support/pool.rs`, and for its reason: a yield on a
    // shared core gives it away for a time slice per color).
    let wait_until = |ready: &dyn Fn() -> bool| {
        let mut spins = 0u32;
        while !ready() {
            if spins < 4096 {
                spins += 1;
                std::hint::spin_loop();
            } else {
                // Returns at an unpark (also one given before) or
                // spuriously: the loop looks again either way.
                std::thread::park();
            }
        }
    };
    let caller = std::thread::current();
    let ps = std::thread::scope(|sc| {
        let workers: Vec<_> = (1..threads)
            .map(|job| {
                let (posted, done, stop, run, caller) = (&posted, &done, &stop, &run, &caller);
                sc.spawn(move || {
                    let mut seen = 0usize;
                    loop {
                        wait_until(&|| {
                            posted.load(Ordering::Acquire) > seen || stop.load(Ordering::Acquire)
                        });
                        let now = posted.load(Ordering::Acquire);
                        if now == seen {
                            return;
                        }
                        seen = now;
                        run((seen - 1) % colors, job);
                        done.fetch_add(1, Ordering::Release);
                        caller.unpark();
                    }
                })
            })
            .collect();
        let mut count = 0usize;
        let (ps, _) = time(s.reps, sweeps * m, || {
            for _ in 0..sweeps {
                for c in 0..colors {
                    count += 1;
                    posted.store(count, Ordering::Release);
                    for w in &workers {
                        w.thread().unpark();
                    }
                    run(c, 0);
                    let want = count * (threads - 1);
                    wait_until(&|| done.load(Ordering::Acquire) >= want);
                }
            }
        });
        stop.store(true, Ordering::Release);
        for w in &workers {
            w.thread().unpark();
        }
        ps
    });
    if failed.load(Ordering::Relaxed) {
        return Err(format!("pooled sweep on {threads} threads failed"));
    }
    Ok((ps, soa_bits(x, y, z)))
}

/// One and two threads on the ~1M-link cloth.
pub(crate) fn thread_section(
    s: &Settings,
    figs: &mut Vec<Figure>,
    ratios: &mut Vec<Ratio>,
) -> Result<(), String> {
    // Threads: the ~1M-link cloth (500 x 500 with shear: 997,002 links).
    let side = std::env::var("XPBD_BENCH_THREAD_CLOTH")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .unwrap_or(if s.quick { 60 } else { 500 });
    let (tr, tc) = (side, side);
    let scene = cloth_scene::<f64>(tr, tc)?;
    let tname = format!(
        "cloth {tr}x{tc} ({} links) f64 colored SoA",
        scene.links.len()
    );
    // Two vCPUs of a shared machine see bursts of outside load that last
    // longer than one case's repetitions. The four cases therefore run in
    // five interleaved rounds over the same buffers, each keeping its best:
    // a burst during one round costs that round only, and one and two
    // threads see the same spells and the same memory placement.
    let rounds = if s.quick { 1 } else { 5 };
    let (mut one, mut two, mut pone, mut ptwo) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    let mut bufs = Bufs::new(&scene)?;
    for _ in 0..rounds {
        let (o, b1) = threaded_case(s, &scene, 1, &mut bufs)?;
        let (t, b2) = threaded_case(s, &scene, 2, &mut bufs)?;
        let (po, p1) = pooled_case(s, &scene, 1, &mut bufs)?;
        let (pt, p2) = pooled_case(s, &scene, 2, &mut bufs)?;
        if b1 != b2 || p1 != b1 || p2 != b1 {
            return Err("1 and 2 threads (spawned or pooled) give different bits".into());
        }
        one = one.max(o);
        two = two.max(t);
        pone = pone.max(po);
        ptwo = ptwo.max(pt);
    }
    for (what, v) in [
        ("1 thread, persistent workers", pone),
        ("2 threads, persistent workers", ptwo),
        ("1 thread, thread::scope per color", one),
        ("2 threads, thread::scope per color", two),
    ] {
        figs.push(Figure {
            case: format!("{tname}, {what}"),
            per_second: v,
            ns: 1e9 / v,
        });
    }
    // The claim compares two threads with the fastest single-thread path
    // (the Rust API, which validated its links once at construction): the C
    // job path re-checks its range's indices on every call (links are
    // caller memory; a vectorized pass, a few per cent of a sweep).
    ratios.push(ratio(
        format!("{tname}: 2 threads, persistent workers (C ABI jobs) / 1 thread (Rust API)"),
        ptwo,
        one,
        1.6,
    ));
    ratios.push(ratio(
        format!("{tname}: 2 threads / 1 thread, persistent workers (C ABI jobs)"),
        ptwo,
        pone,
        0.0,
    ));
    ratios.push(ratio(
        format!("{tname}: 2 threads / 1 thread, thread::scope per color (Rust jobs)"),
        two,
        one,
        0.0,
    ));
    Ok(())
}
