//! The C builders of the constraint groups (issue 15) called from Rust, so
//! that Miri checks every slice the C layer forms:
//! `xpbd_build_bends_cloth3`, `xpbd_build_tet_block`,
//! `xpbd_build_mesh_volume`, `xpbd_build_icosphere` (and their `_f32`
//! twins) and the count functions. Each success equals the Rust builder it
//! wraps bit for bit; each refusal (NULL, aliased, misaligned, too small)
//! returns its status and leaves every output byte as it was.

use core::ptr;
use xpbd::ffi::*;
use xpbd::{
    bends_count_for_cloth, bends_for_cloth, icosphere, icosphere_counts, mesh_volume, tet_block,
    tet_block_counts, Bend, MeshParticles, MeshVolume, Tet,
};

/// The bytes of plain data without padding (positions, bends, tets,
/// meshes, triangles, counts).
fn bytes<T>(v: &[T]) -> Vec<u8> {
    // SAFETY: every type passed here is plain data without padding.
    unsafe { core::slice::from_raw_parts(v.as_ptr().cast::<u8>(), core::mem::size_of_val(v)) }
        .to_vec()
}

/// A `rows × cols` grid, 0.1 m spacing, with a small bump in z so that the
/// rest angles are not all zero.
fn grid(rows: usize, cols: usize) -> Vec<[f64; 3]> {
    (0..rows * cols)
        .map(|k| {
            let (r, c) = (k / cols, k % cols);
            [
                0.1 * c as f64,
                0.1 * r as f64,
                0.01 * ((r * 7 + c * 3) % 5) as f64,
            ]
        })
        .collect()
}

fn sentinel_bend() -> Bend<f64> {
    Bend {
        particles: [9; 4],
        rest_angle: -7.0,
        compliance: -7.0,
        lambda: -7.0,
    }
}

// ---- Bends ----

#[test]
fn bends_cloth_equal_the_rust_builder_bit_for_bit() {
    let (rows, cols) = (3, 4);
    let x = grid(rows, cols);
    let n = bends_count_for_cloth(rows, cols);
    assert_eq!(xpbd_bends_cloth_count(rows, cols), n);
    // (rows−2)(cols−1) + (rows−1)(cols−2) + (rows−1)(cols−1) = 3 + 4 + 6.
    assert_eq!((xpbd_bends_cloth_count(1, 5), n), (0, 13));
    let mut rust = vec![sentinel_bend(); n + 1];
    assert_eq!(bends_for_cloth(rows, cols, &x, 1e-3, &mut rust), Ok(n));
    assert!(rust.iter().take(n).any(|b| b.rest_angle != 0.0));
    let mut out = vec![sentinel_bend(); n + 1];
    let mut count = 77usize;
    // SAFETY: valid, disjoint buffers of the stated sizes.
    let got = unsafe {
        xpbd_build_bends_cloth3(
            x.as_ptr().cast(),
            rows,
            cols,
            1e-3,
            out.as_mut_ptr(),
            out.len(),
            &mut count,
        )
    };
    assert_eq!((got, count), (XpbdStatus::Ok, n));
    assert_eq!(bytes(&out), bytes(&rust), "last slot untouched too");

    // f32 twin against the Rust f32 builder.
    let x32: Vec<[f32; 3]> = x.iter().map(|p| p.map(|c| c as f32)).collect();
    let mut rust32 = vec![Bend::<f32>::default(); n];
    assert_eq!(bends_for_cloth(rows, cols, &x32, 1e-3, &mut rust32), Ok(n));
    let mut out32 = vec![Bend::<f32>::default(); n];
    let mut count = 0usize;
    // SAFETY: as above.
    let got = unsafe {
        xpbd_build_bends_cloth3_f32(
            x32.as_ptr().cast(),
            rows,
            cols,
            1e-3,
            out32.as_mut_ptr(),
            n,
            &mut count,
        )
    };
    assert_eq!((got, count), (XpbdStatus::Ok, n));
    assert_eq!(bytes(&out32), bytes(&rust32));
}

#[test]
fn bends_cloth_refusals_write_nothing() {
    let (rows, cols) = (3, 3);
    let mut x = grid(rows, cols);
    let n = bends_count_for_cloth(rows, cols);
    let mut out = vec![sentinel_bend(); n];
    let mut count = 77usize;
    let o = out.as_mut_ptr();
    let xp: *const f64 = x.as_ptr().cast();
    // SAFETY: every pointer is NULL, valid for its stated count, or
    // deliberately aliased/misaligned inside a live buffer.
    let refused = unsafe {
        [
            (
                xpbd_build_bends_cloth3(xp, rows, cols, 1e-3, o, n, ptr::null_mut()),
                XpbdStatus::NullPointer,
            ),
            (
                xpbd_build_bends_cloth3(ptr::null(), rows, cols, 1e-3, o, n, &mut count),
                XpbdStatus::NullPointer,
            ),
            (
                xpbd_build_bends_cloth3(xp, rows, cols, 1e-3, o, n - 1, &mut count),
                XpbdStatus::CapacityTooSmall,
            ),
            (
                xpbd_build_bends_cloth3(xp, rows, cols, -1.0, o, n, &mut count),
                XpbdStatus::InvalidCompliance,
            ),
            (
                xpbd_build_bends_cloth3(xp, 1, 9, 1e-3, o, n, &mut count),
                XpbdStatus::InvalidArgument,
            ),
            // The count inside the output array.
            (
                xpbd_build_bends_cloth3(xp, rows, cols, 1e-3, o, n, o.cast::<usize>()),
                XpbdStatus::AliasedBuffers,
            ),
            // A misaligned output array.
            (
                xpbd_build_bends_cloth3(
                    xp,
                    rows,
                    cols,
                    1e-3,
                    o.cast::<u8>().wrapping_add(1).cast(),
                    1,
                    &mut count,
                ),
                XpbdStatus::InvalidArgument,
            ),
        ]
    };
    for (k, (got, want)) in refused.iter().enumerate() {
        assert_eq!(got, want, "case {k}");
    }
    assert_eq!(count, 77);
    assert_eq!(bytes(&out), bytes(&vec![sentinel_bend(); n]));

    // The positions overlapping the output: the output is the positions'
    // own storage viewed as bends.
    let before = bytes(&x);
    let xm = x.as_mut_ptr();
    // SAFETY: one live buffer passed twice, which must be refused unread.
    let got =
        unsafe { xpbd_build_bends_cloth3(xm.cast(), rows, cols, 1e-3, xm.cast(), 1, &mut count) };
    assert_eq!((got, count), (XpbdStatus::AliasedBuffers, 77));
    assert_eq!(bytes(&x), before);
}

// ---- Tet blocks ----

fn sentinel_tet() -> Tet<f64> {
    Tet {
        particles: [5; 4],
        rest_volume: -3.0,
        compliance: -3.0,
        lambda: -3.0,
    }
}

#[test]
fn tet_block_equals_the_rust_builder_bit_for_bit() {
    let (nx, ny, nz) = (1, 2, 1);
    let (particles, tets) = tet_block_counts(nx, ny, nz).unwrap();
    let (mut p, mut t) = (0usize, 0usize);
    // SAFETY: two distinct counts.
    assert_eq!(
        unsafe { xpbd_tet_block_counts(nx, ny, nz, &mut p, &mut t) },
        XpbdStatus::Ok
    );
    assert_eq!((p, t), (particles, tets));
    assert_eq!((p, t), (12, 12));
    let origin = [0.25, -0.5, 1.0];
    let mut rx = vec![[9.0; 3]; particles + 1];
    let mut rt = vec![sentinel_tet(); tets + 1];
    assert_eq!(
        tet_block(nx, ny, nz, 0.1, origin, &mut rx, &mut rt, 1e-6),
        Ok((particles, tets))
    );
    let mut cx = vec![[9.0; 3]; particles + 1];
    let mut ct = vec![sentinel_tet(); tets + 1];
    let (mut p, mut t) = (0usize, 0usize);
    // SAFETY: valid, disjoint buffers of the stated sizes.
    let got = unsafe {
        xpbd_build_tet_block(
            nx,
            ny,
            nz,
            0.1,
            origin.as_ptr(),
            1e-6,
            cx.as_mut_ptr().cast(),
            cx.len(),
            ct.as_mut_ptr(),
            ct.len(),
            &mut p,
            &mut t,
        )
    };
    assert_eq!((got, p, t), (XpbdStatus::Ok, particles, tets));
    assert_eq!((bytes(&cx), bytes(&ct)), (bytes(&rx), bytes(&rt)));

    let o32 = [0.25f32, -0.5, 1.0];
    let mut rx = vec![[0.0f32; 3]; particles];
    let mut rt = vec![Tet::<f32>::default(); tets];
    assert!(tet_block(nx, ny, nz, 0.1, o32, &mut rx, &mut rt, 1e-6).is_ok());
    let mut cx = vec![[0.0f32; 3]; particles];
    let mut ct = vec![Tet::<f32>::default(); tets];
    // SAFETY: as above.
    let got = unsafe {
        xpbd_build_tet_block_f32(
            nx,
            ny,
            nz,
            0.1,
            o32.as_ptr(),
            1e-6,
            cx.as_mut_ptr().cast(),
            particles,
            ct.as_mut_ptr(),
            tets,
            &mut p,
            &mut t,
        )
    };
    assert_eq!(got, XpbdStatus::Ok);
    assert_eq!((bytes(&cx), bytes(&ct)), (bytes(&rx), bytes(&rt)));
}

#[test]
fn tet_block_refusals_write_nothing() {
    let origin = [0.0; 3];
    let (np, nt) = (8, 6);
    let mut x = vec![[9.0; 3]; np];
    let mut t = vec![sentinel_tet(); nt];
    let (mut p, mut q) = (77usize, 78usize);
    let (xp, tp): (*mut f64, *mut Tet<f64>) = (x.as_mut_ptr().cast(), t.as_mut_ptr());
    let o = origin.as_ptr();
    // SAFETY: every pointer is NULL, valid for its stated count, or
    // deliberately aliased inside a live buffer.
    let refused = unsafe {
        [
            (
                xpbd_build_tet_block(
                    1,
                    1,
                    1,
                    0.1,
                    ptr::null(),
                    0.0,
                    xp,
                    np,
                    tp,
                    nt,
                    &mut p,
                    &mut q,
                ),
                XpbdStatus::NullPointer,
            ),
            (
                xpbd_build_tet_block(
                    1,
                    1,
                    1,
                    0.1,
                    o,
                    0.0,
                    xp,
                    np,
                    tp,
                    nt,
                    ptr::null_mut(),
                    &mut q,
                ),
                XpbdStatus::NullPointer,
            ),
            (
                xpbd_build_tet_block(1, 1, 1, 0.1, o, 0.0, xp, np - 1, tp, nt, &mut p, &mut q),
                XpbdStatus::CapacityTooSmall,
            ),
            (
                xpbd_build_tet_block(1, 1, 1, 0.1, o, 0.0, xp, np, tp, nt - 1, &mut p, &mut q),
                XpbdStatus::CapacityTooSmall,
            ),
            (
                xpbd_build_tet_block(0, 1, 1, 0.1, o, 0.0, xp, np, tp, nt, &mut p, &mut q),
                XpbdStatus::InvalidArgument,
            ),
            (
                xpbd_build_tet_block(1, 1, 1, -0.1, o, 0.0, xp, np, tp, nt, &mut p, &mut q),
                XpbdStatus::InvalidArgument,
            ),
            // The tets overlapping the positions.
            (
                xpbd_build_tet_block(1, 1, 1, 0.1, o, 0.0, xp, np, xp.cast(), 1, &mut p, &mut q),
                XpbdStatus::AliasedBuffers,
            ),
            // Both counts the same.
            (
                xpbd_build_tet_block(1, 1, 1, 0.1, o, 0.0, xp, np, tp, nt, &mut p, &mut p),
                XpbdStatus::AliasedBuffers,
            ),
            // The origin inside the position output.
            (
                xpbd_build_tet_block(1, 1, 1, 0.1, xp, 0.0, xp, np, tp, nt, &mut p, &mut q),
                XpbdStatus::AliasedBuffers,
            ),
        ]
    };
    for (k, (got, want)) in refused.iter().enumerate() {
        assert_eq!(got, want, "case {k}");
    }
    assert_eq!((p, q), (77, 78));
    assert_eq!(bytes(&x), bytes(&vec![[9.0f64; 3]; np]));
    assert_eq!(bytes(&t), bytes(&vec![sentinel_tet(); nt]));

    // SAFETY: NULL, the same pointer twice, and valid distinct counts.
    unsafe {
        assert_eq!(
            xpbd_tet_block_counts(1, 1, 1, ptr::null_mut(), &mut q),
            XpbdStatus::NullPointer
        );
        assert_eq!(
            xpbd_tet_block_counts(1, 1, 1, &mut p, &mut p),
            XpbdStatus::AliasedBuffers
        );
        assert_eq!(
            xpbd_tet_block_counts(1, 0, 1, &mut p, &mut q),
            XpbdStatus::InvalidArgument
        );
        assert_eq!(
            xpbd_tet_block_counts(usize::MAX, 2, 1, &mut p, &mut q),
            XpbdStatus::InvalidArgument
        );
    }
    assert_eq!((p, q), (77, 78));
}

// ---- Icospheres and mesh volumes ----

/// An icosphere of frequency `f` through the Rust builder.
fn sphere(f: usize) -> (Vec<[f64; 3]>, Vec<[u32; 3]>) {
    let (np, nt) = icosphere_counts(f).unwrap();
    let mut x = vec![[0.0; 3]; np];
    let mut t = vec![[0u32; 3]; nt];
    assert_eq!(
        icosphere(f, 0.5, [0.0, 1.0, 0.0], &mut x, &mut t),
        Ok((np, nt))
    );
    (x, t)
}

#[test]
fn icosphere_equals_the_rust_builder_and_refuses_cleanly() {
    let f = 2;
    let (rx, rt) = sphere(f);
    let (mut np, mut nt) = (0usize, 0usize);
    // SAFETY: two distinct counts.
    assert_eq!(
        unsafe { xpbd_icosphere_counts(f, &mut np, &mut nt) },
        XpbdStatus::Ok
    );
    assert_eq!((np, nt), (42, 80));
    let center = [0.0, 1.0, 0.0];
    let mut x = vec![[0.0; 3]; np];
    let mut t = vec![[0u32; 3]; nt];
    let (mut p, mut q) = (0usize, 0usize);
    let (xp, tp): (*mut f64, *mut u32) = (x.as_mut_ptr().cast(), t.as_mut_ptr().cast());
    // SAFETY: valid, disjoint buffers of the stated sizes.
    let got =
        unsafe { xpbd_build_icosphere(f, 0.5, center.as_ptr(), xp, np, tp, nt, &mut p, &mut q) };
    assert_eq!((got, p, q), (XpbdStatus::Ok, np, nt));
    assert_eq!((bytes(&x), bytes(&t)), (bytes(&rx), bytes(&rt)));

    let mut x = vec![[4.0; 3]; np];
    let mut t = vec![[3u32; 3]; nt];
    let (mut p, mut q) = (77usize, 78usize);
    let (xp, tp): (*mut f64, *mut u32) = (x.as_mut_ptr().cast(), t.as_mut_ptr().cast());
    let c = center.as_ptr();
    // SAFETY: every pointer is NULL, valid for its stated count, or
    // deliberately aliased inside a live buffer.
    let refused = unsafe {
        [
            (
                xpbd_build_icosphere(f, 0.5, c, xp, np, tp, nt - 1, &mut p, &mut q),
                XpbdStatus::CapacityTooSmall,
            ),
            (
                xpbd_build_icosphere(f, 0.5, ptr::null(), xp, np, tp, nt, &mut p, &mut q),
                XpbdStatus::NullPointer,
            ),
            (
                xpbd_build_icosphere(0, 0.5, c, xp, np, tp, nt, &mut p, &mut q),
                XpbdStatus::InvalidArgument,
            ),
            (
                xpbd_build_icosphere(f, 0.5, c, xp, np, xp.cast(), 1, &mut p, &mut q),
                XpbdStatus::AliasedBuffers,
            ),
            (
                xpbd_build_icosphere(f, 0.5, c, xp, np, tp, nt, &mut q, &mut q),
                XpbdStatus::AliasedBuffers,
            ),
        ]
    };
    for (k, (got, want)) in refused.iter().enumerate() {
        assert_eq!(got, want, "case {k}");
    }
    assert_eq!((p, q), (77, 78));
    assert_eq!(bytes(&x), bytes(&vec![[4.0f64; 3]; np]));
    assert_eq!(bytes(&t), bytes(&vec![[3u32; 3]; nt]));
}

fn sentinel_mesh() -> MeshVolume<f64> {
    MeshVolume {
        first_triangle: 99,
        triangle_count: 99,
        first_particle: 99,
        particle_count: 99,
        rest_volume: -1.0,
        pressure: -1.0,
        compliance: -1.0,
        lambda: -1.0,
    }
}

#[test]
fn mesh_volume_equals_the_rust_builder_bit_for_bit() {
    let (x, t) = sphere(1);
    let n = u32::try_from(t.len()).unwrap();
    let np = x.len();
    let (mut list, mut marks) = (vec![7u32; np + 2], vec![[0.0f64; 3]; np]);
    let rust = mesh_volume(
        &t,
        0,
        n,
        &x,
        1.5,
        1e-4,
        MeshParticles {
            particles: &mut list,
            first: 2,
            scratch: &mut marks,
        },
    )
    .unwrap();
    let mut out = sentinel_mesh();
    let (mut clist, mut cmarks) = (vec![7u32; np + 2], vec![[0.0f64; 3]; np]);
    // SAFETY: valid, disjoint buffers of the stated sizes.
    let got = unsafe {
        xpbd_build_mesh_volume(
            t.as_ptr().cast(),
            t.len(),
            0,
            n,
            x.as_ptr().cast(),
            x.len(),
            1.5,
            1e-4,
            clist.as_mut_ptr(),
            clist.len(),
            2,
            cmarks.as_mut_ptr().cast(),
            cmarks.len(),
            &mut out,
        )
    };
    assert_eq!(got, XpbdStatus::Ok);
    assert_eq!(bytes(&[out]), bytes(&[rust]));
    assert!(rust.rest_volume > 0.0);
    assert_eq!((rust.first_particle, rust.particle_count), (2, np as u32));
    assert_eq!(clist, list);
    assert_eq!(&list[..2], &[7, 7], "entries before the list untouched");
    // The list: every particle once, in first-appearance order.
    let mut expect = Vec::new();
    for &k in t.iter().flatten() {
        if !expect.contains(&k) {
            expect.push(k);
        }
    }
    assert_eq!(&list[2..], &expect[..]);

    let x32: Vec<[f32; 3]> = x.iter().map(|p| p.map(|c| c as f32)).collect();
    let mut marks32 = vec![[0.0f32; 3]; np];
    let mut list32 = vec![0u32; np];
    let l32 = MeshParticles {
        particles: &mut list32,
        first: 0,
        scratch: &mut marks32,
    };
    let rust32 = mesh_volume(&t, 0, n, &x32, 1.5, 1e-4, l32).unwrap();
    let mut out32 = MeshVolume::<f32>::default();
    let mut clist32 = vec![0u32; np];
    // SAFETY: as above.
    let got = unsafe {
        xpbd_build_mesh_volume_f32(
            t.as_ptr().cast(),
            t.len(),
            0,
            n,
            x32.as_ptr().cast(),
            x32.len(),
            1.5,
            1e-4,
            clist32.as_mut_ptr(),
            clist32.len(),
            0,
            marks32.as_mut_ptr().cast(),
            marks32.len(),
            &mut out32,
        )
    };
    assert_eq!(clist32, list32);
    assert_eq!(got, XpbdStatus::Ok);
    assert_eq!(bytes(&[out32]), bytes(&[rust32]));
}

#[test]
fn mesh_volume_refusals_write_nothing() {
    let (mut x, mut t) = sphere(1);
    let (nt, np) = (t.len(), x.len());
    let n = u32::try_from(nt).unwrap();
    let mut out = sentinel_mesh();
    let tp: *const u32 = t.as_ptr().cast();
    let xp: *const f64 = x.as_ptr().cast();
    let o: *mut MeshVolume<f64> = &mut out;
    let mut list = vec![7u32; np];
    let mut marks = vec![[0.0f64; 3]; np];
    let (lp, sp) = (list.as_mut_ptr(), marks.as_mut_ptr().cast::<f64>());
    // SAFETY: every pointer is NULL, valid for its stated count, or
    // deliberately aliased inside a live buffer.
    let refused = unsafe {
        [
            (
                xpbd_build_mesh_volume(
                    tp,
                    nt,
                    0,
                    n,
                    xp,
                    np,
                    1.0,
                    0.0,
                    lp,
                    np,
                    0,
                    sp,
                    np,
                    ptr::null_mut(),
                ),
                XpbdStatus::NullPointer,
            ),
            (
                xpbd_build_mesh_volume(
                    ptr::null(),
                    nt,
                    0,
                    n,
                    xp,
                    np,
                    1.0,
                    0.0,
                    lp,
                    np,
                    0,
                    sp,
                    np,
                    o,
                ),
                XpbdStatus::NullPointer,
            ),
            (
                xpbd_build_mesh_volume(tp, nt, 1, n, xp, np, 1.0, 0.0, lp, np, 0, sp, np, o),
                XpbdStatus::InvalidArgument,
            ),
            (
                xpbd_build_mesh_volume(tp, nt, 0, n, xp, np - 1, 1.0, 0.0, lp, np, 0, sp, np, o),
                XpbdStatus::IndexOutOfRange,
            ),
            (
                xpbd_build_mesh_volume(tp, nt, 0, n, xp, np, 0.0, 0.0, lp, np, 0, sp, np, o),
                XpbdStatus::InvalidRestValue,
            ),
            (
                xpbd_build_mesh_volume(tp, nt, 0, n, xp, np, 1.0, f64::NAN, lp, np, 0, sp, np, o),
                XpbdStatus::InvalidCompliance,
            ),
            (
                xpbd_build_mesh_volume(tp, nt, 0, n, xp, np, 1.0, 0.0, lp, np, 1, sp, np, o),
                XpbdStatus::CapacityTooSmall,
            ),
            (
                xpbd_build_mesh_volume(tp, nt, 0, n, xp, np, 1.0, 0.0, lp, np, 0, sp, np - 1, o),
                XpbdStatus::CapacityTooSmall,
            ),
        ]
    };
    for (k, (got, want)) in refused.iter().enumerate() {
        assert_eq!(got, want, "case {k}");
    }
    assert_eq!(bytes(&[out]), bytes(&[sentinel_mesh()]));
    assert_eq!(list, vec![7u32; np], "no list entry written");

    // The output inside the positions, then inside the triangles.
    let (bx, bt) = (bytes(&x), bytes(&t));
    let xm: *mut MeshVolume<f64> = x.as_mut_ptr().cast();
    // Inside the triangles, at an address aligned for the struct (the
    // triangles are only 4-aligned), so that the overlap is what refuses it.
    let tb = t.as_mut_ptr().cast::<u8>();
    let pad = tb.align_offset(core::mem::align_of::<MeshVolume<f64>>());
    let tm: *mut MeshVolume<f64> = tb.wrapping_add(pad).cast();
    // SAFETY: live buffers passed twice, which must be refused unread.
    let got = unsafe {
        [
            xpbd_build_mesh_volume(
                tp,
                nt,
                0,
                n,
                xm.cast_const().cast(),
                np,
                1.0,
                0.0,
                lp,
                np,
                0,
                sp,
                np,
                xm,
            ),
            xpbd_build_mesh_volume(tp, nt, 0, n, xp, np, 1.0, 0.0, lp, np, 0, sp, np, tm),
        ]
    };
    assert_eq!(got, [XpbdStatus::AliasedBuffers; 2]);
    assert_eq!((bytes(&x), bytes(&t)), (bx, bt));
}
