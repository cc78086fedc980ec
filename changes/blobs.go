package changes

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
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
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return "", fmt.Errorf("change journal: %w", err)
	}
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	tmp := p + "." + hex.EncodeToString(rnd[:]) + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("change journal: %w", err)
	}
	if err := os.Rename(tmp, p); err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("change journal: %w", err)
	}
	return id, nil
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

// prune removes the contents not used for keep (their modification time
// is refreshed on use, see touch).
func (b blobs) prune(keep time.Duration) {
	dirs, _ := os.ReadDir(b.dir)
	for _, d := range dirs {
		sub := filepath.Join(b.dir, d.Name())
		entries, _ := os.ReadDir(sub)
		for _, e := range entries {
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
