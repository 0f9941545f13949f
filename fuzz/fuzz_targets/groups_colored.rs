//! Fuzzes the colored constraint-group C entry points: see
//! `xpbd_fuzz::groups_colored`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| xpbd_fuzz::groups_colored::groups_colored(data));
