#!/usr/bin/env bash
# Base images for the container tests, made from Debian packages (no registry is reachable):
#   a Python base for `docker build --build-arg BASE_IMAGE=…` and a PostgreSQL server image.
# Usage: eval "$(.ci/docker-images.sh)"  -> LABBOT_BASE_IMAGE, LABBOT_POSTGRES_IMAGE
# Cached: an image whose tag (a hash of what goes into it) exists is not rebuilt; missing ones
# are made in parallel (mostly downloads: ~1.5 min on a fresh machine).
# The machine's CA bundle goes into the Python base (with PIP_CERT), so pip inside a build trusts
# what the machine trusts (a TLS-inspecting proxy's CA included).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SUITE=${DEBIAN_SUITE:-bookworm}
CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt
SLIM=(--variant=minbase --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr
  --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*'
  --dpkgopt='path-exclude=/usr/share/info/*' --dpkgopt='path-exclude=/usr/share/locale/*'
  --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*')

make_image() {  # $1 name, $2 packages, then mmdebstrap options -- docker import changes
  local name=$1 packages=$2 work tag
  shift 2
  # the checkout's path is no input (another clone of the same tree reuses the images)
  tag="$name:$SUITE-$( (printf '%s\n' "$packages" "${SLIM[@]}" "${@//"$ROOT"/.}"
    cat "$ROOT/.ci/postgres/entrypoint.sh") | sha256sum | cut -c1-12)"
  echo "$tag"
  docker image inspect "$tag" >/dev/null 2>&1 && return 0
  local options=() changes=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do options+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  for change in "$@"; do changes+=(--change "$change"); done
  work=$(mktemp -d /tmp/labbot-image.XXXXXX)
  echo "docker-images.sh: making $tag from Debian $SUITE ($packages)" >&2
  mmdebstrap --quiet "${SLIM[@]}" --include="$packages" "${options[@]}" "$SUITE" \
    "$work/rootfs.tar" >"$work/log" 2>&1 || { cat "$work/log" >&2; rm -rf "$work"; return 1; }
  docker import "${changes[@]}" "$work/rootfs.tar" "$tag" >/dev/null
  rm -rf "$work"
}

out=$(mktemp -d /tmp/labbot-images.XXXXXX)
trap 'rm -rf "$out"' EXIT
make_image labbot-ci/python python3,python3-venv,ca-certificates,passwd \
  --customize-hook="cp $CA_BUNDLE \"\$1\"$CA_BUNDLE" \
  -- "ENV PIP_CERT=$CA_BUNDLE" 'ENV LANG=C.UTF-8' 'CMD ["python3"]' >"$out/base" &
base=$!
make_image labbot-ci/postgres postgresql,ca-certificates \
  --customize-hook='rm -rf "$1"/var/lib/postgresql/* "$1"/etc/postgresql/*/main' \
  --customize-hook="upload $ROOT/.ci/postgres/entrypoint.sh /usr/local/bin/docker-entrypoint.sh" \
  --customize-hook='chmod 755 "$1"/usr/local/bin/docker-entrypoint.sh' \
  -- 'ENV PGDATA=/var/lib/postgresql/data' 'ENV LANG=C.UTF-8' 'EXPOSE 5432' \
  'ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]' >"$out/postgres" &
postgres=$!
wait "$base" && wait "$postgres" || { echo "docker-images.sh: a base image could not be made" >&2; exit 1; }
echo "export LABBOT_BASE_IMAGE=$(cat "$out/base")"
echo "export LABBOT_POSTGRES_IMAGE=$(cat "$out/postgres")"
