//! Fuzzes `xpbd_status_str` with any 32-bit integer.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| xpbd_fuzz::status_str(data));
