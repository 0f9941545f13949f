//! Fuzzes `xpbd_distance_begin_substep_f32` and `xpbd_distance_solve_f32`:
//! arbitrary floats, null and aliased pointers, checked against a model.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| xpbd_fuzz::distance::<f32>(data));
