#!/usr/bin/env bash
# Runs the VS Code end-to-end test: installs code-server and Chromium when
# missing (setup.sh), builds agent-lsp and the .vsix, then drives it: the chat
# (drive.js), then review and undo (undo.js); both run, the status says if either failed.
set -euo pipefail
cd "$(dirname "$0")"
./setup.sh
mkdir -p work/bin
(cd ../../.. && CGO_ENABLED=0 go build -o editors/vscode/e2e/work/bin/agent-lsp ./cmd/agent-lsp)
if [[ ! -f ../agent-lsp.vsix || ! -f ../agent-lsp-linux-x64.vsix ]]; then
  # test.sh makes both; on their own, make them the same way (undo.js
  # installs the one that bundles the server).
  (cd .. && { [[ -d node_modules ]] || npm ci --no-audit --no-fund --loglevel=error; } && npm run --silent compile && npm run --silent package >/dev/null &&
    mkdir -p bin && (cd ../.. && CGO_ENABLED=0 go build -trimpath -o editors/vscode/bin/agent-lsp ./cmd/agent-lsp) &&
    npm run --silent package:linux-x64 >/dev/null && rm -rf bin)
fi
status=0
timeout 300 node drive.js || status=1
timeout 300 node undo.js || status=1
exit "$status"
