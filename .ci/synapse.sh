#!/usr/bin/env bash
# Create the Synapse virtualenv the Matrix tests run against, if missing; print the export.
# Usage: eval "$(.ci/synapse.sh)"   -> sets LABBOT_TEST_SYNAPSE (that venv's python)
# Idempotent and quick when the venv already imports a Synapse of the wanted series.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PYTHON=${PYTHON:-python3}
VENV="$ROOT/.venv-synapse"
REQUIREMENT="matrix-synapse>=1.140,<2"

installed() {
  "$VENV/bin/python" - <<'PY' 2>/dev/null
import sys
from importlib.metadata import version
major, minor = (int(part) for part in version("matrix-synapse").split(".")[:2])
sys.exit(0 if (major, minor) >= (1, 140) and major < 2 else 1)
PY
}

if ! installed; then
  rm -rf "$VENV"
  "$PYTHON" -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "$REQUIREMENT" >&2
  installed || { echo "synapse.sh: $VENV has no matrix-synapse >= 1.140" >&2; exit 1; }
fi
echo "export LABBOT_TEST_SYNAPSE=$VENV/bin/python"
