package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// Trust is the user's answer about a workspace server.
type Trust int

// Answers. The zero value refuses, so a lost answer fails closed.
const (
	TrustDenied Trust = iota
	// TrustAlways approves this exact definition in this workspace from
	// now on (remembered in the state directory).
	TrustAlways
	// TrustSession approves it for this session only.
	TrustSession
)

// TrustFunc asks the user whether a workspace server may start; s.Describe
// is what they approve. A nil TrustFunc means no one can be asked.
type TrustFunc func(ctx context.Context, s Server) (Trust, error)

// TrustStore remembers approved workspace servers: per workspace root, the
// hashes of the definitions the user approved. A changed definition has
// another hash and is asked about again.
type TrustStore struct {
	Path string
	mu   sync.Mutex
}

// TrustFile is the store's file under agent-lsp's state directory.
func TrustFile(stateDir string) string { return filepath.Join(stateDir, "mcp-trust.json") }

type trustDoc struct {
	// Workspaces maps a workspace root to the approved definitions'
	// hashes.
	Workspaces map[string][]string `json:"workspaces"`
}

func (t *TrustStore) load() (trustDoc, error) {
	var doc trustDoc
	b, err := os.ReadFile(t.Path)
	if errors.Is(err, os.ErrNotExist) {
		return trustDoc{Workspaces: map[string][]string{}}, nil
	}
	if err != nil {
		return doc, err
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return doc, fmt.Errorf("%s: %v", t.Path, err)
	}
	if doc.Workspaces == nil {
		doc.Workspaces = map[string][]string{}
	}
	return doc, nil
}

// Trusted reports whether the definition with hash was approved in root.
// An unreadable store trusts nothing.
func (t *TrustStore) Trusted(root, hash string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	doc, err := t.load()
	return err == nil && slices.Contains(doc.Workspaces[root], hash)
}

// Approve remembers hash for root. The file is replaced atomically and is
// private to the user.
func (t *TrustStore) Approve(root, hash string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	doc, err := t.load()
	if err != nil {
		return err
	}
	if slices.Contains(doc.Workspaces[root], hash) {
		return nil
	}
	doc.Workspaces[root] = append(doc.Workspaces[root], hash)
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(t.Path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(t.Path), ".mcp-trust-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), t.Path)
}
