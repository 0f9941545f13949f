//! The C ABI: `extern "C"` functions over caller-owned storage, declared in
//! the generated header `include/xpbd.h`. This layer only converts and
//! checks; the physics is in the Rust API it calls.
//!
//! Conventions (the same for every C function in this crate; the full page
//! is `docs/c-api.md`):
//!
//! - Every function returns an [`XpbdStatus`]: `XPBD_STATUS_OK` (0) when the
//!   work was done, `XPBD_STATUS_SKIPPED` (1) when there was nothing to do,
//!   a negative code on error. [`xpbd_status_str`] describes any code.
//! - Every pointer of every entry point — inputs, outputs and the caller's
//!   struct itself — is checked by one helper family (`check.rs`): NULL
//!   (allowed only with a zero count, or for an optional output), alignment,
//!   size, and that no two overlap (`XPBD_STATUS_ALIASED_BUFFERS`). The 1D
//!   `xpbd_distance_*` functions are the exception by design: their three
//!   pointers may alias (values are copied in and out).
//! - Inputs are read by value, validated, and the outputs are written only
//!   on success: on any error the caller's memory is unchanged (apart from
//!   the documented `error_index` and `substep_active` fields).
//! - A C struct that mirrors a Rust struct *is* that struct (`XpbdLink` is
//!   [`Link<f64>`](crate::Link)); the structs only C has are generic once
//!   and aliased per precision (`types.rs`).
//! - Every f32/f64 (and 2D/3D) twin is generated (`generated.rs`, from
//!   `tools/ffi-gen`) as one call of a generic function of its area:
//!   `distance.rs` (1D seed), `system.rs`, `step.rs`, `colored.rs`,
//!   `constraints.rs` (constraint groups).
//! - Codes coming from C are plain integers (`int32_t`), never Rust enums.
//!
//! # Rooms
//!
//! | file | holds |
//! |---|---|
//! | `status.rs` | [`XpbdStatus`], its texts, the conversions from Rust errors, `xpbd_version` |
//! | `check.rs` | the one check family (NULL, alignment, size, overlap) and slice helpers |
//! | `world.rs` | the C world, its feature blocks and requirements |
//! | `types.rs` | C types: aliases of the Rust structs, the C-only structs, constants |
//! | `distance.rs`, `system.rs`, `step.rs`, `colored.rs` | the generic body of each area's functions |
//! | `colored_groups.rs` | colored solving of a system's groups: coloring one group, the colored substep entry and iteration, the jobs |
//! | `constraints.rs` | the constraint groups (`XpbdConstraints3`) checked and viewed, the `_groups` source of `system.rs`, the tether builder |
//! | `generated.rs` | every precision/dimension twin (generated, drift-checked) |
//! | `fenv.rs` | `xpbd_fp_environment` and its `XPBD_FP_*` bits |

mod check;
mod colored;
mod colored_groups;
mod constraints;
mod distance;
mod fenv;
#[rustfmt::skip]
mod generated;
mod status;
mod step;
mod system;
mod types;
mod world;

pub use colored::{
    xpbd_color_cloth, xpbd_color_order, xpbd_color_rope, xpbd_job_range, xpbd_simd_detect,
};
pub use constraints::{xpbd_bends_cloth_count, xpbd_icosphere_counts, xpbd_tet_block_counts};
pub use fenv::{
    xpbd_fp_environment, XPBD_FP_DENORMALS_ARE_ZERO, XPBD_FP_FLUSH_TO_ZERO,
    XPBD_FP_ROUNDING_NOT_NEAREST, XPBD_FP_TRAPS_ENABLED, XPBD_FP_UNKNOWN,
};
pub use generated::*;
pub use status::{xpbd_status_str, xpbd_version, XpbdStatus};
pub use step::{
    xpbd_self_collision_adjacency_len, xpbd_self_collision_table_len, xpbd_step_scratch_len,
};
pub use system::xpbd_cloth_link_count;
pub use types::*;
pub use world::*;

#[cfg(all(feature = "c-lib-panic-handler", not(test)))]
#[panic_handler]
fn panic(_info: &core::panic::PanicInfo<'_>) -> ! {
    // Only the C archive built by `cargo c-lib` has this handler. No exported
    // function can reach a panic (clippy restriction lints deny every panic
    // source in the library); should one ever happen, spin rather than unwind
    // across the C boundary.
    loop {
        core::hint::spin_loop();
    }
}

// `rust_eh_personality` for the C archive built by `cargo c-lib`: a weak,
// hidden definition that traps. The precompiled `core` and
// `compiler_builtins` inside the archive carry unwind tables naming it, and
// a C program that calls a math function the archive also defines weakly
// (`fmod`, `floor`, `sqrt`, ... from `compiler_builtins`) pulls such a member
// in before `-lm` is read: without a definition that link fails with
// `undefined reference to rust_eh_personality`, `-Wl,--gc-sections` or not.
// Nothing unwinds through this library (panic = "abort", no callbacks), so
// the routine is never called; should it be, it traps rather than unwind
// across the C boundary. Weak: a program with a Rust standard library keeps
// that library's routine; hidden: a shared library does not export it.
#[cfg(all(
    feature = "c-lib-panic-handler",
    not(test),
    not(any(target_vendor = "apple", target_os = "windows", target_family = "wasm"))
))]
macro_rules! trapping_personality {
    ($trap:literal) => {
        core::arch::global_asm!(
            ".pushsection .text.rust_eh_personality,\"ax\",%progbits",
            ".weak rust_eh_personality",
            ".hidden rust_eh_personality",
            ".type rust_eh_personality,%function",
            "rust_eh_personality:",
            $trap,
            ".size rust_eh_personality, . - rust_eh_personality",
            ".popsection",
        );
    };
}
#[cfg(all(
    feature = "c-lib-panic-handler",
    not(test),
    not(any(target_vendor = "apple", target_os = "windows")),
    any(target_arch = "x86_64", target_arch = "x86")
))]
trapping_personality!("ud2");
#[cfg(all(
    feature = "c-lib-panic-handler",
    not(test),
    not(any(target_vendor = "apple", target_os = "windows")),
    any(target_arch = "aarch64", target_arch = "arm")
))]
trapping_personality!("udf #0");
#[cfg(all(
    feature = "c-lib-panic-handler",
    not(test),
    any(target_arch = "riscv32", target_arch = "riscv64")
))]
trapping_personality!("unimp");
