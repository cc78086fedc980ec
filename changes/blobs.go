package changes

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// blobs is a content-addressed store of file contents: a file per
// distinct content, named by its SHA-256, written once (to a temporary
// name, then renamed) and never changed, so that readers and several
// processes may share one store.
type blobs struct{ dir string }

// id names content.
func blobID(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

func (b blobs) path(id string) string { return filepath.Join(b.dir, id[:2], id[2:]) }

// put stores data and returns its id.
func (b blobs) put(data []byte) (string, error) {
	id := blobID(data)
	p := b.path(id)
	if _, err := os.Stat(p); err == nil {
		b.touch(id) // in use again: prune keeps it
		return id, nil
	}
	if err := writeWhole(p, data); err != nil {
		return "", fmt.Errorf("change journal: %w", err)
	}
	return id, nil
}

// writeWhole writes data to p under a temporary name (unique, so that
// processes sharing the store do not collide) and renames it, so a
// reader sees the old file or the whole new one.
func writeWhole(p string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	tmp := p + "." + hex.EncodeToString(rnd[:]) + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, p); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// get reads the content id names.
func (b blobs) get(id string) ([]byte, error) {
	if len(id) != 64 {
		return nil, fmt.Errorf("change journal: bad content id %q", id)
	}
	data, err := os.ReadFile(b.path(id))
	if err != nil {
		return nil, fmt.Errorf("change journal: content %s: %w", id[:12], err)
	}
	return data, nil
}

// pruneEvery prunes (see prune) at most once per interval: a pass lists
// the whole store, as long as the workspace's file list, so each session
// does not pay it. A file in the store's directory marks the last pass.
// The contents index names are kept.
func (b blobs) pruneEvery(interval, keep time.Duration, index map[string]entry) {
	mark := filepath.Join(b.dir, "pruned")
	if fi, err := os.Stat(mark); err == nil && time.Since(fi.ModTime()) < interval {
		return
	}
	b.prune(keep, referenced(index))
	if err := os.WriteFile(mark, nil, 0o600); err == nil {
		now := time.Now()
		_ = os.Chtimes(mark, now, now)
	}
}

// prune removes the contents not used for keep (their modification time
// is refreshed on use, see touch) that refs does not name: the scan's
// index (index.go) names contents it never reads again, so never touches.
func (b blobs) prune(keep time.Duration, refs map[string]bool) {
	dirs, _ := os.ReadDir(b.dir)
	for _, d := range dirs {
		if !d.IsDir() {
			// The index, and a temporary one a killed process left.
			if strings.HasSuffix(d.Name(), ".tmp") {
				if info, err := d.Info(); err == nil && time.Since(info.ModTime()) > keep {
					_ = os.Remove(filepath.Join(b.dir, d.Name()))
				}
			}
			continue
		}
		sub := filepath.Join(b.dir, d.Name())
		entries, _ := os.ReadDir(sub)
		for _, e := range entries {
			if refs[d.Name()+e.Name()] {
				continue
			}
			if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > keep {
				_ = os.Remove(filepath.Join(sub, e.Name()))
			}
		}
	}
}

// touch marks content id used now.
func (b blobs) touch(id string) {
	now := time.Now()
	_ = os.Chtimes(b.path(id), now, now)
}

// get2 is get with "" meaning no content.
func (b blobs) get2(id string) ([]byte, error) {
	if id == "" {
		return nil, nil
	}
	return b.get(id)
}
