#!/usr/bin/env bash
# Install Debian's Chromium (and its driver, for whoever wants WebDriver): tests/site opens the
# club's website in headless Chromium, driven over the DevTools pipe, to follow every link.
# Idempotent. It fails when it cannot install: those tests must run in CI.
set -euo pipefail

if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; then
    echo "install-chromium: already installed ($(command -v chromium))"
    exit 0
fi
SUDO=""
if [ "$(id -u)" != "0" ]; then
    SUDO="sudo -n"
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/tmp/install-chromium.log 2>&1 || true
if ! $SUDO apt-get install -y -qq chromium chromium-driver >>/tmp/install-chromium.log 2>&1; then
    echo "install-chromium: apt-get install chromium chromium-driver failed (see /tmp/install-chromium.log)" >&2
    exit 1
fi
echo "install-chromium: installed $(command -v chromium)"
