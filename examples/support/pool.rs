//! A two-thread job system for `xpbd::step::Jobs`: one worker thread
//! besides the calling thread, phases handed over through two counters with
//! a short spin, then a park (the shape of an engine's own job system). Shared by the
//! `self_collision` example and the bench's whole-frame section
//! (`bench/src/frame.rs`, which includes this file by path).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::{JoinHandle, Thread};

use xpbd::step::Jobs;

/// A task with its lifetime erased, for the worker thread.
#[derive(Clone, Copy)]
struct Task(*const (dyn Fn(usize) + Sync));
// SAFETY: the task is `Sync`, and `Pool::run` keeps it alive until the
// worker has reported it done.
unsafe impl Send for Task {}

/// Waits until `done()` holds: a short spin (a phase of this cloth lasts
/// microseconds, less than a sleep and wake-up through the kernel), then
/// parked until the other thread, having made `done()` true, unparks
/// this one. Not `yield_now`: on a core shared with other processes a
/// yield hands it over for a whole time slice (milliseconds) per phase,
/// while an unpark wakes the thread at once (the `self_collision`
/// example took 45 s alone and 189 s beside two `nice 10` processes
/// with yields; parked, about as long as alone).
fn wait_until(done: impl Fn() -> bool) {
    let mut spins = 0u32;
    while !done() {
        if spins < 4096 {
            spins += 1;
            std::hint::spin_loop();
        } else {
            // Returns at an unpark (also one given before this call) or
            // spuriously: the loop looks again either way.
            std::thread::park();
        }
    }
}

/// What the calling thread and the worker share: the phase's task count,
/// task and calling thread (set before `posted` moves on), the phase
/// number posted, the phase number the worker has finished, and whether
/// to stop.
struct Shared {
    job: Mutex<Option<(usize, Task, Thread)>>,
    posted: AtomicU64,
    finished: AtomicU64,
    stop: AtomicBool,
}

/// A two-thread job system: one worker thread runs tasks 1, 3, 5, … of a
/// phase while the calling thread runs 0, 2, 4, …; `run` returns when both
/// are done. Phases are handed over through two counters (posted,
/// finished) with a short spin, as an engine's job system does, not
/// through a sleep and a wake-up per phase.
pub struct Pool {
    shared: Arc<Shared>,
    worker: Option<JoinHandle<()>>,
}

impl Pool {
    /// Starts the worker thread.
    pub fn new() -> Self {
        let shared = Arc::new(Shared {
            job: Mutex::new(None),
            posted: AtomicU64::new(0),
            finished: AtomicU64::new(0),
            stop: AtomicBool::new(false),
        });
        let sh = shared.clone();
        let worker = std::thread::spawn(move || {
            let mut seen = 0;
            loop {
                wait_until(|| {
                    sh.stop.load(Ordering::Acquire) || sh.posted.load(Ordering::Acquire) != seen
                });
                if sh.stop.load(Ordering::Acquire) {
                    break;
                }
                seen = sh.posted.load(Ordering::Acquire);
                let job = sh.job.lock().unwrap().clone();
                if let Some((count, task, _)) = &job {
                    // SAFETY: `run` waits for `finished` before its task
                    // goes away.
                    let f = unsafe { &*task.0 };
                    (1..*count).step_by(2).for_each(f);
                }
                sh.finished.store(seen, Ordering::Release);
                if let Some((_, _, caller)) = job {
                    caller.unpark();
                }
            }
        });
        Pool {
            shared,
            worker: Some(worker),
        }
    }
}

impl Jobs for Pool {
    fn split(&self) -> usize {
        2
    }

    fn run(&self, count: usize, task: &(dyn Fn(usize) + Sync)) {
        // One task (a small phase: most pair colors of this cloth): run it
        // here rather than hand the worker nothing.
        if count <= 1 {
            (0..count).for_each(task);
            return;
        }
        // SAFETY: only the lifetime is erased; the worker is done with the
        // task before `finished` reaches this phase, which this call waits
        // for.
        let erased: &'static (dyn Fn(usize) + Sync) = unsafe { std::mem::transmute(task) };
        let sh = &self.shared;
        *sh.job.lock().unwrap() = Some((count, Task(erased), std::thread::current()));
        let phase = sh.posted.load(Ordering::Relaxed) + 1;
        sh.posted.store(phase, Ordering::Release);
        if let Some(w) = &self.worker {
            w.thread().unpark();
        }
        (0..count).step_by(2).for_each(task);
        wait_until(|| sh.finished.load(Ordering::Acquire) == phase);
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Release);
        if let Some(w) = self.worker.take() {
            w.thread().unpark();
            let _ = w.join();
        }
    }
}
