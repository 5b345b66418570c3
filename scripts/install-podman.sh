#!/usr/bin/env bash
# Install Debian's systemd (systemd-analyze: the unit's security score) and podman (the
# container image). With --build-and-check: build deploy/Containerfile, start the image on its
# defaults and wait until its HEALTHCHECK (`pbem status`) passes, then remove it.
# Fails when it cannot install or the image is not healthy: those checks must run in CI.
# Where the machine needs it: PODMAN_RUNTIME (e.g. runc, for hybrid cgroups), PODMAN_FLAGS (e.g.
# "--ulimit nofile=4096:4096 --ulimit nproc=4096:4096" where the default limits cannot be set),
# PBEM_IMAGE_BASE (a local base image where no registry answers).
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" != "0" ]; then
    SUDO="sudo -n"
fi
export DEBIAN_FRONTEND=noninteractive
need=()
command -v systemd-analyze >/dev/null 2>&1 || need+=(systemd)
command -v podman >/dev/null 2>&1 || need+=(podman)
if [ "${#need[@]}" -gt 0 ]; then
    $SUDO apt-get update -qq >/tmp/install-podman.log 2>&1 || true
    if ! $SUDO apt-get install -y -qq "${need[@]}" >>/tmp/install-podman.log 2>&1; then
        echo "install-podman: apt-get install ${need[*]} failed (see /tmp/install-podman.log)" >&2
        exit 1
    fi
fi
echo "install-podman: $(systemd-analyze --version | head -1); $(podman --version)"

if [ "${1:-}" != "--build-and-check" ]; then
    exit 0
fi
PODMAN="$SUDO podman ${PODMAN_RUNTIME:+--runtime $PODMAN_RUNTIME}"
FLAGS="${PODMAN_FLAGS:-}"
name="pbem-ci-$$"
# shellcheck disable=SC2086
$PODMAN build --format docker --network host $FLAGS ${PBEM_IMAGE_BASE:+--build-arg BASE=$PBEM_IMAGE_BASE} \
    -f deploy/Containerfile -t localhost/pbem:ci .
trap '$PODMAN rm -f "$name" >/dev/null 2>&1 || true; $PODMAN volume rm -f "$name-data" >/dev/null 2>&1 || true' EXIT
# shellcheck disable=SC2086
$PODMAN run -d $FLAGS --name "$name" -v "$name-data:/var/lib/pbem" localhost/pbem:ci
test "$($PODMAN exec "$name" id -u)" != "0"   # not root
for _ in $(seq 1 60); do
    if $PODMAN healthcheck run "$name" >/dev/null 2>&1; then
        $PODMAN exec "$name" pbem status
        echo "install-podman: the image is healthy"
        exit 0
    fi
    sleep 2
done
$PODMAN logs "$name" >&2
$PODMAN exec "$name" pbem status >&2 || true
echo "install-podman: the image never became healthy" >&2
exit 1
