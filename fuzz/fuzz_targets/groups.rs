//! Fuzzes the constraint-group C entry points: see `xpbd_fuzz::groups`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| xpbd_fuzz::groups::groups(data));
