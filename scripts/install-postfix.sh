#!/usr/bin/env bash
# Install Debian's Postfix for the end-to-end test through a club's own mail stack
# (tests/e2e/test_postfix_stack.py). Idempotent; never fails the run: without apt (or root)
# it only says why it skipped. The test skips itself when the binary is missing.
# No system service is started or configured: the test runs its own instance in a temp dir.
set -u

if [ -x /usr/sbin/postfix ]; then
    echo "install-postfix: already installed ($(/usr/sbin/postconf -d -h mail_version 2>/dev/null))"
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-postfix: apt-get not available; the Postfix test will be skipped"
    exit 0
fi
SUDO=""
if [ "$(id -u)" != "0" ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
        SUDO="sudo -n"
    else
        echo "install-postfix: not root and no passwordless sudo; the Postfix test will be skipped"
        exit 0
    fi
fi
export DEBIAN_FRONTEND=noninteractive
# debconf answers: no configuration of the system's mail ("No configuration" leaves main.cf alone)
echo "postfix postfix/main_mailer_type select No configuration" | $SUDO debconf-set-selections 2>/dev/null || true
echo "postfix postfix/mailname string localhost" | $SUDO debconf-set-selections 2>/dev/null || true
if ! $SUDO apt-get update -qq >/tmp/install-postfix.log 2>&1; then
    echo "install-postfix: apt-get update failed (see /tmp/install-postfix.log); the Postfix test will be skipped"
    exit 0
fi
# the package starts no service in containers (policy-rc.d); we run our own instance
if ! $SUDO apt-get install -y -qq --no-install-recommends postfix >>/tmp/install-postfix.log 2>&1; then
    echo "install-postfix: apt-get install failed (see /tmp/install-postfix.log); the Postfix test will be skipped"
    exit 0
fi
# a system instance may have been started by the package's scripts on a machine with init: stop it
if [ -x /usr/sbin/postfix ] && $SUDO /usr/sbin/postfix status >/dev/null 2>&1; then
    $SUDO /usr/sbin/postfix stop >/dev/null 2>&1 || true
fi
echo "install-postfix: installed $(/usr/sbin/postconf -d -h mail_version 2>/dev/null)"
exit 0
