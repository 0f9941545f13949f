#!/usr/bin/env bash
# Everything above ran from the checkout as committed: no step may need or
# leave a change to a tracked file (e.g. a stale header rewritten) or an
# untracked file outside .gitignore (every build output goes to target/).
set -euo pipefail
if [ -n "$(git status --porcelain)" ]; then
    echo "the CI steps changed the checkout:"; git status --porcelain; exit 1
fi
echo "checkout unchanged by the CI steps"
