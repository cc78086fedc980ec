#!/usr/bin/env bash
# Builds, unit-tests and packages the VS Code extension:
#   npm ci (from package-lock.json), tsc, node --test, vsce package -> agent-lsp.vsix
# The test runner's closing lines ("# pass N", "# fail N") are node's.
# With E2E=1 it then runs the code-server end-to-end test (e2e/run.sh),
# also when a unit test failed; the exit status says if either failed.
set -euo pipefail
cd "$(dirname "$0")"
npm ci --no-audit --no-fund --loglevel=error
npm run --silent compile
status=0
npm test || status=1
npm run --silent package >/dev/null
echo "packaged $(pwd)/agent-lsp.vsix ($(du -k agent-lsp.vsix | cut -f1) KiB)"
if [[ "${E2E:-0}" == 1 ]]; then
  ./e2e/run.sh || status=1
fi
exit "$status"
