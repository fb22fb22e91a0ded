#!/usr/bin/env bash
# Create ./.venv and install labbot into it (idempotent; quick when up to date).
# Usage: scripts/setup-venv.sh [extra]   e.g. scripts/setup-venv.sh test
set -euo pipefail
cd "$(dirname "$0")/.."
extra=${1:-}
python=${PYTHON:-python3}
"$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
  || { echo "labbot needs Python >= 3.11 (found $("$python" --version 2>&1))" >&2; exit 1; }
[ -x .venv/bin/python ] || "$python" -m venv .venv
stamp=".venv/.labbot-installed-${extra:-base}"
up_to_date() {  # an install with extras (e.g. test) holds the base one too
  for done in .venv/.labbot-installed-*; do
    [ -f "$done" ] && [ ! pyproject.toml -nt "$done" ] \
      && { [ -z "$extra" ] || [ "$done" = "$stamp" ]; } && return 0
  done
  return 1
}
if ! up_to_date; then
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -e ".${extra:+[$extra]}"
  if [ "$extra" = test ]; then  # it pins Twisted<17: its deps are in the test extra
    .venv/bin/python -m pip install -q --no-deps fake-switches==1.5.0
  fi
  touch "$stamp"
fi
