//! Code-size image `world_plane_f32`: see `src/areas.rs` and docs/code-size.md.
#![no_std]
#![no_main]

#[path = "../areas.rs"]
mod areas;
#[path = "../common.rs"]
mod common;

#[cortex_m_rt::entry]
fn main() -> ! {
    loop {
        // An f32 3D world with links and one plane, stepped (issue 33 §6).
        areas::world_plane_f32();
        common::sink(common::opaque(0));
    }
}
