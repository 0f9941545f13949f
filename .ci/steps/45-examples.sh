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
# Issue 15's examples: the draped bending cloth (its plot), and the soft
# bodies, whose λ-kept rows must agree across iteration budgets (the rule)
# while the λ-reset rows drift with the budget.
cargo run --release --example cloth_drape | tee target/cloth_drape.txt
grep -q '^| 100 |' target/cloth_drape.txt
test -s target/plots/cloth_drape.svg
cargo run --release --example soft_body | tee target/soft_body.txt
kept=$(grep -E '^\| [0-9]+ \| kept \|' target/soft_body.txt | cut -d'|' -f4- | sort | uniq | wc -l)
reset=$(grep -E '^\| [0-9]+ \| reset \|' target/soft_body.txt | cut -d'|' -f4- | sort | uniq | wc -l)
[ "$kept" -eq 2 ] || { echo "soft_body: λ-kept rows differ between budgets ($kept distinct)"; exit 1; }
[ "$reset" -eq 6 ] || { echo "soft_body: λ-reset rows should differ per budget ($reset distinct)"; exit 1; }
# Issue 16's example: a rope on a moving hand (its force), a cloth hit by a
# swept capsule (never inside), a tearing sheet; the example asserts its
# own figures and writes the plot.
cargo run --release --example engine_coupling | tee target/engine_coupling.txt
grep -q '(never inside)' target/engine_coupling.txt
test -s target/plots/engine_coupling.svg
# Issue 18's example: a folded cloth on the ground and a cloth on a sphere
# with self-collision; the example asserts no collidable pair is closer
# than 2r − 1e-6 m and writes the plot. The folded cloth is stepped in
# colored order on two threads and checked bit-identical on one thread.
cargo run --release --example self_collision | tee target/self_collision.txt
grep -q '^smallest distance' target/self_collision.txt
grep -q 'bit-identical to two threads: yes' target/self_collision.txt
test -s target/plots/self_collision.svg
# Issue 35's example: a cape on a running, turning, hopping, teleporting
# character in local space, with skinned limits, a body capsule and wind;
# it asserts each of the checks and writes the strip of frames.
cargo run --release --example character_cloth | tee target/character_cloth.txt
grep -q '^inertia 0: .*yes, bit for bit' target/character_cloth.txt
test -s target/plots/character_cloth.svg
# Issue 36's example (first stage: heightfield and SDF colliders): a cloth
# thrown at 10 m/s onto a 256² terrain and onto a 64³ SDF sphere, the
# sphere swept at 10 m/s through a hanging cloth, the terrain rising at
# 10 m/s under a cloth, one substep per frame; the example checks every
# particle against its own bilinear/trilinear evaluation of the field
# (never behind the surface by more than r + 1e-6 m), exits 1 on a
# failure and writes the side views.
cargo run --release --example thin_cloth | tee target/thin_cloth.txt
grep -q '^all checks passed$' target/thin_cloth.txt
test -s target/plots/thin_cloth.svg
