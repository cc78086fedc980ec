package acp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"sync"
	"time"

	"github.com/agent-lsp/agent-lsp/tools"
)

// clientFSTimeout bounds one fs/* request: a client that never answers
// fails the tool call instead of hanging the run.
const clientFSTimeout = time.Minute

// workspace is the session's workspace as the editor sees it. With the
// client's fs.readTextFile, read_file and the edit tools read through
// fs/read_text_file (unsaved buffers win); with fs.writeTextFile, edits
// are written through fs/write_text_file, whole, so the editor applies
// them to its buffers and shows them for review. Without them, the disk
// (tools.DiskWorkspace), as in `agent-lsp run`. Every path still goes
// through the disk workspace's boundary checks first. glob and grep walk
// the disk.
type workspace struct {
	disk      *tools.DiskWorkspace
	c         *conn
	sessionID string
	read      bool
	write     bool

	mu sync.Mutex
	// edits are the changes applied during the current tool call, for
	// its diff blocks.
	edits []tools.Change
	// unsynced are the files written through the client since the last
	// Sync: what was on disk before, and what the client was sent.
	unsynced map[string]syncRecord
}

type syncRecord struct {
	disk    []byte // nil: the file did not exist
	existed bool
	sent    []byte
}

var (
	_ tools.Editor = (*workspace)(nil)
	_ tools.Syncer = (*workspace)(nil)
)

func (w *workspace) Root() string                        { return w.disk.Root() }
func (w *workspace) Resolve(path string) (string, error) { return w.disk.Resolve(path) }
func (w *workspace) AllowsHardLinks() bool               { return w.disk.AllowsHardLinks() }

func (w *workspace) abs(rel string) string {
	return filepath.Join(w.disk.Root(), filepath.FromSlash(rel))
}

// ReadFile returns the client's text of path when it can read files,
// else the disk's. The disk is checked first in both cases, so the
// boundary, link and size rules apply: the client is only asked about a
// regular file inside the workspace (or one that does not exist yet, for
// an unsaved new buffer).
func (w *workspace) ReadFile(ctx context.Context, path string) ([]byte, error) {
	rel, err := w.disk.Resolve(path)
	if err != nil {
		return nil, err
	}
	if !w.read {
		return w.disk.ReadFile(ctx, rel)
	}
	f, err := w.disk.Open(ctx, rel)
	missing := errors.Is(err, fs.ErrNotExist)
	if err != nil && !missing {
		return nil, err
	}
	if f != nil {
		if st, ok := f.(interface{ Stat() (fs.FileInfo, error) }); ok {
			if fi, err := st.Stat(); err == nil && fi.Size() > tools.DefaultMaxFileSize {
				f.Close()
				return w.disk.ReadFile(ctx, rel) // the size error, with the binary sniff
			}
		}
		f.Close()
	}
	cctx, cancel := context.WithTimeout(ctx, clientFSTimeout)
	defer cancel()
	var res readTextFileResult
	err = w.c.call(cctx, "fs/read_text_file", readTextFileParams{SessionID: w.sessionID, Path: w.abs(rel)}, &res)
	switch {
	case err != nil && missing:
		// No such file on disk and no buffer: write_file creates it.
		return nil, fmt.Errorf("%s: %w", rel, fs.ErrNotExist)
	case err != nil:
		return nil, fmt.Errorf("read %s through the editor: %w", rel, err)
	case res.Content == nil:
		return nil, fmt.Errorf("read %s through the editor: its answer has no content", rel)
	case missing && *res.Content == "":
		// Some clients (CodeCompanion) answer "" for a file that does not
		// exist; an empty unsaved buffer of a new file reads the same.
		// Not found, so that write_file creates it.
		return nil, fmt.Errorf("%s: %w", rel, fs.ErrNotExist)
	}
	return []byte(*res.Content), nil
}

// Open streams a file too large to read whole, from the disk.
func (w *workspace) Open(ctx context.Context, path string) (io.ReadCloser, error) {
	return w.disk.Open(ctx, path)
}

// ApplyEdit writes c through the client (or to the disk). It first reads
// the file again the same way the tool did and refuses the change with
// tools.ErrConflict when it is no longer c.Old: the user edited the
// buffer meanwhile.
func (w *workspace) ApplyEdit(ctx context.Context, c tools.Change) error {
	rel, err := w.disk.Resolve(c.Path)
	if err != nil {
		return err
	}
	if !w.write {
		if err := w.disk.ApplyEdit(ctx, c); err != nil {
			return err
		}
		w.recordEdit(c)
		return nil
	}
	cur, err := w.ReadFile(ctx, rel)
	exists := err == nil
	switch {
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return err
	case c.Old == nil && exists, c.Old != nil && (!exists || !bytes.Equal(cur, c.Old)):
		return fmt.Errorf("edit %s: %w", rel, tools.ErrConflict)
	}
	onDisk, derr := w.disk.ReadFile(ctx, rel)
	cctx, cancel := context.WithTimeout(ctx, clientFSTimeout)
	defer cancel()
	if err := w.c.call(cctx, "fs/write_text_file", writeTextFileParams{SessionID: w.sessionID, Path: w.abs(rel), Content: string(c.New)}, nil); err != nil {
		return fmt.Errorf("write %s through the editor: %w", rel, err)
	}
	w.mu.Lock()
	if w.unsynced == nil {
		w.unsynced = map[string]syncRecord{}
	}
	rec, seen := w.unsynced[rel]
	if !seen {
		rec = syncRecord{disk: onDisk, existed: derr == nil}
	}
	rec.sent = c.New
	w.unsynced[rel] = rec
	w.mu.Unlock()
	w.recordEdit(c)
	return nil
}

func (w *workspace) recordEdit(c tools.Change) {
	w.mu.Lock()
	w.edits = append(w.edits, c)
	w.mu.Unlock()
}

// takeEdits returns and forgets the edits recorded since the last call.
func (w *workspace) takeEdits() []tools.Change {
	w.mu.Lock()
	defer w.mu.Unlock()
	e := w.edits
	w.edits = nil
	return e
}

// Sync runs before each shell command, which reads the disk: a file the
// client was sent but has not saved (the disk still holds what it held
// before the agent's first edit) is written to the disk with the text the
// client was sent. A file the user saved meanwhile, with other text, is
// left alone. Editors that save agent edits themselves (Zed) leave
// nothing to do.
func (w *workspace) Sync(ctx context.Context) error {
	w.mu.Lock()
	pending := w.unsynced
	w.unsynced = nil
	w.mu.Unlock()
	var errs []error
	for rel, rec := range pending {
		cur, err := w.disk.ReadFile(ctx, rel)
		exists := err == nil
		switch {
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			errs = append(errs, err)
			continue
		case exists && bytes.Equal(cur, rec.sent):
			continue // saved by the editor
		case exists != rec.existed || exists && !bytes.Equal(cur, rec.disk):
			continue // changed on disk by someone else: theirs wins
		}
		var old []byte
		if exists {
			old = cur
		}
		if err := w.disk.ApplyEdit(ctx, tools.Change{Path: rel, Old: old, New: rec.sent}); err != nil {
			errs = append(errs, fmt.Errorf("sync %s: %w", rel, err))
		}
	}
	return errors.Join(errs...)
}
