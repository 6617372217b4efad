#!/usr/bin/env bash
# Install Debian's chromium and chromium-driver for the browser tests (tests/render), once, plus a CJK
# font so that Chinese answers render in screenshots. Does nothing when /usr/bin/chromium already
# exists. Works as root or through sudo.
set -euo pipefail

if [ -x /usr/bin/chromium ]; then
    exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
    SUDO=""
elif command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
else
    echo "install-browser.sh: not root and no sudo; install chromium and chromium-driver yourself" >&2
    exit 1
fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
$SUDO apt-get install -y chromium chromium-driver
# Optional: without a CJK font Chinese text shows as boxes in screenshots (the tests still pass).
$SUDO apt-get install -y --no-install-recommends fonts-noto-cjk || echo "install-browser.sh: fonts-noto-cjk not installed" >&2
