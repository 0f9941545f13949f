//! The engine's job system as the frame loop sees it ([`Jobs`]), and the
//! machinery that runs one phase of a frame as disjoint ranges on it.
//!
//! The core never spawns a thread: [`step_colored`](super::step_colored)
//! hands each phase to [`Jobs::run`] as `count` tasks and waits for it to
//! return. Within a phase the tasks touch disjoint particles and
//! constraint instances, so the bits do not depend on how many tasks there
//! are, which thread runs which, or in what order.
//!
//! A task index is claimed once (an atomic flag per task): an executor
//! that runs a task twice runs it once, one that skips a task makes the
//! frame fail with [`StepError::JobContract`] (rolled back like every
//! failed frame), so a safe [`Jobs`] implementation cannot make the
//! disjoint-range code alias.

use core::cell::UnsafeCell;
use core::sync::atomic::{AtomicBool, Ordering};

use crate::StepError;

/// Most tasks one phase is split into ([`Jobs::split`] is clamped to it):
/// each phase keeps one result slot per task on the stack.
pub const MAX_JOBS: usize = 32;

/// An engine's job system: runs `count` tasks of one phase and returns
/// when all have finished. The core never spawns threads; it calls
/// [`run`](Self::run) once per phase (prediction, each color's sweep, the
/// contacts, the velocity update) and waits for it.
///
/// # Examples
///
/// Two threads with `std::thread::scope` (a real engine would hand the
/// tasks to its worker pool):
///
/// ```
/// use xpbd::step::Jobs;
///
/// struct TwoThreads;
/// impl Jobs for TwoThreads {
///     fn split(&self) -> usize {
///         2
///     }
///     fn run(&self, count: usize, task: &(dyn Fn(usize) + Sync)) {
///         std::thread::scope(|s| {
///             for t in 0..2 {
///                 s.spawn(move || (t..count).step_by(2).for_each(task));
///             }
///         });
///     }
/// }
/// ```
pub trait Jobs {
    /// Tasks per phase the core asks for (clamped to `1 ..= MAX_JOBS`):
    /// typically the worker count, or a few times it for load balance.
    /// Does not change any result bit.
    fn split(&self) -> usize;

    /// Runs `task(i)` for every `i` in `0 .. count`, each once, on any
    /// threads in any order, and returns after all of them have returned.
    fn run(&self, count: usize, task: &(dyn Fn(usize) + Sync));
}

/// The calling thread alone: every phase is one task, run in place.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OneThread;

impl Jobs for OneThread {
    fn split(&self) -> usize {
        1
    }

    fn run(&self, count: usize, task: &(dyn Fn(usize) + Sync)) {
        for i in 0..count {
            task(i);
        }
    }
}

/// The task count of a phase of `items` items: the executor's split,
/// clamped to `1 ..= MAX_JOBS` and to at least one item per task.
pub(crate) fn task_count(jobs: &dyn Jobs, items: usize) -> usize {
    jobs.split().clamp(1, MAX_JOBS).min(items.max(1))
}

/// Range `i` of `count` near-equal ranges over `0 .. n` (the last ends
/// at `n`).
pub(crate) fn split_range(n: usize, i: usize, count: usize) -> (usize, usize) {
    let at = |k: usize| {
        if k >= count {
            return n;
        }
        match n.checked_mul(k) {
            Some(p) => p.checked_div(count).unwrap_or(n),
            // Only for n > usize::MAX / MAX_JOBS: the quotient first.
            None => n.checked_div(count).unwrap_or(n).saturating_mul(k),
        }
        .min(n)
    };
    (at(i), at(i.saturating_add(1)))
}

/// One result slot per task, each written only by the task that claimed it.
struct Slots<R> {
    claimed: [AtomicBool; MAX_JOBS],
    value: [UnsafeCell<Option<R>>; MAX_JOBS],
}

// SAFETY: slot `i` is written only by the one task that claimed it (the
// atomic swap), and read by the phase's caller after `Jobs::run` returned,
// when no task runs any more.
unsafe impl<R: Send> Sync for Slots<R> {}

/// Runs `task` as `count` (≤ [`MAX_JOBS`]) tasks on `jobs` and returns the
/// results in task order through `each` (a skipped task is
/// [`StepError::JobContract`]).
pub(crate) fn run_phase<R: Send>(
    jobs: &dyn Jobs,
    count: usize,
    task: &(dyn Fn(usize) -> R + Sync),
    mut each: impl FnMut(usize, R),
) -> Result<(), StepError> {
    let count = count.min(MAX_JOBS);
    if count == 1 {
        // One task: in place, no executor round trip.
        each(0, task(0));
        return Ok(());
    }
    let slots: Slots<R> = Slots {
        claimed: core::array::from_fn(|_| AtomicBool::new(false)),
        value: core::array::from_fn(|_| UnsafeCell::new(None)),
    };
    let shared = &slots;
    jobs.run(count, &|i| {
        let slots = shared;
        let (Some(flag), Some(cell)) = (slots.claimed.get(i), slots.value.get(i)) else {
            return;
        };
        if i >= count || flag.swap(true, Ordering::AcqRel) {
            return;
        }
        let r = task(i);
        // SAFETY: this task claimed slot i, so no other task writes it, and
        // the caller reads it only after `run` returned.
        unsafe { *cell.get() = Some(r) };
    });
    let mut missing = false;
    for (i, cell) in slots.value.into_iter().enumerate().take(count) {
        match cell.into_inner() {
            Some(r) => each(i, r),
            None => missing = true,
        }
    }
    if missing {
        Err(StepError::JobContract)
    } else {
        Ok(())
    }
}

/// A caller slice lent to the tasks of one phase, which take disjoint
/// ranges of it.
pub(crate) struct Shared<E> {
    p: *mut E,
    len: usize,
}

// SAFETY: the tasks of a phase take disjoint ranges (see `range`).
unsafe impl<E: Send> Sync for Shared<E> {}

impl<E> Shared<E> {
    /// Lends `items` to one phase.
    pub(crate) fn new(items: &mut [E]) -> Self {
        Self {
            p: items.as_mut_ptr(),
            len: items.len(),
        }
    }

    /// The lent slice's first item, for raw views (kernels) that share
    /// the phases' provenance.
    pub(crate) fn ptr(&self) -> *mut E {
        self.p
    }

    /// The length of the lent slice.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The items `a .. b` (`None` out of bounds).
    ///
    /// # Safety
    /// No other live reference covers any of `a .. b` while the result
    /// lives (the phase's tasks take disjoint ranges, and the slice given
    /// to [`new`](Self::new) is not used until the phase ends).
    #[allow(clippy::mut_from_ref)]
    pub(crate) unsafe fn range(&self, a: usize, b: usize) -> Option<&mut [E]> {
        if a > b || b > self.len {
            return None;
        }
        // SAFETY: `a ≤ b ≤ len` keeps the range inside the lent slice; its
        // exclusivity is the caller's contract.
        Some(unsafe { core::slice::from_raw_parts_mut(self.p.add(a), b.saturating_sub(a)) })
    }
}
