#!/usr/bin/env bash
# Install Debian's systemd (systemd-analyze: the unit's security score) and podman (the
# container image). With --build-and-check: build deploy/Containerfile, start the image on its
# defaults and wait until its HEALTHCHECK (`pbem status`) passes, then remove it.
# Fails when it cannot install or the image is not healthy: those checks must run in CI.
# It needs no settings: where no registry answers it builds a Debian bookworm base with
# mmdebstrap (kept as localhost/pbem-ci-base:bookworm and reused), and it picks the OCI runtime
# and the ulimits by starting a trivial container. Optional knobs, each skipping its detection:
# PODMAN_RUNTIME (e.g. runc), PODMAN_FLAGS (e.g. "--ulimit nofile=4096:4096"), PBEM_IMAGE_BASE
# (a base image to build on).
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" != "0" ]; then
    SUDO="sudo -n"
fi
export DEBIAN_FRONTEND=noninteractive
LOG=/tmp/install-podman.log
: >"$LOG"

apt_install() {  # Debian packages, refreshing the lists only when an install fails
    $SUDO apt-get install -y -qq "$@" >>"$LOG" 2>&1 && return 0
    $SUDO apt-get update -qq >>"$LOG" 2>&1 || true
    if ! $SUDO apt-get install -y -qq "$@" >>"$LOG" 2>&1; then
        echo "install-podman: apt-get install $* failed (see $LOG)" >&2
        exit 1
    fi
}

need=()
command -v systemd-analyze >/dev/null 2>&1 || need+=(systemd)
command -v podman >/dev/null 2>&1 || need+=(podman)
if [ "${#need[@]}" -gt 0 ]; then
    apt_install "${need[@]}"
fi
echo "install-podman: $(systemd-analyze --version | head -1); $(podman --version)"

if [ "${1:-}" != "--build-and-check" ]; then
    exit 0
fi
started=$SECONDS

# The base: the Containerfile's own where a registry answers, else a local Debian bookworm
# with what the Containerfile needs and the host's CA bundle (pip reaches PyPI through a proxy
# that may present the host's CA).
LOCAL_BASE=localhost/pbem-ci-base:bookworm
default_base=$(sed -n 's/^ARG BASE=//p' deploy/Containerfile)
base="${PBEM_IMAGE_BASE:-}"
if [ -z "$base" ]; then
    if $SUDO podman image exists "$default_base" \
        || $SUDO timeout 120 podman pull -q "$default_base" >>"$LOG" 2>&1; then
        base="$default_base"
    elif $SUDO podman image exists "$LOCAL_BASE"; then
        base="$LOCAL_BASE"
        echo "install-podman: $default_base cannot be pulled; reusing $LOCAL_BASE"
    else
        echo "install-podman: $default_base cannot be pulled; building $LOCAL_BASE with mmdebstrap"
        command -v mmdebstrap >/dev/null 2>&1 || apt_install mmdebstrap
        tarball=$(mktemp /tmp/pbem-ci-base.XXXXXX.tar)
        trap 'rm -f "$tarball"' EXIT
        cabundle=/etc/ssl/certs/ca-certificates.crt
        hooks=()
        if [ -s "$cabundle" ]; then
            hooks=(--customize-hook="upload $cabundle /usr/local/share/ca-certificates/host-bundle.crt"
                   --customize-hook='chroot "$1" update-ca-certificates')
        fi
        if ! $SUDO mmdebstrap --quiet --variant=apt --format=tar \
            --include=passwd,python3,python3-venv,ca-certificates,libcairo2,fonts-dejavu-core \
            --dpkgopt=force-unsafe-io --aptopt='Acquire::Languages "none"' \
            --aptopt='Dir::Cache::pkgcache ""' --aptopt='Dir::Cache::srcpkgcache ""' \
            --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
            --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/locale/*' \
            "${hooks[@]}" bookworm "$tarball" \
            "deb http://deb.debian.org/debian bookworm main" \
            "deb http://deb.debian.org/debian bookworm-updates main" \
            "deb http://deb.debian.org/debian-security bookworm-security main" >>"$LOG" 2>&1; then
            echo "install-podman: mmdebstrap failed (see $LOG)" >&2
            exit 1
        fi
        $SUDO podman import -q \
            --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
            --change "ENV PIP_CERT=$cabundle" --change 'CMD ["/bin/bash"]' \
            "$tarball" "$LOCAL_BASE" >>"$LOG"
        rm -f "$tarball"
        trap - EXIT
        base="$LOCAL_BASE"
    fi
fi
echo "install-podman: base image $base ($((SECONDS - started)) s)"

# The runtime and the limits: the first of crun and runc that starts a trivial container, with
# podman's default ulimits where they can be set, else the host's own, else 4096 (podman's
# defaults exceed the hard limits of some sandboxes, and some refuse even the host's nproc).
limit() { local v; v=$(ulimit "$1"); [ "$v" = unlimited ] && v=-1; echo "$v"; }
host_limits="--ulimit nofile=$(limit -Sn):$(limit -Hn) --ulimit nproc=$(limit -Su):$(limit -Hu)"
runtimes="${PODMAN_RUNTIME:-crun runc}"
flag_sets=("${PODMAN_FLAGS-}")
[ -n "${PODMAN_FLAGS+set}" ] || flag_sets+=("$host_limits" "--ulimit nofile=4096:4096 --ulimit nproc=4096:4096")
runtime="" FLAGS=""
for candidate in $runtimes; do
    if ! command -v "$candidate" >/dev/null 2>&1; then
        [ "$candidate" = runc ] && apt_install runc
        command -v "$candidate" >/dev/null 2>&1 || continue
    fi
    for flags in "${flag_sets[@]}"; do
        # shellcheck disable=SC2086
        if $SUDO podman --runtime "$candidate" run --rm --network host $flags "$base" true >>"$LOG" 2>&1; then
            runtime="$candidate" FLAGS="$flags"
            break 2
        fi
    done
done
if [ -z "$runtime" ]; then
    echo "install-podman: no runtime ($runtimes) starts a container from $base (see $LOG)" >&2
    tail -5 "$LOG" >&2
    exit 1
fi
echo "install-podman: runtime $runtime${FLAGS:+, flags $FLAGS}"

PODMAN="$SUDO podman --runtime $runtime"
name="pbem-ci-$$"
# shellcheck disable=SC2086
$PODMAN build --format docker --network host $FLAGS --build-arg BASE="$base" \
    -f deploy/Containerfile -t localhost/pbem:ci .
echo "install-podman: image built ($((SECONDS - started)) s)"
trap '$PODMAN rm -f "$name" >/dev/null 2>&1 || true; $PODMAN volume rm -f "$name-data" >/dev/null 2>&1 || true' EXIT
# shellcheck disable=SC2086
$PODMAN run -d $FLAGS --name "$name" -v "$name-data:/var/lib/pbem" localhost/pbem:ci
test "$($PODMAN exec "$name" id -u)" != "0"   # not root
for _ in $(seq 1 60); do
    if $PODMAN healthcheck run "$name" >/dev/null 2>&1; then
        $PODMAN exec "$name" pbem status
        echo "install-podman: the image is healthy ($((SECONDS - started)) s)"
        exit 0
    fi
    sleep 2
done
$PODMAN logs "$name" >&2
$PODMAN exec "$name" pbem status >&2 || true
echo "install-podman: the image never became healthy" >&2
exit 1
