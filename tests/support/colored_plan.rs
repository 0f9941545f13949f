//! Shared by tests/colored.rs and tests/colored_proptests.rs: colored SoA
//! storage from a link list, a plain scalar implementation of the colored
//! equations, and the comparison of every colored entry point against it.
#![allow(dead_code)]

use xpbd::{
    color_order, fill_colored_links, Aos, ColoredLinks, Link, Real, SimdLinks, Soa, SweepStats,
    System, SystemError,
};

/// Colored SoA storage built from a link list and a coloring.
pub struct Plan<T> {
    pub order: Vec<u32>,
    pub starts: Vec<usize>,
    pub i: Vec<u32>,
    pub j: Vec<u32>,
    pub rest: Vec<T>,
    pub compliance: Vec<T>,
    pub lambda: Vec<T>,
    pub alpha: Vec<T>,
    pub g: Vec<T>,
}

impl<T: Real> Plan<T> {
    pub fn new(links: &[Link<T>], colors: &[u32], count: u32) -> Self {
        let n = links.len();
        let mut p = Plan {
            order: vec![0; n],
            starts: vec![0; count as usize + 1],
            i: vec![0; n],
            j: vec![0; n],
            rest: vec![T::ZERO; n],
            compliance: vec![T::ZERO; n],
            lambda: vec![T::ZERO; n],
            alpha: vec![T::ZERO; n],
            g: vec![T::ZERO; n],
        };
        color_order(colors, count, &mut p.starts, &mut p.order).unwrap();
        fill_colored_links(
            links,
            &p.order,
            &mut p.i,
            &mut p.j,
            &mut p.rest,
            &mut p.compliance,
            &mut p.lambda,
        )
        .unwrap();
        p
    }
    pub fn links(&mut self) -> ColoredLinks<'_, T> {
        ColoredLinks {
            i: &self.i,
            j: &self.j,
            rest: &self.rest,
            compliance: &self.compliance,
            lambda: &mut self.lambda,
            alpha: &mut self.alpha,
            inv_denominator: &mut self.g,
            color_starts: &self.starts,
        }
    }
    pub fn permuted(&self, links: &[Link<T>]) -> Vec<Link<T>> {
        self.order.iter().map(|&k| links[k as usize]).collect()
    }
}

pub fn soa<T: Copy>(x: &[[T; 3]]) -> [Vec<T>; 3] {
    [0, 1, 2].map(|c| x.iter().map(|p| p[c]).collect())
}

pub fn stretched_cloth(rows: usize, cols: usize) -> (Vec<[f64; 3]>, Vec<f64>) {
    let mut x = Vec::new();
    for r in 0..rows {
        for c in 0..cols {
            x.push([c as f64 * 0.1, r as f64 * 0.1, 0.0]);
        }
    }
    let w = (0..rows * cols)
        .map(|k| {
            if k < cols {
                0.0
            } else {
                1.0 + (k % 7) as f64 * 0.1
            }
        })
        .collect();
    (x, w)
}

pub fn perturb(x: &mut [[f64; 3]]) {
    for (k, p) in x.iter_mut().enumerate() {
        let s = ((k * 2654435761) % 1000) as f64 * 1e-4;
        p[0] += s;
        p[1] -= 0.5 * s;
        p[2] += 0.03 * ((k % 5) as f64);
    }
}

/// The colored equations of `xpbd::colored`, one link at a time in colored
/// order, in plain scalar Rust: what every colored entry point must equal
/// bit for bit. Returns the λ in colored order and the stats per sweep.
///
/// The link kinds of `ColoredLinks::rest`: `rest > 0` bilateral, `rest < 0`
/// tension-only of rest length `−rest` (λ ≤ 0: when `λ + Δλ > 0` the link is
/// slack, `Δλ = −λ`, its `|C|` and residual count as 0, and with λ already
/// 0 it moves nothing), `rest = 0` disabled (skipped, counted static). A
/// static particle keeps its bits.
pub fn reference<T: Real>(
    x: &mut [[T; 3]],
    w: &[T],
    plan: &Plan<T>,
    h: T,
    sweeps: usize,
    reject_zero: bool,
) -> (Vec<T>, Vec<SweepStats<T>>, Option<SystemError>) {
    let h2 = h * h;
    let m = plan.i.len();
    let mut lambda = vec![T::ZERO; m];
    let disabled = |k: usize| plan.rest[k] == T::ZERO;
    let alpha: Vec<T> = (0..m)
        .map(|k| {
            if disabled(k) {
                T::ZERO
            } else {
                plan.compliance[k] / h2
            }
        })
        .collect();
    let g: Vec<T> = (0..m)
        .map(|k| {
            let ws = w[plan.i[k] as usize] + w[plan.j[k] as usize];
            if ws == T::ZERO || disabled(k) {
                T::ZERO
            } else {
                T::ONE / (ws + alpha[k])
            }
        })
        .collect();
    let mut all = Vec::new();
    for _ in 0..sweeps {
        let mut st = SweepStats::default();
        let mut err = None;
        for c in 0..plan.starts.len() - 1 {
            for k in plan.starts[c]..plan.starts[c + 1] {
                let (i, j) = (plan.i[k] as usize, plan.j[k] as usize);
                let (a, b, wi, wj) = (x[i], x[j], w[i], w[j]);
                let d = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
                let len2 = T::ZERO + d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
                if g[k] == T::ZERO {
                    st.skipped_static += 1;
                    continue;
                }
                if matches!(
                    len2.partial_cmp(&T::MIN_POSITIVE),
                    Some(std::cmp::Ordering::Less) | None
                ) {
                    if reject_zero {
                        err = err.or(Some(SystemError::ZeroLength { constraint: k }));
                    } else {
                        st.skipped_zero_length += 1;
                    }
                    continue;
                }
                let len = len2.sqrt();
                let r = T::ONE / len;
                let cc = len - plan.rest[k].abs();
                let num = -cc - alpha[k] * lambda[k];
                let mut delta = num * g[k];
                let slack = plan.rest[k] < T::ZERO && lambda[k] + delta > T::ZERO;
                if slack {
                    delta = -lambda[k];
                }
                let idle = slack && delta == T::ZERO;
                let (si, sj) = (wi * delta, wj * delta);
                let n = [d[0] * r, d[1] * r, d[2] * r];
                let mut na = [a[0] - si * n[0], a[1] - si * n[1], a[2] - si * n[2]];
                let mut nb = [b[0] + sj * n[0], b[1] + sj * n[1], b[2] + sj * n[2]];
                if wi == T::ZERO || idle {
                    na = a;
                }
                if wj == T::ZERO || idle {
                    nb = b;
                }
                let nl = lambda[k] + delta;
                let (cc, num) = if slack { (T::ZERO, T::ZERO) } else { (cc, num) };
                if !na.iter().chain(&nb).chain([&nl]).all(|v| v.is_finite()) {
                    err = err.or(Some(SystemError::InvalidResult { constraint: k }));
                    continue;
                }
                x[i] = na;
                x[j] = nb;
                lambda[k] = nl;
                st.applied += 1;
                if cc.abs() > st.max_abs_c {
                    st.max_abs_c = cc.abs();
                }
                if num.abs() > st.max_residual {
                    st.max_residual = num.abs();
                }
            }
            if err.is_some() {
                return (lambda, all, err);
            }
        }
        all.push(st);
    }
    (lambda, all, None)
}

/// The colored entry points (AoS; SoA split 1–4 ways on threads) against
/// `reference`, bit for bit, and against the sequential sweep over the
/// same order, to rounding. Under Miri one sweep, jobs on 1 and 3 threads
/// (3 only when every color fits in one chunk), the SoA runs against the
/// AoS run.
pub fn compare<T: Real>(
    x0: &[[T; 3]],
    w: &[T],
    links: &[Link<T>],
    colors: &[u32],
    count: u32,
    iters: usize,
) {
    // Under Miri (CI time) one sweep: a later sweep runs the same entry
    // points, kernels, lanes and job ranges over the same indices (only λ
    // and the positions differ), which is all the interpreter checks; the
    // native run checks the values of every sweep.
    let iters = if cfg!(miri) { 1 } else { iters };
    let h = T::from_f64(1.0 / 240.0);
    let mut plan = Plan::new(links, colors, count);
    // The scalar reference and the sequential sweep: safe Rust, not under
    // Miri (CI time), where the entry points are held to the AoS run's
    // bits and statistics instead (every one of them is held to the
    // reference natively).
    let reference = (!cfg!(miri)).then(|| {
        let mut xr = x0.to_vec();
        let (lam, stats, err) = reference(&mut xr, w, &plan, h, iters, true);
        assert_eq!(err, None);
        // Sequential over the colored order: the same physics to rounding.
        sequential_is_close(x0, w, links, &plan, h, iters, &xr);
        (bits(&xr), bits1(&lam), stats)
    });
    // AoS.
    let mut xa = x0.to_vec();
    let mut stamp = vec![0u32; x0.len()];
    let mut aos_stats = Vec::new();
    {
        let mut sys = SimdLinks::new(
            Aos {
                positions: &mut xa,
                w,
            },
            plan.links(),
            &mut stamp,
        )
        .unwrap();
        let mut sub = sys.begin_substep(h).unwrap();
        for k in 0..iters {
            let s = sub.iterate().unwrap();
            if let Some((_, _, stats)) = &reference {
                assert_eq!(s, stats[k]);
            }
            aos_stats.push(s);
        }
    }
    let (want_bits, want_lam, stats) =
        reference.unwrap_or_else(|| (bits(&xa), bits1(&plan.lambda), aos_stats));
    assert_eq!(bits(&xa), want_bits);
    assert_eq!(bits1(&plan.lambda), want_lam);
    // SoA colored, jobs split 1..=4 ways on threads (under Miri 1 and 3:
    // spawning threads per color and sweep is what the interpreter is
    // slowest at; 3 still runs jobs concurrently). When every color fits in
    // one 64-link chunk, one of 3 jobs runs the whole color as 1 job would:
    // under Miri then 3 only.
    let one_chunk = plan
        .starts
        .windows(2)
        .all(|c| c[1] - c[0] <= xpbd::colored::CHUNK);
    let ways: &[usize] = match (cfg!(miri), one_chunk) {
        (false, _) => &[1, 2, 3, 4],
        (true, false) => &[1, 3],
        (true, true) => &[3],
    };
    for &threads in ways {
        let [mut x, mut y, mut z] = soa(x0);
        {
            let mut sys = SimdLinks::new(
                Soa {
                    x: &mut x,
                    y: &mut y,
                    z: &mut z,
                    w,
                },
                plan.links(),
                &mut stamp,
            )
            .unwrap();
            let mut sub = sys.begin_substep(h).unwrap();
            for s in &stats {
                let mut total = SweepStats::default();
                for c in 0..sub.color_count() {
                    let jobs = sub.jobs(c, threads).unwrap();
                    let parts: Vec<_> = std::thread::scope(|sc| {
                        let hs: Vec<_> = jobs.map(|j| sc.spawn(move || j.run())).collect();
                        hs.into_iter().map(|h| h.join().unwrap().unwrap()).collect()
                    });
                    for p in parts {
                        total = total.merge(p);
                    }
                }
                assert_eq!(total, *s, "threads {threads}");
            }
        }
        let back: Vec<[T; 3]> = (0..x.len()).map(|k| [x[k], y[k], z[k]]).collect();
        assert_eq!(bits(&back), want_bits, "threads {threads}");
        assert_eq!(bits1(&plan.lambda), want_lam);
    }
}

/// The sequential sweep over the colored order ends within rounding of the
/// reference's `xr`.
fn sequential_is_close<T: Real>(
    x0: &[[T; 3]],
    w: &[T],
    links: &[Link<T>],
    plan: &Plan<T>,
    h: T,
    iters: usize,
    xr: &[[T; 3]],
) {
    let mut seq_links = plan.permuted(links);
    let mut xs = x0.to_vec();
    {
        let mut s = System::new(&mut xs, w, &mut seq_links).unwrap();
        let mut sub = s.begin_substep(h).unwrap();
        for _ in 0..iters {
            sub.iterate().unwrap();
        }
    }
    let scale = xs
        .iter()
        .flatten()
        .fold(1.0f64, |m, v| m.max(v.to_f64().abs()));
    let tol = if T::from_f64(0.1).to_f64() == 0.1 {
        1e-9
    } else {
        1e-3
    };
    for (a, b) in xs.iter().flatten().zip(xr.iter().flatten()) {
        assert!((a.to_f64() - b.to_f64()).abs() <= tol * scale, "{a} vs {b}");
    }
}

pub fn bits1<T: Real>(v: &[T]) -> Vec<u64> {
    v.iter().map(|v| v.to_f64().to_bits()).collect()
}

pub fn bits<T: Real>(x: &[[T; 3]]) -> Vec<u64> {
    x.iter().flatten().map(|v| v.to_f64().to_bits()).collect()
}
