#!/usr/bin/env bash
# Installs Debian packages that are missing: `bash .ci/apt-install.sh PKG...`.
# Runs `apt-get update` only when something must be installed, at most once
# per CI run (marker in target/).
set -euo pipefail
missing=()
for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
mkdir -p target
if [ ! -f target/.apt-updated ]; then
    apt-get update -qq
    touch target/.apt-updated
fi
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
