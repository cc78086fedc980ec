#!/bin/sh
# Runs the nvim of a Debian chroot (trixie: 0.10.4, sid: the newest) as if
# it were the host's, for the Go tests:
#   NVIM_CHROOT=$(scripts/nvim-chroot sid) \
#   AGENT_LSP_TEST_NVIM=$PWD/editors/neovim/test/chroot-nvim.sh go test ./editors/neovim/
# (scripts/test does this for trixie and sid). The repository, /tmp and
# $TMPDIR are bind-mounted at the same paths so the test's paths resolve;
# the mounts live in a private mount namespace and vanish with the process.
set -eu
R=${NVIM_CHROOT:?set NVIM_CHROOT to a Debian chroot with neovim}
repo=$(cd "$(dirname "$0")/../../.." && pwd -P)
tmp=$(cd "${TMPDIR:-/tmp}" && pwd -P)
mkdir -p "$R$repo" "$R/tmp" "$R$tmp"
exec unshare --mount --propagation private sh -c '
  R=$1 repo=$2 tmp=$3; shift 3
  mount --bind /dev "$R/dev" && mount -t proc proc "$R/proc" &&
  mount --bind /tmp "$R/tmp" && mount --bind "$tmp" "$R$tmp" &&
  mount --bind "$repo" "$R$repo" &&
  exec chroot "$R" /usr/bin/nvim "$@"' sh "$R" "$repo" "$tmp" "$@"
