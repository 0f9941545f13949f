//! The library version, taken from `Cargo.toml` at compile time, for Rust
//! and for C.
//!
//! There is one source of truth: the `version` of the `xpbd` package in
//! `Cargo.toml`. Cargo passes it to the compiler (`CARGO_PKG_VERSION_*`),
//! the constants below parse it in a `const` context, and the C header's
//! `XPBD_VERSION_*` macros are generated from the same file by
//! `ffi-tests/build.rs`. Tests check all three against each other.
//!
//! # Encoding of `xpbd_version()`
//!
//! One `uint32_t`: `major * 10000 + minor * 100 + patch`, so 0.1.0 is `100`
//! and 1.2.3 is `10203`. Minor and patch must stay below 100 (checked at
//! compile time). Numbers compare in release order, and
//! `xpbd_version() / 10000` is the major version.

/// The full version string from `Cargo.toml`, for example `"0.1.0"`.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The major version (the `X` of `X.Y.Z`).
pub const VERSION_MAJOR: u32 = parse_u32(env!("CARGO_PKG_VERSION_MAJOR"));

/// The minor version (the `Y` of `X.Y.Z`), below 100.
pub const VERSION_MINOR: u32 = parse_u32(env!("CARGO_PKG_VERSION_MINOR"));

/// The patch version (the `Z` of `X.Y.Z`), below 100.
pub const VERSION_PATCH: u32 = parse_u32(env!("CARGO_PKG_VERSION_PATCH"));

/// The version as one number: `major * 10000 + minor * 100 + patch`
/// (what the C function `xpbd_version()` returns and what the header's
/// `XPBD_VERSION_NUMBER` macro expands to).
///
/// # Examples
///
/// ```
/// assert_eq!(
///     xpbd::VERSION_NUMBER,
///     xpbd::VERSION_MAJOR * 10000 + xpbd::VERSION_MINOR * 100 + xpbd::VERSION_PATCH
/// );
/// assert_eq!(xpbd::ffi::xpbd_version(), xpbd::VERSION_NUMBER);
/// ```
pub const VERSION_NUMBER: u32 = VERSION_MAJOR * 10_000 + VERSION_MINOR * 100 + VERSION_PATCH;

// The encoding needs minor and patch below 100 and the result in a u32. A
// malformed version in Cargo.toml parses to u32::MAX and fails here too: at
// compile time, never at run time.
const _: () = assert!(
    VERSION_MAJOR < 400_000 && VERSION_MINOR < 100 && VERSION_PATCH < 100,
    "xpbd's version must be MAJOR.MINOR.PATCH with MINOR and PATCH below 100"
);

/// Parses a decimal number in a `const` context; anything that is not a
/// non-empty string of ASCII digits fitting a `u32` gives `u32::MAX`.
const fn parse_u32(s: &str) -> u32 {
    let mut rest = s.as_bytes();
    if rest.is_empty() {
        return u32::MAX;
    }
    let mut value: u32 = 0;
    while let Some((&digit, tail)) = rest.split_first() {
        if !digit.is_ascii_digit() {
            return u32::MAX;
        }
        let next = match value.checked_mul(10) {
            Some(v) => v.checked_add(digit_value(digit)),
            None => None,
        };
        value = match next {
            Some(v) => v,
            None => return u32::MAX,
        };
        rest = tail;
    }
    value
}

/// The value of one ASCII digit (the caller checked `is_ascii_digit`).
#[allow(clippy::as_conversions)] // `u32::from` is not const; widening a u8 is exact
const fn digit_value(digit: u8) -> u32 {
    digit.wrapping_sub(b'0') as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_digits_and_rejects_the_rest() {
        assert_eq!(parse_u32("0"), 0);
        assert_eq!(parse_u32("42"), 42);
        assert_eq!(parse_u32("4294967295"), u32::MAX);
        assert_eq!(parse_u32("4294967296"), u32::MAX);
        assert_eq!(parse_u32(""), u32::MAX);
        assert_eq!(parse_u32("1a"), u32::MAX);
        assert_eq!(parse_u32("-1"), u32::MAX);
    }

    #[test]
    fn matches_the_version_string() {
        let expected = format!("{VERSION_MAJOR}.{VERSION_MINOR}.{VERSION_PATCH}");
        // A pre-release or build suffix (`0.2.0-rc.1`) is not encoded.
        assert!(VERSION.starts_with(&expected), "{VERSION} vs {expected}");
    }
}
