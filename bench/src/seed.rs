//! The 1D seed solve: the Rust API and the C ABI called from C against the
//! formula inline in C (`ref_1d_*`).

use std::hint::black_box;

use xpbd::ffi::XpbdDistanceConstraint;
use xpbd::DistanceConstraint;

use crate::report::{ratio, Ratio};
use crate::timing::{bits, time, Figure, Settings};

extern "C" {
    fn ref_1d_cabi(
        a: *mut f64,
        b: *mut f64,
        wa: *const f64,
        wb: *const f64,
        rest: *const f64,
        compliance: *const f64,
        dt: f64,
        n: usize,
        iterations: i32,
    );
    fn ref_1d_inline(
        a: *mut f64,
        b: *mut f64,
        wa: *const f64,
        wb: *const f64,
        rest: *const f64,
        compliance: *const f64,
        dt: f64,
        n: usize,
        iterations: i32,
    );
    fn ref_1d_cabi_sweep(
        a: *mut f64,
        b: *mut f64,
        wa: *const f64,
        wb: *const f64,
        rest: *const f64,
        compliance: *const f64,
        dt: f64,
        n: usize,
        iterations: i32,
        c: *mut XpbdDistanceConstraint,
    );
    fn ref_1d_inline_sweep(
        a: *mut f64,
        b: *mut f64,
        wa: *const f64,
        wb: *const f64,
        rest: *const f64,
        compliance: *const f64,
        dt: f64,
        n: usize,
        iterations: i32,
        lambda: *mut f64,
    );
}

/// The 1D seed solve: Rust API, C ABI from C, and the formula inline in C.
pub(crate) fn seed_case(s: &Settings, out: &mut Vec<Figure>) -> Result<[(f64, f64); 5], String> {
    let n = if s.quick { 10_000 } else { 100_000 };
    let iterations = 10;
    let solves = n * iterations;
    let a0: Vec<f64> = (0..n).map(|k| (k % 100) as f64 * 0.1).collect();
    let b0: Vec<f64> = a0
        .iter()
        .enumerate()
        .map(|(k, a)| a + 1.0 + (k % 4) as f64)
        .collect();
    let wa: Vec<f64> = (0..n).map(|k| 0.1 + (k % 30) as f64 * 0.1).collect();
    let wb: Vec<f64> = (0..n).map(|k| 0.1 + (k % 29) as f64 * 0.1).collect();
    let rest: Vec<f64> = (0..n).map(|k| 0.2 + (k % 8) as f64 * 0.1).collect();
    let comp: Vec<f64> = (0..n).map(|k| (k % 5) as f64 * 0.01).collect();
    let dt = 0.01;
    // Rust API.
    let (mut ra, mut rb) = (a0.clone(), b0.clone());
    let mut err = false;
    let (rps, rns) = time(s.reps, solves, || {
        ra.copy_from_slice(&a0);
        rb.copy_from_slice(&b0);
        for k in 0..n {
            let mut c = DistanceConstraint::<f64>::new();
            c.begin_substep();
            for _ in 0..iterations {
                err |= c
                    .solve(
                        &mut ra[k],
                        &mut rb[k],
                        wa[k],
                        wb[k],
                        rest[k],
                        comp[k],
                        black_box(dt),
                    )
                    .is_err();
            }
        }
    });
    if err {
        return Err("1D Rust solve failed".into());
    }
    let run_c = |f: unsafe extern "C" fn(
        *mut f64,
        *mut f64,
        *const f64,
        *const f64,
        *const f64,
        *const f64,
        f64,
        usize,
        i32,
    )| {
        let (mut a, mut b) = (a0.clone(), b0.clone());
        let r = time(s.reps, solves, || {
            a.copy_from_slice(&a0);
            b.copy_from_slice(&b0);
            // SAFETY: every array has n entries.
            unsafe {
                f(
                    a.as_mut_ptr(),
                    b.as_mut_ptr(),
                    wa.as_ptr(),
                    wb.as_ptr(),
                    rest.as_ptr(),
                    comp.as_ptr(),
                    dt,
                    n,
                    iterations as i32,
                )
            }
        });
        (r, a, b)
    };
    let ((aps, ans), aa, ab) = run_c(ref_1d_cabi);
    let ((ips, ins), ia, ib) = run_c(ref_1d_inline);
    if bits(ra.iter().chain(&rb).copied()) != bits(aa.iter().chain(&ab).copied()) {
        return Err("1D: Rust API and C ABI results differ".into());
    }
    if bits(aa.iter().chain(&ab).copied()) != bits(ia.iter().chain(&ib).copied()) {
        return Err("1D: C ABI and inline C results differ".into());
    }
    out.push(Figure {
        case: "1D seed solve, Rust API".into(),
        per_second: rps,
        ns: rns,
    });
    out.push(Figure {
        case: "1D seed solve, C ABI called from C".into(),
        per_second: aps,
        ns: ans,
    });
    out.push(Figure {
        case: "1D seed solve, formula inline in C".into(),
        per_second: ips,
        ns: ins,
    });
    // The engine's order: every constraint's substep begins, then each of
    // the `iterations` sweeps solves every constraint once (Gauss-Seidel).
    // Successive solves are independent, as in a real sweep.
    let (mut sa, mut sb) = (a0.clone(), b0.clone());
    let mut sl = vec![DistanceConstraint::<f64>::new(); n];
    let mut err = false;
    let (sps, sns) = time(s.reps, solves, || {
        sa.copy_from_slice(&a0);
        sb.copy_from_slice(&b0);
        for c in &mut sl {
            c.begin_substep();
        }
        for _ in 0..iterations {
            for (k, c) in sl.iter_mut().enumerate() {
                err |= c
                    .solve(
                        &mut sa[k],
                        &mut sb[k],
                        wa[k],
                        wb[k],
                        rest[k],
                        comp[k],
                        black_box(dt),
                    )
                    .is_err();
            }
        }
    });
    if err {
        return Err("1D Rust sweep failed".into());
    }
    let (mut ca, mut cb) = (a0.clone(), b0.clone());
    let mut cl = vec![XpbdDistanceConstraint { lambda: 1.0 }; n];
    let (cps_sweep, cns_sweep) = time(s.reps, solves, || {
        ca.copy_from_slice(&a0);
        cb.copy_from_slice(&b0);
        // SAFETY: every array has n entries.
        unsafe {
            ref_1d_cabi_sweep(
                ca.as_mut_ptr(),
                cb.as_mut_ptr(),
                wa.as_ptr(),
                wb.as_ptr(),
                rest.as_ptr(),
                comp.as_ptr(),
                dt,
                n,
                iterations as i32,
                cl.as_mut_ptr(),
            );
        }
    });
    let (mut ia2, mut ib2) = (a0.clone(), b0.clone());
    let mut il = vec![1.0f64; n];
    let (ips_sweep, ins_sweep) = time(s.reps, solves, || {
        ia2.copy_from_slice(&a0);
        ib2.copy_from_slice(&b0);
        // SAFETY: every array has n entries.
        unsafe {
            ref_1d_inline_sweep(
                ia2.as_mut_ptr(),
                ib2.as_mut_ptr(),
                wa.as_ptr(),
                wb.as_ptr(),
                rest.as_ptr(),
                comp.as_ptr(),
                dt,
                n,
                iterations as i32,
                il.as_mut_ptr(),
            );
        }
    });
    let rust_bits = bits(
        sa.iter()
            .chain(&sb)
            .copied()
            .chain(sl.iter().map(|c| c.lambda())),
    );
    let cabi_bits = bits(
        ca.iter()
            .chain(&cb)
            .copied()
            .chain(cl.iter().map(|c| c.lambda)),
    );
    let inline_bits = bits(ia2.iter().chain(&ib2).chain(&il).copied());
    if rust_bits != cabi_bits || cabi_bits != inline_bits {
        return Err("1D sweep: Rust API, C ABI and inline C results differ".into());
    }
    // The sweep order changes nothing per constraint: the same final bits
    // as one constraint iterated to the end.
    if bits(sa.iter().chain(&sb).copied()) != bits(ra.iter().chain(&rb).copied()) {
        return Err("1D: sweep order and constraint order results differ".into());
    }
    out.push(Figure {
        case: "1D sweep order, Rust API".into(),
        per_second: sps,
        ns: sns,
    });
    out.push(Figure {
        case: "1D sweep order, C ABI called from C".into(),
        per_second: cps_sweep,
        ns: cns_sweep,
    });
    out.push(Figure {
        case: "1D sweep order, formula inline in C".into(),
        per_second: ips_sweep,
        ns: ins_sweep,
    });
    // The same two C loops on one constraint for many iterations: every
    // solve depends on the previous one (latency, no overlap between
    // constraints).
    let chain = if s.quick { 100_000 } else { 2_000_000 };
    type Kernel = unsafe extern "C" fn(
        *mut f64,
        *mut f64,
        *const f64,
        *const f64,
        *const f64,
        *const f64,
        f64,
        usize,
        i32,
    );
    let one = |f: Kernel| {
        let (mut a, mut b) = ([0.0f64], [2.0f64]);
        let (one, rest, comp) = ([1.0f64], [1.0f64], [0.01f64]);
        time(s.reps, chain, || {
            a[0] = 0.0;
            b[0] = 2.0;
            // SAFETY: one-entry arrays, n = 1.
            unsafe {
                f(
                    a.as_mut_ptr(),
                    b.as_mut_ptr(),
                    one.as_ptr(),
                    one.as_ptr(),
                    rest.as_ptr(),
                    comp.as_ptr(),
                    0.1,
                    1,
                    i32::try_from(chain).unwrap_or(i32::MAX),
                )
            }
        })
    };
    let (cps, cns) = one(ref_1d_cabi);
    let (ips2, ins2) = one(ref_1d_inline);
    out.push(Figure {
        case: "1D one constraint chained, C ABI from C".into(),
        per_second: cps,
        ns: cns,
    });
    out.push(Figure {
        case: "1D one constraint chained, inline C".into(),
        per_second: ips2,
        ns: ins2,
    });
    Ok([
        (cps_sweep, ips_sweep),
        (sps, ips_sweep),
        (aps, ips),
        (rps, ips),
        (cps, ips2),
    ])
}

/// The 1D seed solve: Rust API and C ABI against the formula inline in C.
pub(crate) fn seed_section(
    s: &Settings,
    figs: &mut Vec<Figure>,
    ratios: &mut Vec<Ratio>,
) -> Result<(), String> {
    let [sweep, rust_sweep, cabi, rust1d, chained] = seed_case(s, figs)?;
    let target_1d = 1.0 / 1.2;
    ratios.push(ratio(
        "1D solve, 10 sweeps over 100k constraints: C ABI from C / inline C".into(),
        sweep.0,
        sweep.1,
        0.0,
    ));
    ratios.push(ratio(
        "1D solve, 10 sweeps over 100k constraints: Rust API / inline C".into(),
        rust_sweep.0,
        rust_sweep.1,
        0.0,
    ));
    ratios.push(ratio(
        "1D solve, 100k constraints x 10 iterations: C ABI from C / inline C".into(),
        cabi.0,
        cabi.1,
        target_1d,
    ));
    ratios.push(ratio(
        "1D solve, 100k constraints x 10 iterations: Rust API / inline C".into(),
        rust1d.0,
        rust1d.1,
        0.0,
    ));
    ratios.push(ratio(
        "1D solve, one constraint chained: C ABI from C / inline C".into(),
        chained.0,
        chained.1,
        target_1d,
    ));
    Ok(())
}
