#!/usr/bin/env bash
# Builds, unit-tests and packages the VS Code extension:
#   npm ci (from package-lock.json), tsc, node --test, vsce package -> agent-lsp.vsix
#   and agent-lsp-linux-x64.vsix (the same with the server binary inside)
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
# The linux-x64 build bundles the server (bin/agent-lsp, found before PATH):
# installing that .vsix is all a user does.
mkdir -p bin
(cd ../.. && CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go build -trimpath -o editors/vscode/bin/agent-lsp ./cmd/agent-lsp)
npm run --silent package:linux-x64 >/dev/null
rm -rf bin
echo "packaged $(pwd)/agent-lsp-linux-x64.vsix ($(du -k agent-lsp-linux-x64.vsix | cut -f1) KiB)"
if [[ "${E2E:-0}" == 1 ]]; then
  ./e2e/run.sh || status=1
fi
exit "$status"
