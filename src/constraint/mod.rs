//! The constraint abstraction and the one XPBD update every kind shares.
//!
//! # One update for every kind
//!
//! A constraint kind (a distance link, a contact, …) describes one
//! instance: which particles it joins, its constraint function `C(x)` and
//! gradient `∇C`, its compliance α and the set its accumulated multiplier λ
//! is confined to ([`Bound`]). Everything else is shared, in this order
//! (Macklin, Müller, Chentanez 2016, *XPBD*, eq. 18):
//!
//! ```text
//! α̃   = α / h²                               (1/kg; h the real substep)
//! W   = Σ_k w_k |∇_k C|²                     (1/kg; the kind's exact sum)
//! Δλ  = (−C − α̃ λ) / (W + α̃)                 (kg·m)
//! λ'  = clamp of λ + Δλ to the bound          (see `update`)
//! x_k ← x_k + (w_k Δλ) ∇_k C                  (every particle with w_k ≠ 0)
//! ```
//!
//! `update` is the only place the multiplier step is computed;
//! `solve` evaluates an instance, calls `update`, forms every corrected
//! position, checks every result finite and commits all or nothing. The
//! substep that resets λ is `solver::reset_lambdas`, the only λ reset for
//! systems. The 1D seed solver of `docs/spec.md` keeps its own SPEC-exact
//! path ([`seed`]); the colored SIMD kernels keep their own per-kind
//! arithmetic (documented in `colored`).
//!
//! # Kinds
//!
//! | kind | file | particles | bound |
//! |---|---|---|---|
//! | distance link | [`distance`] | 2 | free, or `λ ≤ 0` (tension only) |
//! | contact (plane, sphere, moving capsule, box, heightfield or SDF) | [`contact`], [`moving`], [`field`] | 1 | `λ ≥ 0` |
//! | engine-supplied contact (moving plane) | [`engine_contact`] | 1 | `λ ≥ 0` |
//! | particle–particle contact (self-collision) | [`particle_contact`] | 2 | `λ ≥ 0` |
//! | kinematic attachment | [`attachment`] | 1 (three axes) | free |
//! | skinned max distance, backstop | [`skin`] | 1 (two, in order) | `λ ≤ 0`, `λ ≥ 0` |
//!
//! Adding a kind: one file here implementing `Constraint`, one line in
//! the kinds table (`solver::kinds`, for a group) and the table above,
//! its C item type, its tests (`docs/constraints.md`).

pub mod attachment;
pub mod bend;
pub mod contact;
pub mod distance;
pub mod engine_contact;
pub mod field;
pub(crate) mod in_place;
pub(crate) mod lagged;
pub(crate) mod lanes;
pub mod moving;
pub mod particle_contact;
pub mod pressure;
pub mod seed;
pub mod skin;
pub mod tether;
pub mod volume;

pub(crate) use attachment::Attachment;
pub(crate) use bend::Bend;
pub(crate) use pressure::MeshVolume;
pub(crate) use skin::SkinConstraint;
pub(crate) use tether::Tether;
pub(crate) use volume::Tet;

use crate::real::Real;

/// The set the accumulated multiplier λ of a constraint is confined to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Bound {
    /// Any λ: an equality constraint `C = 0` (a bilateral link).
    Free,
    /// `λ ≤ 0`: the constraint may only pull (a tension-only link, `C ≤ 0`).
    NonPositive,
    /// `λ ≥ 0`: the constraint may only push (a contact, `C ≥ 0`).
    NonNegative,
}

/// Why an instance's own parameters are refused at substep entry (the
/// system adds the constraint index: see `solver::groups`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Invalid {
    /// A particle index ≥ the particle count.
    IndexOutOfRange,
    /// Two of its particle indices are equal.
    SameParticle,
    /// Its rest value (angle, volume, distance, pressure factor) is out of
    /// range.
    RestValue,
    /// Its compliance is NaN, infinite or negative.
    Compliance,
    /// `α/h²` is not finite.
    Scale,
}

/// The particle indices of an instance: each below the particle count
/// (`w.len()`), all distinct.
#[inline(always)]
pub(crate) fn check_particles<T, const N: usize>(p: &[u32; N], w: &[T]) -> Result<(), Invalid> {
    check_indices(p, w.len())
}

/// [`check_particles`] for `count` particles: one copy for every kind.
#[inline(never)]
fn check_indices(p: &[u32], count: usize) -> Result<(), Invalid> {
    if p.iter().any(|&k| distance::index(k) >= count) {
        return Err(Invalid::IndexOutOfRange);
    }
    for (a, pa) in p.iter().enumerate() {
        if p.iter().skip(a.saturating_add(1)).any(|pb| pb == pa) {
            return Err(Invalid::SameParticle);
        }
    }
    Ok(())
}

/// A compliance: finite, ≥ 0, and `α/h²` finite (one copy per `T` for
/// every kind).
#[inline(never)]
pub(crate) fn check_compliance<T: Real>(compliance: T, h2: T) -> Result<(), Invalid> {
    if !crate::real::finite_non_negative(compliance) {
        return Err(Invalid::Compliance);
    }
    if !(compliance / h2).is_finite() {
        return Err(Invalid::Scale);
    }
    Ok(())
}

/// The first of `particles` (indices into the positions `x`) whose
/// position is NaN or infinite: the rare path of an evaluation that found
/// no usable gradient (one copy for every kind: a bend's or a tet's four
/// particles, a closed mesh's particle list).
#[cold]
#[inline(never)]
pub(crate) fn non_finite_particle<T: Real, const D: usize>(
    x: &[[T; D]],
    particles: &[u32],
) -> Option<usize> {
    particles
        .iter()
        .map(|&k| distance::index(k))
        .find(|&k| x.get(k).is_some_and(|p| !p.iter().all(|v| v.is_finite())))
}

/// The particles a kind's own fast sweep reads and writes in place (the
/// host sweeps of `solver::groups` and the colored ranges of
/// `colored::groups`): one particle's position (m) and inverse mass
/// (1/kg), `None` past the particle count, and one position written.
/// The values [`visit`] reads, so a kernel over them gives its bits.
pub(crate) trait Particles<T, const D: usize> {
    /// Particle `k`'s position and inverse mass, `None` when `k` names no
    /// particle.
    fn get(&self, k: usize) -> Option<([T; D], T)>;
    /// Writes particle `k`'s position (nothing when `k` names no particle).
    fn set(&mut self, k: usize, x: [T; D]);
}

/// Where a kind's in-place kernel reports an instance's outcome (a
/// sweep's statistics: `solver::sweep::Tally`): counted where the kernel
/// decides it, so each outcome's counting is compiled at its own site.
pub(crate) trait Count<T> {
    /// Why the sweep stops at this instance.
    type Stop;
    /// Counts the current instance's outcome, or stops (a degenerate
    /// instance under the rejecting policy).
    fn count(&mut self, outcome: Outcome<T>) -> Result<(), Self::Stop>;
    /// The stop a fault of the current instance is.
    fn fault(&self, fault: Fault) -> Self::Stop;
}

/// A system's positions and inverse masses as [`Particles`].
pub(crate) struct InPlace<'x, T, const D: usize> {
    /// Positions (m).
    pub(crate) x: &'x mut [[T; D]],
    /// Inverse masses (1/kg).
    pub(crate) w: &'x [T],
}

impl<'x, T, const D: usize> InPlace<'x, T, D> {
    /// The first `min(x.len(), w.len())` particles: both slices of one
    /// length, so that one comparison proves an index in both (the
    /// particles past the shorter slice are the ones [`Particles::get`]
    /// reports as `None` either way).
    #[inline(always)]
    pub(crate) fn new(x: &'x mut [[T; D]], w: &'x [T]) -> Self {
        let n = x.len().min(w.len());
        let x = match x.get_mut(..n) {
            Some(x) => x,
            None => &mut [],
        };
        let w = w.get(..n).unwrap_or_default();
        Self { x, w }
    }
}

impl<T: Copy, const D: usize> Particles<T, D> for InPlace<'_, T, D> {
    #[inline(always)]
    fn get(&self, k: usize) -> Option<([T; D], T)> {
        Some((*self.x.get(k)?, *self.w.get(k)?))
    }
    #[inline(always)]
    fn set(&mut self, k: usize, x: [T; D]) {
        if let Some(slot) = self.x.get_mut(k) {
            *slot = x;
        }
    }
}

/// `α̃ = α/h²` (1/kg) for a sweep's instances in turn, the last quotient
/// kept with the compliance α it came from: an instance whose compliance
/// has the previous one's bits gets that quotient without dividing again
/// (a division is deterministic: the same operands give the same bits),
/// so a group whose instances share a compliance divides once per sweep
/// instead of once per instance. Valid for one `h²` (`h2`, s²).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Scaled<T> {
    /// h² (s²).
    h2: T,
    /// The compliance of the kept quotient (m/N).
    alpha: T,
    /// `alpha / h2`, exactly as divided.
    tilde: T,
}

impl<T: Real> Scaled<T> {
    /// The quotients of `h2`, starting from `+0 / h2`.
    #[inline(always)]
    pub(crate) fn new(h2: T) -> Self {
        Self {
            h2,
            alpha: T::ZERO,
            tilde: T::ZERO / h2,
        }
    }

    /// `alpha / h2`: [`of`](Self::of) on hosts, the division itself on
    /// bare metal (`target_os = "none"`, less code; the same bits).
    #[inline(always)]
    pub(crate) fn of_on_hosts(&mut self, alpha: T) -> T {
        if cfg!(target_os = "none") {
            alpha / self.h2
        } else {
            self.of(alpha)
        }
    }

    /// `alpha / h2`, the same bits as that division.
    #[inline(always)]
    pub(crate) fn of(&mut self, alpha: T) -> T {
        if alpha.raw() != self.alpha.raw() {
            self.alpha = alpha;
            self.tilde = alpha / self.h2;
        }
        self.tilde
    }
}

/// `Σ v·0` over `values`, added to `acc`: ±0 while every value is finite
/// (`v·0` is ±0 exactly for a finite `v`), NaN as soon as one is not. The
/// in-place kernels' finite test (`finite_sum(0, …) == 0`): a branch-free
/// sum instead of one test per value; no result bit depends on it.
#[inline(always)]
pub(crate) fn finite_sum<T: Real>(acc: T, values: &[T]) -> T {
    values.iter().fold(acc, |acc, &v| acc + v * T::ZERO)
}

/// Whether every value of every part is finite: [`finite_sum`]'s test
/// with the products summed in four independent lanes (value `k` into
/// lane `k mod 4`) and the lanes added at the end, so the additions do not
/// wait on each other in one chain. The same answer: a sum of ±0 is ±0,
/// a NaN anywhere makes it NaN; no result bit depends on it.
#[inline(always)]
pub(crate) fn all_finite<T: Real>(parts: &[&[T]]) -> bool {
    let mut lanes = [T::ZERO; 4];
    let mut k = 0usize;
    for part in parts {
        for &v in *part {
            if let Some(lane) = lanes.get_mut(k & 3) {
                *lane = *lane + v * T::ZERO;
            }
            k = k.wrapping_add(1);
        }
    }
    let [a, b, c, d] = lanes;
    (a + b) + (c + d) == T::ZERO
}

/// The outcome of [`update`]: the step to apply and the new multiplier.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Update<T> {
    /// The multiplier step applied to the positions, Δλ (kg·m).
    pub(crate) delta: T,
    /// The new accumulated multiplier λ' (kg·m).
    pub(crate) lambda: T,
    /// `|C|` (m) as the statistics report it (0 when the bound is active).
    pub(crate) c_abs: T,
    /// `|C + α̃λ|` (m), the XPBD residual (0 when the bound is active).
    pub(crate) residual: T,
    /// The bound clamped λ and the step is zero: nothing to write.
    pub(crate) idle: bool,
}

/// The XPBD update, the one computation of Δλ for every kind:
/// `Δλ = (−C − α̃λ)/(W + α̃)` with `W = Σ w_k|∇_k C|²` (`weight`), then the
/// accumulated λ confined to `bound`:
///
/// - [`Bound::Free`]: `λ' = λ + Δλ`.
/// - [`Bound::NonPositive`]: when `λ + Δλ > 0` the step becomes `Δλ = −λ`
///   (so `λ' = 0`: the constraint is slack and has no residual); the
///   accumulated value is clamped, never each step, which keeps the
///   lifecycle rule.
/// - [`Bound::NonNegative`]: `λ' = max(λ + Δλ, 0)` and the step applied is
///   `λ' − λ`.
///
/// The operations and their order are fixed (no fused multiply-add); they
/// are the arithmetic the golden figures and pinned hashes were made with.
#[inline(always)]
pub(crate) fn update<T: Real>(c: T, lambda: T, weight: T, alpha: T, bound: Bound) -> Update<T> {
    let numerator = -c - alpha * lambda;
    let delta = numerator / (weight + alpha);
    match bound {
        Bound::Free => Update {
            delta,
            lambda: lambda + delta,
            c_abs: c.abs(),
            residual: numerator.abs(),
            idle: false,
        },
        Bound::NonPositive => {
            if lambda + delta > T::ZERO {
                let delta = -lambda;
                Update {
                    delta,
                    lambda: lambda + delta,
                    c_abs: T::ZERO,
                    residual: T::ZERO,
                    idle: delta == T::ZERO,
                }
            } else {
                Update {
                    delta,
                    lambda: lambda + delta,
                    c_abs: c.abs(),
                    residual: numerator.abs(),
                    idle: false,
                }
            }
        }
        Bound::NonNegative => {
            let mut next = lambda + delta;
            if next < T::ZERO {
                next = T::ZERO;
            }
            Update {
                delta: next - lambda,
                lambda: next,
                c_abs: c.abs(),
                residual: numerator.abs(),
                idle: false,
            }
        }
    }
}

/// One instance evaluated at the current positions, ready for [`update`]:
/// `N` particles with their positions, inverse masses and gradients.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Evaluated<T, const D: usize, const N: usize> {
    /// Particle indices (into the positions slice).
    pub(crate) particles: [usize; N],
    /// Their positions before the correction (m).
    pub(crate) x: [[T; D]; N],
    /// Their inverse masses (1/kg).
    pub(crate) w: [T; N],
    /// `∇_k C` per particle (unitless for a length constraint).
    pub(crate) gradient: [[T; D]; N],
    /// The constraint value C (m).
    pub(crate) c: T,
    /// `W = Σ w_k |∇_k C|²` (1/kg), computed the kind's own exact way.
    pub(crate) weight: T,
}

/// What evaluating an instance found.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Evaluation<T, const D: usize, const N: usize> {
    /// Every particle is static (`w = 0`): nothing to solve.
    Static,
    /// The gradient is undefined (coincident particles, a particle at a
    /// sphere's centre): the caller's policy decides.
    Degenerate,
    /// An index names no particle (or no collider for a contact).
    OutOfRange,
    /// This particle's position is NaN or infinite (the caller changed it
    /// after the substep's validation).
    NonFinitePosition(usize),
    /// Ready for the update.
    Active(Evaluated<T, D, N>),
}

/// A constraint kind: what the one update needs to know about an instance.
/// `D` is the dimension, `N` the number of particles an instance joins.
pub(crate) trait Constraint<T: Real, const D: usize, const N: usize> {
    /// Read-only data shared by every instance of a sweep (colliders,
    /// friction, the substep's start positions); `()` for links.
    type Shared<'s>;

    /// The accumulated multiplier λ (kg·m) of the current substep.
    fn lambda(&self) -> T;

    /// Stores the accumulated multiplier (only [`solve`] and the substep's
    /// reset call it).
    fn set_lambda(&mut self, lambda: T);

    /// The set λ is confined to.
    fn bound(&self) -> Bound;

    /// `α̃ = α / h²` (1/kg) for this instance, `h2` the substep length
    /// squared (s²).
    fn alpha(&self, shared: &Self::Shared<'_>, h2: T) -> T;

    /// C, ∇C and W at the positions `x` (m) with inverse masses `w`.
    fn evaluate(&self, x: &[[T; D]], w: &[T], shared: &Self::Shared<'_>) -> Evaluation<T, D, N>;

    /// Whether [`visit`] runs this kind's update through the out-of-line
    /// [`visit_evaluated`], shared by every kind with the same `T`, `D` and
    /// `N` that sets it (the constraint groups: code size), instead of a
    /// copy inlined into this kind's visit (links and contacts: their
    /// sweeps are the hot paths). Only for kinds whose
    /// [`finish`](Self::finish) does nothing; the same operations either way.
    const SHARED_UPDATE: bool = false;

    /// A last position-level rule after the correction (static friction for
    /// contacts): `next` are the corrected positions, `lambda` the new λ.
    #[inline(always)]
    fn finish(
        &self,
        _e: &Evaluated<T, D, N>,
        _lambda: T,
        _next: &mut [[T; D]; N],
        _shared: &Self::Shared<'_>,
    ) {
    }
}

/// What visiting one instance does, computed without writing.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Visit<T, const D: usize, const N: usize> {
    /// Every particle static: nothing to do.
    Static,
    /// The gradient is undefined: nothing to do (the caller's policy).
    Degenerate,
    /// The bound keeps λ where it is: nothing to write, counted as applied.
    Idle,
    /// The correction to commit.
    Apply {
        /// The particles written.
        particles: [usize; N],
        /// Their corrected positions (m).
        x: [[T; D]; N],
        /// The new accumulated multiplier λ' (kg·m).
        lambda: T,
        /// `|C|` (m) before the correction (0 when the bound is active).
        c_abs: T,
        /// `|C + α̃λ|` (m) before the correction (0 when the bound is active).
        residual: T,
    },
}

/// What a sweep counts of one visit (a [`Visit`] without its positions).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Outcome<T> {
    /// Every particle static.
    Static,
    /// The gradient is undefined.
    Degenerate,
    /// The bound kept λ: nothing written, counted as applied.
    Idle,
    /// Applied (or would be): `|C|` and `|C + α̃λ|` (m) before it.
    Applied {
        /// `|C|` (m).
        c_abs: T,
        /// `|C + α̃λ|` (m).
        residual: T,
    },
}

impl<T: Copy, const D: usize, const N: usize> Visit<T, D, N> {
    /// What a sweep counts of this visit.
    #[inline(always)]
    pub(crate) fn outcome(&self) -> Outcome<T> {
        match *self {
            Visit::Static => Outcome::Static,
            Visit::Degenerate => Outcome::Degenerate,
            Visit::Idle => Outcome::Idle,
            Visit::Apply {
                c_abs, residual, ..
            } => Outcome::Applied { c_abs, residual },
        }
    }
}

/// Why an instance cannot be applied (nothing is written).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fault {
    /// An index names no particle.
    OutOfRange,
    /// This particle's position is NaN or infinite.
    NonFinitePosition(usize),
    /// A corrected position or λ would not be finite.
    NonFinite,
}

/// Evaluates one instance at `positions`, computes the [`update`], forms
/// every corrected position (`x_k + (w_k Δλ) ∇_k C`; static particles are
/// not touched, so they keep their bits), applies the kind's
/// [`Constraint::finish`], and checks every result finite. Writes nothing.
#[inline]
pub(crate) fn visit<T: Real, const D: usize, const N: usize, K: Constraint<T, D, N>>(
    item: &K,
    positions: &[[T; D]],
    inverse_masses: &[T],
    shared: &K::Shared<'_>,
    h2: T,
) -> Result<Visit<T, D, N>, Fault> {
    if K::SHARED_UPDATE {
        let e = item.evaluate(positions, inverse_masses, shared);
        return visit_evaluated(e, item.lambda(), item.alpha(shared, h2), item.bound());
    }
    let e = match item.evaluate(positions, inverse_masses, shared) {
        Evaluation::Static => return Ok(Visit::Static),
        Evaluation::Degenerate => return Ok(Visit::Degenerate),
        Evaluation::OutOfRange => return Err(Fault::OutOfRange),
        Evaluation::NonFinitePosition(p) => return Err(Fault::NonFinitePosition(p)),
        Evaluation::Active(e) => e,
    };
    let alpha = item.alpha(shared, h2);
    let u = update(e.c, item.lambda(), e.weight, alpha, item.bound());
    if u.idle {
        return Ok(Visit::Idle);
    }
    let mut next = e.x;
    for ((xk, &wk), gk) in next.iter_mut().zip(&e.w).zip(&e.gradient) {
        if wk == T::ZERO {
            continue;
        }
        let s = wk * u.delta;
        for (v, g) in xk.iter_mut().zip(gk) {
            *v = *v + s * *g;
        }
    }
    item.finish(&e, u.lambda, &mut next, shared);
    if !u.lambda.is_finite() || !next.iter().flatten().all(|v| v.is_finite()) {
        return Err(Fault::NonFinite);
    }
    Ok(Visit::Apply {
        particles: e.particles,
        x: next,
        lambda: u.lambda,
        c_abs: u.c_abs,
        residual: u.residual,
    })
}

/// [`visit`] after the evaluation, for the kinds that set
/// [`Constraint::SHARED_UPDATE`] (`lambda`, `alpha` and `bound` are the
/// instance's): one copy per `T`, `D` and `N`, whatever the kind.
#[inline(never)]
fn visit_evaluated<T: Real, const D: usize, const N: usize>(
    e: Evaluation<T, D, N>,
    lambda: T,
    alpha: T,
    bound: Bound,
) -> Result<Visit<T, D, N>, Fault> {
    let e = match e {
        Evaluation::Static => return Ok(Visit::Static),
        Evaluation::Degenerate => return Ok(Visit::Degenerate),
        Evaluation::OutOfRange => return Err(Fault::OutOfRange),
        Evaluation::NonFinitePosition(p) => return Err(Fault::NonFinitePosition(p)),
        Evaluation::Active(e) => e,
    };
    let u = update(e.c, lambda, e.weight, alpha, bound);
    if u.idle {
        return Ok(Visit::Idle);
    }
    let mut next = e.x;
    for ((xk, &wk), gk) in next.iter_mut().zip(&e.w).zip(&e.gradient) {
        if wk == T::ZERO {
            continue;
        }
        let s = wk * u.delta;
        for (v, g) in xk.iter_mut().zip(gk) {
            *v = *v + s * *g;
        }
    }
    if !u.lambda.is_finite() || !next.as_flattened().iter().all(|v| v.is_finite()) {
        return Err(Fault::NonFinite);
    }
    Ok(Visit::Apply {
        particles: e.particles,
        x: next,
        lambda: u.lambda,
        c_abs: u.c_abs,
        residual: u.residual,
    })
}

/// [`visit`], then commits the correction: the positions and λ written
/// together, or (on a fault) nothing. The one place an instance's
/// correction is applied, for every kind, except the host sweeps of bends,
/// tets and tethers: their kinds' `solve_in_place` kernels spell out these
/// same operations for one kind each (the same bits, outcomes and faults;
/// `solver::sweep`'s `in_place` tests compare them), reading and writing
/// the particles in place (docs/performance-kinds.md).
#[inline(always)]
pub(crate) fn solve<T: Real, const D: usize, const N: usize, K: Constraint<T, D, N>>(
    item: &mut K,
    positions: &mut [[T; D]],
    inverse_masses: &[T],
    shared: &K::Shared<'_>,
    h2: T,
) -> Result<Outcome<T>, Fault> {
    let v = visit(item, positions, inverse_masses, shared, h2)?;
    if let Visit::Apply {
        particles,
        x,
        lambda,
        ..
    } = &v
    {
        for (p, x) in particles.iter().zip(x) {
            if let Some(slot) = positions.get_mut(*p) {
                *slot = *x;
            }
        }
        item.set_lambda(*lambda);
    }
    Ok(v.outcome())
}

/// The one λ store of a kind's own solve-and-commit: `*slot ← lambda`,
/// once every corrected position is known finite. Only the kinds the
/// kinds table declares call it (`solver::kinds`: the fast kernels, whose
/// Δλ is [`update`]'s, and the exceptions: a closed mesh, with no fixed
/// particle count, and an attachment, whose three axes go through
/// [`visit`] and commit together); links' and collider contacts' fast
/// kernels too (`tests/architecture.rs` checks the list).
#[inline(always)]
pub(crate) fn store_lambda<L>(slot: &mut L, lambda: L) {
    *slot = lambda;
}

/// [`solve`]'s commit, for the group sweeps (`solver::groups`): writes the
/// corrected positions of an applied visit and returns its new λ (one copy
/// per `T`, `D` and `N`, whatever the kind).
#[inline(never)]
pub(crate) fn commit<T: Real, const D: usize, const N: usize>(
    v: &Visit<T, D, N>,
    positions: &mut [[T; D]],
) -> Option<T> {
    let Visit::Apply {
        particles,
        x,
        lambda,
        ..
    } = v
    else {
        return None;
    };
    for (p, x) in particles.iter().zip(x) {
        if let Some(slot) = positions.get_mut(*p) {
            *slot = *x;
        }
    }
    Some(*lambda)
}
