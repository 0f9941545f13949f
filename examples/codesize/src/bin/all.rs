//! Code-size image `all`: see `src/areas.rs` and docs/code-size.md.
#![no_std]
#![no_main]

#[path = "../areas.rs"]
mod areas;
#[path = "../common.rs"]
mod common;

#[cortex_m_rt::entry]
fn main() -> ! {
    loop {
        // Everything include/xpbd.h exports (step 75 checks that every
        // function of the header is in this image).
        areas::f32_pair();
        areas::f64_pair();
        areas::status_str();
        areas::version();
        areas::systems();
        areas::stepping();
        areas::colored();
        areas::groups_f32();
        areas::groups();
        areas::mesh_builders();
        areas::colored_groups();
        common::sink(common::opaque(0));
    }
}
