//! The system: particles and links over caller-owned memory, between
//! substeps, and the validation a substep starts with.

use super::substep::ContactGroup;
use super::{reset_lambdas, Constraints, Substep, ZeroLength};
use crate::constraint::distance::{index, validate_link, Link};
use crate::constraint::Scaled;
use crate::math::length_squared;
use crate::real::{finite_non_negative, Real};
use crate::SystemError;

/// Where the frame's validation writes each link's constants (one entry
/// per link in each array; all empty: nothing), the arrays the frame's
/// link pass and the colored SIMD kernels read.
#[derive(Default)]
pub(crate) struct LinkConstants<'s, T> {
    /// `α̃ = α/h²` (1/kg).
    pub(crate) alpha: &'s mut [T],
    /// `g = 1/(w_i + w_j + α̃)` (kg), 0 for a disabled or static link.
    pub(crate) g: &'s mut [T],
    /// The rest length (m), negated for a [`Link::TENSION_ONLY`] link, 0
    /// for a [`Link::DISABLED`] one (`ColoredLinks::rest`'s convention).
    pub(crate) rest: &'s mut [T],
    /// The links' particle indices, two `u32`s per link
    /// ([`store_indices`], [`index_entries`] entries; empty: not kept).
    pub(crate) ij: &'s mut [T],
}

/// Writes link `k`'s particle indices `i`, `j` into `ij` (the frame's
/// index area) as the `u32`s `2k` and `2k + 1` of its memory (bytes
/// `8k .. 8k + 8`: [`index_entries`] entries per link), where
/// `colored::frame_links` points the kernels. Raw integer writes: a float
/// store could change a NaN pattern's bits on some targets, and these
/// bits index memory. Nothing is written when `ij` has no room for link
/// `k`.
#[inline(always)]
pub(crate) fn store_indices<T: Real>(ij: &mut [T], k: usize, i: u32, j: u32) {
    let end = k.checked_add(1).and_then(|e| e.checked_mul(8));
    if end.is_some_and(|e| e <= core::mem::size_of_val(ij)) {
        let p = ij.as_mut_ptr().cast::<u32>();
        let at = k.wrapping_mul(2);
        // SAFETY: bytes `8k .. 8k + 8` lie within `ij` (checked above), and
        // its start is 4-aligned (a `T` is); every bit pattern is a valid
        // `T`, and `ij` is borrowed mutably here.
        unsafe {
            p.add(at).write(i);
            p.add(at.wrapping_add(1)).write(j);
        }
    }
}

/// Entries of `T` one link's indices take in the index area (8 bytes:
/// 1 in f64, 2 in f32).
pub(crate) const fn index_entries<T>() -> usize {
    let size = core::mem::size_of::<T>();
    if size == 0 || size >= 8 {
        1
    } else {
        8 / size
    }
}

/// Checks everything a substep relies on, in this order: h; the particle
/// counts; each particle (position, then inverse mass); each link (indices,
/// `i ≠ j`, rest length, compliance, scale, and zero length under
/// [`ZeroLength::Reject`]). Writes nothing but the links' constants of a
/// stepped frame ([`validate_links`]; empty: nothing).
pub(crate) fn validate<T: Real, const D: usize>(
    positions: &[[T; D]],
    inverse_masses: &[T],
    links: &[Link<T>],
    h: T,
    policy: ZeroLength,
    state: LinkConstants<'_, T>,
) -> Result<(), SystemError> {
    validate_flat(
        positions.as_flattened(),
        positions.len(),
        inverse_masses,
        links,
        h,
        policy,
        state,
    )
}

/// [`validate`] over flattened positions (`count` particles of
/// `x.len() / count` coordinates): one copy per float type, whatever the
/// dimension (a cold path: once per substep).
#[inline(never)]
fn validate_flat<T: Real>(
    x: &[T],
    count: usize,
    inverse_masses: &[T],
    links: &[Link<T>],
    h: T,
    policy: ZeroLength,
    state: LinkConstants<'_, T>,
) -> Result<(), SystemError> {
    if !h.is_finite() || h <= T::ZERO {
        return Err(SystemError::InvalidTimeStep);
    }
    if count != inverse_masses.len() {
        return Err(SystemError::ParticleCountMismatch);
    }
    if u32::try_from(count).is_err() {
        return Err(SystemError::TooManyParticles);
    }
    let d = x.len().checked_div(count).unwrap_or(0);
    validate_particles(x, d, inverse_masses, 0)?;
    let quick = None::<&fn(usize, usize) -> T>;
    validate_links(x, d, inverse_masses, links, 0, h * h, policy, state, quick)
}

/// The particle checks of [`validate`] over the particles `first ..` of
/// one range (`x`: their `d` coordinates each, `inverse_masses`: theirs),
/// in index order, naming a particle by its global index.
#[inline]
pub(crate) fn validate_particles<T: Real>(
    x: &[T],
    d: usize,
    inverse_masses: &[T],
    first: usize,
) -> Result<(), SystemError> {
    for (k, w) in inverse_masses.iter().enumerate() {
        let particle = first.saturating_add(k);
        if !coords(x, d, k).unwrap_or(&[]).iter().all(|c| c.is_finite()) {
            return Err(SystemError::NonFinitePosition { particle });
        }
        if !finite_non_negative(*w) {
            return Err(SystemError::InvalidInverseMass { particle });
        }
    }
    Ok(())
}

/// The link checks of [`validate`] over the links `first ..` of one range
/// (`x` and `inverse_masses`: every particle), in link order, naming a
/// link by its global index. With a `state` of one entry per link in each
/// array (a stepped frame's link state, `step::link_pass`), each checked
/// link's constants are written there too: `α̃ = α/h²`,
/// `g = 1/(w_i + w_j + α̃)` (0 for a disabled or static link) and the
/// signed rest length ([`LinkConstants::rest`]); an empty `state` writes
/// nothing.
///
/// With `quick` (`|x_j − x_i|²` of two particles, 0 for an index out of
/// range), chunks of links take [`quick_links`] first.
#[inline]
#[allow(clippy::too_many_arguments)]
pub(crate) fn validate_links<T: Real, Q: Fn(usize, usize) -> T>(
    x: &[T],
    d: usize,
    inverse_masses: &[T],
    links: &[Link<T>],
    first: usize,
    h2: T,
    policy: ZeroLength,
    state: LinkConstants<'_, T>,
    quick: Option<&Q>,
) -> Result<(), SystemError> {
    let mut scaled = Scaled::new(h2);
    // The last denominator and its reciprocal (a cloth's links share a
    // few): the same bits as dividing every time.
    let mut last = (T::ZERO, T::ZERO);
    let LinkConstants { alpha, g, rest, ij } = state;
    let check = Check {
        x,
        d,
        inverse_masses,
        first,
        reject: policy == ZeroLength::Reject,
    };
    // Bare metal keeps the one exact loop (code size).
    let Some(len2) = quick.filter(|_| !cfg!(target_os = "none")) else {
        return check.exact(links, 0, &mut scaled, &mut last, (alpha, g, rest), ij);
    };
    // Chunks of links take the quick check; a chunk it does not pass (a
    // link that may fail, or has flags) is checked exactly.
    let (mut a, mut gs, mut r) = (alpha, g, rest);
    for (c, chunk) in links.chunks(QUICK_CHUNK).enumerate() {
        let at = c.saturating_mul(QUICK_CHUNK);
        let len = chunk.len();
        let (la, lg, lr) = (len.min(a.len()), len.min(gs.len()), len.min(r.len()));
        let (ca, ta) = core::mem::take(&mut a).split_at_mut(la);
        let (cg, tg) = core::mem::take(&mut gs).split_at_mut(lg);
        let (cr, tr) = core::mem::take(&mut r).split_at_mut(lr);
        (a, gs, r) = (ta, tg, tr);
        let mut out = (ca, cg, cr);
        let passed = quick_links(
            len2,
            inverse_masses,
            chunk,
            at,
            check.reject,
            h2,
            &mut out,
            ij,
        );
        if !passed {
            check.exact(chunk, at, &mut scaled, &mut last, out, ij)?;
        }
    }
    Ok(())
}

/// What the exact link check of [`validate_links`] reads.
struct Check<'x, T> {
    x: &'x [T],
    d: usize,
    inverse_masses: &'x [T],
    /// The global index of the range's first link.
    first: usize,
    reject: bool,
}

impl<T: Real> Check<'_, T> {
    /// The exact checks of the links `at ..` of the range (`links`, in
    /// order), writing each one's indices and (when `out` has an entry
    /// per link) constants; the first failure is the error.
    #[inline(always)]
    fn exact(
        &self,
        links: &[Link<T>],
        at: usize,
        scaled: &mut Scaled<T>,
        last: &mut (T, T),
        out: (&mut [T], &mut [T], &mut [T]),
        ij: &mut [T],
    ) -> Result<(), SystemError> {
        let (x, d, inverse_masses) = (self.x, self.d, self.inverse_masses);
        let mut slots = out.0.iter_mut().zip(out.1.iter_mut()).zip(out.2.iter_mut());
        for (k, link) in links.iter().enumerate() {
            let k = at.saturating_add(k);
            let constraint = self.first.saturating_add(k);
            // `inverse_masses` has `count` entries: its bounds are the particles'.
            let (Some(&wi), Some(&wj)) = (
                inverse_masses.get(index(link.i)),
                inverse_masses.get(index(link.j)),
            ) else {
                return Err(SystemError::IndexOutOfRange { constraint });
            };
            if link.i == link.j {
                return Err(SystemError::SameParticle { constraint });
            }
            let alpha = validate_link(
                constraint,
                link.rest,
                link.compliance,
                link.flags,
                wi + wj,
                scaled,
                self.reject,
                || {
                    length_squared(
                        coords(x, d, index(link.i)).unwrap_or(&[]),
                        coords(x, d, index(link.j)).unwrap_or(&[]),
                    )
                },
            )?;
            store_indices(ij, k, link.i, link.j);
            if let Some(((a, g), r)) = slots.next() {
                *r = link.signed_rest();
                (*a, *g) = match alpha {
                    Some(alpha) => (alpha, reciprocal(last, wi + wj + alpha)),
                    None => (T::ZERO, T::ZERO),
                };
            }
        }
        Ok(())
    }
}

/// `1/denominator`, kept with its denominator in `last`: a denominator
/// with the last one's bits gets its reciprocal without dividing again
/// (the same bits as dividing every time).
#[inline(always)]
fn reciprocal<T: Real>(last: &mut (T, T), denominator: T) -> T {
    if denominator.raw() != last.0.raw() || last.1 == T::ZERO {
        *last = (denominator, T::ONE / denominator);
    }
    last.1
}

/// Links per chunk of [`quick_links`].
const QUICK_CHUNK: usize = 64;

/// [`validate_links`] for a chunk of at most [`QUICK_CHUNK`] links
/// without flags (links `at ..` of the range; `len2`: `|x_j − x_i|²`):
/// true when every link passes every check, having written each one's
/// indices and constants (into `out` when given) with the exact loop's
/// bits (a division per quotient, which the exact loop's kept quotients
/// equal). False when a link has flags or may fail a check: the exact
/// loop then checks the chunk again from its first link and rewrites what
/// this one wrote (a conservative test: subnormal denominators go to the
/// exact loop too). The reads a link at a time, then the tests and the
/// arithmetic as one branch-free loop the compiler vectorises; the
/// positions read as the caller's `[T; D]` (docs/performance.md, fourth
/// and sixth stages).
#[inline]
#[allow(clippy::too_many_arguments)]
fn quick_links<T: Real>(
    len2: impl Fn(usize, usize) -> T,
    inverse_masses: &[T],
    links: &[Link<T>],
    at: usize,
    reject: bool,
    h2: T,
    out: &mut (&mut [T], &mut [T], &mut [T]),
    ij: &mut [T],
) -> bool {
    if links.len() > QUICK_CHUNK {
        return false;
    }
    // Two passes over the chunk: the reads each link needs (indices,
    // inverse masses, its fields, `|x_j − x_i|²`) into arrays, a link at a
    // time; then the arithmetic and the tests as one flat loop over the
    // arrays, which the compiler vectorises (the divisions too: the same
    // bits as the exact loop's kept quotients, `Scaled` and
    // `reciprocal`, which give the bits of dividing every time).
    let mut wi = [T::ZERO; QUICK_CHUNK];
    let mut wj = [T::ZERO; QUICK_CHUNK];
    let mut rest = [T::ZERO; QUICK_CHUNK];
    let mut compliance = [T::ZERO; QUICK_CHUNK];
    let mut length2 = [T::ONE; QUICK_CHUNK];
    let mut plain = true;
    for (k, (link, ((a, b), (r, (c, l))))) in links
        .iter()
        .zip(
            wi.iter_mut().zip(wj.iter_mut()).zip(
                rest.iter_mut()
                    .zip(compliance.iter_mut().zip(length2.iter_mut())),
            ),
        )
        .enumerate()
    {
        let (i, j) = (index(link.i), index(link.j));
        let (Some(&x), Some(&y)) = (inverse_masses.get(i), inverse_masses.get(j)) else {
            return false;
        };
        (*a, *b, *r, *c) = (x, y, link.rest, link.compliance);
        // No flags, two particles.
        plain &= (link.flags == 0) & (i != j);
        if reject {
            *l = len2(i, j);
        }
        store_indices(ij, at.wrapping_add(k), link.i, link.j);
    }
    // Past the chunk's links (fewer than `QUICK_CHUNK` in the last
    // chunk) the arrays keep weight 0, rest and compliance 0: their tests
    // are masked out by `used`, their results not written.
    let used = links.len();
    let mut alpha = [T::ZERO; QUICK_CHUNK];
    let mut g = [T::ZERO; QUICK_CHUNK];
    let mut ok = plain;
    // `v · 0` is ±0 exactly for a finite `v` (NaN otherwise): the finite
    // test as a float operation, which vectorises.
    let finite = |v: T| v * T::ZERO == T::ZERO;
    for (k, ((a, b), ((r, c), (l, (oa, og))))) in wi
        .iter()
        .zip(&wj)
        .zip(
            rest.iter()
                .zip(&compliance)
                .zip(length2.iter().zip(alpha.iter_mut().zip(g.iter_mut()))),
        )
        .enumerate()
    {
        let (r, c, l) = (*r, *c, *l);
        let weight = *a + *b;
        let moving = weight != T::ZERO;
        let quotient = c / h2;
        let denominator = weight + quotient;
        // `0 < rest < ∞`; `compliance` finite and ≥ 0 (or −0): the exact
        // loop's tests of the bits, as comparisons (false for NaN). Then,
        // for a link that moves a particle, `α̃` and `W + α̃` finite and
        // `W + α̃` normal, and (under `Reject`) a length² of at least the
        // smallest normal. (A NaN length goes to the exact check, which
        // lets it pass.)
        let fields = (r > T::ZERO) & finite(r) & (c >= T::ZERO) & finite(c);
        let solvable = finite(quotient)
            & finite(denominator)
            & (denominator >= T::MIN_POSITIVE)
            & (!reject | (l >= T::MIN_POSITIVE));
        ok &= (k >= used) | (fields & (!moving | solvable));
        *oa = if moving { quotient } else { T::ZERO };
        *og = if moving {
            T::ONE / denominator
        } else {
            T::ZERO
        };
    }
    let (oa, og, or) = out;
    for (dst, src) in [(&mut **oa, &alpha), (&mut **og, &g), (&mut **or, &rest)] {
        for (d, s) in dst.iter_mut().zip(src.iter().take(used)) {
            *d = *s;
        }
    }
    ok
}

/// The one check of [`validate_links`] that depends on the positions,
/// for links that passed every other one at these inverse masses and
/// this h (a step's substeps after its frame's check): the first link
/// (global index, from `first`) under [`ZeroLength::Reject`] that is
/// enabled, moves a particle and joins two coincident ones
/// ([`SystemError::ZeroLength`], as [`validate_links`] reports it).
#[inline]
pub(crate) fn first_zero_length<T: Real>(
    x: &[T],
    d: usize,
    inverse_masses: &[T],
    links: &[Link<T>],
    first: usize,
) -> Option<usize> {
    links.iter().enumerate().find_map(|(k, link)| {
        let (Some(&wi), Some(&wj)) = (
            inverse_masses.get(index(link.i)),
            inverse_masses.get(index(link.j)),
        ) else {
            return None;
        };
        let zero = !link.is_disabled()
            && wi + wj != T::ZERO
            && length_squared(
                coords(x, d, index(link.i)).unwrap_or(&[]),
                coords(x, d, index(link.j)).unwrap_or(&[]),
            ) < T::MIN_POSITIVE;
        zero.then(|| first.saturating_add(k))
    })
}

impl<'a, T: Real> System<'a, T, 3> {
    /// The same 3D system holding constraint groups beyond its links
    /// (bending, volume, tethers, closed meshes), solved after the links in
    /// every iteration (see [`Constraints`]).
    #[must_use]
    pub fn with_constraints(mut self, constraints: Constraints<'a, T>) -> Self {
        self.constraints = constraints;
        self
    }
}

/// The first particle with a NaN or infinite coordinate, if any.
#[inline(never)]
pub(crate) fn first_non_finite<T: Real, const D: usize>(positions: &[[T; D]]) -> Option<usize> {
    positions
        .iter()
        .position(|x| !x.iter().all(|c| c.is_finite()))
}

/// The coordinates of particle `k` in a flat array of `d` per particle
/// (`None` when out of range).
#[inline]
pub(crate) fn coords<T>(positions: &[T], d: usize, k: usize) -> Option<&[T]> {
    positions.get(k.checked_mul(d)?..k.checked_add(1)?.checked_mul(d)?)
}

/// Particles and links over caller-owned memory, between substeps.
///
/// The system borrows the caller's slices: positions (`[T; D]` per particle,
/// m), inverse masses (1/kg) and links. It never allocates; the slices can
/// live on the stack, in a static, or in a fixed-capacity container such as
/// `heapless::Vec` (which dereferences to a slice).
///
/// Between substeps the caller may move particles ([`positions_mut`]) and
/// edit links ([`links_mut`]). [`begin_substep`] validates everything, resets
/// every λ and returns a [`Substep`] that mutably borrows the system: while
/// it lives, nothing can change rest lengths, compliances, inverse masses or
/// h, so the lifecycle rule holds by construction.
///
/// [`positions_mut`]: Self::positions_mut
/// [`links_mut`]: Self::links_mut
/// [`begin_substep`]: Self::begin_substep
///
/// # Examples
///
/// A 3D rope of three particles, stretched, solved for one substep:
///
/// ```
/// use xpbd::{rope, Link, System};
///
/// let mut x = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0]];
/// let w = [0.0, 1.0, 1.0]; // particle 0 pinned
/// let mut links = [Link::default(); 2];
/// let n = rope(&x, 1e-8, &mut links).unwrap(); // rest lengths 1 m, α = 1e-8 m/N
/// assert_eq!(n, 2);
/// x[2] = [3.0, 0.0, 0.0]; // stretch the last link by 1 m
///
/// let mut system = System::new(&mut x, &w, &mut links).unwrap();
/// let mut substep = system.begin_substep(1.0 / 240.0).unwrap();
/// let result = substep.iterate_until(1e-12, 100).unwrap();
/// assert_eq!(result.converged, 1);
/// // Nearly rigid links (α̃ = 1e-8 · 240² ≈ 5.8e-4 /kg): the stretch is gone.
/// let end = substep.positions()[2][0];
/// assert!(end > 2.0 && end < 2.01, "{end}");
/// ```
#[derive(Debug)]
pub struct System<'a, T: Real, const D: usize> {
    pub(crate) positions: &'a mut [[T; D]],
    pub(crate) inverse_masses: &'a [T],
    pub(crate) links: &'a mut [Link<T>],
    pub(crate) zero_length: ZeroLength,
    /// Groups beyond links (3D only: [`System::with_constraints`]).
    pub(crate) constraints: Constraints<'a, T>,
}

impl<'a, T: Real, const D: usize> System<'a, T, D> {
    /// A system over the caller's slices, with [`ZeroLength::Reject`].
    ///
    /// # Errors
    ///
    /// [`SystemError::ParticleCountMismatch`] when the two particle slices
    /// differ in length, [`SystemError::TooManyParticles`] when `u32` indices
    /// cannot address them. Everything else is checked by
    /// [`begin_substep`](Self::begin_substep).
    pub fn new(
        positions: &'a mut [[T; D]],
        inverse_masses: &'a [T],
        links: &'a mut [Link<T>],
    ) -> Result<Self, SystemError> {
        if positions.len() != inverse_masses.len() {
            return Err(SystemError::ParticleCountMismatch);
        }
        if u32::try_from(positions.len()).is_err() {
            return Err(SystemError::TooManyParticles);
        }
        Ok(Self {
            positions,
            inverse_masses,
            links,
            zero_length: ZeroLength::Reject,
            constraints: Constraints::default(),
        })
    }

    /// The same system with another zero-length policy.
    #[must_use]
    pub fn with_zero_length(mut self, policy: ZeroLength) -> Self {
        self.zero_length = policy;
        self
    }

    /// The zero-length policy.
    #[must_use]
    pub fn zero_length(&self) -> ZeroLength {
        self.zero_length
    }

    /// Particle positions (m).
    #[must_use]
    pub fn positions(&self) -> &[[T; D]] {
        self.positions
    }

    /// Particle positions (m), mutable between substeps (for prediction).
    pub fn positions_mut(&mut self) -> &mut [[T; D]] {
        self.positions
    }

    /// Inverse masses (1/kg).
    #[must_use]
    pub fn inverse_masses(&self) -> &[T] {
        self.inverse_masses
    }

    /// The links, with their λ from the last substep.
    #[must_use]
    pub fn links(&self) -> &[Link<T>] {
        self.links
    }

    /// The links, mutable between substeps (rest lengths, compliances).
    pub fn links_mut(&mut self) -> &mut [Link<T>] {
        self.links
    }

    /// The constraint groups beyond links (empty unless set with
    /// [`System::with_constraints`]), with their λ from the last substep.
    #[must_use]
    pub fn constraints(&self) -> &Constraints<'a, T> {
        &self.constraints
    }

    /// The constraint groups, mutable between substeps (rest values,
    /// compliances).
    pub fn constraints_mut(&mut self) -> &mut Constraints<'a, T> {
        &mut self.constraints
    }

    /// Starts a substep of length `h` (s): validates every particle, link
    /// and constraint of the groups, then sets every λ to zero. `h` is the real substep length, never the
    /// render frame time (with n substeps per frame, `h = frame / n`).
    ///
    /// # Errors
    ///
    /// In the order checked: [`SystemError::InvalidTimeStep`],
    /// [`SystemError::NonFinitePosition`], [`SystemError::InvalidInverseMass`]
    /// (naming the particle), [`SystemError::IndexOutOfRange`],
    /// [`SystemError::SameParticle`], [`SystemError::InvalidRestLength`],
    /// [`SystemError::InvalidCompliance`], [`SystemError::UnrepresentableScale`],
    /// and [`SystemError::ZeroLength`] under [`ZeroLength::Reject`] (naming
    /// the link); then, for the groups of [`Constraints`] in their order,
    /// [`SystemError::IndexOutOfRange`], [`SystemError::SameParticle`],
    /// [`SystemError::InvalidRestValue`], [`SystemError::InvalidCompliance`],
    /// [`SystemError::UnrepresentableScale`] (naming the constraint by its
    /// index after the links) and [`SystemError::CapacityTooSmall`] for a
    /// mesh scratch shorter than the particles. On error nothing is
    /// written: positions and every λ stay bit-identical.
    pub fn begin_substep(&mut self, h: T) -> Result<Substep<'_, 'a, T, D>, SystemError> {
        self.begin::<true>(h)
    }

    /// [`begin_substep`](Self::begin_substep), with the groups (`G`) or
    /// for the links only (the crate's links-only paths: the C system
    /// functions, which hold no groups).
    pub(crate) fn begin<const G: bool>(
        &mut self,
        h: T,
    ) -> Result<Substep<'_, 'a, T, D, G>, SystemError> {
        validate(
            self.positions,
            self.inverse_masses,
            self.links,
            h,
            self.zero_length,
            LinkConstants::default(),
        )?;
        if G {
            self.constraints
                .validate(self.links.len(), self.inverse_masses, h * h)?;
        }
        reset_lambdas(self.links);
        if G {
            self.constraints.reset();
        }
        Ok(Substep::new(self, h))
    }

    /// [`begin_substep`](Self::begin_substep) for a stepped substep that
    /// also holds the contacts found after prediction: their λ are reset
    /// with the links'.
    pub(crate) fn begin_substep_with<'s, const G: bool>(
        &'s mut self,
        h: T,
        contacts: ContactGroup<'s, T, D>,
    ) -> Result<Substep<'s, 'a, T, D, G>, SystemError> {
        Ok(self.begin::<G>(h)?.with_contacts(contacts))
    }

    /// Continues a substep that was begun earlier with this `h` (s): no
    /// validation beyond h and no λ reset. For the C ABI, whose
    /// `begin_substep` and `iterate` are separate calls over a caller-owned
    /// struct: h is re-checked on every call, because the struct may have
    /// been copied or forged.
    /// The positions are re-checked too: a C caller may move particles
    /// inside a substep, and a non-finite one is reported naming it before
    /// anything is written (O(particles), a fraction of a sweep).
    /// So is the one relation between counts that `begin_substep`
    /// validated and a C struct re-states on every call: a mesh scratch of
    /// at least one entry per particle when meshes are attached (O(1);
    /// `CapacityTooSmall` as `begin_substep` reports it).
    pub(crate) fn resume_substep<const G: bool>(
        &mut self,
        h: T,
    ) -> Result<Substep<'_, 'a, T, D, G>, SystemError> {
        if !h.is_finite() || h <= T::ZERO {
            return Err(SystemError::InvalidTimeStep);
        }
        if let Some(particle) = first_non_finite(self.positions) {
            return Err(SystemError::NonFinitePosition { particle });
        }
        let meshes = &self.constraints.meshes;
        if G && !meshes.volumes.is_empty() && meshes.scratch.len() < self.positions.len() {
            return Err(SystemError::CapacityTooSmall {
                needed: self.positions.len(),
            });
        }
        Ok(Substep::new(self, h))
    }
}

#[cfg(test)]
#[allow(clippy::indexing_slicing, clippy::unwrap_used, clippy::as_conversions)]
mod tests {
    use super::*;

    /// Values around every test of the link checks: zeros, signs,
    /// subnormals, the smallest normal, huge, infinities and NaN.
    fn specials<T: Real>() -> [T; 12] {
        let inf = T::ONE / T::ZERO;
        [
            T::ONE,
            T::from_f64(0.01),
            T::ZERO,
            -T::ZERO,
            -T::ONE,
            T::MIN_POSITIVE,
            T::MIN_POSITIVE / T::from_f64(8.0),
            T::from_f64(1e30),
            T::from_f64(f64::MAX),
            inf,
            -inf,
            inf * T::ZERO,
        ]
    }

    /// The chunked quick check against the exact loop alone, on chunks
    /// of random links with special values in each field, inverse masses
    /// and positions (coincident particles too), under both zero-length
    /// policies: the same result and, when it passes, the same bits of
    /// every constant and index written.
    fn quick_is_exact<T: Real>() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |m: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 33) as usize % m
        };
        let s = specials::<T>();
        let rounds = if cfg!(miri) { 4 } else { 3000 };
        let mut passed = 0usize;
        for round in 0..rounds {
            let n = 12;
            // Distinct particles but 10 and 11 (coincident).
            let x: Vec<T> = (0..3 * n)
                .map(|k| T::from_f64((k / 3).min(10) as f64 * 0.01 * (k % 3) as f64))
                .collect();
            let mut w = vec![T::ONE; n];
            w[0] = T::ZERO;
            w[1] = T::ZERO;
            // (The interpreter: short chunks, the index writes still.)
            let m = 1 + next(if cfg!(miri) { 40 } else { 150 });
            // Mostly plain links, a few fields special.
            let rare = 1 + round % 40;
            let links: Vec<Link<T>> = (0..m)
                .map(|_| {
                    let pick = |f: T, k: usize| if k % rare == 0 { s[k % 12] } else { f };
                    let past = usize::from(next(200) == 0);
                    let i = next(n + past);
                    // Mostly two particles, rarely 10–11, rarely one.
                    let j = match next(300) {
                        0 => i,
                        1 => 11,
                        _ => (i + 1 + next(n - 1)) % n,
                    };
                    Link {
                        i: i as u32,
                        j: j as u32,
                        rest: pick(T::from_f64(0.01), next(400)),
                        compliance: pick(T::from_f64(1e-6), next(400)),
                        lambda: T::ZERO,
                        flags: u32::from(next(300) == 0),
                    }
                })
                .collect();
            let h2 = [T::from_f64(1e-4), s[next(12)]][usize::from(round % 5 == 0)];
            for policy in [ZeroLength::Reject, ZeroLength::Skip] {
                let run = |quick: bool| {
                    let (mut a, mut g, mut r) = (vec![T::ONE; m], vec![T::ONE; m], vec![T::ONE; m]);
                    let mut ij = vec![T::ZERO; m * index_entries::<T>()];
                    let len2 = |i: usize, j: usize| match (coords(&x, 3, i), coords(&x, 3, j)) {
                        (Some(p), Some(q)) => length_squared(p, q),
                        _ => T::ZERO,
                    };
                    let state = LinkConstants {
                        alpha: &mut a,
                        g: &mut g,
                        rest: &mut r,
                        ij: &mut ij,
                    };
                    let result = validate_links(
                        &x,
                        3,
                        &w,
                        &links,
                        0,
                        h2,
                        policy,
                        state,
                        quick.then_some(&len2),
                    );
                    let bits = |v: &[T]| v.iter().map(|t| t.raw()).collect::<Vec<_>>();
                    (result, [bits(&a), bits(&g), bits(&r), bits(&ij)])
                };
                let (exact, quick) = (run(false), run(true));
                assert_eq!(exact.0, quick.0, "round {round}");
                if exact.0.is_ok() {
                    assert_eq!(exact.1, quick.1, "round {round}");
                    passed += 1;
                }
            }
        }
        // Both outcomes occur.
        assert!(cfg!(miri) || (passed > rounds / 10 && passed < 2 * rounds - rounds / 10));
    }

    #[test]
    fn the_quick_link_check_is_the_exact_one() {
        quick_is_exact::<f64>();
        quick_is_exact::<f32>();
    }
}
