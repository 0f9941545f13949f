//! The deterministic four-quadrant arctangent ([`atan2`]): `+ − × ÷`
//! only, in a fixed order, so the same bits on every ISA (`core` has no
//! `atan2` without `std`). The bend's dihedral angle is its caller
//! (`constraint::bend`, which re-exports it as `xpbd::constraint::bend::atan2`);
//! the error budget is in docs/bending.md.

use crate::real::{PerFormat, Real};

/// `(c, atan c, lo)` for `c = k/8`, `k = 0 … 8`: `atan c` the nearest f64
/// to the exact value and `lo` what that rounding left out (both from a
/// 50-digit evaluation), so the table adds no error of its own; the f32
/// instantiation folds the f32 rounding of `atan c` into `lo`.
const ATAN_TABLE: [(f64, f64, f64); 9] = [
    (0.0, 0.0, 0.0),
    (
        0.125,
        0.124_354_994_546_761_44,
        -3.125_324_142_453_938_3e-18,
    ),
    (0.25, 0.244_978_663_126_864_14, 1.069_875_561_873_445_1e-17),
    (
        0.375,
        0.358_770_670_270_572_25,
        -2.462_381_558_263_863_5e-17,
    ),
    (0.5, 0.463_647_609_000_806_1, 2.269_877_745_296_168_7e-17),
    (0.625, 0.558_599_315_343_562_4, -5.455_630_548_591_626_4e-18),
    (0.75, 0.643_501_108_793_284_4, 1.583_478_505_144_428_6e-17),
    (0.875, 0.718_829_999_621_624_5, -2.147_838_844_445_698_3e-17),
    (1.0, core::f64::consts::FRAC_PI_4, 3.061_616_997_868_383e-17),
];

/// [`ATAN_TABLE`] at binary32: `(c, atan c, lo)` with `atan c` rounded to
/// f32 and that rounding folded into `lo` (`(hi − f32(hi)) + lo`, rounded
/// to f32), evaluated at compile time with the operations `atan_unit` used
/// before the table became data (the same bits).
// Evaluated at compile time: an index out of range or a conversion would
// fail the build, not run (`as` between float formats rounds to nearest,
// as `Real::from_f64` does; `From` is not `const`).
#[allow(clippy::indexing_slicing, clippy::as_conversions)]
const ATAN_ENTRIES_F32: [[f32; 3]; 9] = {
    let mut t = [[0.0_f32; 3]; 9];
    let mut i = 0;
    while i < 9 {
        let (c, hi, lo) = ATAN_TABLE[i];
        let atan_c = hi as f32;
        t[i] = [c as f32, atan_c, ((hi - atan_c as f64) + lo) as f32];
        i += 1;
    }
    t
};

/// [`ATAN_ENTRIES_F32`] in memory: the table `atan_unit` reads.
static ATAN_F32: [[f32; 3]; 9] = ATAN_ENTRIES_F32;

/// [`ATAN_TABLE`] at binary64 (`(hi − hi) + lo = lo`: `lo` is never −0).
// Evaluated at compile time: an index out of range would fail the build.
#[allow(clippy::indexing_slicing)]
const ATAN_ENTRIES_F64: [[f64; 3]; 9] = {
    let mut t = [[0.0_f64; 3]; 9];
    let mut i = 0;
    while i < 9 {
        let (c, hi, lo) = ATAN_TABLE[i];
        t[i] = [c, hi, lo];
        i += 1;
    }
    t
};

/// [`ATAN_ENTRIES_F64`] in memory: the table `atan_unit` reads.
static ATAN_F64: [[f64; 3]; 9] = ATAN_ENTRIES_F64;

/// Whether the table entry for `t` is read from `t`'s encoding
/// ([`bits_index_f64`], [`ATAN_BITS_F64`]: a shorter dependency chain
/// than rounding `16t`, with 33 entries in place of 9); bare metal keeps
/// the small table and [`index_f64`] (code and data size).
const BY_BITS: bool = !cfg!(target_os = "none");

/// The table cells of the thresholds `o = 1, 3, …, 15` of `m = 16t`
/// (`t = o/16`) in [`bits_index_f64`]'s numbering less one: `o` is
/// `1.xyz·2^e` (three fraction bits), cell `8e + xyz`.
const THRESHOLD_CELLS: [usize; 8] = [0, 12, 18, 22, 25, 27, 29, 31];

/// The table index `k` ([`point`]) of the cell `i` of [`bits_index_f64`]:
/// the count of thresholds whose cell is below `i`.
// Called at compile time (the tables) and by the tests: `j < 8` indexes
// an 8-entry array.
#[allow(clippy::indexing_slicing)]
const fn cell_point(i: usize) -> usize {
    let mut k = 0;
    let mut j = 0;
    while j < 8 {
        if THRESHOLD_CELLS[j] < i {
            k += 1;
        }
        j += 1;
    }
    k
}

/// [`ATAN_F32`] by [`bits_index_f32`]: entry `i` is `ATAN_F32[k]` for
/// `k = cell_point(i)`, copied from the same entries (the same bits).
// Evaluated at compile time (`cell_point(i) < 9`).
#[allow(clippy::indexing_slicing)]
static ATAN_BITS_F32: [[f32; 3]; 33] = {
    let mut t = [[0.0_f32; 3]; 33];
    let mut i = 0;
    while i < 33 {
        t[i] = ATAN_ENTRIES_F32[cell_point(i)];
        i += 1;
    }
    t
};

/// [`ATAN_F64`] by [`bits_index_f64`], as [`ATAN_BITS_F32`].
#[allow(clippy::indexing_slicing)]
static ATAN_BITS_F64: [[f64; 3]; 33] = {
    let mut t = [[0.0_f64; 3]; 33];
    let mut i = 0;
    while i < 33 {
        t[i] = ATAN_ENTRIES_F64[cell_point(i)];
        i += 1;
    }
    t
};

/// The cell of `t ∈ [0, 1]` in binary64, from its encoding `B` (monotone
/// in `t ≥ 0`): `q = ⌈B/2^49⌉` (sign, exponent and three fraction bits,
/// rounded up), less `q` of `1/16` (`8·1019`), at least 0. Each threshold
/// `o/16` is a multiple of `2^49` in the encoding (`o = 1.xyz·2^e`), so
/// `t > o/16 ⇔ B > B_o ⇔ q > q_o`: the cell counts the thresholds below
/// `t` ([`cell_point`]), and `t ≤ 1/16` gives 0. No float operation
/// after `t`: one move to an integer register, an add, a shift, a
/// subtraction and a maximum.
#[inline(always)]
fn bits_index_f64(t: f64) -> usize {
    let q = (t.to_bits() + ((1 << 49) - 1)) >> 49;
    usize::from(u8::try_from(q.max(8 * 1019) - 8 * 1019).unwrap_or(u8::MAX))
}

/// [`bits_index_f64`] in binary32 (`⌈B/2^20⌉`, `1/16` at `8·123`).
#[inline(always)]
fn bits_index_f32(t: f32) -> usize {
    let q = (t.to_bits() + ((1 << 20) - 1)) >> 20;
    usize::from(u8::try_from(q.max(8 * 123) - 8 * 123).unwrap_or(u8::MAX))
}

/// The entry `(c, atan c, lo)` of `T`'s table for `t ∈ [0, 1]`: the one
/// at [`bits_index_f32`]`(t)` or [`bits_index_f64`]`(t)` of
/// [`ATAN_BITS_F32`] or [`ATAN_BITS_F64`] (hosts), or at
/// [`index_f32`]`(16t)` or [`index_f64`]`(16t)` of [`ATAN_F32`] or
/// [`ATAN_F64`] (bare metal): the same entry.
struct AtanEntry;

impl PerFormat for AtanEntry {
    type In<T: Real> = T;
    type Out<T: Real> = [T; 3];

    #[inline(always)]
    unsafe fn f32(t: f32) -> [f32; 3] {
        let entry = if BY_BITS {
            ATAN_BITS_F32.get(bits_index_f32(t))
        } else {
            ATAN_F32.get(index_f32(t * 16.0))
        };
        entry.copied().unwrap_or([0.0; 3])
    }

    #[inline(always)]
    unsafe fn f64(t: f64) -> [f64; 3] {
        let entry = if BY_BITS {
            ATAN_BITS_F64.get(bits_index_f64(t))
        } else {
            ATAN_F64.get(index_f64(t * 16.0))
        };
        entry.copied().unwrap_or([0.0; 3])
    }
}

/// `2^52`: `m + 2^52` is the nearest integer to `m ∈ [0, 16]` (ties to
/// even), held in the low bits of its encoding.
const ROUND_F64: f64 = 4_503_599_627_370_496.0;
/// `2^23`, as [`ROUND_F64`] in binary32.
const ROUND_F32: f32 = 8_388_608.0;

/// [`point`] for `m = 16t ∈ [0, 16]` in binary64: `n` the nearest integer
/// to `m` from `m + 2^52` (exact, as `(m + 2^52) − 2^52`), with no
/// conversion from a float to an integer (their latency and saturation
/// checks) and no comparison per threshold.
#[inline(always)]
fn index_f64(m: f64) -> usize {
    let s = m + ROUND_F64;
    point(s.to_bits() & 31, m > s - ROUND_F64)
}

/// [`index_f64`] in binary32 (`2^23`).
#[inline(always)]
fn index_f32(m: f32) -> usize {
    let s = m + ROUND_F32;
    point(u64::from(s.to_bits() & 31), m > s - ROUND_F32)
}

/// `k = round(m/2)` with ties down, for `m = 16t ∈ [0, 16]`, from an
/// integer `n` with `|m − n| < 1` and whether `m > n`: the count of the
/// thresholds `o = 1, 3, …, 15` (`(2k − 1)/16` in `t`) below `m`, the
/// index of the table point `c = k/8` nearest `t` (`|t − c| ≤ 1/16`).
///
/// The count of odd `o < m` is `⌊j/2⌋` for `j = ⌊m⌋` when `m = j` (odd
/// `o < j`) and `⌊(j + 1)/2⌋` when `m > j` (odd `o ≤ j`). With `m > n`,
/// `j = n`; with `m = n`, `j = n`; with `m < n`, `j = n − 1` and `m > j`:
/// each time `⌊(n + [m > n])/2⌋`, at most 8 (`m ≤ 16`). The same `k` as
/// counting the comparisons `m > o` (checked for every threshold and its
/// neighbours in this module's tests).
#[inline(always)]
fn point(n: u64, above: bool) -> usize {
    // At most 16 for any `n < 32`: no clamp (the table read checks its
    // index, a branch off the data path).
    usize::from(u8::try_from((n + u64::from(above)) >> 1).unwrap_or(u8::MAX))
}

/// The four-quadrant arctangent of `y/x` (rad), in `(−π, π]`, from
/// `+ − × ÷` only, in a fixed order (the same bits on every ISA).
///
/// `atan2(0, x < 0) = π` and signed zeros count as +0 (`−0` never gives
/// `−π`), so the result is in `(−π, π]`; `atan2(0, 0) = 0`; a NaN gives
/// NaN; infinities give the limits (`±π/4`-multiples when both are
/// infinite). Error: below 2 ulp of the result (f64: measured at most
/// 1.83 ulp and 4.8e-16 rad against a 200-bit reference; f32: 1.82 ulp);
/// `tests/bend.rs` checks it against the host's `atan2` over every octant
/// and twenty decades; the error budget is in `docs/bending.md`.
///
/// # Method
///
/// `t = min(|x|,|y|)/max(|x|,|y|) ∈ [0, 1]`; `c = k/8` the nearest table
/// point (`|t − c| ≤ 1/16`, ties down; `k` from `16t` rounded to an
/// integer by adding `2^52`, see `point`); `atan t = atan c +
/// atan u` with `u = (t − c)/(1 + tc)`, `|u| ≤ 1/16`, where `t − c` is exact
/// (Sterbenz); `atan u = u − u³/3 + … + u¹³/13` (Estrin in `u²`; the
/// truncation error `|u|¹⁵/15 < 6e-20`); then `π/2 − r` when `|y| > |x|`,
/// `π − r` when `x < 0`, and the sign of `y`. `atan c`, `π/2` and `π` enter
/// as a rounded value plus its rounding error (`hi + lo`), so no constant
/// adds an error of its own.
///
/// # Examples
///
/// ```
/// use xpbd::constraint::bend::atan2;
/// assert_eq!(atan2(0.0_f64, -1.0), std::f64::consts::PI);
/// assert!((atan2(1.0_f64, 1.0) - std::f64::consts::FRAC_PI_4).abs() < 1e-16);
/// assert!((atan2(-1.0_f32, 0.0) + std::f32::consts::FRAC_PI_2).abs() < 1e-7);
/// ```
#[must_use]
pub fn atan2<T: Real>(y: T, x: T) -> T {
    atan2_of(y, x)
}

/// [`atan2`], inlined into the bend's in-place kernel (`solve_in_place`): no
/// call, so the values live across it stay in registers and its
/// operations overlap the gradient's. The evaluation and the builders
/// call the out-of-line [`atan2`] (one copy in the bare-metal images).
#[inline(always)]
pub(crate) fn atan2_of<T: Real>(y: T, x: T) -> T {
    let (ax, ay) = (x.abs(), y.abs());
    if ax.partial_cmp(&ay).is_none() {
        return x + y; // a NaN argument: NaN
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
    let mut r = atan_unit(t);
    let left = x < T::ZERO;
    // One test on the common path (no reflection: the first octant's
    // direction, `|y| ≤ |x|` and `x ≥ 0`): its result waits on no select.
    if swap || left {
        if swap {
            r = reflect(core::f64::consts::FRAC_PI_2, FRAC_PI_2_LO, r);
        }
        if left {
            r = reflect(core::f64::consts::PI, PI_LO, r);
        }
    }
    if y < T::ZERO {
        -r
    } else {
        r
    }
}

/// [`atan2_of`] without a branch, for the bends' lane kernel
/// (`constraint::bend::lanes`, a loop the compiler vectorises): the
/// operations `atan2_of` takes (both reflections computed, one kept by a
/// select; the table entry read at an index clamped to the table), so its
/// bits whenever the arguments are finite and the larger magnitude is
/// finite. Otherwise the value is unspecified: the kernel gives such a
/// bend (its sine or cosine not finite) to the scalar kernel.
#[inline(always)]
pub(crate) fn atan2_select<T: Real>(y: T, x: T) -> T {
    let (ax, ay) = (x.abs(), y.abs());
    let swap = ay > ax;
    let (num, den) = if swap { (ax, ay) } else { (ay, ax) };
    let q = num / den;
    let t = if den == T::ZERO { T::ZERO } else { q };
    // SAFETY: `AtanClamped`'s arms have no contract.
    let r = series(t, unsafe { T::per_format::<AtanClamped>(t) });
    let a = reflect(core::f64::consts::FRAC_PI_2, FRAC_PI_2_LO, r);
    let r = if swap { a } else { r };
    let b = reflect(core::f64::consts::PI, PI_LO, r);
    let r = if x < T::ZERO { b } else { r };
    if y < T::ZERO {
        -r
    } else {
        r
    }
}

/// The table entry `[c, atan c, lo]` of `t ∈ [0, 1]` as [`AtanEntry`]
/// reads it on hosts (by the encoding), the index clamped to the table
/// (a NaN reads its last entry): a load without a branch.
struct AtanClamped;

impl PerFormat for AtanClamped {
    type In<T: Real> = T;
    type Out<T: Real> = [T; 3];

    #[inline(always)]
    unsafe fn f32(t: f32) -> [f32; 3] {
        let i = bits_index_f32(t).min(32);
        ATAN_BITS_F32.get(i).copied().unwrap_or([0.0; 3])
    }

    #[inline(always)]
    unsafe fn f64(t: f64) -> [f64; 3] {
        let i = bits_index_f64(t).min(32);
        ATAN_BITS_F64.get(i).copied().unwrap_or([0.0; 3])
    }
}

/// `π − PI` (the f64 constant's rounding error).
const PI_LO: f64 = 1.224_646_799_147_353_2e-16;
/// `π/2 − FRAC_PI_2`.
const FRAC_PI_2_LO: f64 = 6.123_233_995_736_766e-17;

/// `c − r` for `c = hi + lo` (`hi` the f64 constant, `lo` its rounding
/// error), as `(C − r) + L` with `C` the constant rounded to `T` and `L`
/// what that rounding left out: the constant then adds no error of its own.
#[inline(always)]
fn reflect<T: Real>(hi: f64, lo: f64, r: T) -> T {
    let c = T::from_f64(hi);
    let rest = T::from_f64((hi - c.to_f64()) + lo);
    (c - r) + rest
}

/// `atan t` (rad) for `t ∈ [0, 1]` (see [`atan2`]).
#[inline(always)]
fn atan_unit<T: Real>(t: T) -> T {
    // The table point c = k/8 nearest t, k = round(8t) ties down (`point`,
    // from `t`'s encoding or from m = 16t, exact: a power of two).
    // SAFETY: `AtanEntry`'s arms have no contract.
    series(t, unsafe { T::per_format::<AtanEntry>(t) })
}

/// `atan t` from the table entry `[c, atan c, lo]` of `t` ([`atan_unit`]'s
/// series; [`atan2_select`] reads its entry without a branch).
#[inline(always)]
fn series<T: Real>(t: T, [c, atan_c, atan_lo]: [T; 3]) -> T {
    let u = (t - c) / (T::ONE + t * c);
    let z = u * u;
    // p(z) = −1/3 + z/5 − z²/7 + z³/9 − z⁴/11 + z⁵/13 in Estrin's order
    // (three independent pairs, then z²; a shorter dependency chain than
    // Horner's); the odd series is u + u·z·p. Smallest terms first: the
    // table's `lo` joins the series' tail.
    let k = |n: f64| T::from_f64(1.0 / n);
    let z2 = z * z;
    let p01 = k(-3.0) + z * k(5.0);
    let p23 = k(-7.0) + z * k(9.0);
    let p45 = k(-11.0) + z * k(13.0);
    let p = p01 + z2 * (p23 + z2 * p45);
    atan_c + (u + (u * (z * p) + atan_lo))
}

#[cfg(test)]
mod tests;
