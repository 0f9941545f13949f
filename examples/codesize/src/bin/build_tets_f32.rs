//! Code-size image `build_tets_f32`: see `src/areas.rs` and docs/code-size.md.
#![no_std]
#![no_main]

#[path = "../areas.rs"]
mod areas;
#[path = "../common.rs"]
mod common;

#[cortex_m_rt::entry]
fn main() -> ! {
    loop {
        areas::build_tets_f32();
        common::sink(common::opaque(0));
    }
}
