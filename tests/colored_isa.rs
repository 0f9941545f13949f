//! Every kernel level this machine has (`Isa::detect`: SSE2 baseline, AVX2,
//! AVX-512 on x86-64; the portable baseline and NEON on aarch64) gives the
//! bits of the baseline: ropes and cloths of many sizes (every color length
//! modulo 16, so every tail after the last group of 2, 4, 8 or 16 links),
//! f32 and f64, SoA (the neighbour fast path) and AoS, links that are not
//! applied (zero length under either policy, non-finite results,
//! non-finite positions), through the Rust API and the C entry points.
//! The C setter refuses bits the CPU lacks.
//!
//! Under Miri `Isa::detect()` is the baseline (the interpreter cannot run
//! cpuid, nor most AVX-512 intrinsics): the tests then compare the
//! baseline with itself and check the refusals, on smaller cases.

#[path = "support/colored_plan.rs"]
mod colored_plan;

use colored_plan::Plan;
use xpbd::colored::Isa;
use xpbd::ffi::{
    xpbd_simd_detect, xpbd_simd_links3_begin_substep, xpbd_simd_links3_begin_substep_f32,
    xpbd_simd_links3_iterate, xpbd_simd_links3_iterate_f32, xpbd_simd_links3_set_simd,
    xpbd_simd_links3_set_simd_f32, xpbd_simd_links3_solve_job, xpbd_simd_links3_solve_job_f32,
    XPBD_SIMD_AVX2, XPBD_SIMD_AVX512, XPBD_SIMD_NEON,
};
use xpbd::ffi::{SimdLinksC, XpbdStatus};
use xpbd::{
    cloth, cloth_coloring, rope, rope_coloring, Aos, Link, Real, SimdLinks, Soa, SweepStats,
    SystemError, ZeroLength,
};

/// The baseline and each single bit the machine has.
fn levels() -> Vec<Isa> {
    let d = Isa::detect();
    let mut v = vec![Isa::BASELINE];
    for bit in [Isa::AVX2_BIT, Isa::AVX512_BIT, Isa::NEON_BIT] {
        if d.bits() & bit != 0 {
            v.push(d.restrict(bit));
        }
    }
    v
}

/// A bent, stretched scene: positions, inverse masses (a few static),
/// links, coloring.
struct Scene<T> {
    x: Vec<[T; 3]>,
    w: Vec<T>,
    links: Vec<Link<T>>,
    colors: Vec<u32>,
    count: u32,
}

fn bend<T: Real>(x0: &[[T; 3]]) -> Vec<[T; 3]> {
    x0.iter()
        .enumerate()
        .map(|(k, p)| {
            [
                p[0] * T::from_f64(1.0 + 0.05 * (k % 3) as f64),
                p[1] + T::from_f64(0.002 * (k % 5) as f64),
                p[2] + T::from_f64(0.001 * (k % 7) as f64),
            ]
        })
        .collect()
}

fn masses<T: Real>(n: usize) -> Vec<T> {
    (0..n)
        .map(|k| {
            if k % 11 == 0 {
                T::ZERO
            } else {
                T::from_f64(1.0 + 0.25 * (k % 3) as f64)
            }
        })
        .collect()
}

fn rope_scene<T: Real>(links: usize) -> Scene<T> {
    let x0: Vec<[T; 3]> = (0..=links)
        .map(|k| [T::from_f64(k as f64 * 0.01), T::ZERO, T::ZERO])
        .collect();
    let mut l = vec![Link::default(); links];
    rope(&x0, T::from_f64(1e-6), &mut l).unwrap();
    let mut colors = vec![0; links];
    let count = rope_coloring(links, false, &mut colors).unwrap();
    Scene {
        x: bend(&x0),
        w: masses(links + 1),
        links: l,
        colors,
        count,
    }
}

fn cloth_scene<T: Real>(rows: usize, cols: usize, shear: bool) -> Scene<T> {
    let x0: Vec<[T; 3]> = (0..rows * cols)
        .map(|k| {
            [
                T::from_f64((k % cols) as f64 * 0.01),
                T::from_f64((k / cols) as f64 * 0.01),
                T::ZERO,
            ]
        })
        .collect();
    let m = xpbd::cloth_link_count(rows, cols, shear).unwrap();
    let mut l = vec![Link::default(); m];
    cloth(&x0, rows, cols, shear, T::from_f64(1e-6), &mut l).unwrap();
    let mut colors = vec![0; m];
    let count = cloth_coloring(rows, cols, shear, &mut colors).unwrap();
    Scene {
        x: bend(&x0),
        w: masses(rows * cols),
        links: l,
        colors,
        count,
    }
}

/// Every scene of the comparison: ropes whose colors take every length
/// modulo 16 and beyond 2 × 16 (two groups side by side), and cloths.
fn scenes<T: Real>() -> Vec<Scene<T>> {
    let mut v = Vec::new();
    // XPBD_SMALL_SCENES (CI step 56, under qemu-aarch64: NEON's 2 and 4
    // lanes): every tail up to 20 links and around one 64-link chunk.
    let small = std::env::var_os("XPBD_SMALL_SCENES").is_some();
    let ropes: Vec<usize> = if cfg!(miri) {
        vec![1, 5, 9]
    } else if small {
        (1..=20).chain([63, 64, 65, 129]).collect()
    } else {
        (1..=70).chain([95, 128, 129, 255, 301]).collect()
    };
    for n in ropes {
        v.push(rope_scene(n));
    }
    let cloths: &[(usize, usize)] = if cfg!(miri) {
        &[(3, 4)]
    } else if small {
        &[(2, 2), (3, 5), (4, 17), (16, 16)]
    } else {
        &[(2, 2), (3, 5), (4, 17), (5, 9), (7, 33), (16, 16), (9, 40)]
    };
    for &(r, c) in cloths {
        v.push(cloth_scene(r, c, false));
        v.push(cloth_scene(r, c, true));
    }
    v
}

/// What a run gives: positions, λ, and each sweep's result.
type Trace = (
    Vec<u64>,
    Vec<u64>,
    Vec<Result<SweepStats<u64>, SystemError>>,
);

fn stat_bits<T: Real + Bits>(s: SweepStats<T>) -> SweepStats<u64> {
    SweepStats {
        applied: s.applied,
        skipped_static: s.skipped_static,
        skipped_zero_length: s.skipped_zero_length,
        max_abs_c: s.max_abs_c.to_bits_u64(),
        max_residual: s.max_residual.to_bits_u64(),
    }
}

trait Bits {
    fn to_bits_u64(self) -> u64;
}
impl Bits for f32 {
    fn to_bits_u64(self) -> u64 {
        u64::from(self.to_bits())
    }
}
impl Bits for f64 {
    fn to_bits_u64(self) -> u64 {
        self.to_bits()
    }
}

fn bits<T: Real + Bits>(v: impl IntoIterator<Item = T>) -> Vec<u64> {
    v.into_iter().map(Bits::to_bits_u64).collect()
}

/// The Rust API at `isa`: `sweeps` sweeps by `iterate` (SoA or AoS, with
/// `policy`), the first one after making link `zero` (colored position)
/// zero-length under `Skip`; stops at the first error.
fn rust_run<T: Real + Bits>(s: &Scene<T>, isa: Isa, aos: bool, policy: ZeroLength) -> Trace {
    let mut plan = Plan::new(&s.links, &s.colors, s.count);
    let mut x = s.x.clone();
    if policy == ZeroLength::Skip && !s.links.is_empty() {
        // A few links made zero-length from the start (allowed by Skip).
        for k in (0..plan.i.len()).step_by(7) {
            let (a, b) = (plan.i[k] as usize, plan.j[k] as usize);
            x[b] = x[a];
        }
    }
    let mut stamp = vec![0; x.len()];
    let mut out = Vec::new();
    let sweeps = if cfg!(miri) { 2 } else { 4 };
    let [mut xs, mut ys, mut zs] = colored_plan::soa(&x);
    {
        let mut sweep = |r: Result<SweepStats<T>, SystemError>| {
            let stop = r.is_err();
            out.push(r.map(stat_bits));
            stop
        };
        if aos {
            let p = Aos {
                positions: &mut x,
                w: &s.w,
            };
            let mut sys = SimdLinks::new_with_isa(p, plan.links(), &mut stamp, isa)
                .unwrap()
                .with_zero_length(policy);
            assert_eq!(sys.isa(), isa);
            let mut sub = sys.begin_substep(T::from_f64(1.0 / 240.0)).unwrap();
            for _ in 0..sweeps {
                if sweep(sub.iterate()) {
                    break;
                }
            }
        } else {
            let p = Soa {
                x: &mut xs,
                y: &mut ys,
                z: &mut zs,
                w: &s.w,
            };
            let mut sys = SimdLinks::new(p, plan.links(), &mut stamp)
                .unwrap()
                .with_isa(isa)
                .with_zero_length(policy);
            let mut sub = sys.begin_substep(T::from_f64(1.0 / 240.0)).unwrap();
            for _ in 0..sweeps {
                // Jobs: two per color, in color order.
                let mut total = SweepStats::default();
                let mut failed = None;
                for c in 0..sub.color_count() {
                    for job in sub.jobs(c, 2).unwrap() {
                        match job.run() {
                            Ok(st) => total = total.merge(st),
                            Err(e) => failed = failed.or(Some(e)),
                        }
                    }
                    if failed.is_some() {
                        break;
                    }
                }
                if sweep(failed.map_or(Ok(total), Err)) {
                    break;
                }
            }
        }
    }
    let pos = if aos {
        bits(x.iter().flatten().copied())
    } else {
        bits((0..xs.len()).flat_map(|k| [xs[k], ys[k], zs[k]]))
    };
    (pos, bits(plan.lambda.iter().copied()), out)
}

fn rust_levels_agree<T: Real + Bits>() {
    let levels = levels();
    for (n, s) in scenes::<T>().iter().enumerate() {
        for aos in [false, true] {
            for policy in [ZeroLength::Reject, ZeroLength::Skip] {
                let base = rust_run(s, Isa::BASELINE, aos, policy);
                for &isa in &levels[1..] {
                    let got = rust_run(s, isa, aos, policy);
                    assert!(
                        got == base,
                        "scene {n}, aos {aos}, {policy:?}: {} differs from the baseline",
                        isa.kernel_name()
                    );
                }
            }
        }
    }
}

#[test]
#[cfg_attr(
    miri,
    ignore = "Miri detects the baseline only: nothing to compare (its kernels run under Miri in colored.rs)"
)]
fn rust_kernel_levels_give_the_baseline_bits_f64() {
    rust_levels_agree::<f64>();
}

#[test]
#[cfg_attr(
    miri,
    ignore = "Miri detects the baseline only: nothing to compare (its kernels run under Miri in colored.rs)"
)]
fn rust_kernel_levels_give_the_baseline_bits_f32() {
    rust_levels_agree::<f32>();
}

/// The C entry points of one precision.
trait CApi: Real + Bits {
    unsafe fn begin(s: *mut SimdLinksC<Self>, h: Self) -> XpbdStatus;
    unsafe fn iterate(s: *mut SimdLinksC<Self>, out: *mut SweepStats<Self>) -> XpbdStatus;
    unsafe fn job(
        s: *const SimdLinksC<Self>,
        color: usize,
        job: usize,
        jobs: usize,
        out: *mut SweepStats<Self>,
        err: *mut usize,
    ) -> XpbdStatus;
    unsafe fn set_simd(s: *mut SimdLinksC<Self>, simd: u32) -> XpbdStatus;
}

macro_rules! capi {
    ($t:ty, $begin:ident, $iterate:ident, $job:ident, $set:ident) => {
        impl CApi for $t {
            unsafe fn begin(s: *mut SimdLinksC<$t>, h: $t) -> XpbdStatus {
                unsafe { $begin(s, h) }
            }
            unsafe fn iterate(s: *mut SimdLinksC<$t>, out: *mut SweepStats<$t>) -> XpbdStatus {
                unsafe { $iterate(s, out) }
            }
            unsafe fn job(
                s: *const SimdLinksC<$t>,
                color: usize,
                job: usize,
                jobs: usize,
                out: *mut SweepStats<$t>,
                err: *mut usize,
            ) -> XpbdStatus {
                unsafe { $job(s, color, job, jobs, out, err) }
            }
            unsafe fn set_simd(s: *mut SimdLinksC<$t>, simd: u32) -> XpbdStatus {
                unsafe { $set(s, simd) }
            }
        }
    };
}
capi!(
    f64,
    xpbd_simd_links3_begin_substep,
    xpbd_simd_links3_iterate,
    xpbd_simd_links3_solve_job,
    xpbd_simd_links3_set_simd
);
capi!(
    f32,
    xpbd_simd_links3_begin_substep_f32,
    xpbd_simd_links3_iterate_f32,
    xpbd_simd_links3_solve_job_f32,
    xpbd_simd_links3_set_simd_f32
);

/// Buffers of a C SIMD link system (AoS or SoA particles).
struct CBufs<T> {
    plan: Plan<T>,
    pos: Vec<[T; 3]>,
    xyz: [Vec<T>; 3],
    w: Vec<T>,
    stamp: Vec<u32>,
}

impl<T: CApi> CBufs<T> {
    fn new(s: &Scene<T>) -> Self {
        CBufs {
            plan: Plan::new(&s.links, &s.colors, s.count),
            pos: s.x.clone(),
            xyz: colored_plan::soa(&s.x),
            w: s.w.clone(),
            stamp: vec![0; s.x.len()],
        }
    }
    fn system(&mut self, aos: bool, policy: i32) -> SimdLinksC<T> {
        let n = self.w.len();
        let p = &mut self.plan;
        let null = core::ptr::null_mut::<T>;
        SimdLinksC {
            positions: if aos {
                self.pos.as_mut_ptr()
            } else {
                core::ptr::null_mut()
            },
            x: if aos {
                null()
            } else {
                self.xyz[0].as_mut_ptr()
            },
            y: if aos {
                null()
            } else {
                self.xyz[1].as_mut_ptr()
            },
            z: if aos {
                null()
            } else {
                self.xyz[2].as_mut_ptr()
            },
            inverse_masses: self.w.as_ptr(),
            particle_count: n,
            i: p.i.as_ptr(),
            j: p.j.as_ptr(),
            rest: p.rest.as_ptr(),
            compliance: p.compliance.as_ptr(),
            lambda: p.lambda.as_mut_ptr(),
            alpha: p.alpha.as_mut_ptr(),
            inv_denominator: p.g.as_mut_ptr(),
            link_count: p.i.len(),
            color_starts: p.starts.as_ptr(),
            color_count: p.starts.len() - 1,
            stamp: self.stamp.as_mut_ptr(),
            zero_length_policy: policy,
            substep_active: 0,
            h: T::ZERO,
            error_index: 0,
            simd: 0,
        }
    }
}

/// Particle `k` of a C system (either layout), through its pointers.
///
/// # Safety
/// `k` below the particle count; the buffers valid.
unsafe fn get<T: Real>(sys: &SimdLinksC<T>, k: usize) -> [T; 3] {
    unsafe {
        if sys.positions.is_null() {
            [*sys.x.add(k), *sys.y.add(k), *sys.z.add(k)]
        } else {
            *sys.positions.add(k)
        }
    }
}

/// Sets particle `k` of a C system.
///
/// # Safety
/// As [`get`].
unsafe fn set<T: Real>(sys: &SimdLinksC<T>, k: usize, v: [T; 3]) {
    unsafe {
        if sys.positions.is_null() {
            *sys.x.add(k) = v[0];
            *sys.y.add(k) = v[1];
            *sys.z.add(k) = v[2];
        } else {
            *sys.positions.add(k) = v;
        }
    }
}

/// One status, the stats bits and the error index of a C call.
type CStep = (XpbdStatus, SweepStats<u64>, usize);

/// The C entry points at `simd`: sweeps by jobs (which run every link even
/// with non-finite positions) and by `iterate`, with links made
/// zero-length, non-finite positions and overflowing coordinates between
/// sweeps.
fn c_run<T: CApi>(s: &Scene<T>, simd: u32, aos: bool, policy: i32) -> (Vec<u64>, Vec<CStep>) {
    let mut b = CBufs::new(s);
    let mut trace = Vec::new();
    let sweeps = if cfg!(miri) { 3 } else { 5 };
    let mut sys = b.system(aos, policy);
    let m = sys.link_count;
    let huge = if T::from_f64(1e300).is_finite() {
        T::from_f64(1.7e308)
    } else {
        T::from_f64(3e38)
    };
    // SAFETY: valid buffers of the counts given, disjoint; particles
    // changed through the system's own pointers, below the count.
    unsafe {
        assert_eq!(T::set_simd(&mut sys, simd), XpbdStatus::Ok);
        assert_eq!(sys.simd, simd);
        assert_eq!(T::begin(&mut sys, T::from_f64(1.0 / 240.0)), XpbdStatus::Ok);
        for sweep in 0..sweeps {
            // Perturb between sweeps (the C API allows moving particles).
            if m > 0 && sweep > 0 {
                let k = (sweep * 5 + 3) % m;
                let (i, j) = (*sys.i.add(k) as usize, *sys.j.add(k) as usize);
                match sweep {
                    1 => set(&sys, j, get(&sys, i)), // zero length
                    2 => {
                        let mut v = get(&sys, j);
                        v[1] = T::from_f64(f64::NAN);
                        set(&sys, j, v);
                    }
                    3 => {
                        // Overflowing squared length: a non-finite result.
                        let mut v = get(&sys, i);
                        v[0] = huge;
                        set(&sys, i, v);
                        v[0] = -huge;
                        set(&sys, j, v);
                    }
                    _ => {}
                }
            }
            for c in 0..sys.color_count {
                for job in 0..3 {
                    let mut st = SweepStats::default();
                    let mut err = usize::MAX;
                    let r = T::job(&sys, c, job, 3, &mut st, &mut err);
                    trace.push((r, stat_bits(st), err));
                }
            }
            let mut st = SweepStats::default();
            let r = T::iterate(&mut sys, &mut st);
            trace.push((r, stat_bits(st), sys.error_index));
        }
    }
    let mut out = if aos {
        bits(b.pos.iter().flatten().copied())
    } else {
        bits(b.xyz.iter().flatten().copied())
    };
    out.extend(bits(b.plan.lambda.iter().copied()));
    (out, trace)
}

fn c_levels_agree<T: CApi>() {
    let levels = levels();
    let mut failures = 0;
    for (n, s) in scenes::<T>().iter().enumerate() {
        for aos in [false, true] {
            for policy in [0, 1] {
                let base = c_run(s, 0, aos, policy);
                failures += base.1.iter().filter(|t| t.0 != XpbdStatus::Ok).count();
                for &isa in &levels[1..] {
                    let got = c_run(s, isa.bits(), aos, policy);
                    assert!(
                        got == base,
                        "scene {n}, aos {aos}, policy {policy}: C at {} differs from the baseline",
                        isa.kernel_name()
                    );
                }
            }
        }
    }
    // The perturbations did make links fail (the comparisons cover errors).
    assert!(failures > 10, "{failures}");
}

#[test]
#[cfg_attr(
    miri,
    ignore = "Miri detects the baseline only: nothing to compare (its kernels run under Miri in colored.rs)"
)]
fn c_kernel_levels_give_the_baseline_bits_f64() {
    c_levels_agree::<f64>();
}

#[test]
#[cfg_attr(
    miri,
    ignore = "Miri detects the baseline only: nothing to compare (its kernels run under Miri in colored.rs)"
)]
fn c_kernel_levels_give_the_baseline_bits_f32() {
    c_levels_agree::<f32>();
}

#[test]
fn detection_and_restriction() {
    let d = Isa::detect();
    assert_eq!(d.bits() & !Isa::KNOWN_BITS, 0);
    assert_eq!(xpbd_simd_detect(), d.bits());
    assert_eq!(Isa::from_bits(d.bits()), Some(d));
    assert_eq!(Isa::from_bits(0), Some(Isa::BASELINE));
    // Restricting never adds a bit.
    for mask in [0, 1, 2, 3, 4, 7, u32::MAX] {
        assert_eq!(d.restrict(mask).bits(), d.bits() & mask);
    }
    // Refused: an undefined bit, and every defined bit the machine lacks.
    assert_eq!(Isa::from_bits(8), None);
    assert_eq!(Isa::from_bits(1 << 31), None);
    for bit in [Isa::AVX2_BIT, Isa::AVX512_BIT, Isa::NEON_BIT] {
        assert_eq!(Isa::from_bits(bit).is_some(), d.bits() & bit != 0);
    }
    assert_eq!(
        (XPBD_SIMD_AVX2, XPBD_SIMD_AVX512, XPBD_SIMD_NEON),
        (Isa::AVX2_BIT, Isa::AVX512_BIT, Isa::NEON_BIT)
    );
    if cfg!(all(target_arch = "x86_64", not(miri))) {
        assert_eq!(d.bits() & Isa::NEON_BIT, 0);
    }
    if cfg!(target_arch = "aarch64") && !cfg!(miri) {
        assert_eq!(d.bits(), Isa::NEON_BIT);
        assert_eq!(d.kernel_name(), "neon");
    }
    assert_eq!(Isa::BASELINE.kernel_name(), "baseline");
}

#[test]
fn c_setter_refuses_what_the_cpu_lacks_and_writes_nothing() {
    let s = rope_scene::<f64>(20);
    let mut b = CBufs::new(&s);
    let mut sys = b.system(false, 0);
    let d = xpbd_simd_detect();
    // SAFETY: valid buffers; NULL is a checked argument.
    unsafe {
        assert_eq!(
            xpbd_simd_links3_set_simd(core::ptr::null_mut(), 0),
            XpbdStatus::NullPointer
        );
        assert_eq!(xpbd_simd_links3_set_simd(&mut sys, d), XpbdStatus::Ok);
        assert_eq!(sys.simd, d);
        let lacking = !d & (Isa::KNOWN_BITS | 8 | 1 << 31);
        for bit in (0..32).map(|b| 1u32 << b).filter(|b| lacking & b != 0) {
            assert_eq!(
                xpbd_simd_links3_set_simd(&mut sys, bit | d),
                XpbdStatus::UnsupportedFlag,
                "bit {bit:#x}"
            );
            assert_eq!(sys.simd, d, "nothing written");
        }
        assert_eq!(xpbd_simd_links3_set_simd(&mut sys, 0), XpbdStatus::Ok);
        assert_eq!(sys.simd, 0);
        // An undefined bit written directly: the solving calls refuse it.
        assert_eq!(
            xpbd_simd_links3_begin_substep(&mut sys, 1.0 / 240.0),
            XpbdStatus::Ok
        );
        sys.simd = 8;
        let mut st = SweepStats::default();
        assert_eq!(
            xpbd_simd_links3_iterate(&mut sys, &mut st),
            XpbdStatus::InvalidArgument
        );
        let mut err = 0;
        assert_eq!(
            xpbd_simd_links3_solve_job(&sys, 0, 0, 1, &mut st, &mut err),
            XpbdStatus::InvalidArgument
        );
        // The f32 setter refuses alike.
        let s32 = rope_scene::<f32>(3);
        let mut b32 = CBufs::new(&s32);
        let mut sys32 = b32.system(true, 0);
        assert_eq!(
            xpbd_simd_links3_set_simd_f32(&mut sys32, 1 << 31),
            XpbdStatus::UnsupportedFlag
        );
        assert_eq!(sys32.simd, 0);
        assert_eq!(xpbd_simd_links3_set_simd_f32(&mut sys32, d), XpbdStatus::Ok);
    }
}
