//! The whole frame (issue 19 item 1): `xpbd::step::step_colored` on a
//! cloth resting on a plane (every particle in contact every substep), 8
//! substeps of 1 iteration, against its bare colored sweeps (the same 8
//! substeps' `begin_substep` and colored link iteration, nothing else), on
//! one thread and on two (a persistent two-thread job system, as an
//! engine's pool would run the phases).

use xpbd::step::{
    step, step_colored, Colliders, Contact, Jobs, OneThread, Plane, StepConfig, World,
};
use xpbd::{cloth, cloth_link_count, color_instances, color_order, fill_in_order};
use xpbd::{Constraints, GroupColors, Link, System};

use crate::report::{pair_ratio, Ratio};
use crate::timing::{interleaved, Figure, Settings};

const SUBSTEPS: u32 = 8;
const DT: f64 = 1.0 / 60.0;
const R: f64 = 0.002;

// The two-thread pool of the self_collision example (one copy).
#[path = "../../examples/support/pool.rs"]
mod pool;
use pool::Pool;

/// The cloth, its colored links and the step's buffers.
struct Frame {
    x: Vec<[f64; 3]>,
    v: Vec<[f64; 3]>,
    w: Vec<f64>,
    links: Vec<Link<f64>>,
    starts: Vec<usize>,
    contacts: Vec<Contact<f64>>,
    scratch: Vec<[f64; 3]>,
    stamp: Vec<u32>,
}

impl Frame {
    fn new(side: usize) -> Result<Self, String> {
        let n = side * side;
        let s = 0.01;
        let x: Vec<[f64; 3]> = (0..n)
            .map(|k| [(k % side) as f64 * s, R, (k / side) as f64 * s])
            .collect();
        let count = cloth_link_count(side, side, false).ok_or("cloth size")?;
        let mut links = vec![Link::new(0, 1, s, 0.0); count];
        cloth(&x, side, side, false, 1e-8, &mut links).map_err(|e| e.to_string())?;
        let mut used = vec![0u64; n];
        let mut colors = vec![0u32; links.len()];
        let c = color_instances(&links, n, &mut used, &mut colors).map_err(|e| e.to_string())?;
        let mut starts = vec![0usize; c as usize + 1];
        let mut order = vec![0u32; links.len()];
        color_order(&colors, c, &mut starts, &mut order).map_err(|e| e.to_string())?;
        let mut sorted = links.clone();
        fill_in_order(&links, &order, &mut sorted).map_err(|e| e.to_string())?;
        Ok(Frame {
            v: vec![[0.0; 3]; n],
            w: vec![1.0; n],
            links: sorted,
            starts,
            contacts: vec![Contact::default(); n],
            scratch: vec![[0.0; 3]; xpbd::step::scratch_len(n, count)],
            stamp: vec![0; n],
            x,
        })
    }

    fn config() -> StepConfig<f64, 3> {
        let mut c = StepConfig::new([0.0, -9.81, 0.0]);
        c.substeps = SUBSTEPS;
        c.iterations = 1;
        c.particle_radius = R;
        c.static_friction = 0.2;
        c.dynamic_friction = 0.1;
        c
    }

    /// One colored frame on `jobs`.
    fn step(&mut self, jobs: &dyn Jobs) -> Result<usize, String> {
        self.frame(Some(jobs))
    }

    /// A colored frame on `jobs`, or (`None`) the sequential `step` frame
    /// (with empty constraint groups, as `step_colored` solves them) over
    /// the same (colored-ordered) links.
    fn frame(&mut self, jobs: Option<&dyn Jobs>) -> Result<usize, String> {
        let planes = [Plane {
            normal: [0.0, 1.0, 0.0],
            offset: 0.0,
        }];
        let mut world = World::new(
            &mut self.x,
            &mut self.v,
            &self.w,
            &mut self.contacts,
            &mut self.scratch,
        );
        world.links = &mut self.links;
        world.colliders = Some(Colliders {
            planes: &planes,
            ..Default::default()
        });
        world.groups = Some(Constraints::default());
        let colors = GroupColors {
            links: &self.starts,
            ..Default::default()
        };
        let stats = match jobs {
            Some(jobs) => step_colored(
                &mut world,
                &colors,
                &mut self.stamp,
                DT,
                &Self::config(),
                jobs,
            ),
            None => step(&mut world, DT, &Self::config()),
        }
        .map_err(|e| e.to_string())?;
        Ok(stats.max_contacts)
    }

    /// The frame's bare colored sweeps: 8 × (begin_substep, one colored
    /// link iteration), one thread.
    fn sweeps(&mut self) -> Result<(), String> {
        let colors = GroupColors {
            links: &self.starts,
            ..Default::default()
        };
        let mut system =
            System::new(&mut self.x, &self.w, &mut self.links).map_err(|e| e.to_string())?;
        let h = DT / f64::from(SUBSTEPS);
        for _ in 0..SUBSTEPS {
            let mut sub = system.begin_substep(h).map_err(|e| e.to_string())?;
            sub.iterate_colored(&colors).map_err(|e| e.to_string())?;
        }
        Ok(())
    }
}

/// `frame`: the whole colored frame against its bare sweeps (one thread),
/// and two threads against one.
pub(crate) fn frame_section(
    s: &Settings,
    figs: &mut Vec<Figure>,
    ratios: &mut Vec<Ratio>,
) -> Result<(), String> {
    let side = if s.quick { 40 } else { 708 };
    let pairs = if s.quick { 2 } else { 5 };
    let mut f = Frame::new(side)?;
    let solves = f.links.len() * SUBSTEPS as usize;
    println!(
        "frame: cloth {side}×{side} on a plane ({} links, {} particles in contact), {SUBSTEPS} substeps × 1 iteration, f64",
        f.links.len(),
        f.x.len()
    );
    let contacts = f.step(&OneThread)?;
    if contacts != f.x.len() {
        return Err(format!(
            "frame: {contacts} contacts, expected {}",
            f.x.len()
        ));
    }
    // A and B share the cloth: each call goes on from where the last left
    // it (the cloth rests on the plane, so every call does the same work).
    let cell = std::cell::RefCell::new(f);
    let mut err = None;
    let one = interleaved(
        pairs,
        solves,
        || {
            if let Err(e) = cell.borrow_mut().step(&OneThread) {
                err = Some(e);
            }
        },
        || {
            let _ = cell.borrow_mut().sweeps();
        },
    );
    if let Some(e) = err {
        return Err(e);
    }
    let seq = interleaved(
        pairs,
        solves,
        || {
            let _ = cell.borrow_mut().step(&OneThread);
        },
        || {
            let _ = cell.borrow_mut().frame(None);
        },
    );
    let pool = Pool::new();
    let two = interleaved(
        pairs,
        solves,
        || {
            let _ = cell.borrow_mut().step(&pool);
        },
        || {
            let _ = cell.borrow_mut().step(&OneThread);
        },
    );
    drop(pool);
    let name = |what: &str| format!("frame {side}² cloth, {what}");
    figs.push(Figure {
        case: name("colored step, 1 thread"),
        per_second: one.a.0,
        ns: one.a.1,
    });
    figs.push(Figure {
        case: name("bare colored sweeps, 1 thread"),
        per_second: one.b.0,
        ns: one.b.1,
    });
    figs.push(Figure {
        case: name("sequential step (same links)"),
        per_second: seq.b.0,
        ns: seq.b.1,
    });
    figs.push(Figure {
        case: name("colored step, 2 threads"),
        per_second: two.a.0,
        ns: two.a.1,
    });
    // Ratio > 1 means A faster: sweeps/frame is the share of the frame
    // the sweeps are (target: frame ≤ 1.3 × sweeps, i.e. ≥ 1/1.3).
    ratios.push(pair_ratio(
        name("bare sweeps / whole frame (1 thread; ≥ 0.77 = frame ≤ 1.3×)"),
        &one,
        1.0 / 1.3,
    ));
    ratios.push(pair_ratio(
        name("2 threads / 1 thread, whole frame"),
        &two,
        1.8,
    ));
    ratios.push(pair_ratio(
        name("colored 1 thread / sequential step (context)"),
        &seq,
        0.0,
    ));
    Ok(())
}
