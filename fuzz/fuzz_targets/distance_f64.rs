//! Fuzzes `xpbd_distance_begin_substep` and `xpbd_distance_solve`:
//! arbitrary floats, null and aliased pointers, checked against a model.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| xpbd_fuzz::distance::<f64>(data));
