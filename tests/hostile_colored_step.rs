//! Hostile C callers of colored stepping (`xpbd_world3_step_colored`,
//! issue 19; the world of issue 33, its memory and blocks): a NULL world
//! or `colors` (`NULL_POINTER`); the memory (which holds the coloring
//! stamp) NULL, one byte short or misaligned (`CAPACITY_TOO_SMALL`,
//! `XPBD_FIELD_MEMORY`); the memory, the color boundaries or the job
//! system struct overlapping the positions, the links, the world, a block
//! or each other (`ALIASED_BUFFERS`); boundaries past the links, an
//! improper color (`INVALID_ARGUMENT`); a job system that skips a task
//! (`JOB_CONTRACT`); every refusal writes nothing (positions, velocities,
//! the output, the link λ and flags). A job system that runs tasks twice,
//! out of range, on real threads, or asks for 2^32 − 1 tasks gives the
//! bits of `xpbd_world3_step` (both worlds with an empty groups block), in
//! f64 and f32. Called from Rust so that Miri checks the slices and the
//! threads; small worlds.

use core::ffi::c_void;
use core::ptr;
use xpbd::ffi::*;
use xpbd::step::StepStats;
use xpbd::Link;

#[path = "support/c_step.rs"]
mod c_step;
use c_step::Prec;

const N: usize = 6;

/// A rope of `N` particles, top pinned, links in colored order (even
/// links, then odd: two colors), an empty groups block and the world's
/// memory.
struct Rope<T: Prec> {
    x: [[T; 3]; N],
    v: [[T; 3]; N],
    w: [T; N],
    links: [Link<T>; N - 1],
    starts: [usize; 3],
    /// The groups block (in a vector: a stable address, one origin for
    /// every pointer to it).
    groups: Vec<GroupsC<T>>,
    memory: Vec<u64>,
}

impl<T: Prec> Rope<T> {
    fn new() -> Self {
        let f = |v: f64| T::from_f64(v);
        let mut links = [Link::new(0, 1, f(0.1), f(1e-6)); N - 1];
        let order = [0u32, 2, 4, 1, 3];
        for (l, &i) in links.iter_mut().zip(&order) {
            *l = Link::new(i, i + 1, f(0.1), f(1e-6));
        }
        Rope {
            x: core::array::from_fn(|k| [f(0.1 * k as f64), f(1.0), f(0.0)]),
            v: [[f(0.0); 3]; N],
            w: core::array::from_fn(|k| if k == 0 { f(0.0) } else { f(1.0) }),
            links,
            starts: [0, 3, 5],
            groups: vec![T::default_groups()],
            memory: Vec::new(),
        }
    }

    /// The C world: the rope, its groups block, the memory it asks for.
    fn world(&mut self) -> WorldC<T> {
        let mut w = T::default_world();
        w.positions = self.x.as_mut_ptr();
        w.velocities = self.v.as_mut_ptr();
        w.inverse_masses = self.w.as_ptr();
        w.particle_count = N;
        w.links = self.links.as_mut_ptr();
        w.link_count = N - 1;
        self.groups[0] = T::default_groups();
        // SAFETY: the world and its block are valid; the block outlives
        // the world's use (the rope's vector).
        unsafe {
            assert_eq!(
                T::add_block(&mut w, self.groups.as_mut_ptr().cast()),
                XpbdStatus::Ok
            );
            self.memory = c_step::give_memory(&mut w);
        }
        w
    }

    fn colors(&self) -> XpbdGroupColors {
        XpbdGroupColors {
            link_color_starts: self.starts.as_ptr(),
            link_color_count: 2,
            bend_color_starts: ptr::null(),
            bend_color_count: 0,
            tet_color_starts: ptr::null(),
            tet_color_count: 0,
            tether_color_starts: ptr::null(),
            tether_color_count: 0,
        }
    }

    /// Bits of positions, velocities, link λ and flags.
    fn bits(&self) -> Vec<u64> {
        let b = |v: T| v.to_f64().to_bits();
        let mut out: Vec<u64> = self
            .x
            .iter()
            .chain(&self.v)
            .flatten()
            .map(|&v| b(v))
            .collect();
        out.extend(self.links.iter().map(|l| b(l.lambda)));
        out.extend(self.links.iter().map(|l| u64::from(l.flags)));
        out
    }
}

/// The configuration: the C default; under Miri (CI budget) 4 substeps,
/// the default 20 natively.
fn config<T: Prec>() -> StepConfigC<T> {
    let mut c = T::default_config();
    if cfg!(miri) {
        c.substeps = 4;
    }
    c
}

/// Real threads: two scoped threads, thread t running tasks t, t + 2, …
unsafe extern "C" fn two_threads(
    _user: *mut c_void,
    count: u32,
    task: XpbdTaskFn,
    context: *mut c_void,
) {
    let context = context as usize;
    std::thread::scope(|s| {
        for t in 0..2u32 {
            s.spawn(move || {
                for i in (t..count).step_by(2) {
                    // SAFETY: the library's task with its context, while
                    // `run` has not returned.
                    unsafe { task(context as *mut c_void, i) };
                }
            });
        }
    });
}

/// Every task twice, and indices past the count.
unsafe extern "C" fn twice(_user: *mut c_void, count: u32, task: XpbdTaskFn, context: *mut c_void) {
    for i in 0..count + 5 {
        // SAFETY: the library's task with its context.
        unsafe {
            task(context, i);
            task(context, i);
        }
    }
}

/// Never runs the first task of a phase.
unsafe extern "C" fn skips_first(
    _user: *mut c_void,
    count: u32,
    task: XpbdTaskFn,
    context: *mut c_void,
) {
    for i in 1..count {
        // SAFETY: the library's task with its context.
        unsafe { task(context, i) };
    }
}

fn jobs(
    run: Option<unsafe extern "C" fn(*mut c_void, u32, XpbdTaskFn, *mut c_void)>,
    split: u32,
) -> XpbdJobSystem {
    XpbdJobSystem {
        run,
        user: ptr::null_mut(),
        split,
    }
}

/// Many particles, so that the particle phases split: a rope of `n`.
fn frames() -> usize {
    if cfg!(miri) {
        1
    } else {
        20
    }
}

/// The colored step with every job system gives the sequential bits.
fn same_bits<T: Prec>() {
    let config = config::<T>();
    let dt = T::from_f64(1.0 / 60.0);
    let mut reference = Rope::<T>::new();
    let mut ref_stats = StepStats::default();
    let mut w = reference.world();
    for _ in 0..frames() {
        // SAFETY: every buffer of the rope is valid for its count.
        let st = unsafe { T::step(&mut w, dt, &config, &mut ref_stats) };
        assert_eq!(st, XpbdStatus::Ok);
    }
    let systems = [
        None,
        Some(jobs(None, 4)),
        Some(jobs(Some(two_threads), 2)),
        Some(jobs(Some(twice), u32::MAX)),
    ];
    for j in &systems {
        let mut rope = Rope::<T>::new();
        let mut stats = StepStats::default();
        let mut w = rope.world();
        for _ in 0..frames() {
            let colors = rope.colors();
            let jp = j
                .as_ref()
                .map_or(ptr::null(), |j| j as *const XpbdJobSystem);
            // SAFETY: every buffer is valid for its count.
            let st = unsafe { T::step_colored(&mut w, &colors, dt, &config, jp, &mut stats) };
            assert_eq!(st, XpbdStatus::Ok);
        }
        assert!(rope.bits() == reference.bits());
        assert_eq!(stats, ref_stats);
    }
}

#[test]
fn every_job_system_gives_the_sequential_bits_f64() {
    same_bits::<f64>();
}

#[test]
fn every_job_system_gives_the_sequential_bits_f32() {
    same_bits::<f32>();
}

#[test]
fn refusals_write_nothing() {
    let config = config::<f64>();
    let mut rope = Rope::<f64>::new();
    let before = rope.bits();
    let skip = jobs(Some(skips_first), 4);
    let sentinel = XpbdStepStats {
        substeps: 77,
        ..Default::default()
    };
    // (what to break, expected status, expected error_field when the
    // world is written)
    type Case = (&'static str, XpbdStatus, Option<i32>);
    let small = XpbdStatus::CapacityTooSmall;
    let field = Some(XPBD_FIELD_MEMORY);
    let aliased = XpbdStatus::AliasedBuffers;
    let none = Some(XPBD_FIELD_NONE);
    let cases: [Case; 14] = [
        ("world null", XpbdStatus::NullPointer, None),
        ("colors null", XpbdStatus::NullPointer, None),
        ("memory null", small, field),
        ("memory one byte short", small, field),
        ("memory misaligned", small, field),
        ("memory over positions", aliased, none),
        ("memory over starts", aliased, none),
        ("memory over the groups block", aliased, none),
        ("starts over links", aliased, none),
        ("starts over the memory", aliased, none),
        ("jobs over world", aliased, none),
        ("jobs over the memory", aliased, none),
        ("starts past links", XpbdStatus::InvalidArgument, none),
        ("improper", XpbdStatus::InvalidArgument, none),
    ];
    for (what, expected, expected_field) in cases {
        let mut out = sentinel;
        // A fresh world each time (a case may take a new reference to a
        // buffer of the rope).
        let mut w = rope.world();
        let needed = w.memory_size;
        let memory = w.memory.cast::<u8>();
        let block = rope.groups.as_mut_ptr();
        // One raw pointer to the world for every use (the world and, in
        // one case, the job system over it).
        let wp: *mut XpbdWorld3 = ptr::addr_of_mut!(w);
        let mut colors = rope.colors();
        let mut cp: *const XpbdGroupColors = &colors;
        let mut jp: *const XpbdJobSystem = ptr::null();
        let mut starts = rope.starts;
        // SAFETY: the world struct through its own pointer.
        unsafe {
            match what {
                "world null" => {}
                "colors null" => cp = ptr::null(),
                "memory null" => (*wp).memory = ptr::null_mut(),
                "memory one byte short" => (*wp).memory_size = needed - 1,
                "memory misaligned" => (*wp).memory = memory.wrapping_add(4).cast(),
                "memory over positions" => (*wp).memory = rope.x.as_mut_ptr().cast(),
                "memory over starts" => (*wp).memory = rope.starts.as_ptr().cast_mut().cast(),
                "memory over the groups block" => (*wp).memory = block.cast(),
                "starts over links" => colors.link_color_starts = rope.links.as_ptr().cast(),
                "starts over the memory" => {
                    colors.link_color_starts = memory.wrapping_add(needed - 24).cast();
                }
                "jobs over world" => jp = wp.cast_const().cast(),
                "jobs over the memory" => jp = memory.cast_const().cast(),
                "starts past links" => {
                    starts[2] = 6;
                    colors.link_color_starts = starts.as_ptr();
                }
                "improper" => {
                    // Links 0 (0–1) and 2 (1–2 after the even ones: index 3)
                    // in one color.
                    starts[1] = 4;
                    colors.link_color_starts = starts.as_ptr();
                }
                _ => unreachable!(),
            }
            (*wp).error_index = 77;
            (*wp).error_field = 77;
        }
        if what.starts_with("starts") || what == "improper" {
            cp = &colors;
        }
        let target = if what == "world null" {
            ptr::null_mut()
        } else {
            wp
        };
        let dt = 1.0 / 60.0;
        // SAFETY: every pointer is valid for its count or NULL; the
        // overlaps are what is tested.
        let st = unsafe { f64::step_colored(target, cp, dt, &config, jp, &mut out) };
        assert_eq!(st, expected, "{what}");
        assert_eq!(out, sentinel, "{what}");
        assert!(rope.bits() == before, "{what}");
        // SAFETY: the world struct, read through its pointer.
        let (index, field) = unsafe { ((*wp).error_index, (*wp).error_field) };
        match expected_field {
            None => assert_eq!((index, field), (77, 77), "{what}: world written"),
            Some(f) if f == XPBD_FIELD_MEMORY => {
                assert_eq!((index, field), (needed, f), "{what}")
            }
            Some(f) => assert_eq!((index, field), (0, f), "{what}"),
        }
    }
    // A job system that skips a task: JOB_CONTRACT, nothing written. A
    // rope of 6 particles makes one-task particle phases, but its colors
    // split into tasks only from 64 links: use a longer rope's phases
    // through a split of 4 on the prediction of 2,048 particles instead.
    let mut long = Long::new();
    let before = long.bits();
    let mut out = sentinel;
    let st = long.step(&skip, &mut out);
    assert_eq!(st, XpbdStatus::JobContract);
    assert_eq!(out, sentinel);
    assert!(long.bits() == before);
}

/// 2,048 free particles with no links: the particle phases split into
/// tasks (1,024 particles each at least; under Miri 64 particles, tasks
/// of 8 there).
struct Long {
    x: Vec<[f64; 3]>,
    v: Vec<[f64; 3]>,
    w: Vec<f64>,
}

impl Long {
    fn new() -> Self {
        let n = if cfg!(miri) { 64 } else { 2048 };
        Long {
            x: (0..n).map(|k| [k as f64, 1.0, 0.0]).collect(),
            v: vec![[0.0; 3]; n],
            w: vec![1.0; n],
        }
    }

    fn bits(&self) -> Vec<u64> {
        self.x
            .iter()
            .chain(&self.v)
            .flatten()
            .map(|v| v.to_bits())
            .collect()
    }

    fn step(&mut self, jobs: &XpbdJobSystem, out: &mut XpbdStepStats) -> XpbdStatus {
        // SAFETY: all-zero is a valid set of colors (no color).
        let colors: XpbdGroupColors = unsafe { core::mem::zeroed() };
        let mut w = xpbd_world3_default();
        let n = self.x.len();
        w.positions = self.x.as_mut_ptr();
        w.velocities = self.v.as_mut_ptr();
        w.inverse_masses = self.w.as_ptr();
        w.particle_count = n;
        let mut config = xpbd_step_config3_default();
        config.substeps = 1;
        // SAFETY: every buffer is valid for its count.
        unsafe {
            let _memory = c_step::give_memory(&mut w);
            xpbd_world3_step_colored(&mut w, &colors, 1.0 / 60.0, &config, jobs, out)
        }
    }
}
