//! Hostile C callers of colored stepping (`xpbd_world3_step_colored`,
//! issue 19): NULL `groups` or `colors` (`NULL_POINTER`); the stamp, the
//! color boundaries or the job system struct overlapping the positions,
//! the links, the world or each other (`ALIASED_BUFFERS`); a stamp NULL
//! with a count (`NULL_POINTER`) or too short, boundaries past the links,
//! an improper color (`INVALID_ARGUMENT`); a job system that skips a task
//! (`JOB_CONTRACT`); every refusal writes nothing (positions, velocities,
//! the output, the link λ and flags). A job system that runs tasks twice,
//! out of range, on real threads, or asks for 2^32 − 1 tasks gives the
//! bits of `xpbd_world3_step_groups`, in f64 and f32. Called from Rust so
//! that Miri checks the slices and the threads; small worlds.

use core::ffi::c_void;
use core::ptr;
use xpbd::ffi::*;
use xpbd::step::StepStats;
use xpbd::{Link, Real};

const N: usize = 6;

/// A rope of `N` particles, top pinned, links in colored order (even
/// links, then odd: two colors), with every buffer a step needs.
struct Rope<T: Real> {
    x: [[T; 3]; N],
    v: [[T; 3]; N],
    w: [T; N],
    links: [Link<T>; N - 1],
    contacts: [xpbd::step::Contact<T>; 4],
    scratch: [[T; 3]; 3 * N],
    starts: [usize; 3],
    stamp: [u32; N],
}

impl<T: Real> Rope<T> {
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
            contacts: [xpbd::step::Contact::default(); 4],
            scratch: [[f(0.0); 3]; 3 * N],
            starts: [0, 3, 5],
            stamp: [0; N],
        }
    }

    fn world(&mut self) -> WorldC<T> {
        // SAFETY: all-zero is a valid WorldC (NULL pointers, zero counts).
        let mut w: WorldC<T> = unsafe { core::mem::zeroed() };
        w.positions = self.x.as_mut_ptr();
        w.velocities = self.v.as_mut_ptr();
        w.inverse_masses = self.w.as_ptr();
        w.particle_count = N;
        w.links = self.links.as_mut_ptr();
        w.link_count = N - 1;
        w.contacts = self.contacts.as_mut_ptr();
        w.contact_capacity = 4;
        w.scratch = self.scratch.as_mut_ptr();
        w.scratch_count = 3 * N;
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

/// One precision of the two C steps.
trait Prec: Real {
    /// `xpbd_world3_step_groups[_f32]`.
    unsafe fn groups(
        w: *mut WorldC<Self>,
        g: *const ConstraintsC<Self>,
        dt: Self,
        c: *const StepConfigC<Self>,
        out: *mut StepStats<Self>,
    ) -> XpbdStatus;
    /// `xpbd_world3_step_colored[_f32]`.
    #[allow(clippy::too_many_arguments)]
    unsafe fn colored(
        w: *mut WorldC<Self>,
        g: *const ConstraintsC<Self>,
        colors: *const XpbdGroupColors,
        stamp: *mut u32,
        stamp_count: usize,
        dt: Self,
        c: *const StepConfigC<Self>,
        jobs: *const XpbdJobSystem,
        out: *mut StepStats<Self>,
    ) -> XpbdStatus;
    fn config() -> StepConfigC<Self>;
}

impl Prec for f64 {
    unsafe fn groups(
        w: *mut XpbdWorld3,
        g: *const XpbdConstraints3,
        dt: f64,
        c: *const XpbdStepConfig3,
        out: *mut XpbdStepStats,
    ) -> XpbdStatus {
        // SAFETY: forwarded.
        unsafe { xpbd_world3_step_groups(w, g, dt, c, out) }
    }
    unsafe fn colored(
        w: *mut XpbdWorld3,
        g: *const XpbdConstraints3,
        colors: *const XpbdGroupColors,
        stamp: *mut u32,
        stamp_count: usize,
        dt: f64,
        c: *const XpbdStepConfig3,
        jobs: *const XpbdJobSystem,
        out: *mut XpbdStepStats,
    ) -> XpbdStatus {
        // SAFETY: forwarded.
        unsafe { xpbd_world3_step_colored(w, g, colors, stamp, stamp_count, dt, c, jobs, out) }
    }
    fn config() -> XpbdStepConfig3 {
        let mut c = xpbd_step_config3_default();
        // Under Miri (CI budget) 4 substeps, the default 20 natively.
        if cfg!(miri) {
            c.substeps = 4;
        }
        c
    }
}

impl Prec for f32 {
    unsafe fn groups(
        w: *mut XpbdWorld3F32,
        g: *const XpbdConstraints3F32,
        dt: f32,
        c: *const XpbdStepConfig3F32,
        out: *mut XpbdStepStatsF32,
    ) -> XpbdStatus {
        // SAFETY: forwarded.
        unsafe { xpbd_world3_step_groups_f32(w, g, dt, c, out) }
    }
    unsafe fn colored(
        w: *mut XpbdWorld3F32,
        g: *const XpbdConstraints3F32,
        colors: *const XpbdGroupColors,
        stamp: *mut u32,
        stamp_count: usize,
        dt: f32,
        c: *const XpbdStepConfig3F32,
        jobs: *const XpbdJobSystem,
        out: *mut XpbdStepStatsF32,
    ) -> XpbdStatus {
        // SAFETY: forwarded.
        unsafe { xpbd_world3_step_colored_f32(w, g, colors, stamp, stamp_count, dt, c, jobs, out) }
    }
    fn config() -> XpbdStepConfig3F32 {
        let mut c = xpbd_step_config3_default_f32();
        // Under Miri (CI budget) 4 substeps, the default 20 natively.
        if cfg!(miri) {
            c.substeps = 4;
        }
        c
    }
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
    let config = T::config();
    let dt = T::from_f64(1.0 / 60.0);
    // SAFETY: all-zero is a valid empty groups struct.
    let groups: ConstraintsC<T> = unsafe { core::mem::zeroed() };
    let mut reference = Rope::<T>::new();
    let mut ref_stats = StepStats::default();
    for _ in 0..frames() {
        let mut w = reference.world();
        // SAFETY: every buffer of the rope is valid for its count.
        let st = unsafe { T::groups(&mut w, &groups, dt, &config, &mut ref_stats) };
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
        for _ in 0..frames() {
            let mut w = rope.world();
            let colors = rope.colors();
            let jp = j
                .as_ref()
                .map_or(ptr::null(), |j| j as *const XpbdJobSystem);
            // SAFETY: every buffer is valid for its count.
            let st = unsafe {
                T::colored(
                    &mut w,
                    &groups,
                    &colors,
                    rope.stamp.as_mut_ptr(),
                    N,
                    dt,
                    &config,
                    jp,
                    &mut stats,
                )
            };
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
    let config = f64::config();
    // SAFETY: all-zero is a valid empty groups struct.
    let groups: XpbdConstraints3 = unsafe { core::mem::zeroed() };
    let mut rope = Rope::<f64>::new();
    let before = rope.bits();
    let skip = jobs(Some(skips_first), 4);
    let sentinel = XpbdStepStats {
        substeps: 77,
        ..Default::default()
    };
    // (what to break, expected status)
    type Case = (&'static str, XpbdStatus);
    let cases: [Case; 10] = [
        ("groups null", XpbdStatus::NullPointer),
        ("colors null", XpbdStatus::NullPointer),
        ("stamp null", XpbdStatus::NullPointer),
        ("stamp short", XpbdStatus::InvalidArgument),
        ("stamp over positions", XpbdStatus::AliasedBuffers),
        ("stamp over starts", XpbdStatus::AliasedBuffers),
        ("starts over links", XpbdStatus::AliasedBuffers),
        ("jobs over world", XpbdStatus::AliasedBuffers),
        ("starts past links", XpbdStatus::InvalidArgument),
        ("improper", XpbdStatus::InvalidArgument),
    ];
    for (what, expected) in cases {
        let mut out = sentinel;
        let mut w = rope.world();
        // One raw pointer to the world for every use (the world and, in
        // one case, the job system over it).
        let wp: *mut XpbdWorld3 = ptr::addr_of_mut!(w);
        let mut colors = rope.colors();
        let mut stamp = rope.stamp.as_mut_ptr();
        let mut stamp_count = N;
        let mut g: *const XpbdConstraints3 = &groups;
        let mut cp: *const XpbdGroupColors = &colors;
        let mut jp: *const XpbdJobSystem = ptr::null();
        let mut starts = rope.starts;
        match what {
            "groups null" => g = ptr::null(),
            "colors null" => cp = ptr::null(),
            "stamp null" => stamp = ptr::null_mut(),
            "stamp short" => stamp_count = N - 1,
            "stamp over positions" => stamp = rope.x.as_mut_ptr().cast(),
            "stamp over starts" => {
                stamp = rope.starts.as_mut_ptr().cast();
                stamp_count = 2;
            }
            "starts over links" => colors.link_color_starts = rope.links.as_ptr().cast(),
            "jobs over world" => jp = wp.cast_const().cast(),
            "starts past links" => {
                starts[2] = 6;
                colors.link_color_starts = starts.as_ptr();
            }
            "improper" => {
                // Links 0 (0–1) and 2 (1–2 after the even ones: index 3) in
                // one color.
                starts[1] = 4;
                colors.link_color_starts = starts.as_ptr();
            }
            _ => unreachable!(),
        }
        if what == "starts over links" || what == "starts past links" || what == "improper" {
            cp = &colors;
        }
        let dt = 1.0 / 60.0;
        // SAFETY: every pointer is valid for its count or NULL; the
        // overlaps are what is tested.
        let st = unsafe { f64::colored(wp, g, cp, stamp, stamp_count, dt, &config, jp, &mut out) };
        assert_eq!(st, expected, "{what}");
        assert_eq!(out, sentinel, "{what}");
        assert!(rope.bits() == before, "{what}");
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
/// tasks (1,024 particles each at least).
struct Long {
    x: Vec<[f64; 3]>,
    v: Vec<[f64; 3]>,
    w: Vec<f64>,
    scratch: Vec<[f64; 3]>,
    stamp: Vec<u32>,
}

impl Long {
    fn new() -> Self {
        let n = 2048;
        Long {
            x: (0..n).map(|k| [k as f64, 1.0, 0.0]).collect(),
            v: vec![[0.0; 3]; n],
            w: vec![1.0; n],
            scratch: vec![[0.0; 3]; 3 * n],
            stamp: vec![0; n],
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
        // SAFETY: all-zero is a valid empty world / groups / colors.
        let (mut w, groups, colors): (XpbdWorld3, XpbdConstraints3, XpbdGroupColors) = unsafe {
            (
                core::mem::zeroed(),
                core::mem::zeroed(),
                core::mem::zeroed(),
            )
        };
        let n = self.x.len();
        w.positions = self.x.as_mut_ptr();
        w.velocities = self.v.as_mut_ptr();
        w.inverse_masses = self.w.as_ptr();
        w.particle_count = n;
        w.scratch = self.scratch.as_mut_ptr();
        w.scratch_count = 3 * n;
        let mut config = xpbd_step_config3_default();
        config.substeps = 1;
        // SAFETY: every buffer is valid for its count.
        unsafe {
            xpbd_world3_step_colored(
                &mut w,
                &groups,
                &colors,
                self.stamp.as_mut_ptr(),
                n,
                1.0 / 60.0,
                &config,
                jobs,
                out,
            )
        }
    }
}
