#!/usr/bin/env bash
# The figures the documentation states, checked against what CI computed:
#
#   bash .ci/figures.sh FILE PATTERN VALUE [FILE PATTERN VALUE ...]
#
# PATTERN is an extended regular expression (grep -E) in which each `#`
# stands for a figure: digits, with or without thousands commas, or a
# version such as 1.81. Every occurrence of PATTERN in FILE must state
# VALUE exactly, and there must be at least one: a reworded sentence fails
# here instead of silently leaving a figure unchecked. FILE is read as one
# line (a sentence may wrap), spaces squeezed.
#
# The rule of README.md, docs/install.md and docs/demo/README.md: they state
# only figures CI recomputes exactly (function and export counts, the demo's
# scene sizes, the MSRV), checked by the step that builds the artifact; byte
# sizes, which change with every commit and toolchain, are not stated.
set -euo pipefail
[ $# -gt 0 ] && [ $(( $# % 3 )) -eq 0 ] || { echo "usage: $0 FILE PATTERN VALUE [...]" >&2; exit 2; }
status=0
while [ $# -gt 0 ]; do
    file=$1 pattern=$2 value=$3
    shift 3
    [[ "$value" =~ ^[0-9]+(\.[0-9]+)*$ ]] || { echo "figures: '$value' (for '$pattern' in $file) is not a figure"; status=1; continue; }
    # The value as a regular expression: 1300 also as 1,300; dots literal.
    commas=$(sed -E ':a; s/^([0-9]+)([0-9]{3})/\1,\2/; ta' <<< "$value")
    value_re="(${value//./\\.}|${commas//./\\.})"
    text=$(tr '\n' ' ' < "$file" | tr -s ' ')
    matches=$(grep -oE "${pattern//#/([0-9][0-9.,]*[0-9]|[0-9])}" <<< "$text" || true)
    if [ -z "$matches" ]; then
        echo "figures: $file no longer says '$pattern' (expected with $value): update .ci/figures.sh's caller"
        status=1; continue
    fi
    while IFS= read -r m; do
        if grep -qxE "${pattern//#/$value_re}" <<< "$m"; then
            echo "figures: $file: '$m' (CI: $value)"
        else
            echo "figures: $file says '$m', CI computed $value: update the figure"
            status=1
        fi
    done <<< "$matches"
done
exit "$status"
