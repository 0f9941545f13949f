//! Fuzzes `xpbd_world3_step_colored` against `xpbd_world3_step_groups`:
//! see `xpbd_fuzz::step_colored`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| xpbd_fuzz::step_colored::step_colored(data));
