//! Builders: ropes, closed loops and cloth grids written into caller
//! link slices, all-or-nothing, rest lengths from the positions.

use crate::constraint::distance::Link;
use crate::math::length_squared;
use crate::real::{finite_non_negative, Real};
use crate::solver::coords;
use crate::SystemError;

/// Rest length `|x_j − x_i|` of a builder's link, rejected when not a
/// finite positive number.
fn rest_between<T: Real>(
    positions: &[T],
    d: usize,
    i: usize,
    j: usize,
    constraint: usize,
) -> Result<T, SystemError> {
    let (Some(xi), Some(xj)) = (coords(positions, d, i), coords(positions, d, j)) else {
        return Err(SystemError::InvalidShape);
    };
    if !xi.iter().chain(xj.iter()).all(|v| v.is_finite()) {
        return Err(SystemError::NonFinitePosition {
            particle: if xi.iter().all(|v| v.is_finite()) {
                j
            } else {
                i
            },
        });
    }
    let len2 = length_squared(xi, xj);
    let rest = len2.sqrt();
    // A length whose square is not a normal number is one `begin_substep`
    // rejects as zero length: refused here too (one rule for every path).
    if !rest.is_finite() || rest <= T::ZERO || len2 < T::MIN_POSITIVE {
        return Err(SystemError::InvalidRestLength { constraint });
    }
    Ok(rest)
}

/// The links a builder writes: [`rope`], [`closed_loop`] or [`cloth`].
#[derive(Clone, Copy)]
pub(crate) enum Shape {
    /// `(k, k + 1)`.
    Rope,
    /// `(k, k + 1)` and `(n − 1, 0)`.
    Loop,
    /// See [`cloth`].
    Cloth {
        /// Grid rows.
        rows: usize,
        /// Grid columns.
        cols: usize,
        /// With both diagonals of each cell.
        shear: bool,
    },
}

/// The one builder behind [`rope`], [`closed_loop`], [`cloth`] and the C
/// `xpbd_build_*` functions: `n` particles of `d` coordinates each in the
/// flat `positions` (`n·d` entries), the dimension a run-time value so
/// that each precision has one copy of the code. Writes the links of
/// `shape` with rest lengths from the positions, all-or-nothing: on error
/// `out` is untouched.
#[inline(never)]
pub(crate) fn build<T: Real>(
    positions: &[T],
    n: usize,
    d: usize,
    shape: Shape,
    compliance: T,
    out: &mut [Link<T>],
) -> Result<usize, SystemError> {
    let needed = match shape {
        Shape::Rope if n >= 2 => n.saturating_sub(1),
        Shape::Loop if n >= 3 => n,
        Shape::Cloth { rows, cols, shear }
            if rows >= 2 && cols >= 2 && rows.checked_mul(cols) == Some(n) =>
        {
            cloth_link_count(rows, cols, shear).ok_or(SystemError::InvalidShape)?
        }
        _ => return Err(SystemError::InvalidShape),
    };
    let pair = |k: usize| match shape {
        Shape::Rope => (k, k.saturating_add(1)),
        Shape::Loop => (
            k,
            if k.saturating_add(1) == n {
                0
            } else {
                k.saturating_add(1)
            },
        ),
        Shape::Cloth { rows, cols, .. } => cloth_pair(k, rows, cols),
    };
    if u32::try_from(n).is_err() {
        return Err(SystemError::TooManyParticles);
    }
    if !finite_non_negative(compliance) {
        return Err(SystemError::InvalidCompliance { constraint: 0 });
    }
    if out.len() < needed {
        return Err(SystemError::CapacityTooSmall { needed });
    }
    // First pass: validate every link without writing.
    for constraint in 0..needed {
        let (i, j) = pair(constraint);
        rest_between(positions, d, i, j, constraint)?;
    }
    for (constraint, slot) in out.iter_mut().take(needed).enumerate() {
        let (i, j) = pair(constraint);
        let rest = rest_between(positions, d, i, j, constraint)?;
        let (Ok(i), Ok(j)) = (u32::try_from(i), u32::try_from(j)) else {
            return Err(SystemError::TooManyParticles);
        };
        *slot = Link::new(i, j, rest, compliance);
    }
    Ok(needed)
}

/// Builds an open rope: links `(k, k + 1)` for `k = 0 … n − 2`, rest lengths
/// from the current positions, compliance α (m/N) for all, λ = 0. Returns the
/// number of links written (`n − 1`) into the front of `links`.
///
/// # Errors
///
/// [`SystemError::InvalidShape`] for fewer than 2 particles,
/// [`SystemError::InvalidCompliance`], [`SystemError::CapacityTooSmall`],
/// [`SystemError::NonFinitePosition`], or [`SystemError::InvalidRestLength`]
/// naming a link whose particles coincide. Nothing is written on error.
///
/// # Examples
///
/// ```
/// let x = [[0.0_f32, 0.0], [0.5, 0.0], [0.5, 0.5]];
/// let mut links = [xpbd::Link::default(); 4];
/// assert_eq!(xpbd::rope(&x, 0.0, &mut links), Ok(2));
/// assert_eq!((links[1].i, links[1].j, links[1].rest), (1, 2, 0.5));
/// ```
pub fn rope<T: Real, const D: usize>(
    positions: &[[T; D]],
    compliance: T,
    links: &mut [Link<T>],
) -> Result<usize, SystemError> {
    build(
        positions.as_flattened(),
        positions.len(),
        D,
        Shape::Rope,
        compliance,
        links,
    )
}

/// Builds a closed loop: the open rope's links plus `(n − 1, 0)`. Returns
/// `n`, the number of links written.
///
/// # Errors
///
/// As [`rope`], with [`SystemError::InvalidShape`] for fewer than 3 particles.
pub fn closed_loop<T: Real, const D: usize>(
    positions: &[[T; D]],
    compliance: T,
    links: &mut [Link<T>],
) -> Result<usize, SystemError> {
    build(
        positions.as_flattened(),
        positions.len(),
        D,
        Shape::Loop,
        compliance,
        links,
    )
}

/// The number of links [`cloth`] writes for a `rows × cols` grid:
/// `rows·(cols − 1) + (rows − 1)·cols` structural, plus `2·(rows − 1)·(cols − 1)`
/// shear links when `shear` is set. `None` when `rows < 2`, `cols < 2` or
/// on overflow.
#[must_use]
pub fn cloth_link_count(rows: usize, cols: usize, shear: bool) -> Option<usize> {
    if rows < 2 || cols < 2 {
        return None;
    }
    let r1 = rows.checked_sub(1)?;
    let c1 = cols.checked_sub(1)?;
    let structural = rows.checked_mul(c1)?.checked_add(r1.checked_mul(cols)?)?;
    if shear {
        structural.checked_add(r1.checked_mul(c1)?.checked_mul(2)?)
    } else {
        Some(structural)
    }
}

/// The particles of cloth link `k` (in [`cloth`]'s order) for a
/// `rows × cols` grid with `rows, cols ≥ 2`: computed from `k` alone, so the
/// builder needs no iterator state.
fn cloth_pair(k: usize, rows: usize, cols: usize) -> (usize, usize) {
    let c1 = cols.saturating_sub(1);
    let at = |r: usize, c: usize| r.saturating_mul(cols).saturating_add(c);
    // `checked_div`/`checked_rem` cannot panic; the divisors are ≥ 1 here.
    let split = |k: usize, d: usize| (k.checked_div(d).unwrap_or(0), k.checked_rem(d).unwrap_or(0));
    let horizontal = rows.saturating_mul(c1);
    if k < horizontal {
        let (r, c) = split(k, c1);
        return (at(r, c), at(r, c.saturating_add(1)));
    }
    let k = k.saturating_sub(horizontal);
    let vertical = rows.saturating_sub(1).saturating_mul(cols);
    if k < vertical {
        let (r, c) = split(k, cols);
        return (at(r, c), at(r.saturating_add(1), c));
    }
    let k = k.saturating_sub(vertical);
    let (cell, second) = split(k, 2);
    let (r, c) = split(cell, c1);
    let (r1, cc1) = (r.saturating_add(1), c.saturating_add(1));
    if second == 0 {
        (at(r, c), at(r1, cc1))
    } else {
        (at(r, cc1), at(r1, c))
    }
}

/// Builds a rectangular cloth over a row-major grid (particle `r·cols + c`):
/// horizontal links `(r, c)–(r, c+1)` row by row, then vertical links
/// `(r, c)–(r+1, c)`, then, with `shear`, both diagonals of each cell
/// (`(r, c)–(r+1, c+1)` and `(r, c+1)–(r+1, c)`). Rest lengths from the
/// current positions, compliance α (m/N), λ = 0. Returns the number of links
/// written ([`cloth_link_count`]).
///
/// # Errors
///
/// [`SystemError::InvalidShape`] unless `rows ≥ 2`, `cols ≥ 2` and
/// `positions.len() == rows·cols`; otherwise as [`rope`]. Nothing is written
/// on error.
pub fn cloth<T: Real, const D: usize>(
    positions: &[[T; D]],
    rows: usize,
    cols: usize,
    shear: bool,
    compliance: T,
    links: &mut [Link<T>],
) -> Result<usize, SystemError> {
    build(
        positions.as_flattened(),
        positions.len(),
        D,
        Shape::Cloth { rows, cols, shear },
        compliance,
        links,
    )
}
