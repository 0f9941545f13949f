//! Particle layouts: [`Soa`], [`Aos`], the C API's [`Strided`], and the
//! raw views ([`RawParticles`]) the kernels read and write through.

use core::marker::PhantomData;

use crate::real::Real;

/// Particles as structure of arrays: coordinates `x`, `y`, `z` (m) and
/// inverse masses `w` (1/kg), all of one length.
#[derive(Debug)]
pub struct Soa<'a, T> {
    /// x coordinates (m).
    pub x: &'a mut [T],
    /// y coordinates (m).
    pub y: &'a mut [T],
    /// z coordinates (m).
    pub z: &'a mut [T],
    /// Inverse masses (1/kg), finite and ≥ 0; 0 is static.
    pub w: &'a [T],
}

/// Particles as array of structures: `[x, y, z]` per particle (m), the
/// layout of engines holding `float[3]`/`double[3]`, and inverse masses `w`
/// (1/kg).
#[derive(Debug)]
pub struct Aos<'a, T> {
    /// Positions (m).
    pub positions: &'a mut [[T; 3]],
    /// Inverse masses (1/kg), finite and ≥ 0; 0 is static.
    pub w: &'a [T],
}

mod sealed {
    pub trait Sealed {}
    impl<T> Sealed for super::Soa<'_, T> {}
    impl<T> Sealed for super::Aos<'_, T> {}
    impl<T> Sealed for super::Strided<'_, T> {}
}

/// Raw access to particle positions for the kernel.
///
/// # Safety
/// Implementors read and write exactly the particle named, nothing else.
#[doc(hidden)]
pub unsafe trait RawParticles<T: Real>: Copy + Send + Sync {
    /// The layout this view belongs to, as a family over the float type:
    /// the kernel choice per float type (`kernel`) reaches this very type
    /// as `<Self::Family as RawFamily>::Raw<f32>` (or `f64`).
    type Family: RawFamily<Raw<T> = Self>;
    /// Position of particle `k`.
    ///
    /// # Safety
    /// `k` is below the particle count and no other thread writes it.
    unsafe fn get(self, k: usize) -> [T; 3];
    /// Writes the position of particle `k`.
    ///
    /// # Safety
    /// `k` is below the particle count and no other thread accesses it.
    unsafe fn set(self, k: usize, v: [T; 3]);
    /// The coordinate arrays when the layout is [`Soa`], for kernels that
    /// load neighbouring particles together; `None` otherwise.
    #[inline(always)]
    fn soa(self) -> Option<RawSoa<T>> {
        None
    }
}

/// A particle layout the colored solver accepts: [`Soa`] or [`Aos`].
pub trait Particles<T: Real>: sealed::Sealed {
    #[doc(hidden)]
    type Raw: RawParticles<T>;
    /// Number of particles (`None` when the arrays differ in length).
    fn count(&self) -> Option<usize>;
    /// Inverse masses (1/kg).
    fn inverse_masses(&self) -> &[T];
    /// The position of particle `k` (m).
    fn position(&self, k: usize) -> Option<[T; 3]>;
    #[doc(hidden)]
    fn raw(&mut self) -> Self::Raw;
}

#[doc(hidden)]
#[derive(Clone, Copy)]
pub struct RawSoa<T> {
    pub(crate) x: *mut T,
    pub(crate) y: *mut T,
    pub(crate) z: *mut T,
}

// SAFETY: the pointers come from `&mut` slices held by a `SimdLinks`;
// they are only dereferenced by kernel code under the proper-coloring
// invariant (each particle written by at most one thread at a time).
unsafe impl<T: Send> Send for RawSoa<T> {}
// SAFETY: as for `Send`.
unsafe impl<T: Sync> Sync for RawSoa<T> {}

// SAFETY: reads and writes the three coordinates of particle `k` only.
unsafe impl<T: Real> RawParticles<T> for RawSoa<T> {
    type Family = SoaFamily;
    #[inline(always)]
    unsafe fn get(self, k: usize) -> [T; 3] {
        // SAFETY: `k` is in bounds of all three arrays (caller contract).
        unsafe { [*self.x.add(k), *self.y.add(k), *self.z.add(k)] }
    }
    #[inline(always)]
    unsafe fn set(self, k: usize, v: [T; 3]) {
        let [a, b, c] = v;
        // SAFETY: `k` is in bounds and not accessed concurrently (caller contract).
        unsafe {
            *self.x.add(k) = a;
            *self.y.add(k) = b;
            *self.z.add(k) = c;
        }
    }
    #[inline(always)]
    fn soa(self) -> Option<RawSoa<T>> {
        Some(self)
    }
}

#[doc(hidden)]
#[derive(Clone, Copy)]
pub struct RawAos<T> {
    pub(crate) p: *mut [T; 3],
}

// SAFETY: as for `RawSoa`.
unsafe impl<T: Send> Send for RawAos<T> {}
// SAFETY: as for `RawSoa`.
unsafe impl<T: Sync> Sync for RawAos<T> {}

// SAFETY: reads and writes particle `k`'s three coordinates only.
unsafe impl<T: Real> RawParticles<T> for RawAos<T> {
    type Family = AosFamily;
    #[inline(always)]
    unsafe fn get(self, k: usize) -> [T; 3] {
        // SAFETY: `k` is in bounds (caller contract).
        unsafe { *self.p.add(k) }
    }
    #[inline(always)]
    unsafe fn set(self, k: usize, v: [T; 3]) {
        // SAFETY: `k` is in bounds and not accessed concurrently (caller contract).
        unsafe { *self.p.add(k) = v }
    }
}

/// Raw particles of either C layout in one type: coordinate `c` of
/// particle `k` at `xyz[c] + k·stride` (AoS: the three coordinates of one
/// array, stride 3; SoA: three arrays, stride 1). The C API uses it for
/// both layouts, so it has one copy of the kernel and of `begin_substep`
/// per precision instead of two; the same IEEE operations, so the same
/// bits.
#[doc(hidden)]
#[derive(Clone, Copy)]
pub struct RawStrided<T> {
    pub(crate) xyz: [*mut T; 3],
    pub(crate) stride: usize,
}

// SAFETY: as for `RawSoa`.
unsafe impl<T: Send> Send for RawStrided<T> {}
// SAFETY: as for `RawSoa`.
unsafe impl<T: Sync> Sync for RawStrided<T> {}

// SAFETY: reads and writes the three coordinates of particle `k` only.
unsafe impl<T: Real> RawParticles<T> for RawStrided<T> {
    type Family = StridedFamily;
    #[inline(always)]
    unsafe fn get(self, k: usize) -> [T; 3] {
        let o = k.wrapping_mul(self.stride);
        let [x, y, z] = self.xyz;
        // SAFETY: `k` is below the particle count, so `o` is in bounds of
        // all three coordinate sequences (caller contract).
        unsafe { [*x.add(o), *y.add(o), *z.add(o)] }
    }
    #[inline(always)]
    unsafe fn set(self, k: usize, v: [T; 3]) {
        let o = k.wrapping_mul(self.stride);
        let [x, y, z] = self.xyz;
        let [a, b, c] = v;
        // SAFETY: in bounds as for `get`, not accessed concurrently (caller
        // contract).
        unsafe {
            *x.add(o) = a;
            *y.add(o) = b;
            *z.add(o) = c;
        }
    }
    /// Three separate arrays (stride 1, the C SoA layout) are [`RawSoa`]:
    /// the same particles, so the neighbour fast path applies from C too.
    #[inline(always)]
    fn soa(self) -> Option<RawSoa<T>> {
        let [x, y, z] = self.xyz;
        (self.stride == 1).then_some(RawSoa { x, y, z })
    }
}

/// The particles of a C SIMD link system, either layout ([`RawStrided`]).
#[derive(Debug)]
pub(crate) struct Strided<'a, T> {
    raw: RawStrided<T>,
    w: &'a [T],
    _borrow: PhantomData<&'a mut [T]>,
}

impl<T> core::fmt::Debug for RawStrided<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RawStrided")
            .field("stride", &self.stride)
            .finish()
    }
}

impl<'a, T> Strided<'a, T> {
    /// Particles `0 .. w.len()` at `raw`.
    ///
    /// # Safety
    /// For every `k < w.len()`, `raw.xyz[c] + k·raw.stride` (c = 0, 1, 2)
    /// is valid for reads and writes for `'a`, these places are distinct,
    /// and nothing else accesses them (or overlaps `w`) meanwhile.
    pub(crate) unsafe fn new(raw: RawStrided<T>, w: &'a [T]) -> Self {
        Self {
            raw,
            w,
            _borrow: PhantomData,
        }
    }
}

impl<T: Real> Particles<T> for Strided<'_, T> {
    type Raw = RawStrided<T>;
    fn count(&self) -> Option<usize> {
        Some(self.w.len())
    }
    fn inverse_masses(&self) -> &[T] {
        self.w
    }
    fn position(&self, k: usize) -> Option<[T; 3]> {
        // SAFETY: `k` is below the particle count (`Strided::new`'s
        // contract makes its coordinates valid); `&self` excludes writes
        // through this value.
        (k < self.w.len()).then(|| unsafe { self.raw.get(k) })
    }
    fn raw(&mut self) -> RawStrided<T> {
        self.raw
    }
}

impl<T: Real> Particles<T> for Soa<'_, T> {
    type Raw = RawSoa<T>;
    fn count(&self) -> Option<usize> {
        let n = self.w.len();
        (self.x.len() == n && self.y.len() == n && self.z.len() == n).then_some(n)
    }
    fn inverse_masses(&self) -> &[T] {
        self.w
    }
    fn position(&self, k: usize) -> Option<[T; 3]> {
        Some([*self.x.get(k)?, *self.y.get(k)?, *self.z.get(k)?])
    }
    fn raw(&mut self) -> RawSoa<T> {
        RawSoa {
            x: self.x.as_mut_ptr(),
            y: self.y.as_mut_ptr(),
            z: self.z.as_mut_ptr(),
        }
    }
}

impl<T: Real> Particles<T> for Aos<'_, T> {
    type Raw = RawAos<T>;
    fn count(&self) -> Option<usize> {
        (self.positions.len() == self.w.len()).then_some(self.w.len())
    }
    fn inverse_masses(&self) -> &[T] {
        self.w
    }
    fn position(&self, k: usize) -> Option<[T; 3]> {
        self.positions.get(k).copied()
    }
    fn raw(&mut self) -> RawAos<T> {
        RawAos {
            p: self.positions.as_mut_ptr(),
        }
    }
}

/// A particle layout as a family of raw views, one per float type (see
/// [`RawParticles::Family`]). Only the three layouts below implement it.
#[doc(hidden)]
pub trait RawFamily {
    /// The raw view of this layout over `T`.
    type Raw<T: Real>: RawParticles<T>;
}

/// The family of [`RawSoa`].
#[doc(hidden)]
#[derive(Debug)]
pub enum SoaFamily {}

/// The family of [`RawAos`].
#[doc(hidden)]
#[derive(Debug)]
pub enum AosFamily {}

/// The family of [`RawStrided`].
#[doc(hidden)]
#[derive(Debug)]
pub enum StridedFamily {}

impl RawFamily for SoaFamily {
    type Raw<T: Real> = RawSoa<T>;
}

impl RawFamily for AosFamily {
    type Raw<T: Real> = RawAos<T>;
}

impl RawFamily for StridedFamily {
    type Raw<T: Real> = RawStrided<T>;
}
