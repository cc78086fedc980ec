package harness

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// DefaultStateDir is $XDG_STATE_HOME/agent-lsp, or ~/.local/state/agent-lsp.
func DefaultStateDir(getenv func(string) string) string {
	if d := getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "agent-lsp")
	}
	home := getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	if home == "" {
		return filepath.Join(os.TempDir(), "agent-lsp-state")
	}
	return filepath.Join(home, ".local", "state", "agent-lsp")
}

// WorkspaceStateDir is the directory of one workspace's state under
// stateDir: its base name and a hash of its path.
func WorkspaceStateDir(stateDir, root string) string {
	sum := sha256.Sum256([]byte(root))
	base := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' {
			return r
		}
		return '_'
	}, filepath.Base(root))
	if len(base) > 40 {
		base = base[:40]
	}
	return filepath.Join(stateDir, "workspaces", strings.TrimLeft(base, ".")+"-"+hex.EncodeToString(sum[:6]))
}

// spillKeep is how long spill files of earlier sessions are kept.
const spillKeep = 7 * 24 * time.Hour

// pruneOld removes the entries of dir last modified before now-keep.
func pruneOld(dir string, keep time.Duration) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > keep {
			_ = os.RemoveAll(filepath.Join(dir, e.Name()))
		}
	}
}

// SessionsDir is where transcripts are kept under stateDir.
func SessionsDir(stateDir string) string { return filepath.Join(stateDir, "sessions") }
