//! Colored solving: bit-identical to the sequential sweep over the links in
//! colored order (SoA and AoS, f64 and f32), identical across job splits and
//! thread counts, and the same rejections.

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

/// Sequential sweeps over the colored link order vs colored sweeps (AoS and SoA).
fn compare(x0: &[[f64; 3]], w: &[f64], links: &[Link<f64>], colors: &[u32], count: u32, iters: usize) {
    let h = 1.0 / 240.0;
    // Sequential reference.
    let mut plan = Plan::new(links, colors, count);
    let mut seq_links = plan.permuted(links);
    let mut xs = x0.to_vec();
    let mut seq_stats = Vec::new();
    {
        let mut s = System::new(&mut xs, w, &mut seq_links).unwrap();
        let mut sub = s.begin_substep(h).unwrap();
        for _ in 0..iters {
            seq_stats.push(sub.iterate().unwrap());
        }
    }
    // AoS colored.
    let mut xa = x0.to_vec();
    let mut stamp = vec![0u32; x0.len()];
    {
        let mut sys = ColoredSystem::new(Aos { positions: &mut xa, w }, plan.links(), &mut stamp).unwrap();
        let mut sub = sys.begin_substep(h).unwrap();
        for s in &seq_stats {
            assert_eq!(sub.iterate().unwrap(), *s);
        }
    }
    assert_eq!(bits(&xs), bits(&xa));
    let lam: Vec<u64> = seq_links.iter().map(|l| l.lambda.to_bits()).collect();
    assert_eq!(lam, plan.lambda.iter().map(|v| v.to_bits()).collect::<Vec<_>>());
    // SoA colored, jobs split 1..=4 ways on threads.
    for threads in 1..=4 {
        let [mut x, mut y, mut z] = soa(x0);
        {
            let mut sys = ColoredSystem::new(Soa { x: &mut x, y: &mut y, z: &mut z, w }, plan.links(), &mut stamp).unwrap();
            let mut sub = sys.begin_substep(h).unwrap();
            for s in &seq_stats {
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
        let back: Vec<[f64; 3]> = (0..x.len()).map(|k| [x[k], y[k], z[k]]).collect();
        assert_eq!(bits(&xs), bits(&back), "threads {threads}");
        assert_eq!(lam, plan.lambda.iter().map(|v| v.to_bits()).collect::<Vec<_>>());
    }
}

fn bits(x: &[[f64; 3]]) -> Vec<u64> {
    x.iter().flatten().map(|v| v.to_bits()).collect()
}

#[test]
fn rope_colored_equals_sequential_in_colored_order() {
    let n = 1001;
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
