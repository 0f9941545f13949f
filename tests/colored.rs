//! Colored solving: bit-identical to a plain scalar implementation of the
//! documented colored equations (SoA and AoS, f64 and f32), identical across
//! job splits and thread counts, close to the sequential sweep over the same
//! order, and the rejections and failure semantics.

use xpbd::{
    cloth, cloth_coloring, color_order, fill_colored_links, greedy_coloring, rope, rope_coloring,
    Aos, ColoredLinks, ColoredSystem, Link, Real, Soa, System, SweepStats, SystemError, ZeroLength,
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

fn soa<T: Copy>(x: &[[T; 3]]) -> [Vec<T>; 3] {
    [0, 1, 2].map(|c| x.iter().map(|p| p[c]).collect())
}

fn stretched_cloth(rows: usize, cols: usize) -> (Vec<[f64; 3]>, Vec<f64>) {
    let mut x = Vec::new();
    for r in 0..rows {
        for c in 0..cols {
            x.push([c as f64 * 0.1, r as f64 * 0.1, 0.0]);
        }
    }
    let w = (0..rows * cols).map(|k| if k < cols { 0.0 } else { 1.0 + (k % 7) as f64 * 0.1 }).collect();
    (x, w)
}

fn perturb(x: &mut [[f64; 3]]) {
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
    let alpha: Vec<T> = plan.compliance.iter().map(|&c| c / h2).collect();
    let g: Vec<T> = (0..m)
        .map(|k| {
            let ws = w[plan.i[k] as usize] + w[plan.j[k] as usize];
            if ws == T::ZERO { T::ZERO } else { T::ONE / (ws + alpha[k]) }
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
                if wi + wj == T::ZERO {
                    st.skipped_static += 1;
                    continue;
                }
                if !(len2 >= T::MIN_POSITIVE) {
                    if reject_zero {
                        err = err.or(Some(SystemError::ZeroLength { constraint: k }));
                    } else {
                        st.skipped_zero_length += 1;
                    }
                    continue;
                }
                let len = len2.sqrt();
                let r = T::ONE / len;
                let cc = len - plan.rest[k];
                let num = -cc - alpha[k] * lambda[k];
                let delta = num * g[k];
                let (si, sj) = (wi * delta, wj * delta);
                let n = [d[0] * r, d[1] * r, d[2] * r];
                let na = [a[0] - si * n[0], a[1] - si * n[1], a[2] - si * n[2]];
                let nb = [b[0] + sj * n[0], b[1] + sj * n[1], b[2] + sj * n[2]];
                let nl = lambda[k] + delta;
                if !na.iter().chain(&nb).chain([&nl]).all(|v| v.is_finite()) {
                    err = err.or(Some(SystemError::InvalidResult { constraint: k }));
                    continue;
                }
                x[i] = na;
                x[j] = nb;
                lambda[k] = nl;
                st.applied += 1;
                if cc.abs() > st.max_abs_c { st.max_abs_c = cc.abs(); }
                if num.abs() > st.max_residual { st.max_residual = num.abs(); }
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
/// `reference`, bit for bit, and against the sequential sweep over the same
/// order, to rounding.
pub fn compare<T: Real>(x0: &[[T; 3]], w: &[T], links: &[Link<T>], colors: &[u32], count: u32, iters: usize) {
    let h = T::from_f64(1.0 / 240.0);
    let mut plan = Plan::new(links, colors, count);
    let mut xr = x0.to_vec();
    let (lam, stats, err) = reference(&mut xr, w, &plan, h, iters, true);
    assert_eq!(err, None);
    let want_bits = bits(&xr);
    let want_lam = bits1(&lam);
    // Sequential over the colored order: the same physics to rounding.
    let mut seq_links = plan.permuted(links);
    let mut xs = x0.to_vec();
    {
        let mut s = System::new(&mut xs, w, &mut seq_links).unwrap();
        let mut sub = s.begin_substep(h).unwrap();
        for _ in 0..iters {
            sub.iterate().unwrap();
        }
    }
    let scale = xs.iter().flatten().fold(1.0f64, |m, v| m.max(v.to_f64().abs()));
    let tol = if T::from_f64(0.1).to_f64() == 0.1 { 1e-9 } else { 1e-3 };
    for (a, b) in xs.iter().flatten().zip(xr.iter().flatten()) {
        assert!((a.to_f64() - b.to_f64()).abs() <= tol * scale, "{a} vs {b}");
    }
    // AoS.
    let mut xa = x0.to_vec();
    let mut stamp = vec![0u32; x0.len()];
    {
        let mut sys = ColoredSystem::new(Aos { positions: &mut xa, w }, plan.links(), &mut stamp).unwrap();
        let mut sub = sys.begin_substep(h).unwrap();
        for s in &stats {
            assert_eq!(sub.iterate().unwrap(), *s);
        }
    }
    assert_eq!(bits(&xa), want_bits);
    assert_eq!(bits1(&plan.lambda), want_lam);
    // SoA colored, jobs split 1..=4 ways on threads.
    for threads in 1..=4 {
        let [mut x, mut y, mut z] = soa(x0);
        {
            let mut sys = ColoredSystem::new(Soa { x: &mut x, y: &mut y, z: &mut z, w }, plan.links(), &mut stamp).unwrap();
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

fn bits1<T: Real>(v: &[T]) -> Vec<u64> {
    v.iter().map(|v| v.to_f64().to_bits()).collect()
}

fn bits<T: Real>(x: &[[T; 3]]) -> Vec<u64> {
    x.iter().flatten().map(|v| v.to_f64().to_bits()).collect()
}

#[test]
fn f32_rope_and_cloth_match_the_reference() {
    let n = 260; // 259 links: colors of 130 and 129, not multiples of 4
    let x0: Vec<[f32; 3]> = (0..n).map(|k| [k as f32 * 0.01, 0.0, 0.0]).collect();
    let w: Vec<f32> = (0..n).map(|k| if k == 0 { 0.0 } else { 1.0 }).collect();
    let mut links = vec![Link::default(); n - 1];
    rope(&x0, 1e-5, &mut links).unwrap();
    let x: Vec<[f32; 3]> = x0.iter().enumerate().map(|(k, p)| [p[0] * 1.1, (k % 3) as f32 * 0.001, 0.0]).collect();
    let mut colors = vec![0; n - 1];
    let count = rope_coloring(n - 1, false, &mut colors).unwrap();
    compare(&x, &w, &links, &colors, count, 6);
    let (rows, cols) = (9, 13);
    let (xc, wc) = stretched_cloth(rows, cols);
    let xc: Vec<[f32; 3]> = xc.iter().map(|p| p.map(|v| v as f32)).collect();
    let wc: Vec<f32> = wc.iter().map(|v| *v as f32).collect();
    let m = xpbd::cloth_link_count(rows, cols, true).unwrap();
    let mut cl = vec![Link::default(); m];
    cloth(&xc, rows, cols, true, 1e-6, &mut cl).unwrap();
    let mut colors = vec![0; m];
    let count = cloth_coloring(rows, cols, true, &mut colors).unwrap();
    let xp: Vec<[f32; 3]> = xc.iter().enumerate().map(|(k, p)| [p[0] * 1.05, p[1], (k % 4) as f32 * 0.01]).collect();
    compare(&xp, &wc, &cl, &colors, count, 4);
}

#[test]
fn a_link_that_would_overflow_is_untouched_and_named_the_rest_applied() {
    // Link 2 of a 4-link rope: C ≈ −1e308 and g = 1/(w_2 + w_3) = 500 give
    // Δλ = +inf.
    let mut x = vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0], [3.0, 0.0, 0.0], [4.0, 0.0, 0.0]];
    let w = [1.0, 1.0, 1e-3, 1e-3, 1.0];
    let mut links = vec![Link::default(); 4];
    rope(&x, 0.0, &mut links).unwrap();
    links[2].rest = 1e308;
    for p in x.iter_mut() { p[0] *= 1.5; }
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
        let mut sys = ColoredSystem::new(Aos { positions: &mut xa, w: &w }, plan.links(), &mut stamp).unwrap();
        let mut sub = sys.begin_substep(0.01).unwrap();
        assert_eq!(sub.iterate(), Err(SystemError::InvalidResult { constraint: 1 }));
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
            3 => plan.rest[1] = 0.0,
            _ => plan.compliance[0] = -1.0,
        }
        let mut stamp = [0; 3];
        let mut xa = x.clone();
        let mut sys = ColoredSystem::new(Aos { positions: &mut xa, w: &w }, plan.links(), &mut stamp).unwrap();
        assert_eq!(sys.begin_substep(h).err(), Some(want));
        drop(sys);
        assert_eq!(bits(&xa), bits(&x));
        assert_eq!(plan.lambda, vec![7.0; 2]);
        assert_eq!(plan.alpha, vec![9.0; 2]);
    }
}

#[test]
fn rope_colored_equals_sequential_in_colored_order() {
    let n = 1002; // 1001 links: odd color sizes exercise the remainder path
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
    let (rows, cols) = (23, 31);
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
    let r = ColoredSystem::new(Aos { positions: &mut xa, w: &w }, plan.links(), &mut stamp);
    assert_eq!(r.err(), Some(SystemError::InvalidShape));
}

#[test]
fn zero_length_rejected_or_skipped() {
    let mut x = vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0], [3.0, 0.0, 0.0]];
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
    let mut sys = ColoredSystem::new(Aos { positions: &mut xa, w: &w }, plan.links(), &mut stamp).unwrap();
    // Link (1,2) is colored position 2 (odd color).
    assert_eq!(sys.begin_substep(0.01).err(), Some(SystemError::ZeroLength { constraint: 2 }));
    let mut sys = sys.with_zero_length(ZeroLength::Skip);
    let mut sub = sys.begin_substep(0.01).unwrap();
    let s = sub.iterate().unwrap();
    assert_eq!(s.skipped_zero_length, 1);
    assert_eq!(s.applied, 2);
}
