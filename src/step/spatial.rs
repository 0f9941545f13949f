//! Self-collision: the caller's memory for it ([`SelfCollision`]), the
//! spatial hash that finds the particle pairs of a substep (Teschner,
//! Heidelberger, Müller, Pomeranets, Gross 2003, *Optimized Spatial
//! Hashing for Collision Detection of Deformable Objects*), the rule that
//! excludes pairs, and the per-substep displacement bound.
//!
//! # The hash
//!
//! Cells are cubes (squares in 2D) of side `q = 4r`, `r` the particle
//! radius. Cell `(a, b, c)` (integer coordinates, `a = ⌊x/q⌋`) has the
//! hash `h = (a·92837111) ⊕ (b·689287499) ⊕ (c·283923481)` (wrapping 64-bit
//! products) and goes to bucket `⌊m·B / 2⁶⁴⌋`, `m = h·0x9E3779B97F4A7C15
//! mod 2⁶⁴` (`h` unsigned), `B = 2n + 1` buckets for `n` particles. A counting
//! sort writes `table` (bucket boundaries, `B + 1` entries) and `ids` (the
//! particles, each bucket's in descending index order). For each particle
//! `i` in index order, the buckets of the 3^D cells around its cell (in a
//! fixed cell order) give the candidates `j > i` that lie in that very
//! cell (so a bucket two cells share gives each particle once); a pair
//! is kept when `|x_i − x_j| < q` (the contact distance `2r` plus a margin
//! of `2r` for the motion within the substep: every particle moves at most
//! `r` in its prediction) and it is not excluded. Pairs are stored in that
//! order: deterministic, whatever the machine.
//!
//! The scan is bounded: each candidate (every entry of the 3^D buckets
//! around a particle) and each linked neighbour compared takes one visit
//! from the frame's budget (what [`MAX_WORK`](crate::MAX_WORK) leaves
//! after the sweeps and the particle work), before the scan makes it;
//! when the budget is spent the step fails with `WorkLimit` (see
//! [`find_pairs`]).
//!
//! # Excluded pairs
//!
//! A pair is never a contact when
//! - both particles are static (`w = 0`), or
//! - a link that is not disabled joins them (the step writes each
//!   particle's linked neighbours into `adjacency` once per frame, in link
//!   order: a torn link stops excluding), or
//! - `rest` is given and their distance there is below `2r` (they touch
//!   in the rest shape).
//!
//! # The displacement bound
//!
//! With self-collision on, each particle's prediction `x + h v + h² g`
//! moves it at most `r` from its substep start (longer moves are scaled
//! down to `r`; [`StepStats::clamped`](super::StepStats::clamped) counts
//! them): two particles then cannot pass through each other within one
//! substep, since their distance changes by at most `2r` before the
//! contacts are solved.

use crate::constraint::distance::index;
use crate::constraint::particle_contact::ParticleContact;
use crate::math::length_squared;
use crate::real::Real;
use crate::Link;

use super::StepError;
use crate::error::Field;

/// The self-collision block
/// ([`World::self_collision`](super::World::self_collision)): the caller's
/// memory for particle–particle contacts, lengths from
/// [`World::requirements`](super::World::requirements).
#[derive(Debug, Default)]
pub struct SelfCollision<'a, T, const D: usize> {
    /// Pair storage of one substep, the pair budget (under the step's
    /// [`ContactOverflow`](super::ContactOverflow) policy).
    pub pairs: &'a mut [ParticleContact<T>],
    /// Hash table scratch, at least [`self_collision_table_len`]`(n)`
    /// entries.
    pub table: &'a mut [u32],
    /// Particle id scratch, at least `n` entries.
    pub ids: &'a mut [u32],
    /// Linked-neighbour scratch, at least
    /// [`self_collision_adjacency_len`]`(n, links)` entries.
    pub adjacency: &'a mut [u32],
    /// Rest positions (m): empty, or one per particle (pairs closer than
    /// `2r` there are excluded).
    pub rest: &'a [[T; D]],
}

/// Entries of [`SelfCollision::adjacency`] for `particles` particles and
/// `links` links: `particles + 1 + 2·links` (saturating).
#[must_use]
pub const fn self_collision_adjacency_len(particles: usize, links: usize) -> usize {
    particles
        .saturating_add(1)
        .saturating_add(links.saturating_mul(2))
}

/// Entries of [`SelfCollision::table`] for `particles` particles:
/// `2·particles + 2` (buckets `2n + 1` and the end boundary; saturating).
#[must_use]
pub const fn self_collision_table_len(particles: usize) -> usize {
    particles.saturating_mul(2).saturating_add(2)
}

impl<T: Real, const D: usize> SelfCollision<'_, T, D> {
    /// The same buffers, reborrowed.
    pub(crate) fn reborrow(&mut self) -> SelfCollision<'_, T, D> {
        SelfCollision {
            pairs: &mut *self.pairs,
            table: &mut *self.table,
            ids: &mut *self.ids,
            adjacency: &mut *self.adjacency,
            rest: self.rest,
        }
    }

    /// Checks the buffers for `particles` particles and `links` links and
    /// the rest positions (finite), writing nothing; names the first bad
    /// one.
    pub(crate) fn check(&self, particles: usize, links: usize) -> Result<(), Field> {
        if self.table.len() < self_collision_table_len(particles) {
            return Err(Field::HashTable);
        }
        if self.ids.len() < particles || u32::try_from(particles).is_err() {
            return Err(Field::HashIds);
        }
        if self.adjacency.len() < self_collision_adjacency_len(particles, links) {
            return Err(Field::Adjacency);
        }
        let rest_ok = self.rest.is_empty()
            || (self.rest.len() == particles && self.rest.iter().flatten().all(|c| c.is_finite()));
        if rest_ok {
            Ok(())
        } else {
            Err(Field::RestPositions)
        }
    }
}

/// Writes each particle's neighbours by links that are not disabled into
/// `adjacency` (compressed rows: `n + 1` offsets, then the neighbours in
/// link order). The caller checked its length.
pub(crate) fn build_adjacency<T: Real>(links: &[Link<T>], particles: usize, adjacency: &mut [u32]) {
    let rows = particles.saturating_add(1).min(adjacency.len());
    let (offsets, neighbours) = adjacency.split_at_mut(rows);
    offsets.fill(0);
    let enabled = || links.iter().filter(|l| !l.is_disabled());
    // Degrees, shifted by one, then running sums: offsets[k] = start of k.
    for l in enabled() {
        for p in [l.i, l.j] {
            if let Some(o) = offsets.get_mut(index(p).saturating_add(1)) {
                *o = o.saturating_add(1);
            }
        }
    }
    let mut sum = 0u32;
    for o in offsets.iter_mut() {
        sum = sum.saturating_add(*o);
        *o = sum;
    }
    // Fill, advancing each start; then shift the starts back.
    for l in enabled() {
        for (p, q) in [(l.i, l.j), (l.j, l.i)] {
            if let Some(o) = offsets.get_mut(index(p)) {
                if let Some(slot) = neighbours.get_mut(index(*o)) {
                    *slot = q;
                }
                *o = o.saturating_add(1);
            }
        }
    }
    let mut previous = 0u32;
    for o in offsets.iter_mut() {
        core::mem::swap(o, &mut previous);
    }
}

/// `i`'s linked neighbours ([`build_adjacency`]'s rows for `particles`
/// particles; empty when the rows do not hold `i`).
#[inline]
fn linked_row(adjacency: &[u32], particles: usize, i: usize) -> &[u32] {
    let (Some(&lo), Some(&hi)) = (adjacency.get(i), adjacency.get(i.saturating_add(1))) else {
        return &[];
    };
    let start = particles.saturating_add(1);
    adjacency
        .get(start.saturating_add(index(lo))..start.saturating_add(index(hi)))
        .unwrap_or(&[])
}

/// Scales every moving particle's displacement from `previous` down to at
/// most `r`; returns how many were scaled.
pub(crate) fn clamp_displacements<T: Real, const D: usize>(
    positions: &mut [[T; D]],
    previous: &[[T; D]],
    inverse_masses: &[T],
    r: T,
) -> usize {
    let mut clamped = 0usize;
    for ((x, p), w) in positions.iter_mut().zip(previous).zip(inverse_masses) {
        if *w == T::ZERO {
            continue;
        }
        let d2 = length_squared(p, x);
        if d2 > r * r {
            let s = r / d2.sqrt();
            for (xi, pi) in x.iter_mut().zip(p) {
                *xi = *pi + (*xi - *pi) * s;
            }
            clamped = clamped.saturating_add(1);
        }
    }
    clamped
}

/// The integer cell coordinate of `v` (m) for cells of side `1/inv`:
/// `⌊v · inv⌋`, saturating.
#[inline]
#[allow(
    clippy::as_conversions,
    clippy::cast_possible_truncation,
    clippy::cast_precision_loss
)]
fn cell<T: Real>(v: T, inv: T) -> i64 {
    let s = (v * inv).to_f64();
    // f64 → i64 saturates (NaN → 0); the step validated every position.
    let t = s as i64;
    if (t as f64) > s {
        t.saturating_sub(1)
    } else {
        t
    }
}

/// The hash of a cell: `(a·92837111) ⊕ (b·689287499) ⊕ (c·283923481)`
/// (wrapping products).
#[inline(always)]
fn hash<const D: usize>(c: &[i64; D]) -> i64 {
    c.iter()
        .zip(PRIMES)
        .fold(0i64, |h, (a, p)| h ^ a.wrapping_mul(p))
}

/// The hash's factors, one per coordinate.
const PRIMES: [i64; 3] = [92_837_111, 689_287_499, 283_923_481];

/// The bucket of a cell for `buckets` (≥ 1) buckets.
#[inline(always)]
fn bucket<const D: usize>(c: &[i64; D], buckets: u64) -> usize {
    bucket_of(hash(c), buckets)
}

/// The bucket of hash `h` for `buckets` buckets, in `0 .. buckets`: `h`
/// (as an unsigned 64-bit number) times [`MIX`] (wrapping: every bit of
/// `h` reaches the high ones), then the high 64 bits of that times
/// `buckets`. Products, not a remainder (a 64-bit division is tens of
/// cycles, and the query takes 27 buckets a particle). Which bucket a cell
/// lands in never changes the pairs or their order (see [`find_pairs`]),
/// only how many candidates share it.
#[inline(always)]
fn bucket_of(h: i64, buckets: u64) -> usize {
    let mixed = u64::from_ne_bytes(h.to_ne_bytes()).wrapping_mul(MIX);
    let wide = u128::from(mixed) * u128::from(buckets);
    usize::try_from(wide >> 64).unwrap_or(0)
}

/// `⌊2⁶⁴/φ⌋` rounded to odd (Fibonacci hashing).
const MIX: u64 = 0x9E37_79B9_7F4A_7C15;

/// The cell of a position.
#[inline(always)]
fn cell_of<T: Real, const D: usize>(x: &[T; D], inv: T) -> [i64; D] {
    x.map(|v| cell(v, inv))
}

/// Builds the hash of `positions` and finds the pairs of the substep (see
/// the module documentation), storing the first `sc.pairs.len()`; returns
/// how many were stored and how many more were found.
///
/// The candidate scan is the cost (about 200 candidates per particle in
/// two or more layers of cloth, one pair in ten kept): the cheap tests
/// come first (`j > i`, then the distance), the cell is compared
/// coordinate by coordinate only for the pairs that pass.
///
/// # The work bound
///
/// The scan is quadratic when many particles share a cell (all at one
/// point, a radius far above their spacing, coordinates beyond ~1e17 m
/// whose cells saturate to one), so it is paid for from `budget`, each
/// visit before it is made: for each particle, every entry of the buckets
/// of the 3^D cells around it (the candidates the scan may read; 139–144
/// in the bench's four-layer slab), and, for a particle with links, its
/// row's length for each candidate compared against the row (those that
/// pass the distance and cell tests). When the budget does not cover the
/// next charge the scan stops with [`StepError::WorkLimit`] (`budget`
/// is then left as it was before the call); whenever it suffices the
/// pairs and their order are those of the unbounded scan. With `reject`
/// the scan also stops at the first pair beyond `sc.pairs`, returning one
/// dropped pair; the step passes `false`, so that the pairs beyond the
/// budget are counted and
/// [`StepError::PairCapacity`](super::StepError::PairCapacity) says how
/// many were needed.
pub(crate) fn find_pairs<T: Real, const D: usize>(
    positions: &[[T; D]],
    inverse_masses: &[T],
    sc: &mut SelfCollision<'_, T, D>,
    r: T,
    budget: &mut u64,
    reject: bool,
) -> Result<(usize, usize), StepError> {
    let n = positions.len();
    let buckets = n.saturating_mul(2).saturating_add(1);
    let modulus = u64::try_from(buckets).unwrap_or(u64::MAX);
    let q = r * T::from_f64(4.0);
    let inv = T::ONE / q;
    let d2 = r * T::from_f64(2.0);
    let (rest_min2, q2) = (d2 * d2, q * q);
    let Some(table) = sc.table.get_mut(..=buckets) else {
        return Ok((0, 0));
    };
    let Some(ids) = sc.ids.get_mut(..n) else {
        return Ok((0, 0));
    };
    // Counting sort: counts, running ends, then each particle placed.
    table.fill(0);
    for x in positions {
        if let Some(t) = table.get_mut(bucket(&cell_of(x, inv), modulus)) {
            *t = t.saturating_add(1);
        }
    }
    let mut sum = 0u32;
    for t in table.iter_mut() {
        sum = sum.saturating_add(*t);
        *t = sum;
    }
    for (i, x) in positions.iter().enumerate() {
        if let Some(t) = table.get_mut(bucket(&cell_of(x, inv), modulus)) {
            *t = t.saturating_sub(1);
            if let (Some(slot), Ok(i)) = (ids.get_mut(index(*t)), u32::try_from(i)) {
                *slot = i;
            }
        }
    }
    let (table, ids) = (&*table, &*ids);
    let adjacency = &*sc.adjacency;
    let (mut count, mut dropped) = (0usize, 0usize);
    let mut left = *budget;
    let neighbours = 3usize.pow(u32::try_from(D).unwrap_or(3));
    for (i, (xi, &wi)) in positions.iter().zip(inverse_masses).enumerate() {
        let Ok(iu) = u32::try_from(i) else {
            break;
        };
        let home = cell_of(xi, inv);
        // Per coordinate, the cells −1, 0, +1 around `home` and their
        // terms of the hash (a cell's hash XORs one term per coordinate;
        // coordinates beyond the third add none): a neighbour cell costs
        // D table reads instead of D products.
        let around = home.map(|h| [-1i64, 0, 1].map(|o| h.saturating_add(o)));
        let mut terms = [[0i64; 3]; D];
        for ((t, a), p) in terms.iter_mut().zip(&around).zip(PRIMES) {
            *t = a.map(|a| a.wrapping_mul(p));
        }
        // A saturated coordinate (beyond ~1e17 q) repeats a cell among its
        // three: the repeat is skipped, so that no pair is found twice.
        let repeats = around.map(|a| [false, a[1] == a[0], a[2] == a[1]]);
        let saturated = repeats.iter().flatten().any(|r| *r);
        let repeated = |code: usize| {
            let mut rest = code;
            repeats.iter().any(|r| {
                let digit = rest % 3;
                rest /= 3;
                r.get(digit).copied().unwrap_or(false)
            })
        };
        let row = linked_row(adjacency, n, i);
        let row_visits = visits(row.len());
        // The cells around `home`, first coordinate fastest: digit k of
        // the code (base 3) is coordinate k's offset + 1.
        let cell_at = |code: usize| {
            let mut rest = code;
            let mut c = home;
            let mut h = 0i64;
            for ((ck, a), t) in c.iter_mut().zip(&around).zip(&terms) {
                let digit = rest % 3;
                rest /= 3;
                if let (Some(&ak), Some(&tk)) = (a.get(digit), t.get(digit)) {
                    *ck = ak;
                    h ^= tk;
                }
            }
            (c, h)
        };
        // A chunk of cells at a time (all of them up to 3D): first every
        // cell's bucket range, then the scan. The divisions and table
        // reads of the chunk do not wait on each other or on the scan's
        // branches.
        let mut first = 0usize;
        while first < neighbours {
            let mut spans = [(0u32, 0u32); CHUNK];
            let mut entries = 0u64;
            for (k, span) in spans.iter_mut().enumerate() {
                let code = first.saturating_add(k);
                if code >= neighbours {
                    break;
                }
                if saturated && repeated(code) {
                    continue;
                }
                let b = bucket_of(cell_at(code).1, modulus);
                if let (Some(&lo), Some(&hi)) = (table.get(b), table.get(b.wrapping_add(1))) {
                    *span = (lo, hi);
                    entries = entries.saturating_add(u64::from(hi.saturating_sub(lo)));
                }
            }
            // Every entry of these buckets is a candidate the scan may
            // read: paid for before it does.
            left = left.checked_sub(entries).ok_or(StepError::WorkLimit)?;
            for (k, &(lo, hi)) in spans.iter().enumerate() {
                for &j in ids.get(index(lo)..index(hi)).unwrap_or(&[]) {
                    // Each bucket's ids descend (the counting sort places
                    // them so): past the first `j ≤ i` every one is, and
                    // none is a candidate.
                    if j <= iu {
                        break;
                    }
                    let Some(xj) = positions.get(index(j)) else {
                        continue;
                    };
                    if length_squared(xi, xj) >= q2 {
                        continue;
                    }
                    let Some(&wj) = inverse_masses.get(index(j)) else {
                        continue;
                    };
                    if wi == T::ZERO && wj == T::ZERO {
                        continue;
                    }
                    // Only from its own cell: two of the cells around `i` that
                    // share a bucket give each particle once. (Compared
                    // coordinate by coordinate: no array through memory.)
                    let c = cell_at(first.saturating_add(k)).0;
                    let own = xj.iter().zip(&c).all(|(v, ci)| cell(*v, inv) == *ci);
                    if !own {
                        continue;
                    }
                    // The row's comparisons are work too (a particle
                    // linked to all others would make them quadratic),
                    // paid for before they are made.
                    if !row.is_empty() {
                        left = left.checked_sub(row_visits).ok_or(StepError::WorkLimit)?;
                        if row.contains(&j) {
                            continue;
                        }
                    }
                    if let (Some(ri), Some(rj)) = (sc.rest.get(i), sc.rest.get(index(j))) {
                        if length_squared(ri, rj) < rest_min2 {
                            continue;
                        }
                    }
                    match sc.pairs.get_mut(count) {
                        Some(slot) => {
                            *slot = ParticleContact {
                                i: iu,
                                j,
                                lambda: T::ZERO,
                            };
                            count += 1;
                        }
                        None => {
                            dropped = dropped.saturating_add(1);
                            if reject {
                                *budget = left;
                                return Ok((count, dropped));
                            }
                        }
                    }
                }
            }
            first = first.saturating_add(CHUNK);
        }
    }
    *budget = left;
    Ok((count, dropped))
}

/// A count of visits as the budget's type (saturating).
#[inline(always)]
fn visits(count: usize) -> u64 {
    u64::try_from(count).unwrap_or(u64::MAX)
}

/// Neighbour cells handled at a time by [`find_pairs`]: `3³`.
const CHUNK: usize = 27;

#[cfg(test)]
#[allow(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::as_conversions,
    clippy::cast_possible_truncation,
    clippy::cast_precision_loss
)]
mod tests {
    use super::*;

    /// The query as first written (issue 18): every neighbour cell's
    /// bucket, every rule tested in turn. [`find_pairs`] must give its
    /// pairs in its order.
    fn reference<T: Real, const D: usize>(
        x: &[[T; D]],
        w: &[T],
        adjacency: &[u32],
        rest: &[[T; D]],
        r: T,
        capacity: usize,
    ) -> (Vec<ParticleContact<T>>, usize) {
        let n = x.len();
        let buckets = 2 * n + 1;
        let q = r * T::from_f64(4.0);
        let inv = T::ONE / q;
        let d2 = r * T::from_f64(2.0);
        let old_bucket = |c: &[i64; D]| {
            let h = c
                .iter()
                .zip(PRIMES)
                .fold(0i64, |h, (a, p)| h ^ a.wrapping_mul(p));
            (h.unsigned_abs() % buckets as u64) as usize
        };
        let mut table = vec![0u32; buckets + 1];
        for p in x {
            table[old_bucket(&cell_of(p, inv))] += 1;
        }
        let mut sum = 0;
        for t in table.iter_mut() {
            sum += *t;
            *t = sum;
        }
        let mut ids = vec![0u32; n];
        for (i, p) in x.iter().enumerate() {
            let b = old_bucket(&cell_of(p, inv));
            table[b] -= 1;
            ids[table[b] as usize] = i as u32;
        }
        let (mut pairs, mut dropped) = (Vec::new(), 0);
        for i in 0..n {
            let home = cell_of(&x[i], inv);
            for k in 0..3usize.pow(D as u32) {
                let mut c = home;
                let mut code = k;
                for ci in c.iter_mut() {
                    *ci = ci.saturating_add((code % 3) as i64 - 1);
                    code /= 3;
                }
                let b = old_bucket(&c);
                for &j in &ids[table[b] as usize..table[b + 1] as usize] {
                    let jj = j as usize;
                    if jj <= i
                        || w[i] == T::ZERO && w[jj] == T::ZERO
                        || length_squared(&x[i], &x[jj]) >= q * q
                        || cell_of(&x[jj], inv) != c
                        || linked_row(adjacency, n, i).contains(&j)
                        || !rest.is_empty() && length_squared(&rest[i], &rest[jj]) < d2 * d2
                    {
                        continue;
                    }
                    if pairs.len() < capacity {
                        pairs.push(ParticleContact {
                            i: i as u32,
                            j,
                            lambda: T::ZERO,
                        });
                    } else {
                        dropped += 1;
                    }
                }
            }
        }
        (pairs, dropped)
    }

    /// Random clouds in 2D and 3D (dense and sparse, static particles,
    /// links some of them disabled, rest positions, negative coordinates,
    /// a full pair buffer): the same pairs in the same order as
    /// [`reference`].
    fn compare<const D: usize>(seed: u64) {
        let mut s = seed;
        let mut rand = move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 11) as f64 / (1u64 << 53) as f64
        };
        // Fewer and smaller under Miri's interpreter.
        let (rounds, sizes): (usize, [usize; 6]) = if cfg!(miri) {
            (6, [1, 2, 3, 5, 8, 12])
        } else {
            (40, [1, 2, 3, 7, 40, 200])
        };
        for round in 0..rounds {
            let n = sizes[round % 6];
            let extent = [0.02, 0.1, 1.0][round % 3];
            let r = 0.01;
            let x: Vec<[f64; D]> = (0..n)
                .map(|_| [(); D].map(|()| (rand() - 0.5) * extent))
                .collect();
            let w: Vec<f64> = (0..n)
                .map(|_| if rand() < 0.2 { 0.0 } else { 1.0 })
                .collect();
            let mut links: Vec<Link<f64>> = (0..n)
                .map(|_| {
                    let (i, j) = ((rand() * n as f64) as u32, (rand() * n as f64) as u32);
                    let mut l = Link::new(i, j, 0.01, 0.0);
                    if rand() < 0.3 {
                        l.flags |= Link::<f64>::DISABLED;
                    }
                    l
                })
                .filter(|l| l.i != l.j)
                .collect();
            links.truncate(n / 2);
            let mut adjacency = vec![0u32; self_collision_adjacency_len(n, links.len())];
            build_adjacency(&links, n, &mut adjacency);
            let rest: Vec<[f64; D]> = if round % 2 == 0 {
                Vec::new()
            } else {
                x.iter().map(|p| p.map(|c| c * 1.5)).collect()
            };
            let capacity = if round % 5 == 4 { n / 2 } else { n * n / 2 + 1 };
            let (want, want_dropped) = reference(&x, &w, &adjacency, &rest, r, capacity);
            let mut pairs = vec![ParticleContact::default(); capacity];
            let mut table = vec![0u32; self_collision_table_len(n)];
            let mut ids = vec![0u32; n];
            let mut sc = SelfCollision {
                pairs: &mut pairs,
                table: &mut table,
                ids: &mut ids,
                adjacency: &mut adjacency,
                rest: &rest,
            };
            let mut budget = u64::MAX;
            let (count, dropped) = find_pairs(&x, &w, &mut sc, r, &mut budget, false).unwrap();
            assert_eq!(
                (&pairs[..count], dropped),
                (&want[..], want_dropped),
                "D = {D}, round {round}"
            );
        }
    }

    /// What [`Buffers::search`] gives: `find_pairs`'s result, the pairs
    /// stored, the budget left.
    type Search = (
        Result<(usize, usize), StepError>,
        Vec<ParticleContact<f64>>,
        u64,
    );

    /// The scratch of a search over `n` particles with `links`.
    struct Buffers {
        pairs: Vec<ParticleContact<f64>>,
        table: Vec<u32>,
        ids: Vec<u32>,
        adjacency: Vec<u32>,
    }

    impl Buffers {
        fn new(n: usize, links: &[Link<f64>], capacity: usize) -> Self {
            let mut adjacency = vec![0u32; self_collision_adjacency_len(n, links.len())];
            build_adjacency(links, n, &mut adjacency);
            Self {
                pairs: vec![ParticleContact::default(); capacity],
                table: vec![0u32; self_collision_table_len(n)],
                ids: vec![0u32; n],
                adjacency,
            }
        }

        /// `find_pairs` with this budget: the result, the pairs stored and
        /// the budget left.
        fn search(
            &mut self,
            x: &[[f64; 3]],
            w: &[f64],
            r: f64,
            budget: u64,
            reject: bool,
        ) -> Search {
            let mut left = budget;
            let mut sc = SelfCollision {
                pairs: &mut self.pairs,
                table: &mut self.table,
                ids: &mut self.ids,
                adjacency: &mut self.adjacency,
                rest: &[],
            };
            let found = find_pairs(x, w, &mut sc, r, &mut left, reject);
            let stored = found.map_or(0, |(count, _)| count);
            (found, self.pairs[..stored].to_vec(), left)
        }
    }

    /// A cloud of `n` particles in a cube of side `extent` (some static),
    /// every fifth linked to the next.
    fn cloud(n: usize, extent: f64) -> (Vec<[f64; 3]>, Vec<f64>, Vec<Link<f64>>) {
        let mut s = 0x2545_f491_4f6c_dd1du64;
        let mut rand = move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 11) as f64 / (1u64 << 53) as f64
        };
        let x = (0..n).map(|_| [(); 3].map(|()| rand() * extent)).collect();
        let w = (0..n).map(|k| if k % 7 == 3 { 0.0 } else { 1.0 }).collect();
        let links = (0..n as u32 - 1)
            .step_by(5)
            .map(|i| Link::new(i, i + 1, 0.01, 0.0))
            .collect();
        (x, w, links)
    }

    // Safe Rust only: natively (the interpreter adds nothing here).

    #[test]
    #[cfg_attr(miri, ignore)]
    fn a_budget_that_suffices_changes_nothing_one_visit_less_stops() {
        let n = if cfg!(miri) { 24 } else { 600 };
        let (x, w, links) = cloud(n, 0.05);
        let r = 0.01;
        let mut b = Buffers::new(n, &links, n * n);
        let (want, want_pairs, left) = b.search(&x, &w, r, u64::MAX, false);
        let used = u64::MAX - left;
        assert!(want.unwrap().0 > n, "a dense cloud: {want:?}");
        // Every candidate counts: more than the pairs.
        assert!(used > want.unwrap().0 as u64);
        for reject in [false, true] {
            let (found, pairs, left) = b.search(&x, &w, r, used, reject);
            assert_eq!((found, pairs, left), (want, want_pairs.clone(), 0));
            let (found, _, _) = b.search(&x, &w, r, used - 1, reject);
            assert_eq!(found, Err(StepError::WorkLimit));
        }
    }

    // Safe Rust only: natively (the interpreter adds nothing here).

    #[test]
    #[cfg_attr(miri, ignore)]
    fn a_full_buffer_stops_the_search_only_under_reject() {
        let n = if cfg!(miri) { 24 } else { 600 };
        let (x, w, links) = cloud(n, 0.05);
        let r = 0.01;
        let mut b = Buffers::new(n, &links, n * n);
        let (all, all_pairs, left) = b.search(&x, &w, r, u64::MAX, false);
        let (total, used) = (all.unwrap().0, u64::MAX - left);
        let capacity = total / 2;
        let mut b = Buffers::new(n, &links, capacity);
        let (kept, kept_pairs, kept_left) = b.search(&x, &w, r, u64::MAX, false);
        assert_eq!(kept, Ok((capacity, total - capacity)));
        assert_eq!(kept_pairs, all_pairs[..capacity]);
        assert_eq!(u64::MAX - kept_left, used);
        let (rejected, rejected_pairs, rejected_left) = b.search(&x, &w, r, u64::MAX, true);
        assert_eq!(rejected, Ok((capacity, 1)));
        assert_eq!(rejected_pairs, all_pairs[..capacity]);
        assert!(u64::MAX - rejected_left < used);
    }

    // Safe Rust only: natively (the interpreter adds nothing here).

    #[test]
    #[cfg_attr(miri, ignore)]
    fn a_particle_linked_to_all_others_pays_for_its_row() {
        // All at one point, particle 0 linked to every other: its n − 1
        // candidates each compare its row of n − 1 neighbours.
        let n = if cfg!(miri) { 40 } else { 400 };
        let x = vec![[0.5f64; 3]; n];
        let w = vec![1.0; n];
        let links: Vec<Link<f64>> = (1..n as u32).map(|j| Link::new(0, j, 0.01, 0.0)).collect();
        let mut b = Buffers::new(n, &links, n * n);
        let (found, _, left) = b.search(&x, &w, 0.01, u64::MAX, false);
        let pairs = (n - 1) * (n - 2) / 2;
        assert_eq!(found, Ok((pairs, 0)));
        // Candidates: for every particle, the whole bucket of its cell
        // once for each of the 27 cells around it that lands in that
        // bucket (itself, and any other the hash maps there). Rows:
        // particle 0 compares its n − 1 candidates with n − 1 neighbours,
        // particle i > 0 its n − 1 − i with one.
        let inv = 1.0 / (4.0 * 0.01);
        let home = cell_of(&x[0], inv);
        let modulus = (2 * n + 1) as u64;
        let shared = (0..27)
            .filter(|&code: &usize| {
                let c = [0, 1, 2].map(|k| home[k] + (code / 3usize.pow(k as u32) % 3) as i64 - 1);
                bucket(&c, modulus) == bucket(&home, modulus)
            })
            .count();
        let candidates = (n * n * shared) as u64;
        let rows = ((n - 1) * (n - 1) + pairs) as u64;
        assert_eq!(u64::MAX - left, candidates + rows);
    }

    #[test]
    fn saturated_cells_give_each_pair_once() {
        // Beyond ~1e17 q every coordinate's cell saturates: the cells
        // around a particle repeat its own, and a pair was found up to 8
        // times (in 3D). Two particles 1 cm apart, far out on two or
        // three axes, with one near the origin for company.
        for far in [[1e30, 1e30, 0.0], [-1e30, 1e30, -1e30], [1e30, -1e30, 1e30]] {
            let mut x = vec![far, far, [0.0; 3]];
            x[1][2] += 0.01;
            let w = vec![1.0; 3];
            let mut b = Buffers::new(3, &[], 27);
            let (found, pairs, _) = b.search(&x, &w, 0.01, u64::MAX, false);
            assert_eq!(found, Ok((1, 0)), "{far:?}: {pairs:?}");
        }
    }

    // Safe Rust only: natively (the interpreter adds nothing here).

    #[test]
    #[cfg_attr(miri, ignore)]
    fn the_pairs_are_those_of_the_plain_query_in_its_order() {
        compare::<3>(0x1234_5678_9abc_def1);
        compare::<2>(0x0fed_cba9_8765_4321);
        compare::<1>(0x5555_aaaa_3333_cccc);
    }
}
