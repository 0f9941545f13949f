//! Unit tests of the bend's `atan2` internals: the tables, the table
//! index, and the bits of `atan2` against the former comparison count
//! (and of the lane kernel's `atan2_select` against `atan2`).

#![allow(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::as_conversions,
    clippy::cast_possible_truncation,
    clippy::cast_possible_wrap,
    clippy::cast_sign_loss,
    clippy::cast_precision_loss
)]

use super::*;

// Under Miri (an interpreter, about a thousand times slower) the sweeps
// keep their shape with fewer points: every threshold and cell edge still,
// fewer neighbours, a coarser uniform sweep, fewer random pairs.
/// Encodings taken either side of each threshold.
const NEIGHBOURS: u64 = if cfg!(miri) { 3 } else { 1000 };
/// Stride of the uniform sweep of `16t` (in steps of 1e-4).
const SWEEP_STEP: usize = if cfg!(miri) { 997 } else { 1 };
/// Random argument pairs compared with the old `atan2`.
const RANDOM_PAIRS: usize = if cfg!(miri) { 300 } else { 400_000 };

/// The tables hold the values the match arms computed before they became
/// data: `T::from_f64(c)`, `T::from_f64(hi)` and
/// `T::from_f64((hi − atan_c) + lo)`, here at run time.
#[test]
fn atan_tables_are_the_former_arms() {
    for (i, &(c, hi, lo)) in ATAN_TABLE.iter().enumerate() {
        let h32 = f32::from_f64(hi);
        let lo32 = f32::from_f64((hi - h32.to_f64()) + lo);
        let want32 = [f32::from_f64(c), h32, lo32].map(f32::to_bits);
        assert_eq!(ATAN_F32[i].map(f32::to_bits), want32, "f32 entry {i}");
        let h64 = f64::from_f64(hi);
        let lo64 = f64::from_f64((hi - h64.to_f64()) + lo);
        let want64 = [c, h64, lo64].map(f64::to_bits);
        assert_eq!(ATAN_F64[i].map(f64::to_bits), want64, "f64 entry {i}");
    }
    // The tables by encoding repeat those entries, by cell.
    for i in 0..33 {
        let k = cell_point(i);
        assert_eq!(
            ATAN_BITS_F32[i].map(f32::to_bits),
            ATAN_F32[k].map(f32::to_bits)
        );
        assert_eq!(
            ATAN_BITS_F64[i].map(f64::to_bits),
            ATAN_F64[k].map(f64::to_bits)
        );
    }
}

/// [`bits_index_f64`] and [`bits_index_f32`] over every `t ∈ [0, 1]`
/// neighbourhood that matters, by encoding: each threshold `o/16` and
/// 1000 encodings either side, every cell edge, 0, subnormals and 1.
// Safe Rust only: natively (the interpreter adds nothing here).
#[test]
#[cfg_attr(miri, ignore)]
fn bits_index_is_the_threshold_count() {
    let mut ts: Vec<f64> = vec![0.0, f64::from_bits(1), f64::MIN_POSITIVE, 1.0];
    for o in 0..=16u32 {
        let b = (f64::from(o) / 16.0).to_bits();
        ts.extend(
            (0..NEIGHBOURS)
                .flat_map(|d| [f64::from_bits(b + d), f64::from_bits(b.saturating_sub(d))]),
        );
    }
    for q in 8 * 1019..=8 * 1023 {
        let b = q << 49;
        ts.extend([
            f64::from_bits(b - 1),
            f64::from_bits(b),
            f64::from_bits(b + 1),
        ]);
    }
    ts.retain(|t| (0.0..=1.0).contains(t));
    for t in ts {
        assert_eq!(
            cell_point(bits_index_f64(t)),
            counted(t * 16.0),
            "f64 t = {t:e}"
        );
        let t32 = f32::from_f64(t);
        assert_eq!(
            cell_point(bits_index_f32(t32)),
            counted(t32 * 16.0),
            "f32 t = {t32:e}"
        );
        for d in 0..4u32 {
            for u in [
                f32::from_bits(t32.to_bits() + d),
                f32::from_bits(t32.to_bits().saturating_sub(d)),
            ] {
                if (0.0..=1.0).contains(&u) {
                    assert_eq!(
                        cell_point(bits_index_f32(u)),
                        counted(u * 16.0),
                        "f32 t = {u:e}"
                    );
                }
            }
        }
    }
}

/// The table index as `atan_unit` counted it before [`point`]: the
/// comparisons `m > 1, m > 3, …, m > 15` in `T`.
fn counted<T: Real>(m: T) -> usize {
    let mut k = 0;
    let mut threshold = T::ONE;
    for _ in 0..8 {
        if m > threshold {
            k += 1;
        }
        threshold = threshold + T::from_f64(2.0);
    }
    k
}

/// Values of `m ∈ [0, 16]` where the index changes or could go wrong:
/// 0, the smallest subnormals, every integer (the odd ones are the
/// thresholds) with its neighbours a few ulp either side, halves, and
/// a dense sweep.
fn probes64() -> Vec<f64> {
    let mut v = vec![0.0, f64::from_bits(1), f64::from_bits(2), f64::MIN_POSITIVE];
    v.push(f64::from_bits(f64::MIN_POSITIVE.to_bits() - 1));
    for j in 0..=16u32 {
        for base in [f64::from(j), f64::from(j) + 0.5] {
            let b = base.to_bits();
            for d in 0..4u64 {
                v.push(f64::from_bits(b + d));
                if b >= d {
                    v.push(f64::from_bits(b - d));
                }
            }
        }
    }
    v.extend(
        (0..=160_000)
            .step_by(SWEEP_STEP)
            .map(|i| f64::from(i) / 10_000.0),
    );
    v.retain(|&m| (0.0..=16.0).contains(&m));
    v
}

/// [`probes64`] in binary32 (its own neighbours, not rounded ones).
fn probes32() -> Vec<f32> {
    let mut v = vec![0.0, f32::from_bits(1), f32::from_bits(2), f32::MIN_POSITIVE];
    v.push(f32::from_bits(f32::MIN_POSITIVE.to_bits() - 1));
    for j in 0..=16u16 {
        for base in [f32::from(j), f32::from(j) + 0.5] {
            let b = base.to_bits();
            for d in 0..4u32 {
                v.push(f32::from_bits(b + d));
                if b >= d {
                    v.push(f32::from_bits(b - d));
                }
            }
        }
    }
    v.extend(
        (0..=160_000u32)
            .step_by(SWEEP_STEP)
            .map(|i| f32::from_f64(f64::from(i) / 10_000.0)),
    );
    v.retain(|&m| (0.0..=16.0).contains(&m));
    v
}

/// [`index_f64`] and [`index_f32`] give the count of thresholds below `m`, for
/// every threshold exactly, its neighbours, 0, subnormals, 1 and 16.
// Safe Rust only: natively (the interpreter adds nothing here).
#[test]
#[cfg_attr(miri, ignore)]
fn table_point_is_the_threshold_count() {
    let probes = probes64();
    assert!(probes.contains(&16.0) && probes.contains(&1.0));
    for m in probes {
        assert_eq!(index_f64(m), counted(m), "f64 m = {m:e}");
        // The entry `atan_unit` reads for t = m/16 is the counted one,
        // by `t`'s encoding too.
        let t = m / 16.0;
        let k = counted(t * 16.0);
        assert_eq!(cell_point(bits_index_f64(t)), k, "f64 t = {t:e}");
        // SAFETY: no contract.
        let entry = unsafe { AtanEntry::f64(t) };
        assert_eq!(entry.map(f64::to_bits), ATAN_F64[k].map(f64::to_bits));
    }
    for m in probes32() {
        assert_eq!(index_f32(m), counted(m), "f32 m = {m:e}");
        let t = m / 16.0;
        let k = counted(t * 16.0);
        assert_eq!(cell_point(bits_index_f32(t)), k, "f32 t = {t:e}");
        // SAFETY: no contract.
        let entry = unsafe { AtanEntry::f32(t) };
        assert_eq!(entry.map(f32::to_bits), ATAN_F32[k].map(f32::to_bits));
    }
}

/// `atan2` before the table index became [`point`] (the same
/// operations otherwise): the reference for the bit-identity test.
fn atan2_counted<T: Real>(y: T, x: T) -> T {
    let (ax, ay) = (x.abs(), y.abs());
    if ax.partial_cmp(&ay).is_none() {
        return x + y;
    }
    let swap = ay > ax;
    let (num, den) = if swap { (ax, ay) } else { (ay, ax) };
    let t = if den == T::ZERO {
        T::ZERO
    } else if !den.is_finite() {
        if num.is_finite() {
            T::ZERO
        } else {
            T::ONE
        }
    } else {
        num / den
    };
    let m = t * T::from_f64(16.0);
    let table = (0..9)
        .map(|i| {
            let (c, hi, lo) = ATAN_TABLE[i];
            let h = T::from_f64(hi);
            [T::from_f64(c), h, T::from_f64((hi - h.to_f64()) + lo)]
        })
        .collect::<Vec<_>>();
    let [c, atan_c, atan_lo] = table[counted(m)];
    let u = (t - c) / (T::ONE + t * c);
    let z = u * u;
    let k = |n: f64| T::from_f64(1.0 / n);
    let z2 = z * z;
    let p01 = k(-3.0) + z * k(5.0);
    let p23 = k(-7.0) + z * k(9.0);
    let p45 = k(-11.0) + z * k(13.0);
    let p = p01 + z2 * (p23 + z2 * p45);
    let mut r = atan_c + (u + (u * (z * p) + atan_lo));
    if swap {
        r = reflect(core::f64::consts::FRAC_PI_2, FRAC_PI_2_LO, r);
    }
    if x < T::ZERO {
        r = reflect(core::f64::consts::PI, PI_LO, r);
    }
    if y < T::ZERO {
        -r
    } else {
        r
    }
}

/// A xorshift stream of bit patterns (deterministic).
fn bits(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

/// [`atan2`] gives the bits of [`atan2_counted`]: random bit patterns
/// (every exponent, NaN and ∞ included), random ratios near and across
/// every threshold, exact threshold ratios, and the special values.
// Safe Rust only: natively (the interpreter adds nothing here).
#[test]
#[cfg_attr(miri, ignore)]
fn atan2_bits_are_unchanged() {
    // The lane kernel's branch-free form: the same bits for finite
    // arguments (the only ones whose angle it keeps).
    let same64 = |y: f64, x: f64| {
        let (a, b) = (atan2(y, x), atan2_counted(y, x));
        assert!(
            a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
            "f64 {y:e} {x:e}"
        );
        if y.is_finite() && x.is_finite() {
            assert_eq!(
                atan2_select(y, x).to_bits(),
                a.to_bits(),
                "select f64 {y:e} {x:e}"
            );
        }
    };
    let same32 = |y: f32, x: f32| {
        let (a, b) = (atan2(y, x), atan2_counted(y, x));
        assert!(
            a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
            "f32 {y:e} {x:e}"
        );
        if y.is_finite() && x.is_finite() {
            assert_eq!(
                atan2_select(y, x).to_bits(),
                a.to_bits(),
                "select f32 {y:e} {x:e}"
            );
        }
    };
    let specials = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        f64::INFINITY,
        -f64::INFINITY,
        f64::NAN,
        1e-310,
        3.0,
    ];
    for &y in &specials {
        for &x in &specials {
            same64(y, x);
            same32(f32::from_f64(y), f32::from_f64(x));
        }
    }
    for o in 0..=16 {
        // t = o/16 exactly, both octant sides and signs.
        let (y, x) = (f64::from(o), 16.0);
        for (a, b) in [(y, x), (x, y), (-y, x), (y, -x), (-x, -y)] {
            same64(a, b);
            same32(f32::from_f64(a), f32::from_f64(b));
        }
    }
    let mut s = 0x9e37_79b9_7f4a_7c15_u64;
    for _ in 0..RANDOM_PAIRS {
        let (a, b) = (bits(&mut s), bits(&mut s));
        same64(f64::from_bits(a), f64::from_bits(b));
        same32(f32::from_bits(a as u32), f32::from_bits(b as u32));
        // A ratio within a few ulp of a threshold (2o − 1)/16, scaled.
        let o = f64::from((a % 9) as u32);
        let near = ((2.0 * o - 1.0) / 16.0).max(0.0);
        let d = (b % 7) as i64 - 3;
        let t = f64::from_bits((near.to_bits() as i64 + d).max(0) as u64);
        let scale = f64::from_bits((b >> 12) & 0x000f_ffff_ffff_ffff | 0x3ff0_0000_0000_0000);
        same64(t * scale, scale);
        let t32 = f32::from_bits((f32::from_f64(near).to_bits() as i32 + d as i32).max(0) as u32);
        let scale32 = f32::from_f64(scale);
        same32(t32 * scale32, scale32);
        // Uniform in the octant.
        let r = (a >> 11) as f64 / (1u64 << 53) as f64;
        same64(r * scale, scale);
        same32(f32::from_f64(r) * scale32, scale32);
    }
}
