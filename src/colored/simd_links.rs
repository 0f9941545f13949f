//! The SIMD link system over caller memory ([`SimdLinks`]), its substep
//! ([`SimdLinksSubstep`]) and the per-color jobs ([`ColorJobs`],
//! [`ColorJob`]).

use core::marker::PhantomData;

use super::{ix, job_range, solve_range, ColoredLinks, Isa, Particles, RawLinks, RawParticles};
#[cfg(doc)]
use super::{Aos, Soa};
use crate::constraint::distance::{validate_link, Link};
use crate::constraint::Scaled;
use crate::math::length_squared;
use crate::real::{finite_non_negative, Real};
use crate::solver::{Convergence, SweepStats, SystemError, ZeroLength};

/// A colored 3D system over caller memory: particles ([`Soa`] or [`Aos`])
/// and links in colored order ([`ColoredLinks`]).
///
/// # Examples
///
/// A rope of 5 particles, even/odd colored, one substep:
///
/// ```
/// use xpbd::{color_order, fill_colored_links, rope, rope_coloring, Aos,
///            ColoredLinks, SimdLinks, Link};
///
/// let mut x = [[0.0_f64, 0.0, 0.0], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0], [3.0, 0.0, 0.0], [4.0, 0.0, 0.0]];
/// let w = [0.0, 1.0, 1.0, 1.0, 1.0];
/// let mut links = [Link::default(); 4];
/// rope(&x, 1e-6, &mut links).unwrap();
/// x[4][0] = 4.5; // stretch the last link
///
/// let mut colors = [0u32; 4];
/// let count = rope_coloring(4, false, &mut colors).unwrap(); // 2 colors
/// let (mut order, mut starts) = ([0u32; 4], [0usize; 3]);
/// color_order(&colors, count, &mut starts, &mut order).unwrap();
/// let (mut i, mut j) = ([0u32; 4], [0u32; 4]);
/// let (mut rest, mut comp, mut lambda) = ([0.0; 4], [0.0; 4], [0.0; 4]);
/// let (mut alpha, mut g) = ([0.0; 4], [0.0; 4]); // per-substep scratch
/// fill_colored_links(&links, &order, &mut i, &mut j, &mut rest, &mut comp, &mut lambda).unwrap();
///
/// let mut stamp = [0u32; 5]; // scratch for the proper-coloring check
/// let mut sys = SimdLinks::new(
///     Aos { positions: &mut x, w: &w },
///     ColoredLinks { i: &i, j: &j, rest: &rest, compliance: &comp,
///                    lambda: &mut lambda, alpha: &mut alpha, inv_denominator: &mut g,
///                    color_starts: &starts },
///     &mut stamp,
/// ).unwrap();
/// let mut sub = sys.begin_substep(1.0 / 60.0).unwrap();
/// let r = sub.iterate_until(1e-9, 200).unwrap();
/// assert_eq!(r.converged, 1);
/// ```
#[derive(Debug)]
pub struct SimdLinks<'a, T: Real, P: Particles<T>> {
    particles: P,
    links: ColoredLinks<'a, T>,
    zero_length: ZeroLength,
    isa: Isa,
}

impl<'a, T: Real, P: Particles<T>> SimdLinks<'a, T, P> {
    /// A SIMD link system, with [`ZeroLength::Reject`] and the kernels of
    /// this machine ([`Isa::detect`]). Checks once what the
    /// kernel relies on: all arrays consistent in length, every index below
    /// the particle count, `i ≠ j`, the color boundaries, and that the
    /// coloring is proper (`stamp`: scratch, one `u32` per particle).
    ///
    /// # Errors
    ///
    /// [`SystemError::ParticleCountMismatch`], [`SystemError::TooManyParticles`],
    /// [`SystemError::InvalidShape`] (array lengths, boundaries, or an
    /// improper coloring), [`SystemError::IndexOutOfRange`],
    /// [`SystemError::SameParticle`].
    pub fn new(
        particles: P,
        links: ColoredLinks<'a, T>,
        stamp: &mut [u32],
    ) -> Result<Self, SystemError> {
        Self::new_with_isa(particles, links, stamp, Isa::detect())
    }

    /// As [`new`](Self::new), with the kernels of `isa` (no detection: for
    /// a caller that builds systems often and detected once). Every
    /// [`Isa`] gives the same bits.
    ///
    /// # Errors
    ///
    /// As [`new`](Self::new).
    pub fn new_with_isa(
        particles: P,
        links: ColoredLinks<'a, T>,
        stamp: &mut [u32],
        isa: Isa,
    ) -> Result<Self, SystemError> {
        let n = particles
            .count()
            .ok_or(SystemError::ParticleCountMismatch)?;
        if u32::try_from(n).is_err() {
            return Err(SystemError::TooManyParticles);
        }
        let m = links.i.len();
        if [
            links.j.len(),
            links.rest.len(),
            links.compliance.len(),
            links.lambda.len(),
            links.alpha.len(),
            links.inv_denominator.len(),
        ]
        .iter()
        .any(|&l| l != m)
        {
            return Err(SystemError::InvalidShape);
        }
        crate::colored::coloring::check_coloring(links.i, links.j, links.color_starts, n, stamp)?;
        Ok(Self {
            particles,
            links,
            zero_length: ZeroLength::Reject,
            isa,
        })
    }

    /// The same system with the kernels of `isa` (e.g.
    /// `Isa::detect().restrict(Isa::AVX2_BIT)`, or [`Isa::BASELINE`]): the
    /// same bits, another speed.
    #[must_use]
    pub fn with_isa(mut self, isa: Isa) -> Self {
        self.isa = isa;
        self
    }

    /// The kernels this system runs (see [`Isa`]).
    #[must_use]
    pub fn isa(&self) -> Isa {
        self.isa
    }

    /// The same system with another zero-length policy.
    #[must_use]
    pub fn with_zero_length(mut self, policy: ZeroLength) -> Self {
        self.zero_length = policy;
        self
    }

    /// The particles (positions may be changed between substeps).
    pub fn particles_mut(&mut self) -> &mut P {
        &mut self.particles
    }

    /// The particles.
    #[must_use]
    pub fn particles(&self) -> &P {
        &self.particles
    }

    /// λ of every link (kg·m), in colored order.
    #[must_use]
    pub fn lambdas(&self) -> &[T] {
        self.links.lambda
    }

    /// Number of colors.
    #[must_use]
    pub fn color_count(&self) -> usize {
        self.links.color_starts.len().saturating_sub(1)
    }

    /// Starts a substep of length `h` (s): validates every particle (finite
    /// position, finite non-negative inverse mass) and link (rest length,
    /// compliance, scale, zero length under [`ZeroLength::Reject`]) exactly
    /// as [`crate::System::begin_substep`] does, then writes `α̃ = α/h²` into
    /// `alpha` and sets every λ to 0.
    ///
    /// # Errors
    ///
    /// As [`crate::System::begin_substep`] (link indices are colored
    /// positions). Nothing is written on error.
    pub fn begin_substep(&mut self, h: T) -> Result<SimdLinksSubstep<'_, 'a, T, P>, SystemError> {
        if !h.is_finite() || h <= T::ZERO {
            return Err(SystemError::InvalidTimeStep);
        }
        let w = self.particles.inverse_masses();
        for (particle, &wk) in w.iter().enumerate() {
            let x = self
                .particles
                .position(particle)
                .ok_or(SystemError::ParticleCountMismatch)?;
            if !x.iter().all(|c| c.is_finite()) {
                return Err(SystemError::NonFinitePosition { particle });
            }
            if !finite_non_negative(wk) {
                return Err(SystemError::InvalidInverseMass { particle });
            }
        }
        let h2 = h * h;
        let mut scaled = Scaled::new(h2);
        let l = &self.links;
        for (constraint, (((&i, &j), &rest), &compliance)) in
            l.i.iter()
                .zip(l.j)
                .zip(l.rest)
                .zip(l.compliance)
                .enumerate()
        {
            let (Some(&wi), Some(&wj), Some(xi), Some(xj)) = (
                w.get(ix(i)),
                w.get(ix(j)),
                self.particles.position(ix(i)),
                self.particles.position(ix(j)),
            ) else {
                return Err(SystemError::IndexOutOfRange { constraint });
            };
            // The one link check of every system; a negative rest length
            // is a tension-only link, a zero one a disabled link
            // (`ColoredLinks::rest`).
            let flags = if rest == T::ZERO {
                Link::<T>::DISABLED
            } else if rest < T::ZERO {
                Link::<T>::TENSION_ONLY
            } else {
                0
            };
            validate_link(
                constraint,
                rest.abs(),
                compliance,
                flags,
                wi + wj,
                &mut scaled,
                self.zero_length == ZeroLength::Reject,
                || length_squared(&xi, &xj),
            )
            .map(|_| ())?;
        }
        let links = &mut self.links;
        for ((((a, g), &c), (&i, &j)), &rest) in links
            .alpha
            .iter_mut()
            .zip(links.inv_denominator.iter_mut())
            .zip(links.compliance)
            .zip(links.i.iter().zip(links.j))
            .zip(links.rest.iter())
        {
            // A disabled link (rest 0): α̃ = 0 and g = 0, which the
            // kernels skip (its compliance is not validated).
            let disabled = rest == T::ZERO;
            *a = if disabled { T::ZERO } else { c / h2 };
            let ws =
                w.get(ix(i)).copied().unwrap_or(T::ZERO) + w.get(ix(j)).copied().unwrap_or(T::ZERO);
            *g = if ws == T::ZERO || disabled {
                T::ZERO
            } else {
                T::ONE / (ws + *a)
            };
        }
        crate::solver::reset_lambdas(links.lambda);
        Ok(SimdLinksSubstep { system: self, h })
    }
}

/// A colored substep in progress: h fixed, every λ started at zero, α̃
/// computed; the system is borrowed until it is dropped.
#[derive(Debug)]
pub struct SimdLinksSubstep<'s, 'a, T: Real, P: Particles<T>> {
    system: &'s mut SimdLinks<'a, T, P>,
    h: T,
}

impl<T: Real, P: Particles<T>> SimdLinksSubstep<'_, '_, T, P> {
    /// The substep length h (s).
    #[must_use]
    pub fn h(&self) -> T {
        self.h
    }

    /// Number of colors.
    #[must_use]
    pub fn color_count(&self) -> usize {
        self.system.color_count()
    }

    /// The links `begin .. end` of color `c` (colored positions).
    #[must_use]
    pub fn color_range(&self, c: usize) -> Option<(usize, usize)> {
        let s = self.system.links.color_starts;
        Some((*s.get(c)?, *s.get(c.checked_add(1)?)?))
    }

    fn raw(&mut self) -> (P::Raw, RawLinks<T>) {
        let s = &mut *self.system;
        let l = &mut s.links;
        let links = RawLinks {
            i: l.i.as_ptr(),
            j: l.j.as_ptr(),
            stride: 1,
            rest: l.rest.as_ptr(),
            alpha: l.alpha.as_ptr(),
            g: l.inv_denominator.as_ptr(),
            lambda: l.lambda.as_mut_ptr(),
            w: s.particles.inverse_masses().as_ptr(),
            lazy: false,
        };
        (s.particles.raw(), links)
    }

    /// One solver iteration: every color in order (see the module
    /// documentation for the equations).
    ///
    /// # Errors
    ///
    /// [`SystemError::ZeroLength`] (under [`ZeroLength::Reject`]) or
    /// [`SystemError::InvalidResult`] naming the colored position of the
    /// first link that could not be applied: that link is untouched, the
    /// rest of its color was applied, the later colors were not run.
    pub fn iterate(&mut self) -> Result<SweepStats<T>, SystemError> {
        let (policy, isa) = (self.system.zero_length, self.system.isa);
        let (p, l) = self.raw();
        let mut stats = SweepStats::default();
        for w in self.system.links.color_starts.windows(2) {
            let (Some(&b), Some(&e)) = (w.first(), w.get(1)) else {
                continue;
            };
            // SAFETY: `new` checked every index below the particle count,
            // the boundaries ascending within the link arrays, and the
            // coloring proper; `&mut self` excludes any other access.
            stats = stats.merge(unsafe { solve_range(p, l, b, e, policy, isa)? });
        }
        Ok(stats)
    }

    /// Iterates until a sweep's `max |C + α̃λ|` is at most `tolerance` (m)
    /// or `max_iterations` sweeps ran.
    ///
    /// # Errors
    ///
    /// [`SystemError::InvalidTolerance`], or those of
    /// [`iterate`](Self::iterate).
    pub fn iterate_until(
        &mut self,
        tolerance: T,
        max_iterations: u32,
    ) -> Result<Convergence<T>, SystemError> {
        if !finite_non_negative(tolerance) {
            return Err(SystemError::InvalidTolerance);
        }
        let mut result = Convergence::default();
        while result.iterations < max_iterations {
            result.last = self.iterate()?;
            result.iterations = result.iterations.saturating_add(1);
            if result.last.max_residual <= tolerance {
                result.converged = 1;
                break;
            }
        }
        Ok(result)
    }

    /// The jobs of color `color` split into `jobs` disjoint ranges
    /// ([`job_range`]) for an engine's job system: each [`ColorJob`] is
    /// `Send` and can run on any thread, all of them concurrently. Run every
    /// job of color 0, wait for all, then color 1, and so on: that is one
    /// iteration, bit-identical to [`iterate`](Self::iterate) whatever
    /// `jobs` is. The jobs borrow the substep, so two colors can never be in
    /// flight at once.
    ///
    /// # Errors
    ///
    /// [`SystemError::InvalidShape`] when `color ≥ color_count()` or
    /// `jobs == 0`.
    pub fn jobs(
        &mut self,
        color: usize,
        jobs: usize,
    ) -> Result<ColorJobs<'_, T, P::Raw>, SystemError> {
        let (begin, end) = self.color_range(color).ok_or(SystemError::InvalidShape)?;
        if jobs == 0 {
            return Err(SystemError::InvalidShape);
        }
        let (policy, isa) = (self.system.zero_length, self.system.isa);
        let (p, l) = self.raw();
        Ok(ColorJobs {
            p,
            l,
            policy,
            isa,
            begin,
            end,
            next: 0,
            jobs,
            _borrow: PhantomData,
        })
    }

    /// The links with their current λ, in colored order.
    #[must_use]
    pub fn lambdas(&self) -> &[T] {
        self.system.links.lambda
    }

    /// The particles.
    #[must_use]
    pub fn particles(&self) -> &P {
        &self.system.particles
    }
}

/// The disjoint jobs of one color (an iterator of [`ColorJob`]).
pub struct ColorJobs<'s, T, R> {
    p: R,
    l: RawLinks<T>,
    policy: ZeroLength,
    isa: Isa,
    begin: usize,
    end: usize,
    next: usize,
    jobs: usize,
    _borrow: PhantomData<&'s mut ()>,
}

impl<'s, T: Real, R: RawParticles<T>> Iterator for ColorJobs<'s, T, R> {
    type Item = ColorJob<'s, T, R>;
    fn next(&mut self) -> Option<Self::Item> {
        let (begin, end) = job_range(self.begin, self.end, self.next, self.jobs)?;
        self.next = self.next.saturating_add(1);
        Some(ColorJob {
            p: self.p,
            l: self.l,
            policy: self.policy,
            isa: self.isa,
            begin,
            end,
            _borrow: PhantomData,
        })
    }
}

/// One range of one color: run it on any thread with [`run`](Self::run).
pub struct ColorJob<'s, T, R> {
    p: R,
    l: RawLinks<T>,
    policy: ZeroLength,
    isa: Isa,
    begin: usize,
    end: usize,
    _borrow: PhantomData<&'s mut ()>,
}

impl<T: Real, R: RawParticles<T>> ColorJob<'_, T, R> {
    /// The colored link positions `begin .. end` this job solves.
    #[must_use]
    pub fn range(&self) -> (usize, usize) {
        (self.begin, self.end)
    }

    /// Solves this job's links (consumes the job: each range runs once).
    ///
    /// # Errors
    ///
    /// As [`SimdLinksSubstep::iterate`], for this range.
    pub fn run(self) -> Result<SweepStats<T>, SystemError> {
        // SAFETY: the range lies within one color (from `job_range` over the
        // color's boundaries, checked at construction), jobs of one
        // `ColorJobs` are disjoint, the coloring is proper (checked at
        // construction) so their particles are disjoint, and the jobs borrow
        // the substep mutably, so nothing else touches the system meanwhile.
        unsafe { solve_range(self.p, self.l, self.begin, self.end, self.policy, self.isa) }
    }
}
