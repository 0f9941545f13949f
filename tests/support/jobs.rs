//! Job systems shared by the colored stepping tests
//! (`tests/colored_step.rs`, `tests/colored_step_entry.rs`,
//! `tests/step_colored_2d.rs`): real threads, and one thread running the
//! tasks in reverse.
#![allow(dead_code)]

use xpbd::step::Jobs;

/// Real threads: `threads` scoped threads, thread `t` running tasks
/// `t, t + threads, …`; asks for `split` tasks per phase.
pub struct Threads {
    /// Threads spawned per phase.
    pub threads: usize,
    /// Tasks asked for per phase.
    pub split: usize,
}

impl Jobs for Threads {
    fn split(&self) -> usize {
        self.split
    }
    fn run(&self, count: usize, task: &(dyn Fn(usize) + Sync)) {
        std::thread::scope(|s| {
            for t in 0..self.threads {
                s.spawn(move || (t..count).step_by(self.threads).for_each(task));
            }
        });
    }
}

/// The calling thread, tasks in reverse order; asks for `.0` tasks.
pub struct Reversed(pub usize);

impl Jobs for Reversed {
    fn split(&self) -> usize {
        self.0
    }
    fn run(&self, count: usize, task: &(dyn Fn(usize) + Sync)) {
        (0..count).rev().for_each(task);
    }
}
