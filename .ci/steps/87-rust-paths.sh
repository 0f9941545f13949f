#!/usr/bin/env bash
# The README's Rust paths, tried as a new user would:
#  1. a fresh Cargo project using the README's dependency line (as a path
#     dependency on this checkout) builds and runs the README's example;
#  2. the Cortex-M4F firmware runs under QEMU (the README's `cargo run`),
#     checking the golden figures on the target and exiting through
#     semihosting (0 = pass).
set -euo pipefail
root=$(pwd)
app=$root/target/ci-rust-user
rm -rf "$app" && mkdir -p "$app/src"
cat > "$app/Cargo.toml" <<TOML
[package]
name = "rust-user"
version = "0.0.0"
edition = "2021"
publish = false

[workspace]

[dependencies]
xpbd = { path = "$root" }
TOML
cat > "$app/src/main.rs" <<'RS'
use xpbd::{DistanceConstraint, Error};

fn main() {
    let mut link = DistanceConstraint::<f64>::new();
    let (mut a, mut b) = (0.0, 2.0);
    link.begin_substep();
    for _ in 0..10 {
        assert_eq!(link.solve(&mut a, &mut b, 1.0, 1.0, 1.0, 0.01, 0.1), Ok(true));
    }
    assert_eq!(b - a - 1.0, 0.3333333333333335);
    assert_eq!(link.solve(&mut a, &mut b, 1.0, 1.0, 1.0, 0.01, 0.0), Err(Error::InvalidTimeStep));
    println!("xpbd {} from a Rust program: stretch {} m", xpbd::VERSION, b - a - 1.0);
}
RS
(cd "$app" && CARGO_TARGET_DIR="$app/target" cargo run --quiet)

command -v qemu-system-arm >/dev/null || bash .ci/apt-install.sh qemu-system-arm >/dev/null
(cd examples/firmware && timeout 120 cargo run --release --locked --quiet)
echo "firmware: golden figures checked on Cortex-M4F under QEMU"
