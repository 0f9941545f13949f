//! Links in colored order ([`ColoredLinks`]), how they are filled
//! ([`fill_colored_links`]) and split into jobs ([`job_range`]), and the
//! raw view the kernels use ([`RawLinks`]).

use super::kernel;
use super::{ix, Isa, RawParticles, CHUNK};
use crate::real::Real;
use crate::solver::{Link, SweepStats, SystemError, ZeroLength};

/// Links in colored order, structure of arrays, all of one length (the
/// link count): link `k` joins particles `i[k]` and `j[k]`. Memory per link:
/// 8 bytes of indices and five `T` (48 bytes in f64, 28 in f32).
///
/// Fill them with [`crate::greedy_coloring`] (or the rope/cloth colorings),
/// [`crate::color_order`] and [`fill_colored_links`].
#[derive(Debug)]
pub struct ColoredLinks<'a, T> {
    /// First particle of each link.
    pub i: &'a [u32],
    /// Second particle of each link (≠ `i[k]`).
    pub j: &'a [u32],
    /// Rest lengths (m), finite: `rest[k] > 0` is a bilateral link of
    /// rest length `rest[k]`, `rest[k] < 0` a tension-only link
    /// ([`Link::TENSION_ONLY`]: λ ≤ 0, it only pulls) of rest length
    /// `−rest[k]`, and `rest[k] = 0` (either sign) a disabled link
    /// ([`Link::DISABLED`]: skipped by every sweep, λ stays 0, counted as
    /// `skipped_static`; only its indices are validated).
    /// [`fill_colored_links`] writes all three.
    pub rest: &'a [T],
    /// Compliances α (m/N = s²/kg), finite and ≥ 0.
    pub compliance: &'a [T],
    /// Accumulated multipliers λ (kg·m); reset by `begin_substep` only.
    pub lambda: &'a mut [T],
    /// Scratch: `begin_substep` writes `α̃ = α/h²` (1/kg) here.
    pub alpha: &'a mut [T],
    /// Scratch: `begin_substep` writes `g = 1/(w_i + w_j + α̃)` (kg) here
    /// (0 when both particles are static or the link is disabled: the
    /// kernels skip exactly the links with `g = 0`).
    pub inv_denominator: &'a mut [T],
    /// Color boundaries: color `c` is links `color_starts[c] ..
    /// color_starts[c + 1]`; `color_starts[0] = 0`, the last entry is the
    /// link count.
    pub color_starts: &'a [usize],
}

/// Copies links into colored structure-of-arrays storage: colored position
/// `k` receives link `order[k]` (indices, rest length, compliance; λ = 0).
/// A [`Link::TENSION_ONLY`] link is stored with its rest length negated
/// and a [`Link::DISABLED`] one with rest length 0 (see
/// [`ColoredLinks::rest`]), so the colored path solves (or skips) it as
/// the sequential one does: disabling links needs a refill, never a
/// recoloring. All output slices must have `order.len()` entries.
///
/// # Errors
///
/// [`SystemError::InvalidShape`] when lengths differ; naming the colored
/// position: [`SystemError::IndexOutOfRange`] when its `order` entry names
/// no link, [`SystemError::InvalidFlags`] for flag bits other than
/// [`Link::TENSION_ONLY`] and [`Link::DISABLED`] (as the sequential system
/// refuses them). Nothing
/// is written on error.
#[allow(clippy::too_many_arguments)]
pub fn fill_colored_links<T: Real>(
    links: &[Link<T>],
    order: &[u32],
    i: &mut [u32],
    j: &mut [u32],
    rest: &mut [T],
    compliance: &mut [T],
    lambda: &mut [T],
) -> Result<(), SystemError> {
    let n = order.len();
    if [i.len(), j.len(), rest.len(), compliance.len(), lambda.len()]
        .iter()
        .any(|&l| l != n)
    {
        return Err(SystemError::InvalidShape);
    }
    // Check every entry before writing anything: the source exists and
    // its flags are ones the sequential system accepts.
    for (constraint, &src) in order.iter().enumerate() {
        let Some(link) = links.get(ix(src)) else {
            return Err(SystemError::IndexOutOfRange { constraint });
        };
        if link.flags & !Link::<T>::FLAGS != 0 {
            return Err(SystemError::InvalidFlags { constraint });
        }
    }
    let outs = i
        .iter_mut()
        .zip(j.iter_mut())
        .zip(rest.iter_mut().zip(compliance.iter_mut()));
    for (k, (((oi, oj), (orest, oc)), &src)) in outs.zip(order).enumerate() {
        let link = links
            .get(ix(src))
            .ok_or(SystemError::IndexOutOfRange { constraint: k })?;
        *oi = link.i;
        *oj = link.j;
        *orest = link.signed_rest();
        *oc = link.compliance;
    }
    crate::solver::reset_lambdas(lambda);
    Ok(())
}

/// The link range of job `job` of `jobs` for a color spanning links
/// `begin .. end`: the color's chunks ([`CHUNK`] links each, counted from
/// `begin`) are split as evenly as possible, so every job range starts on a
/// chunk boundary and different jobs never overlap. `None` when `jobs` is 0
/// or `job ≥ jobs`.
#[must_use]
pub fn job_range(begin: usize, end: usize, job: usize, jobs: usize) -> Option<(usize, usize)> {
    if jobs == 0 || job >= jobs || end < begin {
        return None;
    }
    let len = end.saturating_sub(begin);
    let chunks = len.div_ceil(CHUNK);
    let first = mul_div(chunks, job, jobs)?;
    let last = mul_div(chunks, job.checked_add(1)?, jobs)?;
    let lo = begin.saturating_add(first.saturating_mul(CHUNK)).min(end);
    let hi = begin.saturating_add(last.saturating_mul(CHUNK)).min(end);
    Some((lo, hi))
}

/// `⌊a · b / c⌋` for `b ≤ c`, exact for every `usize` (the quotient is at
/// most `a`): the plain product when it fits, else a double-width one
/// (`u64` on 32-bit targets, so no 128-bit division lands in firmware).
#[inline]
fn mul_div(a: usize, b: usize, c: usize) -> Option<usize> {
    if let Some(p) = a.checked_mul(b) {
        return p.checked_div(c);
    }
    #[cfg(not(target_pointer_width = "32"))]
    {
        let wide = |x: usize| u128::try_from(x).ok();
        let q = wide(a)?.checked_mul(wide(b)?)?.checked_div(wide(c)?)?;
        usize::try_from(q).ok()
    }
    #[cfg(target_pointer_width = "32")]
    {
        let wide = |x: usize| u64::try_from(x).ok();
        usize::try_from(div_u64(wide(a)?.checked_mul(wide(b)?)?, wide(c)?)?).ok()
    }
}

/// `⌊n / d⌋` by shift and subtract (`None` for `d = 0`): 64 steps of inline
/// shifts on 32-bit targets, where `u64 / u64` would link a 0.9 KiB runtime
/// division into every firmware image.
#[cfg_attr(not(target_pointer_width = "32"), allow(dead_code))]
#[inline(never)]
fn div_u64(n: u64, d: u64) -> Option<u64> {
    if d == 0 {
        return None;
    }
    let (mut q, mut r) = (0u64, 0u64);
    for bit in (0..64u32).rev() {
        // `r < d` before the shift, so `r << 1 | 1 < 2d` cannot lose a bit
        // unless `d > 2^63`: then compare before shifting.
        let top = r >> 63;
        r = (r << 1) | ((n >> bit) & 1);
        if top != 0 || r >= d {
            r = r.wrapping_sub(d);
            q |= 1 << bit;
        }
    }
    Some(q)
}

#[cfg(test)]
mod tests {
    use super::div_u64;

    #[test]
    fn shift_subtract_division_is_exact() {
        let mut x = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        // Integer arithmetic in safe code: under Miri (CI time) 400 cases,
        // 100 of each divisor kind.
        let cases = if cfg!(miri) { 400 } else { 10_000 };
        for k in 0..cases {
            let n = next();
            let d = match k % 4 {
                0 => next(),
                1 => next() >> 32,
                2 => (next() >> 60) + 1,
                _ => u64::MAX - (next() >> 62),
            };
            assert_eq!(div_u64(n, d), n.checked_div(d), "{n} / {d}");
        }
        assert_eq!(div_u64(u64::MAX, 1), Some(u64::MAX));
        assert_eq!(div_u64(5, 0), None);
    }
}

/// Raw pointers to the link arrays, for the kernel. Link `k`'s indices
/// are `*i.add(k * stride)` and `*j.add(k * stride)` (`stride` 1: index
/// arrays; a frame's index area: 2, the pair of link `k` at `u32`s `2k`,
/// `2k + 1`); its other values are entry `k` of their arrays.
#[doc(hidden)]
#[derive(Clone, Copy)]
pub struct RawLinks<T> {
    pub(crate) i: *const u32,
    pub(crate) j: *const u32,
    pub(crate) stride: usize,
    pub(crate) rest: *const T,
    pub(crate) alpha: *const T,
    pub(crate) g: *const T,
    pub(crate) lambda: *mut T,
    pub(crate) w: *const T,
    /// Whether the fast paths may leave the finiteness of the corrected
    /// positions to the caller (a frame on the SoA passes: its velocity
    /// pass fails the frame on any non-finite position, and a non-finite
    /// coordinate never turns finite on the way there): they test only
    /// λ'. The general path always tests everything. (Read by the
    /// explicit SIMD kernels only: unused where they are not compiled.)
    #[cfg_attr(
        not(any(
            all(target_arch = "x86_64", target_feature = "sse2"),
            all(target_arch = "aarch64", target_feature = "neon")
        )),
        allow(dead_code)
    )]
    pub(crate) lazy: bool,
}

// SAFETY: read-only arrays except `lambda`, whose entries are written only
// for the link range a job owns (disjoint between concurrent jobs).
unsafe impl<T: Send> Send for RawLinks<T> {}
// SAFETY: as for `Send`.
unsafe impl<T: Sync> Sync for RawLinks<T> {}

impl<T> RawLinks<T> {
    /// The particle indices of link `k`.
    ///
    /// # Safety
    /// `k` is a link of the arrays.
    #[inline(always)]
    pub(crate) unsafe fn ij(self, k: usize) -> (usize, usize) {
        let at = k.wrapping_mul(self.stride);
        // SAFETY: link `k`'s indices are `stride · k` entries on (the
        // caller's contract and the type's).
        unsafe { (ix(*self.i.add(at)), ix(*self.j.add(at))) }
    }
}

/// The frame's links as the kernels' view, for [`solve_frame_range`]:
/// the indices from the frame's index area `ij` (two `u32`s per link, at
/// least `8m` bytes, written by the frame's validation:
/// `solver::store_indices`), the
/// constants and λ from the frame's state arrays; `lazy` as
/// [`RawLinks::lazy`]. `None` when a length differs from the link count
/// `m`.
#[allow(clippy::similar_names, clippy::too_many_arguments)]
pub(crate) fn frame_links<T: Real>(
    m: usize,
    ij: &[T],
    rest: &[T],
    alpha: &[T],
    g: &[T],
    lambda: &mut [T],
    w: &[T],
    lazy: bool,
) -> Option<RawLinks<T>> {
    if rest.len() != m
        || alpha.len() != m
        || g.len() != m
        || lambda.len() != m
        || m.checked_mul(8)
            .map_or(true, |bytes| bytes > core::mem::size_of_val(ij))
    {
        return None;
    }
    let i = ij.as_ptr().cast::<u32>();
    Some(RawLinks {
        i,
        j: i.wrapping_add(1),
        stride: 2,
        rest: rest.as_ptr(),
        alpha: alpha.as_ptr(),
        g: g.as_ptr(),
        lambda: lambda.as_mut_ptr(),
        w: w.as_ptr(),
        lazy,
    })
}

/// Solves links `lo .. hi` of one color of a frame with the colored
/// kernel for `isa` over positions `x` (3D: the caller's AoS positions,
/// or the SoA frame's coordinate arrays), the first sweep of a
/// substep (`first`) reading every λ of the range as 0.
///
/// # Safety
/// `l` is [`frame_links`] of links whose indices are below the particle
/// count of `x` (positions, 3D) and of `w`, all still alive and not moved; `lo ≤ hi ≤`
/// the link count; the links `lo .. hi` share no moving particle (a static
/// one, `w = 0`, may be shared: it is read, never written); no other
/// thread writes their particles or accesses their λ during the call.
pub(crate) unsafe fn solve_frame_range<T: Real, P: RawParticles<T>>(
    x: P,
    l: RawLinks<T>,
    lo: usize,
    hi: usize,
    first: bool,
    policy: ZeroLength,
    isa: Isa,
) -> Result<SweepStats<T>, SystemError> {
    if first {
        // SAFETY: `lo .. hi` are λ entries of links this call owns.
        unsafe { core::ptr::write_bytes(l.lambda.add(lo), 0, hi.saturating_sub(lo)) };
    }
    // SAFETY: forwarded caller contract.
    unsafe { kernel::solve_range(x, l, lo, hi, policy, isa) }
}
