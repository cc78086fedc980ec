//go:build unix

package changes

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// An index that is a FIFO, a link or a directory is no index, and the
// session neither waits on it nor follows it.
func TestIndexNotAFile(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"fifo", "symlink", "dir"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			root, store := tree(t, 4), filepath.Join(t.TempDir(), "baseline")
			session(t, root, store, 0).Close()
			p := filepath.Join(store, indexName)
			good := p + ".good"
			if err := os.Rename(p, good); err != nil {
				t.Fatal(err)
			}
			var err error
			switch kind {
			case "fifo":
				err = syscall.Mkfifo(p, 0o600)
			case "symlink":
				err = os.Symlink(good, p)
			case "dir":
				err = os.Mkdir(p, 0o700)
			}
			if err != nil {
				t.Fatal(err)
			}
			if s := session(t, root, store, 0); s.reads != 4 {
				t.Errorf("read %d files, want all 4", s.reads)
			}
		})
	}
}
