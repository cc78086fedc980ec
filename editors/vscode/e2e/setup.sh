#!/usr/bin/env bash
# Installs what the e2e test needs, from Debian and the npm registry only:
# Debian's chromium (playwright-core drives it over CDP; no browser download),
# build tools for code-server's native modules, and code-server 4.100.3
# (= VS Code 1.100.3, the newest that runs on node 20) from the lockfile.
# Idempotent; ~2 min cold on 2 cores (chromium ~50 s, code-server ~70 s).
set -euo pipefail
cd "$(dirname "$0")"
need=()
for p in chromium libkrb5-dev build-essential python3 ripgrep; do
  dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
done
if ((${#need[@]})); then
  sudo=""
  [[ "$(id -u)" -eq 0 ]] || sudo="sudo"
  echo "e2e/setup.sh: installing ${need[*]}" >&2
  $sudo apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
if [[ -x node_modules/.bin/code-server && -d node_modules/playwright-core ]]; then
  echo "e2e deps already installed"; exit 0
fi
# @vscode/ripgrep's postinstall downloads rg from GitHub unless its cache
# (in os.tmpdir()) already holds the archive: seed it with Debian's rg.
export TMPDIR="$PWD/work/tmp"; mkdir -p "$TMPDIR"
rgv=1.15.11 rgtag=v13.0.0-10
d="$TMPDIR/vscode-ripgrep-cache-$rgv"; mkdir -p "$d"
t=$(mktemp -d); cp "$(command -v rg)" "$t/rg"
tar czf "$d/ripgrep-$rgtag-x86_64-unknown-linux-musl.tar.gz" -C "$t" rg; rm -rf "$t"
# npm_config_yes: node-pty's postinstall runs `npx node-gyp`; unsafe_perm:
# code-server's postinstall refuses root without it; nodedir: no header download.
cmd=ci; [[ -f package-lock.json ]] || cmd=install
npm_config_yes=true npm_config_unsafe_perm=true npm_config_nodedir=/usr \
  npm "$cmd" --no-audit --no-fund --loglevel=error
