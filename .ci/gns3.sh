#!/usr/bin/env bash
# Create the gns3-server virtualenvs the device tests run against, if missing; print the exports.
# Usage: eval "$(.ci/gns3.sh)"   -> sets LABBOT_TEST_GNS3V2 / LABBOT_TEST_GNS3V3
# Idempotent: a venv whose gns3server already reports the wanted series is left alone.
# sentry-sdk is removed so the server never reports crashes anywhere.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PYTHON=${PYTHON:-python3}

ensure_venv() {  # $1 venv dir, $2 pip requirement, $3 version prefix reported by the server
  local venv=$1 requirement=$2 prefix=$3
  if [ -x "$venv/bin/gns3server" ] && "$venv/bin/gns3server" --version 2>/dev/null | grep -q "^$prefix"; then
    return 0
  fi
  rm -rf "$venv"
  "$PYTHON" -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "$requirement" >&2
  "$venv/bin/pip" uninstall --quiet -y sentry-sdk >&2 || true
  "$venv/bin/gns3server" --version 2>/dev/null | grep -q "^$prefix" \
    || { echo "gns3.sh: $venv/bin/gns3server does not report version $prefix" >&2; exit 1; }
}

ensure_venv "$ROOT/.venv-gns3v2" "gns3-server>=2.2,<2.3" "2.2"
ensure_venv "$ROOT/.venv-gns3v3" "gns3-server>=3.0,<3.1" "3.0"
echo "export LABBOT_TEST_GNS3V2=$ROOT/.venv-gns3v2/bin/gns3server"
echo "export LABBOT_TEST_GNS3V3=$ROOT/.venv-gns3v3/bin/gns3server"
