#!/usr/bin/env bash
# Make sure a Docker engine answers on /var/run/docker.sock; start Debian's dockerd if none does.
# Usage: .ci/docker.sh   -> exit 0 when the engine answers; else one line on stderr and exit 1.
# An engine that already answers (another job's, the system's) is used as it is, never restarted.
# Ours logs to $DOCKERD_LOG and stays up after the tests (the next run reuses it and its cache).
set -euo pipefail
DOCKERD_LOG=${DOCKERD_LOG:-/tmp/labbot-dockerd.log}
answers() { docker version --format '{{.Server.Version}}' >/dev/null 2>&1; }
answers && exit 0
command -v dockerd >/dev/null || { echo "docker.sh: no dockerd (apt-get install docker.io)" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "docker.sh: no Docker engine answers and starting dockerd needs root" >&2; exit 1; }
nohup dockerd --host unix:///var/run/docker.sock >"$DOCKERD_LOG" 2>&1 &
for _ in $(seq 1 60); do
  answers && exit 0
  sleep 0.5
done
echo "docker.sh: dockerd did not answer within 30 s; see $DOCKERD_LOG" >&2
exit 1
