package tools

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
)

// ApplyEdit writes c.New to c.Path as a compare-and-swap, under a lock
// held for the whole workspace:
//  1. the current file must be c.Old byte for byte, else ErrConflict; nil
//     Old means nothing may exist at the path (a file there is
//     ErrConflict, a link, even dangling, is refused);
//  2. the file must be a regular file with one link (hard-linked files are
//     refused as for reads, unless WithHardLinks), not a symbolic link,
//     directory, FIFO or device: writes never go through links;
//  3. the new content goes to a temporary file in the same directory,
//     which is synced and then renamed over the old name, so a crash
//     leaves the old file or the new one, never half of either. A new file
//     is linked into place, which fails if a file appeared meanwhile.
//
// Every step goes through the workspace's os.Root, so a parent directory
// swapped for a link to the outside cannot redirect the write; missing
// parent directories are created inside the root. The file mode is kept,
// set on the new file's handle so the umask cannot narrow it (new files
// get 0644); the owner is not. With WithHardLinks, the rename gives the
// path a new inode, so the file's other names keep the old content.
// Processes outside agent-lsp that write the file between the comparison
// and the rename are detected by its identity, size and modification
// time, not by content.
func (w *DiskWorkspace) ApplyEdit(ctx context.Context, c Change) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	rel, err := w.Resolve(c.Path)
	if err != nil {
		return err
	}
	if rel == "." {
		return &NotRegularError{Path: rel, Mode: fs.ModeDir}
	}
	w.edit.Lock()
	defer w.edit.Unlock()

	mode := fs.FileMode(0o644)
	var before fs.FileInfo
	if c.Old == nil {
		if err := w.mustNotExist(rel); err != nil {
			return err
		}
		if dir := path.Dir(rel); dir != "." {
			if err := w.r.MkdirAll(dir, 0o755); err != nil {
				return rootError(dir, err)
			}
		}
	} else {
		if before, err = w.compare(rel, c.Old); err != nil {
			return err
		}
		mode = before.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
	}
	tmp, err := w.writeTemp(rel, c.New, mode)
	if err != nil {
		return err
	}
	done := false
	defer func() {
		if !done {
			w.r.Remove(tmp)
		}
	}()
	if err := w.step("commit"); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if c.Old == nil {
		if err := w.place(rel, tmp); err != nil {
			return err
		}
	} else {
		st, err := w.r.Lstat(rel)
		if err != nil || !os.SameFile(st, before) || st.Size() != before.Size() || !st.ModTime().Equal(before.ModTime()) {
			return fmt.Errorf("%s: %w", rel, ErrConflict)
		}
		if err := w.r.Rename(tmp, rel); err != nil {
			return commitError(rel, err)
		}
	}
	done = true
	// Make the rename durable; the edit has happened whatever this says.
	if d, err := w.r.Open(path.Dir(rel)); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

var _ Editor = (*DiskWorkspace)(nil)

// step runs the test hook, if any.
func (w *DiskWorkspace) step(name string) error {
	if w.failStep != nil {
		return w.failStep(name)
	}
	return nil
}

// mustNotExist checks that nothing is at rel: a file there is a conflict
// (it appeared since the caller looked), a link is refused.
func (w *DiskWorkspace) mustNotExist(rel string) error {
	st, err := w.r.Lstat(rel)
	switch {
	case err == nil && st.Mode()&fs.ModeSymlink != 0:
		return w.symlinkError(rel)
	case err == nil:
		return fmt.Errorf("%s exists now: %w", rel, ErrConflict)
	case errors.Is(err, fs.ErrNotExist):
		return nil
	}
	return rootError(rel, err)
}

// compare checks that rel is a regular, singly linked file whose content
// is old, and returns its stat.
func (w *DiskWorkspace) compare(rel string, old []byte) (fs.FileInfo, error) {
	lst, err := w.r.Lstat(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s was deleted: %w", rel, ErrConflict)
	}
	if err != nil {
		return nil, rootError(rel, err)
	}
	if lst.Mode()&fs.ModeSymlink != 0 {
		return nil, w.symlinkError(rel)
	}
	if !lst.Mode().IsRegular() {
		return nil, &NotRegularError{Path: rel, Mode: lst.Mode()}
	}
	f, err := w.r.OpenFile(rel, os.O_RDONLY|oNonblock, 0)
	if err != nil {
		return nil, commitError(rel, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("stat %s: %w", rel, err)
	}
	if !os.SameFile(lst, st) {
		return nil, fmt.Errorf("%s was replaced: %w", rel, ErrConflict)
	}
	if err := checkHandle(rel, st, w.hard); err != nil {
		return nil, err
	}
	if st.Size() != int64(len(old)) {
		return nil, fmt.Errorf("%s: %w", rel, ErrConflict)
	}
	cur, err := io.ReadAll(io.LimitReader(f, int64(len(old))+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", rel, err)
	}
	if !bytes.Equal(cur, old) {
		return nil, fmt.Errorf("%s: %w", rel, ErrConflict)
	}
	return st, nil
}

// writeTemp writes data to a new temporary file next to rel, with mode,
// synced, and returns its workspace-relative name.
func (w *DiskWorkspace) writeTemp(rel string, data []byte, mode fs.FileMode) (string, error) {
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	base := path.Base(rel)
	if len(base) > 200 {
		base = base[:200]
	}
	tmp := path.Join(path.Dir(rel), "."+base+".agent-lsp-"+hex.EncodeToString(rnd[:])+".tmp")
	f, err := w.r.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", fmt.Errorf("write %s: %w", rel, rootError(tmp, err))
	}
	err = w.step("write")
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil {
		err = f.Chmod(mode) // on the handle: no umask, no path lookup
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		w.r.Remove(tmp)
		return "", fmt.Errorf("write %s: %w", rel, err)
	}
	return tmp, nil
}

// place puts the temporary file tmp at rel, which must not exist: a hard
// link fails if something appeared there meanwhile, where a rename would
// replace it. Filesystems without hard links get a rename after a check.
func (w *DiskWorkspace) place(rel, tmp string) error {
	err := w.r.Link(tmp, rel)
	if err == nil {
		w.r.Remove(tmp)
		return nil
	}
	if errors.Is(err, fs.ErrExist) {
		return w.mustNotExist(rel) // a conflict, or a link refused
	}
	if err := w.mustNotExist(rel); err != nil {
		return err
	}
	if err := w.r.Rename(tmp, rel); err != nil {
		return commitError(rel, err)
	}
	return nil
}

// commitError reports a failure of a step after the checks: a path that
// vanished meanwhile (the file or a directory was moved) is a conflict.
func commitError(rel string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s moved while it was written: %w", rel, ErrConflict)
	}
	return fmt.Errorf("write %s: %w", rel, rootError(rel, err))
}

// symlinkError refuses to write through the link at rel, saying where it
// points when that is inside the workspace.
func (w *DiskWorkspace) symlinkError(rel string) error {
	target, err := w.r.Readlink(rel)
	if err != nil {
		return outside(rel, "it is a symbolic link; file tools do not write through links")
	}
	abs := target
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(w.root, filepath.FromSlash(path.Dir(rel)), target)
	}
	if in, err := w.Resolve(abs); err == nil && in != "." {
		return &LinkError{Path: rel, Target: in}
	}
	return outside(rel, "it is a symbolic link to %s, outside the workspace; file tools do not write through links", target)
}

// LinkError refuses a write to a symbolic link whose target is inside the
// workspace: writing would replace the link, not change its target.
type LinkError struct {
	Path   string // the link
	Target string // workspace-relative target
}

func (e *LinkError) Error() string {
	return fmt.Sprintf("%s is a symbolic link to %s; file tools do not write through links: edit %s instead", e.Path, e.Target, e.Target)
}
