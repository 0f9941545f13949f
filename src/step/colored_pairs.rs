//! Particle pairs in colored order, for colored stepping
//! ([`step_colored`](super::step_colored)): after a substep's pair search
//! the pairs are colored greedily and sorted in place by color, and each
//! color is solved as tasks on the engine's job system.
//!
//! The pair constraint itself (C = |x_j − x_i| − 2r(1 + 1/64) ≥ 0, λ ≥ 0,
//! friction) is [`crate::constraint::particle_contact`]; this file only
//! orders the pairs and splits their sweep.

use super::jobs::{run_phase, task_count, Jobs, Shared};
use super::StepError;
use crate::colored::{job_range, CHUNK};
use crate::constraint::particle_contact::{Pairs, ParticleContact};
use crate::constraint::solve;
use crate::real::Real;
use crate::solver::{
    contact_error, count_visit, PairColors, Stop, SweepStats, ZeroLength, PAIR_COLORS,
};

/// Colors a substep's particle pairs greedily (each pair, in the order
/// found, takes the smallest of [`PAIR_COLORS`] colors neither particle
/// has yet; a pair that finds none goes to one last color) and stores
/// them in colored order, sorted by (color, i, j). `masks`: one `u32` per
/// particle, overwritten. The color rides in λ until the substep's λ
/// reset. Without enough scratch the pairs stay uncolored.
pub(super) fn color_pairs<T: Real>(
    pairs: &mut [ParticleContact<T>],
    masks: &mut [u32],
) -> PairColors {
    let mut colors = PairColors::default();
    let Some(n) = pairs
        .iter()
        .map(|p| p.i.max(p.j))
        .max()
        .and_then(|m| usize::try_from(m).ok())
        .and_then(|m| m.checked_add(1))
    else {
        return colors;
    };
    let Some(masks) = masks.get_mut(..n) else {
        return colors;
    };
    masks.fill(0);
    let mut counts = [0usize; PAIR_COLORS + 1];
    for p in pairs.iter_mut() {
        let (i, j) = (ix(p.i), ix(p.j));
        let used =
            masks.get(i).copied().unwrap_or(u32::MAX) | masks.get(j).copied().unwrap_or(u32::MAX);
        let c = (!used).trailing_zeros();
        let bit = 1u32.checked_shl(c).unwrap_or(0);
        for k in [i, j] {
            if let Some(m) = masks.get_mut(k) {
                *m |= bit;
            }
        }
        let c = usize::try_from(c).unwrap_or(PAIR_COLORS).min(PAIR_COLORS);
        if let Some(k) = counts.get_mut(c) {
            *k = k.saturating_add(1);
        }
        p.lambda = T::from_f64(f64::from(u32::try_from(c).unwrap_or(0)));
    }
    let mut at = 0usize;
    for (c, k) in counts.iter().enumerate() {
        if let Some(s) = colors.starts.get_mut(c) {
            *s = at;
        }
        at = at.saturating_add(*k);
    }
    if let Some(s) = colors.starts.get_mut(PAIR_COLORS.saturating_add(1)) {
        *s = at;
    }
    // Sorted by (color, i, j). The pair search stores pairs by ascending
    // i, and a particle has at most one pair per color (the rest color
    // aside), so a stable distribution into the color buckets already
    // sorts every bucket but the rest; that one, and every bucket of input
    // that is not by ascending i, is sorted by (i, j) afterwards. The keys
    // are unique, so the order is the one a full sort gives.
    let by_i = pairs.windows(2).all(|w| match w {
        [a, b] => a.i <= b.i,
        _ => true,
    });
    let sort_from = if distribute_stably(pairs, &colors.starts) {
        if by_i {
            PAIR_COLORS
        } else {
            0
        }
    } else {
        distribute(pairs, &colors.starts);
        0
    };
    for c in colors
        .starts
        .windows(2)
        .take(PAIR_COLORS.saturating_add(1))
        .skip(sort_from)
    {
        if let Some(bucket) = c
            .first()
            .zip(c.get(1))
            .and_then(|(&a, &b)| pairs.get_mut(a..b))
        {
            heap_sort(bucket, |a, b| key(a) < key(b));
        }
    }
    colors.count = PAIR_COLORS.saturating_add(1);
    colors
}

/// Moves the pairs into their color buckets (`starts`, colors in λ),
/// keeping the order found within each bucket: each pair's place rides in
/// λ, then the permutation is applied by following its cycles (O(n), in
/// place); λ holds the color again after. Returns false, moving nothing,
/// when the places are not all exact in `T` (over 2²⁴ pairs in f32).
fn distribute_stably<T: Real>(pairs: &mut [ParticleContact<T>], starts: &[usize]) -> bool {
    let exact = |n: usize| {
        u32::try_from(n).is_ok_and(|n| {
            let x = f64::from(n);
            T::from_f64(x).to_f64() == x
        })
    };
    let len = pairs.len();
    if !(exact(len) && exact(len.saturating_sub(1))) {
        return false;
    }
    let mut next = [0usize; PAIR_COLORS + 1];
    for (n, s) in next.iter_mut().zip(starts) {
        *n = *s;
    }
    for p in pairs.iter_mut() {
        let Some(slot) = next.get_mut(stored_color(p.lambda)) else {
            continue;
        };
        p.lambda = T::from_f64(f64::from(u32::try_from(*slot).unwrap_or(0)));
        *slot = slot.saturating_add(1);
    }
    for k in 0..len {
        while let Some(to) = pairs.get(k).and_then(|p| whole(p.lambda)) {
            // The places before k are filled; a place there (impossible for
            // the counts the places came from) ends the cycle.
            if to <= k || to >= len {
                break;
            }
            swap(pairs, k, to);
        }
    }
    for (c, w) in starts.windows(2).enumerate() {
        let color = T::from_f64(f64::from(u32::try_from(c).unwrap_or(0)));
        if let Some(bucket) = w
            .first()
            .zip(w.get(1))
            .and_then(|(&a, &b)| pairs.get_mut(a..b))
        {
            bucket.iter_mut().for_each(|p| p.lambda = color);
        }
    }
    true
}

/// Moves the pairs into their color buckets (`starts`, colors in λ) in
/// place, in no particular order within a bucket (an American flag pass).
fn distribute<T: Real>(pairs: &mut [ParticleContact<T>], starts: &[usize]) {
    let mut next = [0usize; PAIR_COLORS + 1];
    for (n, s) in next.iter_mut().zip(starts) {
        *n = *s;
    }
    for c in 0..=PAIR_COLORS {
        let end = starts.get(c.saturating_add(1)).copied().unwrap_or(0);
        while let Some(at) = next.get(c).copied().filter(|&at| at < end) {
            let home = pairs.get(at).map_or(c, |p| stored_color(p.lambda));
            if home == c {
                if let Some(n) = next.get_mut(c) {
                    *n = at.saturating_add(1);
                }
                continue;
            }
            let Some(to) = next.get_mut(home) else { break };
            let target = *to;
            *to = target.saturating_add(1);
            if target <= at {
                // Cannot happen for counts made from the same colors;
                // stop rather than loop.
                break;
            }
            swap(pairs, at, target);
        }
    }
}

/// The whole number `x` holds (below 2⁵³), read from the bits of its `f64`
/// value; `None` for anything else.
fn whole<T: Real>(x: T) -> Option<usize> {
    let bits = x.to_f64().to_bits();
    if bits == 0 {
        return Some(0);
    }
    if bits >> 63 != 0 {
        return None;
    }
    let e = ((bits >> 52) & 0x7ff)
        .checked_sub(1023)
        .filter(|&e| e <= 52)?;
    let m = (bits & ((1u64 << 52) - 1)) | (1u64 << 52);
    let shift = u32::try_from(52 - e).ok()?;
    // Not whole: bits below the point.
    if shift > 0 && m.checked_shl(64 - shift).unwrap_or(0) != 0 {
        return None;
    }
    usize::try_from(m.checked_shr(shift).unwrap_or(0)).ok()
}

/// The color `color_pairs` stored in λ (a whole number 0 ..=
/// [`PAIR_COLORS`]); anything else reads as the last color.
fn stored_color<T: Real>(lambda: T) -> usize {
    whole(lambda).map_or(PAIR_COLORS, |c| c.min(PAIR_COLORS))
}

/// The (i, j) sort key of a pair.
fn key<T>(p: &ParticleContact<T>) -> u64 {
    (u64::from(p.i) << 32) | u64::from(p.j)
}

/// Swaps elements `a` and `b` of `v` (nothing when out of range).
fn swap<E>(v: &mut [E], a: usize, b: usize) {
    let (lo, hi) = (a.min(b), a.max(b));
    if let Some((first, rest)) = v.get_mut(lo..=hi).and_then(|s| s.split_first_mut()) {
        if let Some(last) = rest.last_mut() {
            core::mem::swap(first, last);
        }
    }
}

/// `usize` of a `u32` index (lossless on the 32- and 64-bit targets).
fn ix(v: u32) -> usize {
    usize::try_from(v).unwrap_or(usize::MAX)
}

/// In-place heap sort by `less` (no allocation, no panic path).
fn heap_sort<E>(v: &mut [E], less: impl Fn(&E, &E) -> bool) {
    let sift = |v: &mut [E], mut root: usize, end: usize| loop {
        let Some(child) = root.checked_mul(2).and_then(|c| c.checked_add(1)) else {
            return;
        };
        if child >= end {
            return;
        }
        let right = child.saturating_add(1);
        let pick = match (v.get(child), v.get(right)) {
            (Some(l), Some(r)) if right < end && less(l, r) => right,
            _ => child,
        };
        match (v.get(root), v.get(pick)) {
            (Some(a), Some(b)) if less(a, b) => {
                swap(v, root, pick);
                root = pick;
            }
            _ => return,
        }
    };
    let len = v.len();
    for root in (0..len / 2).rev() {
        sift(v, root, len);
    }
    for end in (1..len).rev() {
        swap(v, 0, end);
        sift(v, 0, end);
    }
}

/// Solves pairs `first ..` (the slice `pairs`) of one color through local
/// copies of their two particles; a pair that cannot be applied is not
/// written, the others are, and the first failure by index is returned.
///
/// # Safety
/// No other task touches the particles of these pairs or the pairs
/// meanwhile (one color of a proper coloring, or one task).
unsafe fn solve_pairs<T: Real, const D: usize>(
    x: &Shared<[T; D]>,
    w: &[T],
    pairs: &mut [ParticleContact<T>],
    first: usize,
    shared: &Pairs<'_, T, D>,
    h2: T,
) -> Result<(), Stop> {
    let mut stats = SweepStats::default();
    let mut stop = None;
    for (k, pair) in pairs.iter_mut().enumerate() {
        let index = first.saturating_add(k);
        let (i, j) = (ix(pair.i), ix(pair.j));
        // SAFETY: the two particles are this task's alone (caller); `range`
        // checks the bounds.
        let (xi, xj) = unsafe {
            (
                x.range(i, i.saturating_add(1)),
                x.range(j, j.saturating_add(1)),
            )
        };
        let (Some([xi]), Some([xj]), Some(&wi), Some(&wj), Some(&pi), Some(&pj)) = (
            xi,
            xj,
            w.get(i),
            w.get(j),
            shared.previous.get(i),
            shared.previous.get(j),
        ) else {
            stop = stop.or(Some(Stop::OutOfRange(index)));
            continue;
        };
        if i == j {
            stop = stop.or(Some(Stop::OutOfRange(index)));
            continue;
        }
        let mut local_x = [*xi, *xj];
        let local_prev = [pi, pj];
        let local = Pairs {
            previous: &local_prev,
            ..*shared
        };
        let mut copy = ParticleContact {
            i: 0,
            j: 1,
            lambda: pair.lambda,
        };
        let v = solve(&mut copy, &mut local_x, &[wi, wj], &local, h2);
        if let Err(s) = count_visit(&mut stats, v, index, ZeroLength::Skip) {
            let s = match s {
                Stop::NonFinitePosition(k, q) => {
                    Stop::NonFinitePosition(k, if q == 0 { i } else { j })
                }
                other => other,
            };
            stop = stop.or(Some(s));
            continue;
        }
        [*xi, *xj] = local_x;
        pair.lambda = copy.lambda;
    }
    stop.map_or(Ok(()), Err)
}

/// One sweep over colored particle pairs: each color as tasks (the last,
/// uncolored one on this thread), colors in order; a failing color is
/// completed and its lowest failing pair reported.
pub(super) fn sweep_pairs<T: Real, const D: usize>(
    x: &mut [[T; D]],
    w: &[T],
    pairs: &mut [ParticleContact<T>],
    shared: &Pairs<'_, T, D>,
    colors: &PairColors,
    h2: T,
    jobs: &dyn Jobs,
) -> Result<(), StepError> {
    let base_error = |stop| contact_error(stop, 0);
    let (xs, ps) = (Shared::new(x), Shared::new(pairs));
    for (c, bounds) in colors.starts.windows(2).enumerate().take(colors.count) {
        let (Some(&b), Some(&e)) = (bounds.first(), bounds.get(1)) else {
            continue;
        };
        let count = if c.saturating_add(1) >= colors.count {
            1
        } else {
            task_count(jobs, e.saturating_sub(b).div_ceil(CHUNK))
        };
        let mut first: Option<Stop> = None;
        run_phase(
            jobs,
            count,
            &|i| {
                let Some((lo, hi)) = job_range(b, e, i, count) else {
                    return Ok(());
                };
                // SAFETY: the tasks' pair ranges are disjoint and within
                // one color (no particle twice; the last color runs as one
                // task); `x` and the pairs are not used until the sweep
                // ends.
                let Some(items) = (unsafe { ps.range(lo, hi) }) else {
                    return Ok(());
                };
                // SAFETY: as above.
                unsafe { solve_pairs(&xs, w, items, lo, shared, h2) }
            },
            |_, r| {
                if let Err(s) = r {
                    first = first.or(Some(s));
                }
            },
        )?;
        if let Some(s) = first {
            return Err(base_error(s));
        }
    }
    Ok(())
}

#[cfg(test)]
#[allow(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::panic,
    clippy::as_conversions
)]
mod tests {
    use super::*;
    use crate::step::OneThread;

    /// Runs tasks in reverse order on the calling thread.
    struct Reversed;

    impl Jobs for Reversed {
        fn split(&self) -> usize {
            4
        }
        fn run(&self, count: usize, task: &(dyn Fn(usize) + Sync)) {
            (0..count).rev().for_each(task);
        }
    }

    #[test]
    fn heap_sort_sorts() {
        let mut v: Vec<u32> = (0..200u32)
            .map(|k| k.wrapping_mul(2_654_435_761) % 97)
            .collect();
        let mut expected = v.clone();
        expected.sort_unstable();
        heap_sort(&mut v, |a, b| a < b);
        assert_eq!(v, expected);
        let mut empty: [u32; 0] = [];
        heap_sort(&mut empty, |a, b| a < b);
    }

    /// Pairs in a scrambled order, many sharing particles (some past the
    /// 32 colors): after coloring, the same pairs, sorted by (color, i, j),
    /// each in the bucket of the color its λ holds; the colors read back.
    #[test]
    fn pairs_end_sorted_by_color_then_index() {
        for c in 0..=PAIR_COLORS {
            let c32 = u32::try_from(c).unwrap();
            assert_eq!(stored_color(f64::from(c32)), c);
            assert_eq!(stored_color(f64::from(c32) as f32), c);
        }
        let n = if cfg!(miri) { 40u32 } else { 120 };
        let mut pairs = Vec::new();
        for k in 0..n * 6 {
            let a = k.wrapping_mul(2_654_435_761) % n;
            let b = k.wrapping_mul(40_503) % n;
            // A hub particle 0 with many pairs: the rest color gets some.
            let (a, b) = if k % 3 == 0 { (0, a.max(1)) } else { (a, b) };
            let (i, j) = (a.min(b), a.max(b));
            if i != j
                && !pairs
                    .iter()
                    .any(|p: &ParticleContact<f64>| (p.i, p.j) == (i, j))
            {
                pairs.push(ParticleContact { i, j, lambda: 0.0 });
            }
        }
        for (x, want) in [(3.5, None), (-1.0, None), (0.5, None), (-0.0, None)] {
            assert_eq!(whole(x), want, "{x}");
        }
        assert_eq!(whole(1_099_511_627_779.0), Some((1 << 40) + 3));
        assert_eq!(whole(f64::NAN), None);
        // Scrambled (every bucket sorted after), then by ascending i as the
        // pair search stores them (only the rest color sorted after).
        let mut by_i = pairs.clone();
        by_i.sort_by_key(|p| p.i);
        for mut pairs in [pairs, by_i] {
            check_sorted(&mut pairs, n);
        }
        // The unstable distribution (the fallback) ends in the same order.
        let mut pairs: Vec<ParticleContact<f64>> = (0..n - 1)
            .rev()
            .map(|k| ParticleContact {
                i: k,
                j: k + 1,
                lambda: f64::from(k % 5),
            })
            .collect();
        let mut starts = vec![0; PAIR_COLORS + 2];
        for c in 0..5 {
            starts[c + 1] =
                starts[c] + pairs.iter().filter(|p| stored_color(p.lambda) == c).count();
        }
        for c in 6..PAIR_COLORS + 2 {
            starts[c] = starts[5];
        }
        let mut stable = pairs.clone();
        assert!(distribute_stably(&mut stable, &starts));
        distribute(&mut pairs, &starts);
        for w in starts.windows(2) {
            assert!(pairs[w[0]..w[1]]
                .iter()
                .zip(&stable[w[0]..w[1]])
                .all(|(a, b)| a.lambda == b.lambda));
            let mut a: Vec<u64> = pairs[w[0]..w[1]].iter().map(key).collect();
            let b: Vec<u64> = stable[w[0]..w[1]].iter().map(key).collect();
            // Stable: the order of the input (descending i) kept.
            assert!(b.windows(2).all(|k| k[0] > k[1]));
            a.sort_unstable();
            let mut b = b;
            b.sort_unstable();
            assert_eq!(a, b);
        }
    }

    fn check_sorted(pairs: &mut [ParticleContact<f64>], n: u32) {
        let mut expected: Vec<(u32, u32)> = pairs.iter().map(|p| (p.i, p.j)).collect();
        let mut masks = vec![0u32; usize::try_from(n).unwrap()];
        let colors = color_pairs(pairs, &mut masks);
        let last = colors.starts[PAIR_COLORS + 1];
        assert_eq!(last, pairs.len());
        assert!(colors.starts[PAIR_COLORS] < last, "the rest color is used");
        let mut seen: Vec<(u32, u32)> = pairs.iter().map(|p| (p.i, p.j)).collect();
        seen.sort_unstable();
        expected.sort_unstable();
        assert_eq!(seen, expected);
        for c in 0..=PAIR_COLORS {
            let bucket = &pairs[colors.starts[c]..colors.starts[c + 1]];
            assert!(bucket.iter().all(|p| stored_color(p.lambda) == c));
            assert!(bucket.windows(2).all(|w| key(&w[0]) < key(&w[1])));
        }
    }

    /// A chain of 200 particles with a pair between every two neighbours:
    /// two colors of about 100 pairs (two 64-pair chunks each), solved as
    /// tasks in reverse order and as one task, the same bits; the
    /// coloring is proper.
    #[test]
    fn pair_colors_split_into_tasks() {
        let n = if cfg!(miri) { 140 } else { 200 };
        let x0: Vec<[f64; 3]> = (0..n).map(|k| [0.009 * k as f64, 0.0, 0.0]).collect();
        let previous = x0.clone();
        let w = vec![1.0; n];
        let mut pairs: Vec<ParticleContact<f64>> = (0..n - 1)
            .map(|k| ParticleContact {
                i: k as u32,
                j: k as u32 + 1,
                lambda: 0.0,
            })
            .collect();
        let mut masks = vec![0u32; n];
        let colors = color_pairs(&mut pairs, &mut masks);
        assert_eq!(colors.count, PAIR_COLORS + 1);
        for c in colors.starts.windows(2) {
            let mut seen = vec![false; n];
            for p in &pairs[c[0]..c[1]] {
                assert!(!seen[p.i as usize] && !seen[p.j as usize]);
                seen[p.i as usize] = true;
                seen[p.j as usize] = true;
            }
        }
        assert!(colors.starts[1] > 64, "{:?}", &colors.starts[..3]);
        for p in pairs.iter_mut() {
            p.lambda = 0.0;
        }
        let shared = Pairs {
            previous: &previous,
            distance: 0.01,
            alpha: 0.0,
            static_friction: 0.0,
        };
        let run = |jobs: &dyn Jobs| {
            let (mut x, mut p) = (x0.clone(), pairs.clone());
            sweep_pairs(&mut x, &w, &mut p, &shared, &colors, 1e-4, jobs).unwrap();
            let bits: Vec<u64> = x.iter().flatten().map(|c| c.to_bits()).collect();
            (
                bits,
                p.iter().map(|p| p.lambda.to_bits()).collect::<Vec<_>>(),
            )
        };
        let one = run(&OneThread);
        assert!(one.1.iter().any(|&l| l != 0), "the pairs pushed");
        assert_eq!(run(&Reversed), one);
    }
}
