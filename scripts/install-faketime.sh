#!/usr/bin/env bash
# Install Debian's libfaketime: CI runs the suites that involve time with the clock a year
# ahead, so a test that depends on today's date fails on the day it is written.
# Idempotent. Unlike the Dovecot script it fails when it cannot install: that check must run.
set -euo pipefail

if command -v faketime >/dev/null 2>&1; then
    echo "install-faketime: already installed ($(command -v faketime))"
    exit 0
fi
SUDO=""
if [ "$(id -u)" != "0" ]; then
    SUDO="sudo -n"
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/tmp/install-faketime.log 2>&1 || true
if ! $SUDO apt-get install -y -qq faketime >>/tmp/install-faketime.log 2>&1; then
    echo "install-faketime: apt-get install faketime failed (see /tmp/install-faketime.log)" >&2
    exit 1
fi
echo "install-faketime: installed $(command -v faketime)"
