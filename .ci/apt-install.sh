#!/usr/bin/env bash
# Installs Debian packages that are missing: `bash .ci/apt-install.sh PKG...`.
# Runs `apt-get update` only when something must be installed, at most once
# per CI run (marker in target/). One at a time: a step of the background
# lane and a foreground step may ask at once, and two apt-gets would fail
# on dpkg's lock, so each waits for this script's own lock first. Every
# step installs through this script.
set -euo pipefail
exec 9>/tmp/xpbd-ci-apt.lock
flock 9
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
