#!/usr/bin/env bash
# The demonstrations run and produce what the README shows.
set -euo pipefail
cargo run --release --example seed | tee target/seed.txt
grep -q '^| first_residual   | 0.3333333333333335 ' target/seed.txt
grep -q '^| wrong_reset_10   | 1.6935087808533922e-05 ' target/seed.txt
cargo run --release --example chain
cargo run --release --example hanging_rope
test -s target/plots/hanging_rope.svg
# The pendulum table of docs/verification.md (swing-energy loss per substep
# count): the figures the docs quote must be the ones the example prints.
cargo run --release --example pendulum | tee target/pendulum.txt
grep -q '^|       20 |                     37.8 % ' target/pendulum.txt
grep -q '^|       80 |                     11.2 % ' target/pendulum.txt
