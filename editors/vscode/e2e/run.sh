#!/usr/bin/env bash
# Runs the VS Code end-to-end test: installs code-server and Chromium when
# missing (setup.sh), builds agent-lsp and the .vsix, then drives it: the chat
# (drive.js), then review and undo (undo.js); both run, the status says if either failed.
set -euo pipefail
cd "$(dirname "$0")"
./setup.sh
mkdir -p work/bin
(cd ../../.. && go build -o editors/vscode/e2e/work/bin/agent-lsp ./cmd/agent-lsp)
if [[ ! -f ../agent-lsp.vsix ]]; then
  (cd .. && { [[ -d node_modules ]] || npm ci --no-audit --no-fund --loglevel=error; } && npm run --silent compile && npm run --silent package >/dev/null)
fi
status=0
timeout 300 node drive.js || status=1
timeout 300 node undo.js || status=1
exit "$status"
