//! The precision diagnostic: how coarse the float grid is where the
//! particles are, against the lengths the simulation resolves.
//!
//! A float coordinate `x` moves in steps of its spacing (one ulp, about
//! `1.2e-7·|x|` in f32 and `2.2e-16·|x|` in f64). When that spacing is not
//! small against the particle radius and the shortest link, the velocity
//! `(x − x_prev)/h` comes in coarse quanta and a rope far from the origin
//! never comes to rest or freezes off its place. The cure is local
//! coordinates (or f64); this diagnostic says when it is needed.

use super::{StepConfig, World};
use crate::constraint::distance::Link;
use crate::real::{spacing, Real};

/// The spacing above which [`precision`] says a world is too far from its
/// origin: one thousandth of its shortest length (the particle radius or
/// the shortest rest length).
pub const PRECISION_LIMIT: f64 = 1e-3;

/// The coarsest float spacing among the particles, against a length.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Precision<T> {
    /// The particle whose largest coordinate magnitude is largest.
    pub particle: usize,
    /// The spacing of the float grid there (m): one ulp of that magnitude.
    pub spacing: T,
    /// `spacing / length`: above [`PRECISION_LIMIT`] the positions are too
    /// coarse for the lengths simulated (use local coordinates or f64).
    pub ratio: T,
}

impl<T: Real> Precision<T> {
    /// Whether the ratio is above [`PRECISION_LIMIT`].
    #[must_use]
    pub fn is_coarse(&self) -> bool {
        self.ratio.to_f64() > PRECISION_LIMIT
    }
}

/// The coarsest spacing of `positions` (m) against `length` (m, a finite
/// positive number): `None` when there are no particles, a coordinate is
/// not finite, or `length` is not a finite positive number.
///
/// # Examples
///
/// ```
/// use xpbd::step::precision;
/// // f32 at 10 km from the origin: the grid is 1 mm, 1 % of a 0.1 m link.
/// let p = precision(&[[1.0e4_f32, 0.0, 0.0], [1.0e4 + 0.1, 0.0, 0.0]], 0.1).unwrap();
/// assert!(p.is_coarse() && p.ratio > 0.009);
/// // The same rope near the origin: 1e-8 m, 1e-7 of the link.
/// let p = precision(&[[0.0_f32, 0.0, 0.0], [0.1, 0.0, 0.0]], 0.1).unwrap();
/// assert!(!p.is_coarse());
/// ```
#[must_use]
pub fn precision<T: Real, const D: usize>(positions: &[[T; D]], length: T) -> Option<Precision<T>> {
    if !length.is_finite() || length <= T::ZERO {
        return None;
    }
    let mut best: Option<(usize, T)> = None;
    for (particle, x) in positions.iter().enumerate() {
        let mut m = T::ZERO;
        for c in x {
            if !c.is_finite() {
                return None;
            }
            if c.abs() > m {
                m = c.abs();
            }
        }
        if best.map_or(true, |(_, b)| m > b) {
            best = Some((particle, m));
        }
    }
    let (particle, m) = best?;
    let spacing = spacing(m);
    Some(Precision {
        particle,
        spacing,
        ratio: spacing / length,
    })
}

/// [`precision`] of a world against its shortest length: the particle
/// radius of `config` (when > 0) or the shortest rest length of its links,
/// whichever is smaller. `None` when the world has neither, no particles,
/// or a non-finite position.
#[must_use]
pub fn world_precision<T: Real, const D: usize>(
    world: &World<'_, T, D>,
    config: &StepConfig<T, D>,
) -> Option<Precision<T>> {
    precision(
        world.positions,
        shortest_length(world.links, config.particle_radius)?,
    )
}

/// The smaller of `radius` (when > 0) and the shortest positive rest length
/// of `links`: the length a world resolves.
pub(crate) fn shortest_length<T: Real>(links: &[Link<T>], radius: T) -> Option<T> {
    let mut length = (radius > T::ZERO && radius.is_finite()).then_some(radius);
    for link in links {
        if link.rest > T::ZERO && link.rest.is_finite() && length.map_or(true, |l| link.rest < l) {
            length = Some(link.rest);
        }
    }
    length
}
