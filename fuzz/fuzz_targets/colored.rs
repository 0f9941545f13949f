//! Fuzzes the colored ABI: see `xpbd_fuzz::colored`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| xpbd_fuzz::colored::colored(data));
