package tools

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
)

// Workspace is the editor-or-disk view a tool acts on. The LSP server
// implements it over the editor's buffers; DiskWorkspace over the disk.
// Paths are slash-separated and relative to Root, already checked by
// the boundary (see Resolve); implementations check them again.
//
// Tools also use these optional methods when a workspace has them
// (DiskWorkspace has all three):
//   - Resolve(path string) (string, error): the boundary check, when the
//     workspace knows more spellings of its root than Root();
//   - Open(ctx, path) (io.ReadCloser, error): read_file streams text files
//     that ReadFile refused with *TooLargeError;
//   - AllowsHardLinks() bool: grep reads hard-linked files only if true.
//
// glob and grep list and read the disk under Root() (through an os.Root);
// they do not see unsaved buffers.
type Workspace interface {
	// Root is the absolute path of the workspace root.
	Root() string
	// ReadFile returns the file's current content; an unsaved buffer wins
	// over the disk. A missing file gives an error matching
	// fs.ErrNotExist (write_file then creates it). The bytes are read-only:
	// an editor's workspace may return its document's own memory rather
	// than a copy of a 5 MB buffer, so callers build new slices instead of
	// writing into this one.
	ReadFile(ctx context.Context, path string) ([]byte, error)
}

// DefaultMaxFileSize is the largest file DiskWorkspace.ReadFile loads.
const DefaultMaxFileSize = 64 << 20

// sniffLen is how much of a file is looked at to decide whether it is binary.
const sniffLen = 8 << 10

// TooLargeError reports a file over the workspace's size limit. Binary says
// whether its first 8 KiB look binary, so that callers can say which.
type TooLargeError struct {
	Path   string
	Size   int64
	Limit  int64
	Binary bool
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is %d bytes, over the %d-byte limit for reading a whole file", e.Path, e.Size, e.Limit)
}

// DiskWorkspace is a Workspace over a directory on disk. Every read goes
// through an os.Root, so symbolic links are followed only while they stay
// inside the root.
type DiskWorkspace struct {
	root    string   // as configured, absolute and clean
	real    string   // root with symlinks resolved (absolute inputs may use either)
	r       *os.Root // handle on the root directory
	maxSize int64
	hard    bool

	edit     sync.Mutex              // serialises ApplyEdit (disk_edit.go)
	failStep func(step string) error // test hook: fail ApplyEdit at a step
}

// DiskOption configures a DiskWorkspace.
type DiskOption func(*DiskWorkspace)

// WithHardLinks lets file tools read regular files that have more than one
// hard link. Off by default: the other name of such a file may be outside
// the workspace, and no path check can tell.
func WithHardLinks() DiskOption { return func(w *DiskWorkspace) { w.hard = true } }

// WithMaxFileSize sets the largest file ReadFile loads (DefaultMaxFileSize).
func WithMaxFileSize(n int64) DiskOption { return func(w *DiskWorkspace) { w.maxSize = n } }

// NewDiskWorkspace opens the directory root as a workspace. Close it when
// done.
func NewDiskWorkspace(root string, opts ...DiskOption) (*DiskWorkspace, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("workspace root %s: %w", root, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("workspace root %s: %w", root, err)
	}
	r, err := os.OpenRoot(abs)
	if err != nil {
		return nil, fmt.Errorf("workspace root %s: %w", root, err)
	}
	w := &DiskWorkspace{root: abs, real: real, r: r, maxSize: DefaultMaxFileSize}
	for _, o := range opts {
		o(w)
	}
	return w, nil
}

// Root returns the absolute path of the workspace root.
func (w *DiskWorkspace) Root() string { return w.root }

// Close releases the handle on the root directory.
func (w *DiskWorkspace) Close() error { return w.r.Close() }

// Resolve checks path against the workspace root (see the package-level
// Resolve); absolute paths may use the root as configured or its
// symlink-free form.
func (w *DiskWorkspace) Resolve(path string) (string, error) {
	return resolve(path, w.root, w.real)
}

// AllowsHardLinks reports whether WithHardLinks was given.
func (w *DiskWorkspace) AllowsHardLinks() bool { return w.hard }

// ReadFile reads a regular file inside the workspace. It refuses anything
// outside (ErrOutside), hard-linked files (ErrHardLink), directories, FIFOs,
// devices and sockets (*NotRegularError), and files over the size limit
// (*TooLargeError) without loading them.
func (w *DiskWorkspace) ReadFile(ctx context.Context, path string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rel, err := w.Resolve(path)
	if err != nil {
		return nil, err
	}
	f, st, err := openRegular(w.r, rel, w.hard)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := st.Size()
	if size > w.maxSize {
		head := make([]byte, sniffLen)
		n, _ := io.ReadFull(f, head)
		return nil, &TooLargeError{Path: rel, Size: size, Limit: w.maxSize, Binary: isBinary(head[:n], true)}
	}
	// Read at most one byte past the limit: the file may grow meanwhile.
	buf := make([]byte, 0, size+1)
	for {
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) {
			return buf, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", rel, err)
		}
		if int64(len(buf)) > w.maxSize {
			return nil, &TooLargeError{Path: rel, Size: int64(len(buf)), Limit: w.maxSize}
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
	}
}

var _ Workspace = (*DiskWorkspace)(nil)

// openWalkRoot returns a handle on the workspace root for glob and grep,
// which walk the disk: the DiskWorkspace's own, or a new one (closed by
// done) for other workspaces.
func openWalkRoot(ws Workspace) (r *os.Root, done func(), err error) {
	if w, ok := ws.(*DiskWorkspace); ok {
		return w.r, func() {}, nil
	}
	r, err = os.OpenRoot(ws.Root())
	if err != nil {
		return nil, nil, err
	}
	return r, func() { r.Close() }, nil
}

// Open opens a regular file inside the workspace for streaming, with the
// same checks as ReadFile but no size limit. read_file uses it for text
// files too large to load whole.
func (w *DiskWorkspace) Open(ctx context.Context, path string) (io.ReadCloser, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rel, err := w.Resolve(path)
	if err != nil {
		return nil, err
	}
	f, _, err := openRegular(w.r, rel, w.hard)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// resolver is implemented by workspaces that know more spellings of their
// root than Root() (DiskWorkspace); other workspaces use Resolve.
type resolver interface {
	Resolve(path string) (string, error)
}

// resolveIn checks path against ws.
func resolveIn(ws Workspace, path string) (string, error) {
	if r, ok := ws.(resolver); ok {
		return r.Resolve(path)
	}
	return Resolve(ws.Root(), path)
}
