#!/usr/bin/env bash
# Install Debian's chromium and chromium-driver for the browser tests (tests/render), plus a CJK font so
# that Chinese answers render in screenshots. Each part is installed only when missing: an existing
# chromium does not stop the font from being installed. Works as root or through sudo.
set -euo pipefail

CHROMIUM="${CHROMIUM:-/usr/bin/chromium}"
CHROMEDRIVER="${CHROMEDRIVER:-/usr/bin/chromedriver}"
need_browser=0
need_font=0
[ -x "$CHROMIUM" ] && [ -x "$CHROMEDRIVER" ] || need_browser=1
dpkg -s fonts-noto-cjk >/dev/null 2>&1 || need_font=1
if [ "$need_browser" -eq 0 ] && [ "$need_font" -eq 0 ]; then
    exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
    SUDO=""
elif command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
else
    echo "install-browser.sh: not root and no sudo; install chromium, chromium-driver and fonts-noto-cjk yourself" >&2
    exit 1
fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
if [ "$need_browser" -eq 1 ]; then
    $SUDO apt-get install -y chromium chromium-driver
fi
if [ "$need_font" -eq 1 ]; then
    # Without a CJK font Chinese text shows as boxes in screenshots (the tests still pass).
    $SUDO apt-get install -y --no-install-recommends fonts-noto-cjk \
        || echo "install-browser.sh: fonts-noto-cjk not installed" >&2
fi
