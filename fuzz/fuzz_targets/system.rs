//! Fuzzes the 3D f64 system ABI and builders: see `xpbd_fuzz::world`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| xpbd_fuzz::world::system(data));
