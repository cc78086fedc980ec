package tools

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// editEnv is a workspace with the file tools of one session.
type editEnv struct {
	ws    *DiskWorkspace
	ed    *flaky
	dir   string
	reads *Reads
	read  *Tool
	sr    *Tool
	wf    *Tool
}

// flaky wraps the disk workspace as an editor that can refuse the next
// edits with ErrConflict (optionally changing the file first, as a user
// typing in the buffer would), and records the changes it applied.
type flaky struct {
	*DiskWorkspace
	mu       sync.Mutex
	refuse   int           // refuse this many edits
	userEdit []byte        // write this to the file before refusing, if set
	gate     chan struct{} // if set, the next edit waits for it to close
	applied  []Change
}

func (f *flaky) ApplyEdit(ctx context.Context, c Change) error {
	f.mu.Lock()
	if g := f.gate; g != nil {
		f.gate = nil
		f.mu.Unlock()
		<-g
		f.mu.Lock()
	}
	if f.refuse > 0 {
		f.refuse--
		user := f.userEdit
		f.mu.Unlock()
		if user != nil {
			os.WriteFile(filepath.Join(f.Root(), c.Path), user, 0o644)
		}
		return ErrConflict
	}
	f.mu.Unlock()
	err := f.DiskWorkspace.ApplyEdit(ctx, c)
	if err == nil {
		f.mu.Lock()
		f.applied = append(f.applied, c)
		f.mu.Unlock()
	}
	return err
}

func (f *flaky) last() Change {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.applied) == 0 {
		return Change{}
	}
	return f.applied[len(f.applied)-1]
}

func newEditEnv(t *testing.T, files map[string]string) *editEnv {
	t.Helper()
	ws, dir := newWS(t, files)
	ed := &flaky{DiskWorkspace: ws}
	reads := NewReads()
	return &editEnv{ws: ws, ed: ed, dir: dir, reads: reads,
		read: NewReadFile(ed, WithReads(reads)), sr: NewStrReplace(ed, reads), wf: NewWriteFile(ed, reads)}
}

// readFile reads path with read_file, which marks it read.
func (e *editEnv) readFile(t *testing.T, path string) {
	t.Helper()
	if res := runTool(t, e.read, ReadFileParams{Path: path}); res.IsError {
		t.Fatalf("read_file %s: %s", path, res.Text)
	}
}

func (e *editEnv) content(t *testing.T, path string) string {
	t.Helper()
	return readString(t, filepath.Join(e.dir, filepath.FromSlash(path)))
}

// checkChange checks that the last applied change's replacements turn
// Old into New and that nothing outside them changed.
func (e *editEnv) checkChange(t *testing.T) {
	t.Helper()
	c := e.ed.last()
	if len(c.Replacements) == 0 {
		return
	}
	if got := applyReplacements(c.Old, c.Replacements); !bytes.Equal(got, c.New) {
		t.Fatalf("replacements give %q, New is %q", got, c.New)
	}
	first, last := c.Replacements[0], c.Replacements[len(c.Replacements)-1]
	tail := len(c.Old) - last.End
	if !bytes.Equal(c.New[:first.Start], c.Old[:first.Start]) || !bytes.Equal(c.New[len(c.New)-tail:], c.Old[last.End:]) {
		t.Fatalf("bytes outside the replaced span changed:\nold %q\nnew %q", c.Old, c.New)
	}
}
