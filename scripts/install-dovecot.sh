#!/usr/bin/env bash
# Install Debian's Dovecot (IMAP + LMTP) for the opt-in Dovecot test layer.
# Idempotent; never fails the run: without apt (or root) it only says why it skipped.
# Tests needing Dovecot skip themselves when the binary is missing.
set -u

if command -v dovecot >/dev/null 2>&1 || [ -x /usr/sbin/dovecot ]; then
    echo "install-dovecot: already installed ($(/usr/sbin/dovecot --version 2>/dev/null || dovecot --version 2>/dev/null))"
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-dovecot: apt-get not available; Dovecot tests will be skipped"
    exit 0
fi
SUDO=""
if [ "$(id -u)" != "0" ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
        SUDO="sudo -n"
    else
        echo "install-dovecot: not root and no passwordless sudo; Dovecot tests will be skipped"
        exit 0
    fi
fi
export DEBIAN_FRONTEND=noninteractive
if ! $SUDO apt-get update -qq >/tmp/install-dovecot.log 2>&1; then
    echo "install-dovecot: apt-get update failed (see /tmp/install-dovecot.log); Dovecot tests will be skipped"
    exit 0
fi
# the packages start no service in containers (policy-rc.d); we run our own instances
if ! $SUDO apt-get install -y -qq dovecot-imapd dovecot-lmtpd \
        >>/tmp/install-dovecot.log 2>&1; then
    echo "install-dovecot: apt-get install failed (see /tmp/install-dovecot.log); Dovecot tests will be skipped"
    exit 0
fi
echo "install-dovecot: installed $(/usr/sbin/dovecot --version 2>/dev/null)"
exit 0
