//! A Cortex-M4F firmware that uses xpbd from Rust.
//!
//! It shows that a `#![no_std]` application can depend on `xpbd` and bring
//! its own panic handler (here `panic-semihosting`): the library declares
//! none. It runs the seed's golden checks in f64 and f32 and reports over
//! semihosting, exiting with failure on any mismatch.
//!
//! Build: `cd examples/firmware && cargo build --release`
//! Run under QEMU: `cd examples/firmware && cargo run --release`

#![no_std]
#![no_main]

use cortex_m_rt::entry;
use cortex_m_semihosting::{debug, hprintln};
use panic_semihosting as _;
use xpbd::{DistanceConstraint, Error};

/// C after `n` solves of the SPEC's fixed case, λ reset every iteration or not.
fn residual(n: usize, reset: bool, dt: f64) -> f64 {
    let (mut a, mut b) = (0.0_f64, 2.0_f64);
    let mut link = DistanceConstraint::new();
    link.begin_substep();
    for _ in 0..n {
        if reset {
            link.begin_substep();
        }
        if link.solve(&mut a, &mut b, 1.0, 1.0, 1.0, 0.01, dt) != Ok(true) {
            return f64::NAN;
        }
    }
    b - a - 1.0
}

#[entry]
fn main() -> ! {
    let checks: [(&str, bool); 6] = [
        (
            "first_residual",
            residual(1, false, 0.1).to_bits() == 0.3333333333333335_f64.to_bits(),
        ),
        (
            "retained_10",
            residual(10, false, 0.1).to_bits() == 0.3333333333333335_f64.to_bits(),
        ),
        (
            "wrong_reset_10",
            residual(10, true, 0.1).to_bits() == 1.6935087808533922e-05_f64.to_bits(),
        ),
        (
            "half_dt_residual",
            residual(1, false, 0.05).to_bits() == 0.6666666666666665_f64.to_bits(),
        ),
        ("rejects_tiny_dt", {
            let mut link = DistanceConstraint::<f64>::new();
            let (mut a, mut b) = (0.0, 2.0);
            link.solve(&mut a, &mut b, 1.0, 1.0, 1.0, 0.01, 1e-200)
                == Err(Error::UnrepresentableScale)
                && (a, b) == (0.0, 2.0)
        }),
        ("f32_soft_stretch", {
            let mut link = DistanceConstraint::<f32>::new();
            let (mut a, mut b) = (0.0_f32, 2.0_f32);
            let applied = link.solve(&mut a, &mut b, 1.0, 1.0, 1.0, 0.01, 0.1) == Ok(true);
            let err = b - a - 1.0 - 1.0 / 3.0;
            applied && err > -1e-5 && err < 1e-5
        }),
    ];
    let mut failed = 0;
    for (name, ok) in checks {
        hprintln!("{}: {}", name, if ok { "ok" } else { "FAILED" });
        if !ok {
            failed += 1;
        }
    }
    hprintln!("{} passed, {} failed", checks.len() - failed, failed);
    debug::exit(if failed == 0 {
        debug::EXIT_SUCCESS
    } else {
        debug::EXIT_FAILURE
    });
    loop {
        cortex_m::asm::nop();
    }
}
