package lsp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/tools"
)

// Workspace is the workspace as the editor sees it: an open document's
// text comes from the editor's buffer, other files from the disk (through
// tools.DiskWorkspace, so the boundary and hard-link rules apply). Edits
// become workspace/applyEdit requests.
//
// Files that are not open are edited through applyEdit too, with a null
// version: the editor opens them in a buffer, so the edit is visible and
// undoable there like any other. Sync puts them on disk before a shell
// command runs.
type Workspace struct {
	disk  *tools.DiskWorkspace
	docs  *store     // the editor's open documents
	diags *diagStore // the diagnostics the editor forwards
	c     *client
	enc   Encoding
	caps  clientCaps
	// only, when set, is the one file this view may edit (code actions).
	only string
	// review, when set (the "review" setting is "confirm") and the client
	// supports change annotations, makes each agent edit one the user
	// confirms in the editor's preview (review.go).
	review *atomic.Bool

	ed *editedSet
}

// editedSet records the files the agent edited since the last Sync.
type editedSet struct {
	mu    sync.Mutex
	files map[string]editRecord // by absolute path
}

type editRecord struct {
	data []byte // the content sent
	open bool   // the file was open in the editor
}

func newWorkspace(root string, docs *store, diags *diagStore, c *client, enc Encoding, caps clientCaps) (*Workspace, error) {
	disk, err := tools.NewDiskWorkspace(root)
	if err != nil {
		return nil, err
	}
	return &Workspace{disk: disk, docs: docs, diags: diags, c: c, enc: enc, caps: caps, ed: &editedSet{files: make(map[string]editRecord)}, review: new(atomic.Bool)}, nil
}

// LimitTo returns a view of w whose ApplyEdit only accepts the absolute path.
func (w *Workspace) LimitTo(path string) *Workspace {
	v := *w
	v.only = path
	return &v
}

// Root returns the workspace root.
func (w *Workspace) Root() string { return w.disk.Root() }

// Resolve checks path against the root (delegated to the disk workspace).
func (w *Workspace) Resolve(path string) (string, error) { return w.disk.Resolve(path) }

// AllowsHardLinks follows the disk workspace.
func (w *Workspace) AllowsHardLinks() bool { return w.disk.AllowsHardLinks() }

// abs resolves path to a clean absolute path inside the root.
func (w *Workspace) abs(path string) (rel, abs string, err error) {
	rel, err = w.disk.Resolve(path)
	if err != nil {
		return "", "", err
	}
	return rel, filepath.Join(w.disk.Root(), filepath.FromSlash(rel)), nil
}

// ReadFile returns the editor's buffer for an open document, else the
// text of an unsynced edit (below), else the file on disk.
func (w *Workspace) ReadFile(ctx context.Context, path string) ([]byte, error) {
	rel, abs, err := w.abs(path)
	if err != nil {
		return nil, err
	}
	if d, ok := w.docs.byPath(abs); ok {
		return readOnlyBytes(d.text), nil
	}
	if data, ok := w.unsynced(abs); ok {
		return data, nil
	}
	return w.disk.ReadFile(ctx, rel)
}

// readOnlyBytes is s's memory as a byte slice, without copying it: an open
// document is an immutable string, and tools.Workspace.ReadFile's result
// is read-only by contract, so str_replace on a large buffer reads it in
// place (its capacity is its length, so even an append copies).
func readOnlyBytes(s string) []byte {
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// sameText reports whether b holds exactly s, at once when b is s's own
// memory (what ReadFile returned for the document).
func sameText(s string, b []byte) bool {
	if len(s) == len(b) && (len(s) == 0 || unsafe.StringData(s) == unsafe.SliceData(b)) {
		return true
	}
	return s == string(b)
}

// Open streams what ReadFile returns.
func (w *Workspace) Open(ctx context.Context, path string) (io.ReadCloser, error) {
	rel, abs, err := w.abs(path)
	if err != nil {
		return nil, err
	}
	if d, ok := w.docs.byPath(abs); ok {
		return io.NopCloser(strings.NewReader(d.text)), nil
	}
	if data, ok := w.unsynced(abs); ok {
		return io.NopCloser(strings.NewReader(string(data))), nil
	}
	return w.disk.Open(ctx, rel)
}

// unsynced returns the text the agent last gave a file that was not open
// when it edited it, until Sync. The editor holds that text in a buffer
// it may never report (Neovim's client loads the file into a buffer it
// does not attach, so no didOpen comes) while the disk still has the old
// text: reads and the next edit must see the edited text.
func (w *Workspace) unsynced(abs string) ([]byte, bool) {
	w.ed.mu.Lock()
	defer w.ed.mu.Unlock()
	rec, ok := w.ed.files[abs]
	if !ok || rec.open {
		return nil, false
	}
	return rec.data, true
}

// ErrOtherFile refuses an edit outside the file a code action is about. It
// is a tools.ErrRefused, so the model gets it as a tool result.
var ErrOtherFile error = &sentinel{tools.ErrRefused.Error() + ": this run may only edit the file the code action is about", tools.ErrRefused}

// ApplyEdit sends c to the editor as a workspace/applyEdit. It returns
// tools.ErrConflict when the buffer no longer holds c.Old or the editor
// refuses the edit.
func (w *Workspace) ApplyEdit(ctx context.Context, c tools.Change) error {
	rel, abs, err := w.abs(c.Path)
	if err != nil {
		return err
	}
	if w.only != "" && abs != w.only {
		only, _ := filepath.Rel(w.Root(), w.only)
		return fmt.Errorf("%w (%s); %s was not changed", ErrOtherFile, filepath.ToSlash(only), rel)
	}
	_, wasOpen := w.docs.byPath(abs)
	params, direct, err := w.buildEdit(ctx, rel, abs, c)
	if err != nil {
		return err
	}
	if direct {
		return w.writeDisk(rel, abs, c.New)
	}
	reviewed := w.annotate(params, c)
	w.expectEdit(abs, params, c)
	if err := w.c.applyEdit(ctx, params); err != nil {
		if reviewed && errors.Is(err, errNotApplied) {
			return fmt.Errorf("%s: %w", rel, ErrRejected)
		}
		return fmt.Errorf("apply edit %s: %w", rel, err)
	}
	w.ed.mu.Lock()
	w.ed.files[abs] = editRecord{data: c.New, open: wasOpen}
	w.ed.mu.Unlock()
	if d, ok := w.docs.byPath(abs); ok && wasOpen {
		// Most clients send didChange before answering; wait a little
		// for the ones that do not, so a re-read sees the edit.
		// (Comparing with string(c.New) copies nothing, and once the
		// didChange kept c.New's memory it compares no bytes.)
		if d.text != string(c.New) {
			w.docs.waitPath(ctx, abs, time.Second, func(d snapshot) bool { return d.text == string(c.New) })
		}
	}
	return nil
}

// writeDisk creates a file directly, for clients that cannot create files
// through a WorkspaceEdit.
func (w *Workspace) writeDisk(rel, abs string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", rel, err)
	}
	f, err := os.OpenFile(abs, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, os.ErrExist) {
		return fmt.Errorf("create %s: %w", rel, tools.ErrConflict)
	}
	if err != nil {
		return fmt.Errorf("create %s: %w", rel, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", rel, err)
	}
	return f.Close()
}

// Sync makes the files the agent edited be on disk as the editor shows
// them, before a shell command reads them: a client that declares
// experimental.agentLsp.saveRequest is asked to save all of them
// (agent/saveDocuments); otherwise the server writes the edited files that
// were not open in the editor itself (their buffer's text if the editor
// has opened them since). Open documents of such clients stay unsaved:
// writing under an open buffer would fight the editor.
func (w *Workspace) Sync(ctx context.Context) error {
	w.ed.mu.Lock()
	edited := make(map[string]editRecord, len(w.ed.files))
	for k, v := range w.ed.files {
		edited[k] = v
	}
	w.ed.mu.Unlock()
	if len(edited) == 0 {
		return nil
	}
	if w.caps.saveRequest {
		uris := make([]string, 0, len(edited))
		for abs := range edited {
			uris = append(uris, string(uri.File(abs)))
		}
		if err := w.c.saveDocuments(ctx, uris); err != nil {
			return err
		}
	} else {
		for abs, rec := range edited {
			if rec.open {
				continue
			}
			data := rec.data
			if d, ok := w.docs.byPath(abs); ok {
				data = []byte(d.text)
			}
			if err := os.WriteFile(abs, data, 0o644); err != nil {
				return fmt.Errorf("sync %s: %w", abs, err)
			}
		}
	}
	w.ed.mu.Lock()
	for abs := range edited {
		delete(w.ed.files, abs)
	}
	w.ed.mu.Unlock()
	return nil
}

var _ tools.Syncer = (*Workspace)(nil)
