//! The colored views of a substep's groups: `Substep::iterate_colored`,
//! `Substep::colored` and the safe view it returns ([`ColoredGroups`]: one
//! thread's iteration, or [`GroupJobs`] / [`GroupJob`] for an engine's
//! jobs) over the raw views of the parent module.

#[allow(clippy::wildcard_imports)]
use super::*;

impl<'a, T: Real> Substep<'_, 'a, T, 3, true> {
    /// One iteration in colored order (see [`crate::colored::groups`]):
    /// the links, bends, tets and tethers color by color with the
    /// boundaries of `colors`, then the mesh volumes. Without an error the
    /// result is bit-identical to [`iterate`](Self::iterate) (the groups
    /// being stored in colored order). The boundaries are checked on every
    /// call; the coloring need not be proper (one thread).
    ///
    /// # Errors
    ///
    /// [`SystemError::InvalidShape`] for bad boundaries (nothing written),
    /// else the errors of [`iterate`](Self::iterate); the failing
    /// instance's color was completed, later colors were not run.
    pub fn iterate_colored(
        &mut self,
        colors: &GroupColors<'_>,
    ) -> Result<SweepStats<T>, SystemError> {
        let raw = self.raw(colors)?;
        // SAFETY: the views come from the substep's `&mut` system, used by
        // this thread only for the duration of the call.
        unsafe { raw.iterate(colors) }
    }

    /// The groups' colored view for jobs: checks once that every group's
    /// boundaries are valid and its coloring proper (no particle twice
    /// within a color; `stamp`: scratch, one `u32` per particle), then
    /// borrows the substep until the view is dropped.
    ///
    /// # Errors
    ///
    /// [`SystemError::InvalidShape`] (bad boundaries, short scratch, an
    /// improper color), [`SystemError::IndexOutOfRange`],
    /// [`SystemError::SameParticle`] naming the instance by its global
    /// index. Nothing but `stamp` is written.
    pub fn colored<'c>(
        &mut self,
        colors: GroupColors<'c>,
        stamp: &mut [u32],
    ) -> Result<ColoredGroups<'_, 'c, T>, SystemError> {
        let (s, _, _) = self.parts();
        check_proper(
            &colors,
            s.links,
            &s.constraints,
            s.positions.len(),
            stamp,
            &[],
        )?;
        // The views last: nothing but them touches the system from here on.
        let raw = self.raw(&colors)?;
        Ok(ColoredGroups {
            raw,
            colors,
            _borrow: PhantomData,
        })
    }
}

impl<T: Real, const D: usize> Substep<'_, '_, T, D, true> {
    /// The raw views of the substep's system, after checking `colors`'
    /// boundaries.
    pub(crate) fn raw(&mut self, colors: &GroupColors<'_>) -> Result<RawGroups<T, D>, SystemError> {
        let (s, h, motion) = self.parts();
        check_colors(colors, s.links.len(), &s.constraints)?;
        let policy = s.zero_length;
        Ok(RawGroups::new(
            s.positions,
            s.inverse_masses,
            s.links,
            &mut s.constraints,
            h * h,
            motion,
            policy,
        ))
    }
}

/// The groups of a substep with a checked, proper coloring
/// ([`Substep::colored`]): whole colored iterations, and per-color jobs for
/// an engine's threads. Borrows the substep, so nothing else changes the
/// system while it lives.
pub struct ColoredGroups<'s, 'c, T> {
    raw: RawGroups<T>,
    colors: GroupColors<'c>,
    _borrow: PhantomData<&'s mut ()>,
}

impl<T: Real> ColoredGroups<'_, '_, T> {
    /// The number of colors of `group` (for meshes and attachments: their
    /// count, one color each).
    #[must_use]
    pub fn color_count(&self, group: Group) -> usize {
        match self.colors.of(group) {
            Some(s) => s.len().saturating_sub(1),
            None => self.raw.len(group),
        }
    }

    /// The instances `begin .. end` (positions in the group) of color
    /// `color` of `group`.
    #[must_use]
    pub fn color_range(&self, group: Group, color: usize) -> Option<(usize, usize)> {
        match self.colors.of(group) {
            Some(s) => Some((*s.get(color)?, *s.get(color.checked_add(1)?)?)),
            None => (color < self.raw.len(group)).then(|| (color, color.saturating_add(1))),
        }
    }

    /// One colored iteration, as [`Substep::iterate_colored`].
    ///
    /// # Errors
    ///
    /// As [`Substep::iterate_colored`].
    pub fn iterate(&mut self) -> Result<SweepStats<T>, SystemError> {
        // SAFETY: the views come from the borrowed substep; `&mut self`
        // keeps every job away, and this thread is the only user.
        unsafe { self.raw.iterate(&self.colors) }
    }

    /// The jobs of color `color` of `group` split into `jobs` disjoint
    /// ranges ([`job_range`]): each [`GroupJob`] is `Send` and may run on
    /// any thread, all of them at once. One iteration runs, in order, every
    /// color of the links, bends, tets and tethers, then every mesh color,
    /// then every attachment color (a mesh or attachment color has one
    /// non-empty job), waiting for all jobs of a
    /// color before the next; the result is bit-identical to
    /// [`iterate`](Self::iterate) and to the sequential
    /// [`Substep::iterate`], whatever `jobs` is. Merge the jobs' statistics
    /// with [`SweepStats::merge`]; of several errors, the one of the job
    /// with the lowest range is the one `iterate` reports.
    ///
    /// # Errors
    ///
    /// [`SystemError::InvalidShape`] when there is no such color or
    /// `jobs == 0`.
    pub fn jobs(
        &mut self,
        group: Group,
        color: usize,
        jobs: usize,
    ) -> Result<GroupJobs<'_, T>, SystemError> {
        let (begin, end) = self
            .color_range(group, color)
            .ok_or(SystemError::InvalidShape)?;
        if jobs == 0 {
            return Err(SystemError::InvalidShape);
        }
        Ok(GroupJobs {
            raw: self.raw,
            group,
            begin,
            end,
            next: 0,
            jobs,
            _borrow: PhantomData,
        })
    }
}

/// The disjoint jobs of one color of one group (an iterator of
/// [`GroupJob`]).
pub struct GroupJobs<'s, T> {
    raw: RawGroups<T>,
    group: Group,
    begin: usize,
    end: usize,
    next: usize,
    jobs: usize,
    _borrow: PhantomData<&'s mut ()>,
}

impl<'s, T: Real> Iterator for GroupJobs<'s, T> {
    type Item = GroupJob<'s, T>;
    fn next(&mut self) -> Option<Self::Item> {
        let (begin, end) = job_range(self.begin, self.end, self.next, self.jobs)?;
        self.next = self.next.saturating_add(1);
        Some(GroupJob {
            raw: self.raw,
            group: self.group,
            begin,
            end,
            _borrow: PhantomData,
        })
    }
}

/// One range of one color of one group: run it on any thread with
/// [`run`](Self::run).
pub struct GroupJob<'s, T> {
    raw: RawGroups<T>,
    group: Group,
    begin: usize,
    end: usize,
    _borrow: PhantomData<&'s mut ()>,
}

impl<T: Real> GroupJob<'_, T> {
    /// The group and the instances `begin .. end` (positions in the group)
    /// this job solves.
    #[must_use]
    pub fn range(&self) -> (Group, usize, usize) {
        (self.group, self.begin, self.end)
    }

    /// Solves this job's instances (consumes the job: each range runs
    /// once).
    ///
    /// # Errors
    ///
    /// As [`ColoredGroups::iterate`], for this range.
    pub fn run(self) -> Result<SweepStats<T>, SystemError> {
        // SAFETY: the range lies within one color (from `job_range` over
        // the color's boundaries, checked with the proper coloring by
        // `Substep::colored`), the jobs of one `GroupJobs` are disjoint, so
        // their particles and instances are; a mesh or attachment color has one non-empty
        // job; the jobs borrow the colored view mutably, so no other color
        // and nothing else touches the system meanwhile.
        unsafe { self.raw.run(self.group, self.begin, self.end) }
    }
}
