//! The kernels for the machine the solver runs on: [`Isa`], detected at run
//! time, held by the caller (no global state, no cached detection).

/// The SIMD instruction sets the colored kernels may use: a set of bits
/// (`AVX2_BIT`, `AVX512_BIT`, `NEON_BIT`), always a subset of what this
/// CPU and its operating system support.
///
/// Obtained only from [`Isa::detect`] (cpuid and xgetbv on x86-64, no
/// std), [`Isa::from_bits`] (which refuses bits the machine lacks),
/// [`Isa::BASELINE`], or by removing bits ([`Isa::restrict`]): so holding
/// an `Isa` proves the kernels it selects can run here. Detection is not
/// cached anywhere (the crate has no global state): a
/// [`SimdLinks`](crate::SimdLinks) detects once when built
/// ([`SimdLinks::new`](crate::SimdLinks::new)) and keeps the value;
/// a caller that builds systems often detects once and passes the value
/// ([`SimdLinks::new_with_isa`](crate::SimdLinks::new_with_isa)):
/// cpuid takes about 100 cycles natively but microseconds where a
/// hypervisor traps it.
///
/// Every kernel gives the same bits as the baseline: the same IEEE
/// operations per link in the same order, no fused multiply-add, no
/// reciprocal approximations, and the links of one color share no particle
/// (so the number of links per register changes nothing). The selection is
/// one `match` per color range.
///
/// | bits | kernel (f64 / f32) |
/// |---|---|
/// | none ([`Isa::BASELINE`]) | x86-64: SSE2, 2 / 4 links per register; aarch64: the portable chunked loop; others: scalar |
/// | `AVX2_BIT` | x86-64: AVX2, 4 / 8 links per register |
/// | `AVX512_BIT` | x86-64: AVX-512 F + DQ, 8 / 16 links per register (built with Rust ≥ 1.89; otherwise the AVX2 kernel runs) |
/// | `NEON_BIT` | aarch64: NEON, 2 / 4 links per register |
///
/// With several bits the widest kernel runs.
///
/// # Examples
///
/// ```
/// use xpbd::colored::Isa;
///
/// let isa = Isa::detect();
/// assert_eq!(Isa::from_bits(isa.bits()), Some(isa));
/// // Restricting never adds a bit: AVX2 at most.
/// let narrow = isa.restrict(Isa::AVX2_BIT);
/// assert_eq!(narrow.bits() & !Isa::AVX2_BIT, 0);
/// assert_eq!(Isa::BASELINE.bits(), 0);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Isa(u32);

/// The kernel an [`Isa`] selects on this target.
#[derive(Clone, Copy, PartialEq, Eq)]
#[cfg_attr(
    not(any(target_arch = "x86_64", target_arch = "aarch64")),
    allow(dead_code)
)]
pub(crate) enum Level {
    Baseline,
    Avx2,
    Avx512,
    Neon,
}

impl Isa {
    /// AVX2 (with AVX; no FMA is used): x86-64 only.
    pub const AVX2_BIT: u32 = 1;
    /// AVX-512 Foundation and DQ (with AVX2; no FMA is used): x86-64 only.
    pub const AVX512_BIT: u32 = 2;
    /// Advanced SIMD (NEON): aarch64, where every CPU has it.
    pub const NEON_BIT: u32 = 4;
    /// Every bit this version defines.
    pub const KNOWN_BITS: u32 = 7;
    /// No SIMD beyond the target's baseline kernel (see the table above).
    pub const BASELINE: Self = Self(0);

    /// What this CPU and operating system support: on x86-64 AVX2 when
    /// cpuid reports AVX and AVX2 and the OS saves YMM state (OSXSAVE and
    /// XCR0), AVX-512 when cpuid reports AVX-512 F and DQ and the OS saves
    /// the opmask and ZMM state as well; on aarch64 NEON; elsewhere (and
    /// under Miri, which cannot run cpuid) none.
    #[must_use]
    pub fn detect() -> Self {
        Self(detect_bits())
    }

    /// The set `bits` when this machine supports all of it (one
    /// [`detect`](Self::detect)); `None` for a bit it lacks or an unknown
    /// bit.
    #[must_use]
    pub fn from_bits(bits: u32) -> Option<Self> {
        (bits & !detect_bits() == 0).then_some(Self(bits))
    }

    /// The bits of the set.
    #[must_use]
    pub const fn bits(self) -> u32 {
        self.0
    }

    /// The set without the bits not in `mask` (a caller's limit: never
    /// more than `self`).
    #[must_use]
    pub const fn restrict(self, mask: u32) -> Self {
        Self(self.0 & mask)
    }

    /// The set `bits` as a C system's `simd` field holds it (validated by
    /// `xpbd_simd_links3_set_simd` when it was set, which the caller vouches
    /// for), unknown bits dropped.
    pub(crate) const fn trusted(bits: u32) -> Self {
        Self(bits & Self::KNOWN_BITS)
    }

    /// The kernel this set selects on this target: the widest it allows.
    #[inline(always)]
    pub(crate) fn level(self) -> Level {
        if cfg!(target_arch = "x86_64") && self.0 & Self::AVX512_BIT != 0 {
            Level::Avx512
        } else if cfg!(target_arch = "x86_64") && self.0 & Self::AVX2_BIT != 0 {
            Level::Avx2
        } else if cfg!(target_arch = "aarch64") && self.0 & Self::NEON_BIT != 0 {
            Level::Neon
        } else {
            Level::Baseline
        }
    }

    /// The name of the kernel this set selects on this target:
    /// `"avx512"`, `"avx2"`, `"neon"` or `"baseline"`.
    #[must_use]
    pub fn kernel_name(self) -> &'static str {
        match self.level() {
            Level::Avx512 if cfg!(xpbd_avx512) => "avx512",
            Level::Avx512 | Level::Avx2 => "avx2",
            Level::Neon => "neon",
            Level::Baseline => "baseline",
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[allow(unused_unsafe)] // `__cpuid` is an unsafe fn before Rust 1.94 (the MSRV)
fn detect_bits() -> u32 {
    use core::arch::x86_64::{__cpuid, __cpuid_count, _xgetbv};
    if cfg!(miri) {
        return 0;
    }
    // SAFETY: cpuid exists on every x86-64 CPU; leaf 0 gives the highest
    // leaf.
    let max_leaf = unsafe { __cpuid(0) }.eax;
    if max_leaf < 7 {
        return 0;
    }
    // SAFETY: leaf 1 ≤ the highest leaf.
    let ecx1 = unsafe { __cpuid(1) }.ecx;
    let (osxsave, avx) = (ecx1 & (1 << 27) != 0, ecx1 & (1 << 28) != 0);
    if !(osxsave && avx) {
        return 0;
    }
    // SAFETY: leaf 7 ≤ the highest leaf.
    let ebx7 = unsafe { __cpuid_count(7, 0) }.ebx;
    // SAFETY: OSXSAVE is set (checked above), so the OS enabled XGETBV;
    // register 0 is XCR0.
    let xcr0 = unsafe { _xgetbv(0) };
    let mut bits = 0;
    // XCR0 bits 1 (SSE) and 2 (YMM upper halves); cpuid.7.ebx bit 5 AVX2.
    if xcr0 & 0b110 == 0b110 && ebx7 & (1 << 5) != 0 {
        bits |= Isa::AVX2_BIT;
        // XCR0 bits 5-7 (opmask, ZMM upper halves, ZMM16-31);
        // cpuid.7.ebx bits 16 (AVX-512 F) and 17 (DQ).
        if xcr0 & 0xe0 == 0xe0 && ebx7 & (1 << 16) != 0 && ebx7 & (1 << 17) != 0 {
            bits |= Isa::AVX512_BIT;
        }
    }
    bits
}

#[cfg(target_arch = "aarch64")]
fn detect_bits() -> u32 {
    if cfg!(target_feature = "neon") {
        Isa::NEON_BIT
    } else {
        0
    }
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
fn detect_bits() -> u32 {
    0
}

/// Defines `fn $name(isa, args…)`, which calls the `#[inline(always)]`
/// function `$body(args…)` compiled at the widest vector level of `isa`:
/// inlined into a `#[target_feature]` copy per level (AVX-512 F and DQ,
/// AVX2 on x86-64; the target's baseline otherwise), so that a loop in it
/// is widened for that level. `$body` must use no fused multiply-add (none
/// is written in this crate): every level gives the same bits. (The
/// skinned constraints' lanes use it; the SoA passes, the bends' lanes and
/// the link kernels still spell their copies out.)
macro_rules! at_level {
    (
        $(#[$attr:meta])*
        $vis:vis fn $name:ident[$($gen:tt)*]($($arg:ident: $ty:ty),* $(,)?) -> $ret:ty = $body:path;
    ) => {
        $(#[$attr])*
        #[inline(always)]
        $vis fn $name<$($gen)*>(isa: $crate::colored::Isa, $($arg: $ty),*) -> $ret {
            #[cfg(target_arch = "x86_64")]
            {
                /// The body compiled for AVX2.
                ///
                /// # Safety
                /// The CPU and OS support AVX2 (an `Isa` with its bit).
                #[target_feature(enable = "avx2")]
                unsafe fn avx2<$($gen)*>($($arg: $ty),*) -> $ret {
                    $body($($arg),*)
                }
                /// The body compiled for AVX-512 F and DQ.
                ///
                /// # Safety
                /// The CPU and OS support AVX-512 F and DQ (an `Isa` with
                /// its bit).
                #[cfg(xpbd_avx512)]
                #[target_feature(enable = "avx512f,avx512dq")]
                unsafe fn avx512<$($gen)*>($($arg: $ty),*) -> $ret {
                    $body($($arg),*)
                }
                let level = isa.level();
                #[cfg(xpbd_avx512)]
                if level == $crate::colored::Level::Avx512 {
                    // SAFETY: `isa` holds the AVX-512 bit only when the CPU
                    // and OS support it (`Isa::detect`, `Isa::from_bits`).
                    return unsafe { avx512($($arg),*) };
                }
                if level == $crate::colored::Level::Avx2
                    || level == $crate::colored::Level::Avx512
                {
                    // SAFETY: as above, AVX2 (an AVX-512 set includes it).
                    return unsafe { avx2($($arg),*) };
                }
            }
            let _ = isa;
            $body($($arg),*)
        }
    };
}
pub(crate) use at_level;
