#!/usr/bin/env bash
# A private Docker engine for the sandbox's docker backend, and its minimal image.
#
#   .ci/docker-engine.sh start   start dockerd (if its socket is not answering yet)
#   .ci/docker-engine.sh image   build the host-runtime image with `docker import`
#   .ci/docker-engine.sh stop    stop the dockerd this script started, by its PID
#   .ci/docker-engine.sh host    print the DOCKER_HOST value (unix://...)
#
# The engine never touches the host network (no bridge, no iptables, no forwarding, no
# masquerading) and keeps its data and exec roots under $PIPESMITH_DOCKER_STATE. No image
# is pulled: the image is a tiny root built here from busybox-static, and the host's
# /usr, Python and virtual environment are bind-mounted read-only at run time.
set -euo pipefail

STATE=${PIPESMITH_DOCKER_STATE:-/tmp/pipesmith-docker}
SOCK=$STATE/docker.sock
PIDFILE=$STATE/dockerd.pid
IMAGE=${PIPESMITH_DOCKER_IMAGE:-pipesmith-sandbox:host-runtime}
DOCKER="docker -H unix://$SOCK"

answering() { [ -S "$SOCK" ] && $DOCKER version >/dev/null 2>&1; }

start() {
    if answering; then echo "dockerd already answering on $SOCK"; return 0; fi
    command -v dockerd >/dev/null || { echo "dockerd is not installed (apt-get install docker.io)" >&2; exit 1; }
    mkdir -p "$STATE/data" "$STATE/exec"
    dockerd --bridge=none --iptables=false --ip6tables=false --ip-forward=false \
        --ip-masq=false --data-root "$STATE/data" --exec-root "$STATE/exec" \
        --pidfile "$PIDFILE" -H "unix://$SOCK" >"$STATE/dockerd.log" 2>&1 &
    for _ in $(seq 1 120); do
        if answering; then echo "dockerd $(cat "$PIDFILE") answering on $SOCK"; return 0; fi
        if ! kill -0 $! 2>/dev/null; then break; fi
        sleep 0.5
    done
    echo "dockerd did not start; last lines of $STATE/dockerd.log:" >&2
    tail -n 20 "$STATE/dockerd.log" >&2
    exit 1
}

image() {
    local busybox root
    busybox=$(command -v busybox || true)
    [ -n "$busybox" ] || { echo "busybox is not installed (apt-get install busybox-static)" >&2; exit 1; }
    root=$(mktemp -d)
    mkdir -p "$root"/{usr,etc,tmp,proc,dev,sys,busybox,sbin}
    cp "$busybox" "$root/busybox/busybox"
    ln -s busybox "$root/busybox/sh"
    # sbin stays a real folder: Docker mounts its init at /sbin/docker-init
    for dir in bin lib lib64; do ln -s "usr/$dir" "$root/$dir"; done
    printf 'root:x:0:0:root:/root:/busybox/sh\nnobody:x:65534:65534:nobody:/nonexistent:/busybox/sh\n' >"$root/etc/passwd"
    printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
    chmod 1777 "$root/tmp"
    tar -C "$root" -c . | $DOCKER import --change 'ENV PATH=/usr/local/bin:/usr/bin:/bin:/busybox' - "$IMAGE" >/dev/null
    rm -rf "$root"
    echo "built $IMAGE"
}

stop() {
    [ -f "$PIDFILE" ] || { echo "no dockerd pidfile at $PIDFILE"; return 0; }
    local pid
    pid=$(cat "$PIDFILE")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || { echo "dockerd $pid stopped"; return 0; }; sleep 0.5; done
    kill -9 "$pid" 2>/dev/null || true
    echo "dockerd $pid killed"
}

case "${1:-}" in
    start) start ;;
    image) image ;;
    stop) stop ;;
    host) echo "unix://$SOCK" ;;
    *) echo "usage: $0 start|image|stop|host" >&2; exit 2 ;;
esac
