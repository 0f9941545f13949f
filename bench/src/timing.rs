//! Timing and comparison helpers shared by every case: figures, settings,
//! best-of timing, medians, the bits compared against the C references.

use std::time::Instant;

use xpbd::Real;

use crate::report::{pair_ratio, Ratio};

/// One printed figure.
#[derive(Debug, Clone)]
pub struct Figure {
    /// Case name.
    pub case: String,
    /// Constraint solves per second.
    pub per_second: f64,
    /// Nanoseconds per constraint solve.
    pub ns: f64,
}

/// Settings of a run.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    /// Repetitions per case (best is kept).
    pub reps: usize,
    /// Minimum link visits per repetition.
    pub visits: usize,
    /// Quick mode: small sizes.
    pub quick: bool,
}

impl Settings {
    /// From the environment (`XPBD_BENCH_QUICK=1` for the smoke test;
    /// `XPBD_BENCH_REPS=<n>` sets the repetitions, e.g. 1 under valgrind).
    #[must_use]
    pub fn from_env() -> Self {
        let s = Self::defaults();
        match std::env::var("XPBD_BENCH_REPS").map(|v| v.parse::<usize>()) {
            Ok(Ok(reps)) => Settings { reps, ..s },
            _ => s,
        }
    }

    /// The settings without `XPBD_BENCH_REPS`.
    fn defaults() -> Self {
        let quick = std::env::var("XPBD_BENCH_QUICK").is_ok_and(|v| v == "1");
        if quick {
            Settings {
                reps: 2,
                visits: 200_000,
                quick,
            }
        } else {
            Settings {
                reps: 7,
                visits: 8_000_000,
                quick,
            }
        }
    }
}

/// Times `f` (which performs `solves` constraint solves per call): best of
/// `reps` after one warm-up call.
pub(crate) fn time(reps: usize, solves: usize, mut f: impl FnMut()) -> (f64, f64) {
    f();
    let mut best = f64::INFINITY;
    for _ in 0..reps {
        let t = Instant::now();
        f();
        best = best.min(t.elapsed().as_secs_f64());
    }
    let ns = best * 1e9 / solves as f64;
    (1e9 / ns, ns)
}

pub(crate) fn bits<T: Real>(v: impl IntoIterator<Item = T>) -> Vec<u64> {
    v.into_iter().map(|x| x.to_f64().to_bits()).collect()
}

/// The coordinates of `x` as three arrays (structure of arrays).
pub(crate) fn soa_of<T: Copy>(x: &[[T; 3]]) -> [Vec<T>; 3] {
    [0, 1, 2].map(|c| x.iter().map(|p| p[c]).collect())
}

/// The bits of SoA positions, particle by particle (x, y, z).
pub(crate) fn soa_bits<T: Real>(x: &[T], y: &[T], z: &[T]) -> Vec<u64> {
    bits(x.iter().zip(y).zip(z).flat_map(|((&a, &b), &c)| [a, b, c]))
}

/// The substep length of every case (s).
pub(crate) const H: f64 = 1.0 / 240.0;

/// Sweeps per repetition: at least `visits` constraint visits, at least 3.
pub(crate) fn sweeps_for(s: &Settings, links: usize) -> usize {
    (s.visits / links.max(1)).max(3)
}

/// Offsets (in values) of the x, y and z arrays in their buffers: the
/// placements the colored SoA cases run in. How the arrays fall relative to
/// each other (cache sets, address aliasing between loads and stores)
/// changes the speed of one placement by up to ~30 % on some machines; the
/// figure is the median over these placements, for ours and for C alike.
pub(crate) const PLACEMENTS: [[usize; 3]; 3] =
    [[0, 0, 0], [9352, 3124, 6488], [20744, 14744, 24596]];

/// The scene's positions as three arrays, each after `pl[c]` zeros.
pub(crate) fn placed<T: Real>(x: &[[T; 3]], pl: &[usize; 3]) -> [Vec<T>; 3] {
    [0, 1, 2].map(|c| {
        let mut b = vec![T::ZERO; pl[c] + x.len()];
        for (d, p) in b[pl[c]..].iter_mut().zip(x) {
            *d = p[c];
        }
        b
    })
}

/// The median of (solves per second, ns per solve) figures by speed.
pub(crate) fn median(v: &mut [(f64, f64)]) -> (f64, f64) {
    v.sort_by(|a, b| a.0.total_cmp(&b.0));
    v.get(v.len() / 2).copied().unwrap_or((f64::NAN, f64::NAN))
}

/// Two figures timed in alternation, and the median of their per-pair
/// ratios (see [`interleaved`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Pair {
    /// `a`: best (solves per second, ns per solve).
    pub(crate) a: (f64, f64),
    /// `b`: best (solves per second, ns per solve).
    pub(crate) b: (f64, f64),
    /// The median over the pairs of `time_b / time_a` (> 1: `a` faster).
    pub(crate) ratio: f64,
    /// The smallest and the largest per-pair ratio.
    pub(crate) spread: (f64, f64),
}

/// Times `a` and `b` (each performing `solves` constraint solves per call)
/// in alternation, A B A B …: one warm-up call each, then `pairs` pairs.
/// Each figure is the best of its calls; the ratio is the median over the
/// pairs of `time_b / time_a`, so a burst of outside load that hits one
/// pair moves one ratio out of `pairs`, for both sides alike.
pub(crate) fn interleaved(
    pairs: usize,
    solves: usize,
    mut a: impl FnMut(),
    mut b: impl FnMut(),
) -> Pair {
    a();
    b();
    let (mut best_a, mut best_b) = (f64::INFINITY, f64::INFINITY);
    let mut ratios = Vec::with_capacity(pairs);
    let cpu = std::env::var("XPBD_BENCH_CPU_TIME").is_ok_and(|v| v == "1");
    let clock = |f: &mut dyn FnMut()| {
        if cpu {
            let t = thread_cpu_seconds();
            f();
            thread_cpu_seconds() - t
        } else {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        }
    };
    for _ in 0..pairs {
        let ta = clock(&mut a);
        let tb = clock(&mut b);
        best_a = best_a.min(ta);
        best_b = best_b.min(tb);
        ratios.push(tb / ta);
    }
    ratios.sort_by(f64::total_cmp);
    let figure = |best: f64| {
        let ns = best * 1e9 / solves as f64;
        (1e9 / ns, ns)
    };
    Pair {
        a: figure(best_a),
        b: figure(best_b),
        ratio: ratios.get(ratios.len() / 2).copied().unwrap_or(f64::NAN),
        spread: (
            ratios.first().copied().unwrap_or(f64::NAN),
            ratios.last().copied().unwrap_or(f64::NAN),
        ),
    }
}

/// The calling thread's CPU time (s): `interleaved`'s clock under
/// `XPBD_BENCH_CPU_TIME=1` (Linux), which leaves out the time the thread
/// waits for a core on a machine shared with other jobs (the cache and
/// the other hyperthread still count). NaN elsewhere.
pub(crate) fn thread_cpu_seconds() -> f64 {
    #[cfg(target_os = "linux")]
    {
        #[repr(C)]
        struct Timespec {
            sec: i64,
            nsec: i64,
        }
        extern "C" {
            fn clock_gettime(clock: i32, tp: *mut Timespec) -> i32;
        }
        const CLOCK_THREAD_CPUTIME_ID: i32 = 3;
        let mut t = Timespec { sec: 0, nsec: 0 };
        // SAFETY: `t` is a valid `struct timespec` (64-bit Linux layout)
        // for the call to write.
        if unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut t) } == 0 {
            return t.sec as f64 + t.nsec as f64 * 1e-9;
        }
    }
    f64::NAN
}

/// Times `sides[0]` (ours) and every other side (the references) in
/// rotation, A B C … A B C …: one warm-up call each, then `rounds`
/// rounds. Returns one [`Pair`] per reference (`a` ours, `b` that
/// reference): each figure is the best of its calls, the ratio the median
/// over the rounds of `time_reference / time_ours` (> 1: ours faster),
/// with the range of the per-round ratios. [`interleaved`] for several
/// references at once: each round sees ours and every reference under the
/// same load.
pub(crate) fn rotation(rounds: usize, solves: usize, sides: &mut [&mut dyn FnMut()]) -> Vec<Pair> {
    for f in sides.iter_mut() {
        f();
    }
    let mut times = vec![Vec::with_capacity(rounds); sides.len()];
    for _ in 0..rounds {
        for (f, t) in sides.iter_mut().zip(&mut times) {
            let start = Instant::now();
            f();
            t.push(start.elapsed().as_secs_f64());
        }
    }
    let figure = |t: &[f64]| {
        let best = t.iter().copied().fold(f64::INFINITY, f64::min);
        let ns = best * 1e9 / solves as f64;
        (1e9 / ns, ns)
    };
    let ours = &times[0];
    times[1..]
        .iter()
        .map(|r| {
            let mut ratios: Vec<f64> = r.iter().zip(ours).map(|(r, o)| r / o).collect();
            ratios.sort_by(f64::total_cmp);
            Pair {
                a: figure(ours),
                b: figure(r),
                ratio: ratios.get(ratios.len() / 2).copied().unwrap_or(f64::NAN),
                spread: (
                    ratios.first().copied().unwrap_or(f64::NAN),
                    ratios.last().copied().unwrap_or(f64::NAN),
                ),
            }
        })
        .collect()
}

/// Times `sides` in rotation, one warm-up call each, then `rounds` rounds:
/// each side's time per round (s), wall clock or, under
/// `XPBD_BENCH_CPU_TIME=1`, the thread's CPU time (as [`interleaved`]; the `kframe` and `character` rows).
///
pub(crate) fn rotation_times(rounds: usize, sides: &mut [&mut dyn FnMut()]) -> Vec<Vec<f64>> {
    let cpu = std::env::var("XPBD_BENCH_CPU_TIME").is_ok_and(|v| v == "1");
    for f in sides.iter_mut() {
        f();
    }
    let mut times = vec![Vec::with_capacity(rounds); sides.len()];
    for _ in 0..rounds {
        for (f, t) in sides.iter_mut().zip(&mut times) {
            if cpu {
                let start = thread_cpu_seconds();
                f();
                t.push(thread_cpu_seconds() - start);
            } else {
                let start = std::time::Instant::now();
                f();
                t.push(start.elapsed().as_secs_f64());
            }
        }
    }
    times
}

/// The median and range of `v` (sorted here).
pub(crate) fn median_range(mut v: Vec<f64>) -> (f64, (f64, f64)) {
    v.sort_by(f64::total_cmp);
    let at = |k: usize| v.get(k).copied().unwrap_or(f64::NAN);
    (at(v.len() / 2), (at(0), at(v.len().saturating_sub(1))))
}

/// `ours` against `reference` as a [`Pair`]: the figures from the best
/// times (`solves` per call), the ratio from the per-round ratios.
pub(crate) fn pair(best: (f64, f64), solves: usize, ratios: Vec<f64>) -> Pair {
    let figure = |t: f64| {
        let ns = t * 1e9 / solves as f64;
        (1e9 / ns, ns)
    };
    let (ratio, spread) = median_range(ratios);
    Pair {
        a: figure(best.0),
        b: figure(best.1),
        ratio,
        spread,
    }
}

/// A kind's frame row from the six sides' times of [`rotation_times`]
/// (per round, s): xpbd with and without the kind, C baseline with and
/// without, C `-march=native` with and without (the `kframe` and
/// `character` rows). `solves`: the kind's instance visits per call;
/// `visits`: the whole frame's.
pub(crate) struct Shares {
    /// The kind's share (with − without), xpbd against the C baseline.
    pub(crate) base: Pair,
    /// The same against the C at `-march=native`.
    pub(crate) native: Pair,
    /// The whole frame with the kind, xpbd against the C baseline.
    pub(crate) frame_base: Pair,
    /// The same against the C at `-march=native`.
    pub(crate) frame_native: Pair,
}

impl Shares {
    pub(crate) fn of(t: &[Vec<f64>], rounds: usize, solves: usize, visits: usize) -> Self {
        let side = |k: usize| t.get(k).map_or(&[][..], Vec::as_slice);
        let at = |k: usize, r: usize| side(k).get(r).copied().unwrap_or(f64::NAN);
        let best = |k: usize| side(k).iter().copied().fold(f64::INFINITY, f64::min);
        let share = |w: usize, o: usize| best(w) - best(o);
        let per_round = |f: &dyn Fn(usize) -> f64| (0..rounds).map(f).collect::<Vec<f64>>();
        let shares = |w: usize| per_round(&|r| (at(w, r) - at(w + 1, r)) / (at(0, r) - at(1, r)));
        let whole = |w: usize| per_round(&|r| at(w, r) / at(0, r));
        Self {
            base: pair((share(0, 1), share(2, 3)), solves, shares(2)),
            native: pair((share(0, 1), share(4, 5)), solves, shares(4)),
            frame_base: pair((best(0), best(2)), visits, whole(2)),
            frame_native: pair((best(0), best(4)), visits, whole(4)),
        }
    }

    /// The four spreads, `ratio (min–max)`, in the row's column order.
    pub(crate) fn spreads(&self) -> [String; 4] {
        [
            &self.base,
            &self.native,
            &self.frame_base,
            &self.frame_native,
        ]
        .map(|p| format!("{:.3} ({:.3}–{:.3})", p.ratio, p.spread.0, p.spread.1))
    }

    /// The share's figures (xpbd, C baseline, C native; a share lost in
    /// the noise, ≤ 0, has none) and the four ratio lines of row `name`.
    pub(crate) fn record(&self, name: &str, figs: &mut Vec<Figure>, ratios: &mut Vec<Ratio>) {
        for (case, p) in [
            ("xpbd step_colored, the kind's share", self.base.a),
            ("plain C frame, baseline, the kind's share", self.base.b),
            (
                "plain C frame, -march=native, the kind's share",
                self.native.b,
            ),
        ] {
            if p.0.is_finite() && p.0 > 0.0 {
                figs.push(Figure {
                    case: format!("{name}, {case}"),
                    per_second: p.0,
                    ns: p.1,
                });
            }
        }
        for (what, p, target) in [
            ("kind's share, xpbd / plain C (baseline)", &self.base, 1.0),
            (
                "kind's share, xpbd / plain C (-march=native)",
                &self.native,
                1.0,
            ),
            (
                "whole frame, xpbd / plain C (baseline)",
                &self.frame_base,
                0.0,
            ),
            (
                "whole frame, xpbd / plain C (-march=native)",
                &self.frame_native,
                0.0,
            ),
        ] {
            ratios.push(pair_ratio(format!("{name}: {what}"), p, target));
        }
    }
}

/// The cloth sides of a frame row: the list in `var` (comma-separated),
/// else 20 in quick mode, else 100 (the `kframe` and `character` rows).
pub(crate) fn sides_from(var: &str, s: &Settings) -> Vec<usize> {
    let listed: Vec<usize> = std::env::var(var)
        .map(|v| v.split(',').filter_map(|t| t.trim().parse().ok()).collect())
        .unwrap_or_default();
    match () {
        () if !listed.is_empty() => listed,
        () if s.quick => vec![20],
        () => vec![100],
    }
}
