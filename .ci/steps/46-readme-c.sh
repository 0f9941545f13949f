#!/usr/bin/env bash
# The README's C quick start, as a user would copy it: the first ```c block
# after the heading "## C quick start" is extracted, must be at most 25
# lines, is compiled with the README's line (warnings as errors) against the
# archive of `tools/c-lib.sh`, and must run with exit status 0 (the program
# returns non-zero on a bad status or a wrong rope end).
# Then every relative link of README.md and docs/*.md must point at a file
# that exists (anchors and web addresses are not checked).
set -euo pipefail
mkdir -p target/readme-c
src=target/readme-c/quick_start.c
awk '
    /^## C quick start$/ { in_section = 1; next }
    in_section && /^## / { exit }
    in_section && !in_block && /^```c$/ { in_block = 1; next }
    in_block && /^```$/ { exit }
    in_block { print }
' README.md > "$src"
lines=$(wc -l < "$src")
if [ "$lines" -eq 0 ]; then
    echo "README.md: no \`\`\`c block after the heading '## C quick start'"; exit 1
fi
if [ "$lines" -gt 25 ]; then
    echo "README.md: the C quick start has $lines lines (at most 25)"; exit 1
fi
grep -q 'xpbd_world3_step' "$src" || { echo "the C quick start does not call xpbd_world3_step"; exit 1; }
echo "C quick start: $lines lines"

tools/c-lib.sh
cc -std=c99 -Wall -Wextra -Wpedantic -Werror -ffp-contract=off -Iinclude "$src" \
    target/release/c/libxpbd.a -lm -o target/readme-c/quick_start
./target/readme-c/quick_start | tee target/readme-c/output.txt
grep -q '^rope end at (' target/readme-c/output.txt

# Relative links: [text](target) and ![alt](target) in README.md and docs/*.md,
# resolved against the file's own directory.
status=0
for md in README.md docs/*.md; do
    dir=$(dirname "$md")
    while IFS= read -r target; do
        path=${target%%#*}
        [ -z "$path" ] && continue
        case "$path" in http://*|https://*|mailto:*) continue ;; esac
        if [ ! -e "$dir/$path" ]; then
            echo "$md: link to a missing file: $target"; status=1
        fi
    done < <(grep -o '\]([^)[:space:]]*)' "$md" | sed 's/^](//; s/)$//')
done
[ "$status" -eq 0 ] && echo "README.md and docs/*.md: every relative link points at a file"
exit "$status"
