//! Fixed xpbd scenarios, shared by the host tests (`cargo test`) and the
//! bare-metal program under QEMU (`cargo qemu-test`), so that both run the
//! very same code and assert against the very same constants.
//!
//! - [`checks`]: the seed's golden figures (f64 and f32, bit-exact) and the
//!   rejection checks, through the Rust API and through the C ABI.
//! - [`chain`]: a fixed 1D chain ("rope" on a line) built from
//!   [`xpbd::DistanceConstraint`], stepped with substeps and Gauss-Seidel
//!   iterations.
//! - [`rope`]: a fixed 3D rope (tension-only links, ground plane, sphere,
//!   friction) advanced by the library's full stepping, `xpbd::step::step`.
//! - [`cloth`]: a fixed colored 3D cloth, solved through the colored
//!   kernel by the Rust API and by the C job entry points in lock-step.
//! - [`groups`]: a fixed 3D scene with every constraint group (bends,
//!   tets, tethers, a pressurised mesh, a moving attachment) under
//!   `xpbd::step::step` (the groups in `World::groups`).
//! - [`tearing`]: a fixed sheet pulled apart by moving attachments,
//!   tearing along a perforated line (the world's `tearing` block).
//! - [`engine`]: a cloth hanging from moving kinematic particles, hit by a
//!   swept capsule, on a spinning box and the engine's own contacts.
//! - [`hash`]: the bit-identity scenario: a random sequence of 1D C-ABI
//!   solves, the chain, the 3D rope, the colored cloth, the groups scene
//!   and the tearing sheet, hashed over every position, velocity and λ,
//!   and the constants [`hash::HASH_F64`] and [`hash::HASH_F32`].
//!
//! The crate is `#![no_std]`, allocation-free and uses only IEEE-754 basic
//! operations (`+ − × ÷`, comparisons, f64→f32 rounding): see the README
//! section "The same bits everywhere" for what that guarantees.
#![no_std]
#![deny(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks)]

pub mod chain;
pub mod character;
pub mod checks;
pub mod cloth;
pub mod engine;
pub mod groups;
pub mod hash;
pub mod rope;
mod scalar;
pub mod tearing;

pub use scalar::{ColoredBuffers, Scalar};

/// A tiny, fully specified, platform-independent hash of 64-bit words:
/// FNV-1a's offset basis and prime, applied per word instead of per byte
/// (`h = (h ^ word) · prime mod 2^64`).
///
/// Values are fed as their IEEE-754 bit patterns (f32 zero-extended), so the
/// hash sees every bit of every number. Each step is a bijection of `h` for
/// a given word, so a run that differs in exactly one word always gives a
/// different hash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fnv64(pub u64);

impl Default for Fnv64 {
    fn default() -> Self {
        Self::new()
    }
}

impl Fnv64 {
    /// The FNV offset basis.
    #[must_use]
    pub const fn new() -> Self {
        Self(0xcbf2_9ce4_8422_2325)
    }
    /// Feeds one 64-bit word.
    pub fn write_u64(&mut self, x: u64) {
        self.0 = (self.0 ^ x).wrapping_mul(0x0100_0000_01b3);
    }
    /// Feeds a float's bit pattern.
    pub fn write_real<T: Scalar>(&mut self, x: T) {
        self.write_u64(x.bits());
    }
    /// Feeds a status code (its two's complement bits, zero-extended).
    pub fn write_status(&mut self, code: i32) {
        self.write_u64(u64::from(u32::from_le_bytes(code.to_le_bytes())));
    }
    /// The hash so far.
    #[must_use]
    pub const fn finish(&self) -> u64 {
        self.0
    }
}

/// SplitMix64 (Steele, Lea, Flood 2014): a tiny, documented, portable
/// generator; integer arithmetic only, so identical on every platform.
#[derive(Debug, Clone)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// A uniform integer in `0..n` (`n > 0`; modulo bias is irrelevant here).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
    /// A uniform double in [0, 1): the top 53 bits times 2^-53 (exact).
    #[allow(clippy::cast_precision_loss)] // < 2^53: exact
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / 9_007_199_254_740_992.0)
    }
    /// A uniform double in [lo, hi).
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }
}
