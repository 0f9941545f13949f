//! The module paths of the C ABI before the renovation, each with exactly
//! the items it had (`xpbd::ffi_system::XpbdSystem3`, …), so Rust code
//! written against them keeps compiling without duplicate-import warnings.
//! New code uses [`crate::ffi`], which has every item.

/// The C ABI of systems: constants, link, statistics and system types,
/// `xpbd_cloth_link_count`.
pub mod ffi_system {
    pub use crate::ffi::{
        xpbd_cloth_link_count, XpbdConvergence, XpbdConvergenceF32, XpbdLink, XpbdLinkF32,
        XpbdSweepStats, XpbdSweepStatsF32, XpbdSystem2, XpbdSystem2F32, XpbdSystem3,
        XpbdSystem3F32, XPBD_LINK_TENSION_ONLY, XPBD_ZERO_LENGTH_REJECT, XPBD_ZERO_LENGTH_SKIP,
    };
}

/// The C ABI of systems: the `xpbd_system*` and `xpbd_build_*` functions.
pub mod ffi_system_fns {
    pub use crate::ffi::{
        xpbd_build_cloth2, xpbd_build_cloth2_f32, xpbd_build_cloth3, xpbd_build_cloth3_f32,
        xpbd_build_loop2, xpbd_build_loop2_f32, xpbd_build_loop3, xpbd_build_loop3_f32,
        xpbd_build_rope2, xpbd_build_rope2_f32, xpbd_build_rope3, xpbd_build_rope3_f32,
        xpbd_system2_begin_substep, xpbd_system2_begin_substep_f32, xpbd_system2_iterate,
        xpbd_system2_iterate_f32, xpbd_system2_iterate_until, xpbd_system2_iterate_until_f32,
        xpbd_system2_measure, xpbd_system2_measure_f32, xpbd_system3_begin_substep,
        xpbd_system3_begin_substep_f32, xpbd_system3_iterate, xpbd_system3_iterate_f32,
        xpbd_system3_iterate_until, xpbd_system3_iterate_until_f32, xpbd_system3_measure,
        xpbd_system3_measure_f32,
    };
}

/// The C ABI of stepping: colliders, contacts, configuration, statistics,
/// world, `xpbd_world3_step*`.
pub mod ffi_step {
    pub use crate::ffi::{
        xpbd_self_collision_adjacency_len, xpbd_self_collision_table_len,
        xpbd_step_config3_default, xpbd_step_config3_default_f32, xpbd_step_scratch_len,
        xpbd_world3_step, xpbd_world3_step_f32, XpbdBox3, XpbdBox3F32, XpbdCapsule3,
        XpbdCapsule3F32, XpbdContact, XpbdContactF32, XpbdEngineContact, XpbdEngineContactF32,
        XpbdParticleContact, XpbdParticleContactF32, XpbdPlane3, XpbdPlane3F32, XpbdSphere3,
        XpbdSphere3F32, XpbdStepConfig3, XpbdStepConfig3F32, XpbdStepStats, XpbdStepStatsF32,
        XpbdWorld3, XpbdWorld3F32,
    };
}

/// The C ABI of colored solving: colorings, colored systems, jobs.
pub mod ffi_colored {
    pub use crate::ffi::{
        xpbd_color_cloth, xpbd_color_greedy, xpbd_color_greedy_f32, xpbd_color_order,
        xpbd_color_rope, xpbd_colored3_begin_substep, xpbd_colored3_begin_substep_f32,
        xpbd_colored3_iterate, xpbd_colored3_iterate_f32, xpbd_colored3_set_simd,
        xpbd_colored3_set_simd_f32, xpbd_colored3_solve_job, xpbd_colored3_solve_job_f32,
        xpbd_colored_links_fill, xpbd_colored_links_fill_f32, xpbd_job_range, xpbd_simd_detect,
        xpbd_sweep_stats_merge, xpbd_sweep_stats_merge_f32, XpbdColoredSystem3,
        XpbdColoredSystem3F32, XPBD_JOB_CHUNK, XPBD_MAX_GREEDY_COLORS, XPBD_SIMD_AVX2,
        XPBD_SIMD_AVX512, XPBD_SIMD_NEON,
    };
}
