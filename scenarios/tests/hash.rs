//! The bit-identity scenario on the host: the same constants the QEMU
//! program asserts on the emulated Cortex-M4F.

use xpbd_scenarios::hash::{self, Outcome};
use xpbd_scenarios::Scalar;

fn check<T: Scalar>() -> Outcome {
    // Under Miri (step 60) only part 1, the C-ABI sequence with its null and
    // aliased pointers, and only its first eighth (its own constant hash,
    // checked natively too): the chain is safe Rust and would take minutes
    // there.
    let short = hash::run_random_1d_ops::<T>(hash::RANDOM_PREFIX_OPS);
    assert_eq!(
        short.hashes.random_1d,
        hash::expected_prefix::<T>(),
        "{} random_1d hash after {} operations changed",
        T::NAME,
        hash::RANDOM_PREFIX_OPS
    );
    if cfg!(miri) {
        assert!(!short.unknown_status, "a status outside the documented set");
        assert!(!short.written_on_error, "a rejected call wrote memory");
        for (i, n) in short.statuses.iter().enumerate() {
            assert!(*n >= 1, "status #{i} never seen: {:?}", short.statuses);
        }
        return short;
    }
    let out = hash::run::<T>();
    println!(
        "{}: random_1d {:#018x}, chain_1d {:#018x}, rope_3d {:#018x}, cloth_3d {:#018x}, groups_3d {:#018x}, tearing_3d {:#018x}, engine_3d {:#018x}, character_3d {:#018x}, statuses {:?}, chain stretch bits {:#x}, rope max contacts {}, rope lowest bits {:#x}, cloth lowest bits {:#x}, sheet torn {} from frame {}, along the line {}, engine scene: {} errors, {} inside, {} contacts at most, {} engine contacts, {} pairs at most",
        T::NAME,
        out.hashes.random_1d,
        out.hashes.chain_1d,
        out.hashes.rope_3d,
        out.hashes.cloth_3d,
        out.hashes.groups_3d,
        out.hashes.tearing_3d,
        out.hashes.engine_3d,
        out.hashes.character_3d,
        out.statuses,
        out.chain_stretch_bits,
        out.rope_max_contacts,
        out.rope_lowest_bits,
        out.cloth_lowest_bits,
        out.tearing_torn,
        out.tearing_first_frame,
        out.tearing_line,
        out.engine_errors,
        out.engine_inside,
        out.engine_max_contacts,
        out.engine_contacts,
        out.engine_max_pairs
    );
    assert!(!out.unknown_status, "a status outside the documented set");
    assert!(!out.written_on_error, "a rejected call wrote memory");
    assert_eq!(out.chain_errors, 0, "the chain must solve without errors");
    assert_eq!(out.rope_errors, 0, "the 3D rope must step without errors");
    let want = hash::expected::<T>();
    assert_eq!(
        out.hashes.random_1d,
        want.random_1d,
        "{} random_1d hash changed",
        T::NAME
    );
    // The random sequence is not degenerate: every status except OK comes
    // back at least 10 times, and OK in most solves.
    for (i, n) in out.statuses.iter().enumerate() {
        assert!(
            *n >= 10,
            "status #{i} seen only {n} times: {:?}",
            out.statuses
        );
    }
    assert!(out.statuses[0] > 1000, "{:?}", out.statuses);
    if !cfg!(miri) {
        assert_eq!(
            out.hashes.chain_1d,
            want.chain_1d,
            "{} chain_1d hash changed",
            T::NAME
        );
        assert_eq!(
            out.hashes.rope_3d,
            want.rope_3d,
            "{} rope_3d hash changed",
            T::NAME
        );
        assert_eq!(
            out.cloth_errors, 0,
            "the colored cloth must solve without errors"
        );
        assert_eq!(
            out.cloth_mismatches, 0,
            "the cloth's C-ABI copy must equal its Rust copy after every substep"
        );
        assert_eq!(
            out.hashes.cloth_3d,
            want.cloth_3d,
            "{} cloth_3d hash changed",
            T::NAME
        );
        assert_eq!(
            out.groups_errors, 0,
            "the groups scene must step without errors"
        );
        assert_eq!(
            out.hashes.groups_3d,
            want.groups_3d,
            "{} groups_3d hash changed",
            T::NAME
        );
        assert_eq!(
            out.tearing_errors, 0,
            "the tearing sheet must step without errors"
        );
        assert_eq!(
            out.tearing_list_mismatches, 0,
            "each frame's torn list must be the links it flagged"
        );
        assert!(
            out.tearing_torn > 0 && out.tearing_line,
            "the sheet must tear along its perforation and nowhere else: {} torn",
            out.tearing_torn
        );
        assert!(
            out.tearing_first_frame > 1,
            "the sheet must hold for a while before it tears"
        );
        assert_eq!(
            out.hashes.tearing_3d,
            want.tearing_3d,
            "{} tearing_3d hash changed",
            T::NAME
        );
        assert_eq!(
            out.engine_errors, 0,
            "the engine scene must step without errors"
        );
        assert_eq!(out.engine_inside, 0, "no particle inside a moving collider");
        assert!(out.engine_max_contacts > 0, "the colliders must be hit");
        assert!(out.engine_contacts > 0, "the ground must be reached");
        assert!(out.engine_max_pairs > 0, "the cloth must touch itself");
        assert_eq!(
            out.hashes.engine_3d,
            want.engine_3d,
            "{} engine_3d hash changed",
            T::NAME
        );
        assert_eq!(
            out.character_errors, 0,
            "the character scene must step without errors"
        );
        let over = T::from_raw(out.character_over_bits).to_f64();
        let tolerance = if T::NAME == "f32" { 1e-4 } else { 1e-9 };
        assert!(
            over <= tolerance,
            "a particle beyond its max distance: {over:e} m"
        );
        assert_eq!(
            out.hashes.character_3d,
            want.character_3d,
            "{} character_3d hash changed",
            T::NAME
        );
    }
    out
}

#[test]
fn f64_hash_is_the_cross_platform_constant() {
    check::<f64>();
}

#[test]
fn f32_hash_is_the_cross_platform_constant() {
    check::<f32>();
}

#[test]
fn the_hash_sees_a_one_ulp_change() {
    use xpbd_scenarios::Fnv64;
    let (mut p, mut q) = (Fnv64::new(), Fnv64::new());
    p.write_real(0.1_f64);
    q.write_real(f64::from_bits(0.1_f64.to_bits() + 1));
    assert_ne!(p.finish(), q.finish());
}

#[test]
#[cfg_attr(miri, ignore = "safe Rust only; minutes under Miri")]
fn the_chain_hangs_stretched_and_ordered() {
    let chain = hash::chain_1d::<f64>(&mut xpbd_scenarios::Fnv64::new());
    assert!(chain.x.windows(2).all(|w| w[0] < w[1]));
    assert!(chain.x.iter().chain(&chain.v).all(|v| v.is_finite()));
    let s = chain.stretch();
    assert!(s > 0.0 && s < 0.1, "stretch {s}");
    assert_eq!(chain.x[0], 0.0, "the pinned particle stays");
}

#[test]
#[cfg_attr(miri, ignore = "safe Rust only; minutes under Miri")]
fn the_rope_falls_touches_and_stays_finite() {
    use xpbd_scenarios::rope::{Rope, FRAMES};
    let mut rope = Rope::<f64>::new();
    let mut touched = 0;
    for _ in 0..FRAMES {
        rope.frame();
        touched = touched.max(rope.max_contacts);
    }
    assert_eq!(rope.errors, 0, "{:?}", rope.first_error);
    assert!(
        touched >= 2,
        "the rope must touch the sphere and the ground"
    );
    assert!(rope
        .x
        .iter()
        .chain(&rope.v)
        .flatten()
        .all(|c| c.is_finite()));
    assert_eq!(rope.x[0], [0.0, 1.0, 0.0], "the pin stays");
    assert!(rope.lowest() > -0.01, "above the ground: {}", rope.lowest());
    assert!(rope.links.iter().all(|l| l.lambda <= 0.0), "tension only");
    assert!(rope.x.iter().any(|p| p[2] > 0.01), "moved sideways (3D)");
}

#[test]
#[cfg_attr(miri, ignore = "safe Rust only; minutes under Miri")]
fn the_sheet_unzips_along_its_perforation_from_the_top() {
    use xpbd_scenarios::tearing::{tearing_3d, Sheet, COLS, FRAMES, GAP, ROWS};
    let sheet: Sheet<f64> = tearing_3d(&mut xpbd_scenarios::Fnv64::new());
    assert_eq!(sheet.errors, 0, "{:?}", sheet.first_error);
    assert!(sheet.torn_along_the_line());
    assert_eq!(sheet.torn_total, ROWS);
    // Each torn link joins column GAP to GAP + 1; the top row tore first
    // (its link is the first horizontal link across the gap).
    for l in sheet.links.iter().filter(|l| l.is_disabled()) {
        assert_eq!((l.i as usize % COLS, l.j as usize % COLS), (GAP, GAP + 1));
    }
    let mut again = Sheet::<f64>::new();
    let mut order = Vec::new();
    for _ in 0..FRAMES {
        again.frame();
        order.extend_from_slice(&again.torn[..again.torn_count]);
    }
    let rows: Vec<usize> = order.iter().map(|&k| k as usize / (COLS - 1)).collect();
    assert_eq!(rows, (0..ROWS).collect::<Vec<_>>(), "torn top to bottom");
    // The halves hang apart: the gap's columns are now far more than a
    // link's length apart.
    let gap = sheet.x[GAP + 1][0] - sheet.x[GAP][0];
    assert!(gap > 0.1, "gap {gap}");
    assert!(sheet
        .x
        .iter()
        .chain(&sheet.v)
        .flatten()
        .all(|c| c.is_finite()));
}

/// The engine scene's fields take part: both the heightfield and the
/// signed distance field push the cloth in some frames (issue 36), and
/// no particle ends inside the capsule or the box.
#[test]
#[cfg_attr(miri, ignore = "safe Rust; the hash tests run the same steps natively")]
fn the_engine_scene_fields_push_the_cloth() {
    fn pushes<T: Scalar>() -> [usize; 2] {
        let s = xpbd_scenarios::engine::engine_3d::<T>(&mut xpbd_scenarios::Fnv64::new());
        assert_eq!((s.errors, s.inside), (0, 0));
        s.field_pushes
    }
    for p in [pushes::<f64>(), pushes::<f32>()] {
        assert!(p.iter().all(|&k| k > 0), "{p:?}");
    }
}
