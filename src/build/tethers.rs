//! Tethers whose maximum distance is measured along the links
//! ([`tethers_along_links`]): the geodesic option of Kim, Chentanez, Müller
//! 2012, *Long Range Attachments* (the Euclidean builder is
//! [`tethers`](crate::tethers)).
//!
//! # The distance
//!
//! For each particle, `d` (m) is the length of the shortest path from an
//! anchor to it over the links, each link counting as `|x_j − x_i|` in the
//! rest shape `x` (the positions passed, summed from the anchor outwards:
//! `d_j = d_i + |x_j − x_i|`). A folded or curved cloth is held at its
//! length along the cloth, not at the shorter straight line through the
//! fold, so the rest shape is never pulled and a fold can open.
//!
//! Found by Bellman–Ford relaxation over the link list in caller scratch
//! (one `T` and one `u32` per particle, no allocation): passes over every
//! link in slice order, both directions, until a pass changes nothing (at
//! most `n` passes; a rope or cloth needs about its diameter in links,
//! fewer when the links are in builder order). Floating-point addition is
//! monotone, so the result is the exact minimum over paths of the
//! path sums as written above, independent of the link order: ties go to
//! the first anchor in `anchors`.

use crate::constraint::distance::index;
use crate::constraint::tether::check_builder_inputs;
use crate::math::length_squared;
use crate::real::Real;
use crate::{Link, SystemError, Tether};

/// `(d, rank)` of `a` is better than `(d', rank')`: shorter, or as long
/// from an earlier anchor.
#[inline]
fn better<T: Real>(d: T, rank: u32, than_d: T, than_rank: u32) -> bool {
    than_rank == u32::MAX || d < than_d || (d == than_d && rank < than_rank)
}

/// Builds one tether per particle of `x` that moves (`w ≠ 0`), is not
/// itself an anchor and is reached from an anchor along `links`, to the
/// anchor nearest **along the links** (see the module documentation; the
/// first of equals), with `d_max` that path length. Particles no link path
/// reaches get no tether. Writes `tethers[..n]`, in particle order, and
/// returns `n`.
///
/// `distance` and `nearest` are scratch (at least `x.len()` entries each;
/// overwritten once the inputs are valid, also when `tethers` then turns
/// out too short): on success `distance[k]` is particle `k`'s path length
/// (m) and `nearest[k]` the position in `anchors` of its anchor, or
/// `u32::MAX` when unreached.
///
/// # Errors
///
/// As [`tethers`](crate::tethers) (`ParticleCountMismatch`,
/// `InvalidShape` for no anchor or one naming no particle,
/// `TooManyParticles`, `InvalidCompliance`, `NonFinitePosition`,
/// `CapacityTooSmall` for `tethers` or the scratch), plus
/// [`SystemError::IndexOutOfRange`] / [`SystemError::SameParticle`] naming
/// a bad link and [`SystemError::Degenerate`] naming a link whose length
/// in `x` is not finite. `tethers` is written only on success.
#[allow(clippy::too_many_arguments)]
pub fn tethers_along_links<T: Real, const D: usize>(
    x: &[[T; D]],
    w: &[T],
    links: &[Link<T>],
    anchors: &[u32],
    compliance: T,
    distance: &mut [T],
    nearest: &mut [u32],
    tethers: &mut [Tether<T>],
) -> Result<usize, SystemError> {
    let n = x.len();
    check_builder_inputs(x, w, anchors, compliance)?;
    for (constraint, l) in links.iter().enumerate() {
        let (Some(xi), Some(xj)) = (x.get(index(l.i)), x.get(index(l.j))) else {
            return Err(SystemError::IndexOutOfRange { constraint });
        };
        if l.i == l.j {
            return Err(SystemError::SameParticle { constraint });
        }
        if !length_squared(xi, xj).is_finite() {
            return Err(SystemError::Degenerate { constraint });
        }
    }
    let (Some(distance), Some(nearest)) = (distance.get_mut(..n), nearest.get_mut(..n)) else {
        return Err(SystemError::CapacityTooSmall { needed: n });
    };

    distance.fill(T::ZERO);
    nearest.fill(u32::MAX);
    for (rank, &a) in anchors.iter().enumerate() {
        // `anchors.len()` may exceed u32 only with repeats; those never win.
        let rank = u32::try_from(rank).unwrap_or(u32::MAX - 1);
        if let Some(slot) = nearest.get_mut(index(a)) {
            if *slot == u32::MAX {
                *slot = rank;
            }
        }
    }
    // Relax until a pass changes nothing; a shortest path has at most
    // n − 1 links, so n passes always suffice.
    for _ in 0..n {
        let mut changed = false;
        for l in links {
            let (i, j) = (index(l.i), index(l.j));
            let (Some(&xi), Some(&xj)) = (x.get(i), x.get(j)) else {
                continue;
            };
            let len = length_squared(&xi, &xj).sqrt();
            for (from, to) in [(i, j), (j, i)] {
                let (Some(&rf), Some(&df)) = (nearest.get(from), distance.get(from)) else {
                    continue;
                };
                if rf == u32::MAX {
                    continue;
                }
                let d = df + len;
                let (Some(rt), Some(dt)) = (nearest.get(to).copied(), distance.get(to).copied())
                else {
                    continue;
                };
                if better(d, rf, dt, rt) {
                    if let (Some(r), Some(dd)) = (nearest.get_mut(to), distance.get_mut(to)) {
                        *r = rf;
                        *dd = d;
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            break;
        }
    }

    let is_anchor = |k: usize| anchors.iter().any(|&a| index(a) == k);
    let tethered = |k: usize| {
        w.get(k).is_some_and(|&wk| wk != T::ZERO)
            && nearest.get(k).is_some_and(|&r| r != u32::MAX)
            && !is_anchor(k)
    };
    let needed = (0..n).filter(|&k| tethered(k)).count();
    if tethers.len() < needed {
        return Err(SystemError::CapacityTooSmall { needed });
    }
    for (k, slot) in (0..n).filter(|&k| tethered(k)).zip(tethers.iter_mut()) {
        let rank = nearest.get(k).copied().unwrap_or(0);
        let anchor = anchors.get(index(rank)).copied().unwrap_or(0);
        let d = distance.get(k).copied().unwrap_or(T::ZERO);
        // `k` < the particle count, which fits `u32` (checked above).
        *slot = Tether::new(u32::try_from(k).unwrap_or(u32::MAX), anchor, d, compliance);
    }
    Ok(needed)
}
