//! The lagged kinds' ranges of [`RawGroups`] (attachments, skinned
//! constraints: one particle each): over the AoS positions, or over the
//! SoA frame's coordinate arrays through a window of each instance's one
//! particle, after the kind's runs of `LANES` at once when it has them
//! (`Lagged::run`).

use super::{part, part_ref, RawGroup, RawGroups, IN_PLACE};
use crate::colored::{at_level, Isa};
use crate::constraint::lagged::Motion;
use crate::constraint::lagged::{solve_lagged, solve_lagged_one, Lagged};
use crate::constraint::lanes::{Widen, LANES};
use crate::constraint::skin::lanes::{compute, Gathered, Solved};
use crate::real::Real;
use crate::solver::{count_visit, Stop, SweepStats};

impl<T: Real, const D: usize> RawGroups<T, D> {
    /// Solves instances `begin .. end` of a lagged group `items` (each a
    /// color of its own).
    ///
    /// # Safety
    /// As [`run`](Self::run): no other range runs meanwhile (a lagged
    /// range forms a slice over every particle); `items` is one of the
    /// views' groups.
    pub(super) unsafe fn lagged<K: Lagged<T>>(
        &self,
        items: RawGroup<K>,
        begin: usize,
        end: usize,
    ) -> Result<SweepStats<T>, Stop> {
        let mut stats = SweepStats::default();
        if begin >= end {
            return Ok(stats);
        }
        // SAFETY: every buffer is valid for its length and, by the caller's
        // contract, nothing else accesses them while this range runs; the
        // buffers do not overlap, so the mutable slices do not alias.
        let (w, items) = unsafe { (part_ref(self.w, self.n), part(items.p, items.len)) };
        let Some(items) = items.get_mut(begin..end) else {
            return Ok(stats);
        };
        let at = self.motion;
        if let Some(xyz) = self.xyz.filter(|_| IN_PLACE) {
            // The SoA frame's coordinate arrays: each instance on a copy
            // naming its particle 0, over a window of that one particle
            // (the same operations on the same values: the bits of the
            // AoS arrays), its λ and the particle copied back.
            // SAFETY: as above; the coordinate arrays hold `n` entries
            // each and do not overlap the other buffers.
            let mut coords = xyz.map(|c| unsafe { part(c, self.n) });
            let mut k = 0;
            while let Some(rest) = items.get_mut(k..) {
                // A kind's lane path first (`LANES` instances at once).
                if let Some(outcomes) = K::run(rest, &mut coords, w, (at, self.h2), &self.lanes) {
                    for (t, o) in outcomes.into_iter().enumerate() {
                        let index = begin.saturating_add(k).saturating_add(t);
                        count_visit(&mut stats, Ok(o), index, self.policy)?;
                    }
                    k = k.saturating_add(LANES);
                    continue;
                }
                let Some(a) = rest.first_mut() else {
                    break;
                };
                let p = usize::try_from(a.particle()).unwrap_or(usize::MAX);
                let v = match w.get(p).filter(|_| p < self.n) {
                    Some(&wp) => {
                        let mut x = [T::ZERO; D];
                        for (v, c) in x.iter_mut().zip(coords.iter()) {
                            *v = c.get(p).copied().unwrap_or(T::ZERO);
                        }
                        let v = solve_lagged_one(a, &mut x, wp, at, self.h2);
                        for (c, v) in coords.iter_mut().zip(x) {
                            if let Some(slot) = c.get_mut(p) {
                                *slot = v;
                            }
                        }
                        v
                    }
                    // Out of range: empty arrays, the fault the AoS
                    // arrays give.
                    None => solve_lagged::<T, D, K>(a, &mut [], &[], at, self.h2),
                };
                count_visit(&mut stats, v, begin.saturating_add(k), self.policy)?;
                k = k.saturating_add(1);
            }
            return Ok(stats);
        }
        if self.x.is_null() {
            // Coordinate arrays where the lagged kinds do not read them
            // (never: both are the hosts').
            return Err(Stop::OutOfRange(begin));
        }
        // SAFETY: as above.
        let x = unsafe { part(self.x, self.n) };
        for (k, a) in items.iter_mut().enumerate() {
            let v = solve_lagged(a, x, w, at, self.h2);
            count_visit(&mut stats, v, begin.saturating_add(k), self.policy)?;
        }
        Ok(stats)
    }
}

at_level! {
    /// The skinned constraints' lanes ([`compute`]) at the widest vector
    /// level of `isa`.
    fn skin_at[T: Real](g: &Gathered<T>, at: Motion<T>, h2: T) -> Solved<T> = compute;
}

impl Widen for Isa {
    #[inline(always)]
    fn skin<T: Real>(&self, g: &Gathered<T>, at: Motion<T>, h2: T) -> Solved<T> {
        skin_at(*self, g, at, h2)
    }
}

#[cfg(test)]
mod tests {
    use crate::colored::Isa;
    use crate::constraint::skin::lanes::tests::agrees;

    /// The skinned constraints' lanes at every vector level this machine
    /// has: 8 scalar solves' bits, or nothing written.
    #[test]
    #[cfg_attr(miri, ignore)] // safe Rust but for the levels' copies: native only
    fn skin_lanes_give_the_scalar_bits_at_every_level() {
        let all = Isa::detect();
        for bits in [0, Isa::AVX2_BIT, all.bits()] {
            agrees::<f64, _>(all.restrict(bits));
            agrees::<f32, _>(all.restrict(bits));
        }
    }
}
