//! Fuzzes `xpbd_world3_step`: see `xpbd_fuzz::world`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| xpbd_fuzz::world::step(data));
