//! Hostile C callers of the field colliders (heightfields and signed
//! distance fields in the colliders block, `XpbdHeightfield3`,
//! `XpbdSdf3` and their shared `samples`) through `xpbd_world3_step`
//! and `xpbd_world3_step_f32`: each of the three arrays aliased with the
//! world's buffers, its memory, the planes, the world struct, the block,
//! the configuration, the output and the other two (`ALIASED_BUFFERS`),
//! NULL with a count (`NULL_POINTER`), misaligned (`INVALID_ARGUMENT`); a
//! bad field or sample written between two steps (`INVALID_COLLIDER`
//! naming the collider: planes, spheres, capsules, boxes, then
//! heightfields and SDFs). Every refusal writes nothing. A world with
//! moving, turning fields steps bit for bit as the Rust `step` does.
//! Called from Rust so that Miri checks the slices the C layer forms;
//! small worlds, few substeps.

use core::ptr;
use xpbd::ffi::*;
use xpbd::step::{
    step, Colliders, Contact, Heightfield, Plane, Requirements, Sdf, StepConfig, StepStats,
};
use xpbd::{rope, Link, Real};

use super::c_step::{self, f, Prec};

fn v3<T: Real>(a: [f64; 3]) -> [T; 3] {
    a.map(f)
}

/// Nodes per axis of the SDF.
const SDF_N: u32 = 4;

/// Four particles: a 2-particle rope falling onto a turning, sliding
/// heightfield (3 × 3 nodes), two free particles onto a rising, turning
/// SDF sphere (4³ nodes); the plane y = −1 under everything. Colliders:
/// plane 0, heightfield 1, SDF 2. The arrays live in vectors (stable
/// addresses, one origin for every pointer to them).
struct Store<T: Prec> {
    x: Vec<[T; 3]>,
    v: Vec<[T; 3]>,
    w: Vec<T>,
    links: Vec<Link<T>>,
    planes: Vec<Plane<T, 3>>,
    heightfields: Vec<Heightfield<T, 3>>,
    sdfs: Vec<Sdf<T, 3>>,
    samples: Vec<T>,
    colliders_block: Vec<CollidersC<T>>,
    memory: Vec<u64>,
    config: StepConfigC<T>,
    stats: StepStats<T>,
}

impl<T: Prec> Store<T> {
    fn new() -> Self {
        let x: Vec<[T; 3]> = vec![
            v3([-0.1, 0.4, 0.05]),
            v3([0.2, 0.45, 0.0]),
            v3([2.0, 0.7, 0.0]),
            v3([2.05, 0.8, -0.03]),
        ];
        let mut links = vec![Link::default(); 1];
        rope(&x[..2], T::ZERO, &mut links).unwrap();
        let mut samples: Vec<T> = [0.0, 0.05, 0.1, 0.02, 0.08, 0.12, 0.0, 0.1, 0.15]
            .into_iter()
            .map(f)
            .collect();
        // The heightfield turned 0.3 rad about y, sliding along x and
        // turning on.
        let (c, s) = (0.3f64.cos(), 0.3f64.sin());
        let mut hf = Heightfield::new(v3([-0.5, 0.0, -0.5]), [f(0.5); 2], [3, 3], 0);
        hf.center = v3([0.0, 0.1, 0.0]);
        hf.axes = [v3([c, 0.0, -s]), v3([0.0, 1.0, 0.0]), v3([s, 0.0, c])];
        hf.velocity = v3([0.2, 0.0, 0.0]);
        hf.angular_velocity = v3([0.0, 0.5, 0.0]);
        hf.static_friction = f(0.4);
        hf.dynamic_friction = f(0.3);
        // A sphere of radius 0.3 on a grid of cell 0.3 about its local
        // origin, at (2, 0.3, 0), rising and turning.
        let mut sdf = Sdf::new(v3([-0.45; 3]), f(0.3), [SDF_N; 3], samples.len());
        sdf.center = v3([2.0, 0.3, 0.0]);
        sdf.velocity = v3([0.0, 0.1, 0.0]);
        sdf.angular_velocity = v3([0.2, 0.0, 0.1]);
        sdf.static_friction = f(0.2);
        for k in 0..SDF_N {
            for j in 0..SDF_N {
                for i in 0..SDF_N {
                    let p = [i, j, k].map(|n| -0.45 + 0.3 * f64::from(n));
                    let d = (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt();
                    samples.push(f(d - 0.3));
                }
            }
        }
        let mut config = T::default_config();
        config.substeps = 2;
        Self {
            v: vec![v3([0.0, -3.0, 0.0]); 4],
            w: vec![T::ONE; 4],
            x,
            links,
            planes: vec![Plane {
                normal: v3([0.0, 1.0, 0.0]),
                offset: f(-1.0),
            }],
            heightfields: vec![hf],
            sdfs: vec![sdf],
            samples,
            colliders_block: vec![T::default_colliders()],
            memory: Vec::new(),
            config,
            stats: StepStats::default(),
        }
    }

    /// The C world over the store's buffers (raw pointers taken once):
    /// the colliders block (the default contact budget) and the memory.
    fn world(&mut self) -> WorldC<T> {
        let mut w = T::default_world();
        w.positions = self.x.as_mut_ptr();
        w.velocities = self.v.as_mut_ptr();
        w.inverse_masses = self.w.as_ptr();
        w.particle_count = self.x.len();
        w.links = self.links.as_mut_ptr();
        w.link_count = self.links.len();
        let mut c = T::default_colliders();
        c.planes = self.planes.as_ptr();
        c.plane_count = self.planes.len();
        c.heightfields = self.heightfields.as_ptr();
        c.heightfield_count = self.heightfields.len();
        c.sdfs = self.sdfs.as_ptr();
        c.sdf_count = self.sdfs.len();
        c.samples = self.samples.as_ptr();
        c.sample_count = self.samples.len();
        self.colliders_block[0] = c;
        // SAFETY: the world and its block are valid; the block outlives
        // the world's use (the store's vector).
        unsafe {
            let cb = self.colliders_block.as_mut_ptr();
            assert_eq!(T::add_block(&mut w, cb.cast()), XpbdStatus::Ok);
            self.memory = c_step::give_memory(&mut w);
        }
        w
    }
}

/// Every value a refused step must leave alone, bit for bit (field by
/// field: the structs' padding is not data): positions, velocities,
/// links, the fields and their samples.
#[derive(Debug, PartialEq, Eq)]
struct Snapshot(Vec<u64>);

/// The raw pointers a snapshot reads (taken once from the store).
#[derive(Clone, Copy)]
struct Arrays<T: Prec> {
    x: *const [T; 3],
    v: *const [T; 3],
    links: *const Link<T>,
    heightfields: *mut Heightfield<T, 3>,
    sdfs: *mut Sdf<T, 3>,
    samples: *mut T,
    sample_count: usize,
}

impl<T: Prec> Arrays<T> {
    fn of(s: &mut Store<T>, w: &WorldC<T>) -> Self {
        Self {
            x: w.positions,
            v: w.velocities,
            links: w.links,
            heightfields: s.heightfields.as_mut_ptr(),
            sdfs: s.sdfs.as_mut_ptr(),
            samples: s.samples.as_mut_ptr(),
            sample_count: s.samples.len(),
        }
    }

    fn snapshot(&self) -> Snapshot {
        let mut out = Vec::new();
        let mut put = |s: &[T]| out.extend(s.iter().map(|c| c.bits()));
        // SAFETY: the store's buffers (4 particles, 1 link, 1 heightfield,
        // 1 SDF, the samples), read by value between calls.
        unsafe {
            for k in 0..4 {
                put(&*self.x.add(k));
                put(&*self.v.add(k));
            }
            let l = *self.links;
            put(&[l.rest, l.compliance, l.lambda]);
            put(&[f(f64::from(l.i)), f(f64::from(l.j)), f(f64::from(l.flags))]);
            let h = *self.heightfields;
            put(&h.center);
            put(h.axes.as_flattened());
            put(&h.velocity);
            put(&h.angular_velocity);
            put(&h.offset);
            put(&h.spacing);
            put(&[h.height_scale, h.static_friction, h.dynamic_friction]);
            put(&h.counts.map(|c| f(f64::from(c))));
            put(&[f(h.first as f64)]);
            let g = *self.sdfs;
            put(&g.center);
            put(g.axes.as_flattened());
            put(&g.velocity);
            put(&g.angular_velocity);
            put(&g.offset);
            put(&[g.cell, g.static_friction, g.dynamic_friction]);
            put(&g.counts.map(|c| f(f64::from(c))));
            put(&[f(g.first as f64)]);
            put(core::slice::from_raw_parts(self.samples, self.sample_count));
        }
        Snapshot(out)
    }
}

/// Every aliasing of a field array is refused with nothing written.
fn aliased_null_and_misaligned_arrays_are_refused<T: Prec>() {
    let mut s = Store::<T>::new();
    let good = s.world();
    let a = Arrays::of(&mut s, &good);
    let cbp = s.colliders_block.as_mut_ptr();
    // SAFETY: the store's block, read through its pointer.
    let gc = unsafe { *cbp };
    let mut world = good;
    let (wp, cp) = (ptr::addr_of_mut!(world), ptr::addr_of!(s.config));
    let out = ptr::addr_of_mut!(s.stats);
    let dt = f::<T>(1.0 / 60.0);
    // The good world steps (so that the arrays are really used).
    // SAFETY: valid, disjoint buffers.
    assert_eq!(unsafe { T::step(wp, dt, cp, out) }, XpbdStatus::Ok);
    let stats_after_ok = s.stats;
    let before = a.snapshot();
    let aliased = XpbdStatus::AliasedBuffers;
    // (what, the colliders block, the output, status)
    let mut cases: Vec<(&str, CollidersC<T>, *mut StepStats<T>, XpbdStatus)> = Vec::new();
    let memory = good.memory.cast::<u8>();
    let targets: [(&str, *mut u8); 13] = [
        ("positions", good.positions.cast()),
        ("velocities", good.velocities.cast()),
        ("inverse masses", good.inverse_masses.cast_mut().cast()),
        ("links", good.links.cast()),
        ("the memory", memory),
        (
            "the memory's end",
            memory.wrapping_add(good.memory_size - 16),
        ),
        ("planes", gc.planes.cast_mut().cast()),
        ("the world", wp.cast()),
        ("the config", cp.cast_mut().cast()),
        ("the output", out.cast()),
        ("the colliders block", cbp.cast()),
        (
            "the colliders block's samples field",
            // SAFETY: a field of the block `cbp` points to.
            unsafe { ptr::addr_of_mut!((*cbp).samples) }.cast(),
        ),
        (
            "the world's error_index",
            // SAFETY: a field of the world `wp` points to.
            unsafe { ptr::addr_of_mut!((*wp).error_index) }.cast(),
        ),
    ];
    // Under Miri (CI budget) each buffer is overlapped by one of the three
    // arrays in turn; natively by all three.
    for (k, (what, at)) in targets.into_iter().enumerate() {
        let miri = |array: usize| !cfg!(miri) || k % 3 == array;
        let at = at.cast_const();
        if miri(0) {
            let c = CollidersC {
                heightfields: at.cast(),
                ..gc
            };
            cases.push((what, c, out, aliased));
        }
        if miri(1) {
            let c = CollidersC {
                sdfs: at.cast(),
                ..gc
            };
            cases.push((what, c, out, aliased));
        }
        if miri(2) {
            let c = CollidersC {
                samples: at.cast(),
                sample_count: 2,
                ..gc
            };
            cases.push((what, c, out, aliased));
        }
    }
    let (hfs, sdfs, samples) = (a.heightfields.cast_const(), a.sdfs.cast_const(), a.samples);
    cases.extend([
        (
            "heightfields over the SDFs",
            CollidersC {
                heightfields: sdfs.cast(),
                ..gc
            },
            out,
            aliased,
        ),
        (
            "SDFs over the samples",
            CollidersC {
                sdfs: samples.cast_const().cast(),
                ..gc
            },
            out,
            aliased,
        ),
        (
            "samples over the heightfields",
            CollidersC {
                samples: hfs.cast(),
                sample_count: 4,
                ..gc
            },
            out,
            aliased,
        ),
        (
            "samples running into the SDFs",
            CollidersC {
                samples: sdfs.cast::<u8>().wrapping_sub(8).cast(),
                sample_count: 4,
                ..gc
            },
            out,
            aliased,
        ),
        ("output over the samples", gc, samples.cast(), aliased),
        (
            "output over the heightfields",
            gc,
            hfs.cast_mut().cast(),
            aliased,
        ),
        (
            "heightfields NULL",
            CollidersC {
                heightfields: ptr::null(),
                ..gc
            },
            out,
            XpbdStatus::NullPointer,
        ),
        (
            "SDFs NULL",
            CollidersC {
                sdfs: ptr::null(),
                ..gc
            },
            out,
            XpbdStatus::NullPointer,
        ),
        (
            "samples NULL",
            CollidersC {
                samples: ptr::null(),
                ..gc
            },
            out,
            XpbdStatus::NullPointer,
        ),
        (
            "samples misaligned",
            CollidersC {
                samples: samples.cast::<u8>().wrapping_add(1).cast(),
                ..gc
            },
            out,
            XpbdStatus::InvalidArgument,
        ),
        (
            "heightfields misaligned",
            CollidersC {
                heightfields: hfs.cast::<u8>().wrapping_add(2).cast(),
                ..gc
            },
            out,
            XpbdStatus::InvalidArgument,
        ),
        (
            "SDFs misaligned",
            CollidersC {
                sdfs: sdfs.cast::<u8>().wrapping_add(4).cast(),
                ..gc
            },
            out,
            XpbdStatus::InvalidArgument,
        ),
    ]);
    for (what, bad, o, want) in cases {
        // An output over an f32 array may also be misaligned for the
        // output (`usize` fields): refused as such first.
        let misaligned = (o as usize) % core::mem::align_of::<StepStats<T>>() != 0;
        let want = if misaligned {
            XpbdStatus::InvalidArgument
        } else {
            want
        };
        // SAFETY: the structs are plain data written through their own
        // pointers; every buffer is valid, and the overlapping, NULL or
        // misaligned ones are refused before any access.
        unsafe {
            *wp = good;
            *cbp = bad;
            (*wp).error_index = 77;
            (*wp).error_field = 77;
            let got = T::step(wp, dt, cp, o);
            assert_eq!(got, want, "{what}");
            assert_eq!(
                ((*wp).error_index, (*wp).error_field),
                (0, XPBD_FIELD_NONE),
                "{what}: the world's report"
            );
        }
        assert_eq!(a.snapshot(), before, "{what}: a refused step wrote");
        // SAFETY: the store's output, read between calls.
        assert_eq!(unsafe { *out }, stats_after_ok, "{what}: output written");
    }
    // Disjoint again: the step runs.
    // SAFETY: valid, disjoint buffers.
    unsafe {
        *wp = good;
        *cbp = gc;
        assert_eq!(T::step(wp, dt, cp, out), XpbdStatus::Ok);
    }
}

#[test]
fn aliased_null_and_misaligned_field_arrays_are_refused() {
    aliased_null_and_misaligned_arrays_are_refused::<f64>();
}

#[test]
#[cfg_attr(miri, ignore)]
fn aliased_null_and_misaligned_field_arrays_are_refused_in_f32() {
    aliased_null_and_misaligned_arrays_are_refused::<f32>();
}

/// An edit of the heightfield, the SDF and the block (its sample count).
type Edit<T> = fn(&mut Heightfield<T, 3>, &mut Sdf<T, 3>, &mut CollidersC<T>);

/// What, the edit, the sample written (index, value) and the collider
/// index the refusal names.
type BadEdit<T> = (&'static str, Edit<T>, Option<(usize, f64)>, usize);

/// A bad field or sample written between two steps is named by its
/// collider index (plane 0, heightfield 1, SDF 2), and nothing changes.
fn bad_fields_between_steps_are_named<T: Prec>(half: usize) {
    let mut s = Store::<T>::new();
    let good = s.world();
    let a = Arrays::of(&mut s, &good);
    let cbp = s.colliders_block.as_mut_ptr();
    let mut world = good;
    let (wp, cp) = (ptr::addr_of_mut!(world), ptr::addr_of!(s.config));
    let out = ptr::addr_of_mut!(s.stats);
    let dt = f::<T>(1.0 / 60.0);
    let sdf_first = 9;
    let edits: [BadEdit<T>; 16] = [
        ("NaN height", |_, _, _| {}, Some((4, f64::NAN)), 1),
        ("infinite height", |_, _, _| {}, Some((0, f64::INFINITY)), 1),
        (
            "NaN distance",
            |_, _, _| {},
            Some((sdf_first + 21, f64::NAN)),
            2,
        ),
        (
            "last distance -inf",
            |_, _, _| {},
            Some((sdf_first + 63, f64::NEG_INFINITY)),
            2,
        ),
        (
            "heightfield samples past the count",
            |h, _, _| h.first = 65,
            None,
            1,
        ),
        (
            "heightfield first usize::MAX",
            |h, _, _| h.first = usize::MAX,
            None,
            1,
        ),
        (
            "SDF samples past the count",
            |_, g, _| g.first = 10,
            None,
            2,
        ),
        (
            "sample count one short",
            |_, _, c| c.sample_count -= 1,
            None,
            2,
        ),
        (
            "sample count short of the heightfield",
            |_, _, c| c.sample_count = 8,
            None,
            1,
        ),
        ("heightfield of one row", |h, _, _| h.counts[1] = 1, None, 1),
        (
            "NaN height scale",
            |h, _, _| h.height_scale = f(f64::NAN),
            None,
            1,
        ),
        (
            "negative heightfield spacing",
            |h, _, _| h.spacing[1] = f(-0.5),
            None,
            1,
        ),
        (
            "skewed heightfield axis",
            |h, _, _| h.axes[2][1] = f(0.01),
            None,
            1,
        ),
        ("SDF cell 0", |_, g, _| g.cell = T::ZERO, None, 2),
        (
            "SDF counts overflowing",
            |_, g, _| g.counts = [u32::MAX; 3],
            None,
            2,
        ),
        (
            "negative SDF friction",
            |_, g, _| g.dynamic_friction = f(-0.1),
            None,
            2,
        ),
    ];
    let (skip, stride) = if cfg!(miri) { (half, 2) } else { (0, 1) };
    for (case, (what, edit, sample, index)) in
        edits.into_iter().skip(skip).step_by(stride).enumerate()
    {
        let frames = match (cfg!(miri), case) {
            (false, _) => 3,
            (true, 0) => 1,
            (true, _) => 0,
        };
        // SAFETY: valid, disjoint buffers; the store's arrays are read and
        // written through its raw pointers between calls.
        unsafe {
            *wp = good;
            for _ in 0..frames {
                assert_eq!(T::step(wp, dt, cp, out), XpbdStatus::Ok, "{what}: before");
            }
            let stats = *out;
            let keep = (*a.heightfields, *a.sdfs, *cbp);
            let (mut h, mut g, mut c) = keep;
            edit(&mut h, &mut g, &mut c);
            (*a.heightfields, *a.sdfs, *cbp) = (h, g, c);
            let kept_sample = sample.map(|(k, value)| {
                let old = *a.samples.add(k);
                *a.samples.add(k) = f(value);
                (k, old)
            });
            let before = a.snapshot();
            let got = T::step(wp, dt, cp, out);
            assert_eq!(
                (got, (*wp).error_index),
                (XpbdStatus::InvalidCollider, index),
                "{what}"
            );
            assert_eq!(a.snapshot(), before, "{what}: the refused step wrote");
            assert_eq!(*out, stats, "{what}: output written");
            (*a.heightfields, *a.sdfs, *cbp) = keep;
            if let Some((k, old)) = kept_sample {
                *a.samples.add(k) = old;
            }
            if cfg!(miri) {
                continue;
            }
            assert_eq!(T::step(wp, dt, cp, out), XpbdStatus::Ok, "{what}: after");
        }
    }
}

#[test]
fn a_bad_field_or_sample_between_steps_is_named() {
    bad_fields_between_steps_are_named::<f64>(0);
}

#[test]
#[cfg_attr(miri, ignore)]
fn a_bad_field_or_sample_between_steps_is_named_in_f32() {
    bad_fields_between_steps_are_named::<f32>(1);
}

/// The C world steps the moving, turning fields as the Rust `step` does,
/// bit for bit: positions, velocities, the output.
fn c_matches_rust<T: Prec>() {
    let mut c = Store::<T>::new();
    let mut r = Store::<T>::new();
    let mut world = c.world();
    let wp = ptr::addr_of_mut!(world);
    let cp = ptr::addr_of!(c.config);
    let out = ptr::addr_of_mut!(c.stats);
    let (x, v) = (world.positions, world.velocities);
    let config = StepConfig::<T, 3> {
        substeps: 2,
        ..StepConfig::default()
    };
    let needs = Requirements::new(4, 1, 3, false);
    let mut contacts = vec![Contact::default(); needs.contacts];
    let mut scratch = vec![[T::ZERO; 3]; needs.scratch];
    let dt = f::<T>(1.0 / 60.0);
    let frames = if cfg!(miri) { 2 } else { 40 };
    let mut touched = false;
    for frame in 0..frames {
        // SAFETY: valid, disjoint buffers.
        assert_eq!(unsafe { T::step(wp, dt, cp, out) }, XpbdStatus::Ok);
        let mut rw = xpbd::step::World::new(&mut r.x, &mut r.v, &r.w, &mut contacts, &mut scratch);
        rw.links = &mut r.links;
        rw.colliders = Some(Colliders {
            planes: &r.planes,
            heightfields: &r.heightfields,
            sdfs: &r.sdfs,
            samples: &r.samples,
            ..Default::default()
        });
        let stats = step(&mut rw, dt, &config).unwrap();
        // SAFETY: the store's buffers and output, read between calls.
        unsafe {
            assert_eq!(*out, stats, "frame {frame}: the output");
            for k in 0..4 {
                let (cx, cv) = (*x.add(k), *v.add(k));
                assert_eq!(
                    cx.map(T::bits),
                    r.x[k].map(T::bits),
                    "frame {frame}: x[{k}]"
                );
                assert_eq!(
                    cv.map(T::bits),
                    r.v[k].map(T::bits),
                    "frame {frame}: v[{k}]"
                );
            }
        }
        touched |= stats.max_contacts > 0;
    }
    assert!(touched || cfg!(miri), "the particles reach the fields");
}

#[test]
#[cfg_attr(
    miri,
    ignore = "CI time: the same C entry points and slices run under Miri in \
              aliased_null_and_misaligned_field_arrays_are_refused and \
              a_bad_field_or_sample_between_steps_is_named"
)]
fn the_c_world_with_fields_matches_the_rust_step_bit_for_bit() {
    c_matches_rust::<f64>();
}

#[test]
#[cfg_attr(miri, ignore)]
fn the_c_world_with_fields_matches_the_rust_step_bit_for_bit_in_f32() {
    c_matches_rust::<f32>();
}
