#!/bin/sh
# Runs the nvim of a Debian chroot (trixie: 0.10.4, sid: 0.12.4) as if it
# were the host's, for the Go tests: AGENT_LSP_TEST_NVIM=$PWD/editors/neovim/test/chroot-nvim.sh
# NVIM_CHROOT=/path/to/sid go test ./editors/neovim/
# Make the chroot once (root, ~1.5 min, ~300 MB):
#   debootstrap --variant=minbase --include=neovim sid /path/to/sid http://deb.debian.org/debian
# /tmp and /work are bind-mounted so the test's paths resolve; the mounts
# live in a private mount namespace and vanish with the process.
set -eu
R=${NVIM_CHROOT:?set NVIM_CHROOT to a Debian chroot with neovim}
mkdir -p "$R/work" "$R/tmp"
exec unshare --mount --propagation private sh -c '
  R=$1; shift
  mount --bind /dev "$R/dev" && mount -t proc proc "$R/proc" &&
  mount --bind /tmp "$R/tmp" && mount --bind /work "$R/work" &&
  exec chroot "$R" /usr/bin/nvim "$@"' sh "$R" "$@"
