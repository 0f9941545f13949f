//! The one helper family of the C layer: every pointer of every entry
//! point is checked here (NULL, alignment, size, overlap — outputs
//! included) before a slice or a value is formed from it.
//!
//! An entry point lists its buffers as [`Buf`]s — inputs, outputs and the
//! caller's struct itself — and calls [`check_buffers`] once; only then
//! does it form slices ([`slice`], [`slice_mut`]) or read and write single
//! values ([`read`], [`write_opt`]).

use core::mem::{align_of, size_of};
use core::ptr;

use super::status::XpbdStatus;

/// A byte range `[start, end)` of a caller buffer, for the overlap check.
#[derive(Clone, Copy)]
struct Span(usize, usize);

impl Span {
    fn overlaps(self, other: Span) -> bool {
        self.0 < other.1 && other.0 < self.1 && self.0 != self.1 && other.0 != other.1
    }
}

/// A caller buffer for the checks, independent of its element type: address,
/// element count, element size and alignment.
#[derive(Clone, Copy)]
pub(crate) struct Buf {
    addr: usize,
    count: usize,
    size: usize,
    align: usize,
}

impl Buf {
    /// `count` elements of `U` at `p` (NULL allowed only with `count == 0`).
    #[inline(always)]
    pub(crate) fn of<U>(p: *const U, count: usize) -> Buf {
        Buf {
            #[allow(clippy::as_conversions)]
            // the address only, for comparison (MSRV 1.81 lacks `addr()`)
            addr: p as usize,
            count,
            size: size_of::<U>(),
            align: align_of::<U>(),
        }
    }

    /// An optional output of one `U`: NULL (nothing to check, nothing will
    /// be written) or one element that must not overlap any other buffer.
    #[inline(always)]
    pub(crate) fn out<U>(p: *const U) -> Buf {
        Buf::of(p, usize::from(!p.is_null()))
    }

    /// Checks the buffer alone: NULL only with count 0, aligned, and no
    /// larger than a Rust slice may be.
    pub(crate) fn check(self) -> Result<(), XpbdStatus> {
        self.span().map(|_| ())
    }

    /// Checks the buffer: NULL only with count 0, aligned, and no larger
    /// than a Rust slice may be; its byte range.
    fn span(self) -> Result<Span, XpbdStatus> {
        if self.count == 0 {
            return Ok(Span(0, 0));
        }
        if self.addr == 0 {
            return Err(XpbdStatus::NullPointer);
        }
        // `align` is a power of two.
        if self.addr & self.align.wrapping_sub(1) != 0 {
            return Err(XpbdStatus::InvalidArgument);
        }
        let len = self
            .count
            .checked_mul(self.size)
            .ok_or(XpbdStatus::InvalidArgument)?;
        let end = self
            .addr
            .checked_add(len)
            .ok_or(XpbdStatus::InvalidArgument)?;
        if isize::try_from(len).is_err() {
            return Err(XpbdStatus::InvalidArgument);
        }
        Ok(Span(self.addr, end))
    }
}

/// Checks caller buffers in order (the first failing one names the status:
/// NULL with a non-zero count, misaligned, or too large), then that no two
/// of them overlap (`XPBD_STATUS_ALIASED_BUFFERS`). One copy for every
/// entry point, whatever the element types.
#[inline]
pub(crate) fn check_buffers(bufs: &[Buf]) -> Result<(), XpbdStatus> {
    check_groups(&[bufs])
}

/// [`check_buffers`] over several lists as one (a struct's buffers and the
/// call's outputs, say).
#[inline(never)]
pub(crate) fn check_groups(groups: &[&[Buf]]) -> Result<(), XpbdStatus> {
    let all = || groups.iter().flat_map(|g| g.iter());
    for b in all() {
        b.span()?;
    }
    for (k, a) in all().enumerate() {
        let a = a.span()?;
        for b in all().skip(k.saturating_add(1)) {
            if a.overlaps(b.span()?) {
                return Err(XpbdStatus::AliasedBuffers);
            }
        }
    }
    Ok(())
}

/// A shared slice over a checked buffer.
///
/// # Safety
/// `p` passed [`check_buffers`] with `count` and is valid for `count`
/// reads for `'a` (any pointer when `count == 0`).
pub(crate) unsafe fn slice<'a, U>(p: *const U, count: usize) -> &'a [U] {
    if count == 0 {
        &[]
    } else {
        // SAFETY: forwarded from the caller (non-null, aligned, valid, ≤ isize::MAX bytes).
        unsafe { core::slice::from_raw_parts(p, count) }
    }
}

/// A mutable slice over a checked buffer.
///
/// # Safety
/// As [`slice`], valid for writes too and overlapping no other live slice.
pub(crate) unsafe fn slice_mut<'a, U>(p: *mut U, count: usize) -> &'a mut [U] {
    if count == 0 {
        &mut []
    } else {
        // SAFETY: forwarded from the caller (non-null, aligned, valid, unaliased).
        unsafe { core::slice::from_raw_parts_mut(p, count) }
    }
}

/// Reads `*p` by value, or reports NULL (no reference is formed, so the
/// value may alias anything).
///
/// # Safety
/// `p` is NULL or valid for one aligned read.
#[inline]
pub(crate) unsafe fn read<S: Copy>(p: *const S) -> Result<S, XpbdStatus> {
    if p.is_null() {
        Err(XpbdStatus::NullPointer)
    } else {
        // SAFETY: non-null and valid by the caller's contract; S is Copy.
        Ok(unsafe { ptr::read(p) })
    }
}

/// Writes `value` to `out` when `out` is not NULL.
///
/// # Safety
/// `out` is NULL or passed [`check_buffers`] as [`Buf::out`] (valid,
/// aligned, overlapping no live slice).
#[inline]
pub(crate) unsafe fn write_opt<U>(out: *mut U, value: U) {
    if !out.is_null() {
        // SAFETY: non-null and valid by the caller's contract.
        unsafe { ptr::write(out, value) };
    }
}
