//! What the four-particle in-place kernels (`bend::solve_in_place`,
//! `volume::solve_in_place`) share: gathering an instance's particles,
//! writing its moving ones (the corrected positions, or the old bits put
//! back when the kernel's finite test fails) and turning its rare path's
//! decision into the kernel's return.

use super::volume::{as3, from3};
use super::{Count, Fault, Outcome, Particles};
use crate::real::Real;

/// The positions (as `[T; 3]`) and inverse masses of a bend's or a
/// tet's four particles, in its order; `None` when an index names no
/// particle (or `D ≠ 3`).
#[inline(always)]
pub(crate) fn gather4<T: Real, const D: usize, P: Particles<T, D>>(
    x: &P,
    particles: &[usize; 4],
) -> Option<([[T; 3]; 4], [T; 4])> {
    let mut p = [[T::ZERO; 3]; 4];
    let mut wk = [T::ZERO; 4];
    for ((&k, pk), wk) in particles.iter().zip(p.iter_mut()).zip(wk.iter_mut()) {
        let (xk, w) = x.get(k)?;
        *pk = as3(&xk)?;
        *wk = w;
    }
    Some((p, wk))
}

/// Writes `positions[q]` to particle `particles[q]` for each moving
/// particle (`w_q ≠ 0`), in the tet's order.
#[inline(always)]
pub(crate) fn write_moving<T: Real, const D: usize, P: Particles<T, D>>(
    x: &mut P,
    particles: &[usize; 4],
    positions: &[[T; 3]; 4],
    w: &[T; 4],
) {
    for ((&k, xk), &wk) in particles.iter().zip(positions).zip(w) {
        if wk != T::ZERO {
            x.set(k, from3(*xk));
        }
    }
}

/// What the rare path of a bend's or a tet's in-place kernel (its kind's
/// `settle`) decides.
pub(crate) enum Verdict {
    /// Write the corrected positions and λ'.
    Go,
    /// This particle's position is NaN or infinite.
    Position(usize),
    /// No usable gradient.
    Degenerate,
    /// A corrected position or λ' is not finite.
    NonFinite,
}

impl Verdict {
    /// Any decision but [`Verdict::Go`] as the kernel returns it (the
    /// fault, or the degenerate instance counted); `None` for `Go`.
    #[inline(always)]
    pub(crate) fn settled<T, C: Count<T>>(self, tally: &mut C) -> Option<Result<(), C::Stop>> {
        match self {
            Verdict::Go => None,
            Verdict::Position(k) => Some(Err(tally.fault(Fault::NonFinitePosition(k)))),
            Verdict::Degenerate => Some(tally.count(Outcome::Degenerate)),
            Verdict::NonFinite => Some(Err(tally.fault(Fault::NonFinite))),
        }
    }
}
