package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"unicode/utf8"
)

// The workspace boundary has two halves:
//  1. Resolve is lexical: it refuses paths that name something outside the
//     root before anything touches the disk (.., absolute paths elsewhere,
//     ~, $VAR, backslashes, drive letters, URLs, control characters);
//  2. openRegular opens the result through an os.Root, which follows
//     symbolic links only while they stay inside the root, and then checks
//     the opened handle (fstat), never the path, so a component swapped for
//     a symlink during the call cannot redirect the read.
//
// Hard links cannot be seen by path checks: a regular file whose link count
// is above one may have its other name outside the workspace (an agent can
// run `ln ~/.ssh/id_rsa notes`). The rule is strict: such files are refused
// with ErrHardLink unless the workspace was built WithHardLinks (the user
// decided to trust them, e.g. for a pnpm store). Directories are exempt:
// their link count counts subdirectories, and they cannot be hard-linked.

// MaxPathLen is the longest path the boundary accepts, in bytes (PATH_MAX).
const MaxPathLen = 4096

// ErrOutside is matched by errors.Is for every refusal of a path that is, or
// may be, outside the workspace.
var ErrOutside = errors.New("outside the workspace")

// ErrHardLink is matched by errors.Is when a file is refused because it has
// more than one hard link. It also matches ErrOutside.
var ErrHardLink = errors.New("file has more than one hard link")

// OutsideError says why a path was refused. Its text is written for the
// model: it names the path, says it is outside the workspace and why.
type OutsideError struct {
	Path   string // the path as given
	Reason string // why, in a few words
	err    error  // optional second sentinel (ErrHardLink)
}

func (e *OutsideError) Error() string {
	return fmt.Sprintf("path %q is outside the workspace: %s", e.Path, e.Reason)
}

// Is makes errors.Is(err, ErrOutside) true, and ErrHardLink for hard links.
func (e *OutsideError) Is(target error) bool {
	return target == ErrOutside || (e.err != nil && target == e.err)
}

func outside(path, format string, args ...any) error {
	return &OutsideError{Path: path, Reason: fmt.Sprintf(format, args...)}
}

// Resolve checks a path the model wrote against the workspace root and
// returns it cleaned, relative to root and slash-separated ("." is the root
// itself). Relative paths are taken from the root; absolute paths must lie
// under it. It does not touch the disk: symbolic links are checked when the
// file is opened through an os.Root (see DiskWorkspace). Cleaning is
// lexical, so "link/../a" names "a" whatever link points to: never a path
// outside, only possibly not the kernel's reading of it.
//
// The refusals are *OutsideError values (errors.Is(err, ErrOutside)):
// .. climbing out, absolute paths elsewhere (including /w-evil next to /w),
// ~ and ~user, $VAR, backslashes and drive letters (Windows paths), URLs
// other than file://, NUL and other control characters, bidi controls,
// invalid UTF-8, and paths over MaxPathLen. A file:// URI is percent-decoded
// once and then checked like any absolute path.
func Resolve(root, path string) (string, error) {
	return resolve(path, root)
}

// resolve is Resolve with several accepted spellings of the root (the path
// as configured and its symlink-free form).
func resolve(path string, roots ...string) (string, error) {
	if path == "" {
		return "", errors.New("path is empty: give a path relative to the workspace root")
	}
	if len(path) > MaxPathLen {
		return "", outside(shorten(path), "path is %d bytes long, over the %d-byte limit", len(path), MaxPathLen)
	}
	if err := checkChars(path); err != nil {
		return "", err
	}
	p := path
	switch {
	case p[0] == '~':
		return "", outside(path, "~ is not expanded by file tools; use a path relative to the workspace root")
	case p[0] == '$':
		return "", outside(path, "$VARIABLES are not expanded by file tools; use a path relative to the workspace root")
	case strings.Contains(p, `\`):
		return "", outside(path, `backslashes are not path separators here (Windows paths are refused); use forward slashes relative to the workspace root`)
	case isDrivePath(p):
		return "", outside(path, "Windows drive paths are refused; use a path relative to the workspace root")
	case strings.Contains(p, "://"):
		u, err := url.Parse(p)
		if err != nil || u.Scheme != "file" || (u.Host != "" && u.Host != "localhost") || u.Opaque != "" {
			return "", outside(path, "only file:// URIs on this machine are accepted; use a path relative to the workspace root")
		}
		// url.Parse has decoded the path exactly once; check it again.
		if err := checkChars(u.Path); err != nil {
			return "", err
		}
		if strings.Contains(u.Path, `\`) {
			return "", outside(path, "the decoded URI contains a backslash")
		}
		p = u.Path
		if !filepath.IsAbs(p) {
			return "", outside(path, "a file:// URI must hold an absolute path")
		}
	}

	if filepath.IsAbs(p) {
		abs := filepath.Clean(p)
		for _, root := range roots {
			if rel, ok := within(root, abs); ok {
				return rel, nil
			}
		}
		return "", outside(path, "it is an absolute path that is not under the workspace root %s", roots[0])
	}
	rel := filepath.Clean(p)
	if rel == ".." || strings.HasPrefix(rel, "../") {
		return "", outside(path, "its .. components climb above the workspace root")
	}
	return filepath.ToSlash(rel), nil
}

// within reports whether the clean absolute path abs is root or lies under
// it, and returns abs relative to root. The check is on whole components, so
// /w-evil is not under /w.
func within(root, abs string) (string, bool) {
	root = filepath.Clean(root)
	if abs == root {
		return ".", true
	}
	prefix := root
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	if !strings.HasPrefix(abs, prefix) {
		return "", false
	}
	return filepath.ToSlash(abs[len(prefix):]), true
}

// checkChars refuses NUL and other control characters, bidi and zero-width
// format characters (spoofing in logs and prompts) and invalid UTF-8.
func checkChars(path string) error {
	for i, r := range path {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(path[i:], "\uFFFD"):
			return outside(path, "it is not valid UTF-8")
		case r == 0:
			return outside(path, "it contains a NUL byte")
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			return outside(path, "it contains the control character %U", r)
		case (r >= 0x200b && r <= 0x200f) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0xfeff:
			return outside(path, "it contains the invisible or bidi format character %U", r)
		}
	}
	return nil
}

func isDrivePath(p string) bool {
	if len(p) < 2 || p[1] != ':' {
		return false
	}
	c := p[0] | 0x20
	return c >= 'a' && c <= 'z' && (len(p) == 2 || p[2] == '/' || p[2] == '\\')
}

func shorten(s string) string {
	if len(s) <= 80 {
		return s
	}
	return s[:40] + "…" + s[len(s)-20:]
}

// NotRegularError reports a path that names a directory, FIFO, device or
// socket where a regular file was expected.
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	kind := "special file"
	switch {
	case e.Mode.IsDir():
		return fmt.Sprintf("%s is a directory, not a file: use glob (e.g. pattern %q) to list it", e.Path, strings.TrimSuffix(e.Path, "/")+"/*")
	case e.Mode&fs.ModeNamedPipe != 0:
		kind = "named pipe (FIFO)"
	case e.Mode&fs.ModeSocket != 0:
		kind = "socket"
	case e.Mode&fs.ModeDevice != 0:
		kind = "device"
	case e.Mode&fs.ModeSymlink != 0:
		kind = "symbolic link"
	}
	return fmt.Sprintf("%s is a %s, not a regular file: file tools only read regular files", e.Path, kind)
}

// openRegular opens rel (already through Resolve) inside r and returns the
// handle only if it is a regular file inside the workspace. The mode is
// first read through the root (so a FIFO or device is never opened), then
// the file is opened non-blocking and its handle is checked again: if the
// path was swapped between the two steps, the handle's own fstat decides.
func openRegular(r *os.Root, rel string, allowHardLinks bool) (*os.File, fs.FileInfo, error) {
	fi, err := r.Stat(rel)
	if err != nil {
		return nil, nil, rootError(rel, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, &NotRegularError{Path: rel, Mode: fi.Mode()}
	}
	f, err := r.OpenFile(rel, os.O_RDONLY|oNonblock, 0)
	if err != nil {
		return nil, nil, rootError(rel, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("stat %s: %w", rel, err)
	}
	if err := checkHandle(rel, st, allowHardLinks); err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, st, nil
}

// checkHandle applies the rules that only an opened handle can decide.
func checkHandle(rel string, st fs.FileInfo, allowHardLinks bool) error {
	if !st.Mode().IsRegular() {
		return &NotRegularError{Path: rel, Mode: st.Mode()}
	}
	if n := linkCount(st); n > 1 && !allowHardLinks {
		return &OutsideError{Path: rel, err: ErrHardLink, Reason: fmt.Sprintf(
			"it is a regular file with %d hard links, and its other names may be outside the workspace; "+
				"file tools refuse hard-linked files (ask the user to copy the file, or to allow hard links)", n)}
	}
	return nil
}

// rootError turns an os.Root error into one the model can act on.
func rootError(rel string, err error) error {
	var pe *os.PathError
	inner := err
	for errors.As(inner, &pe) { // MkdirAll nests them
		inner = pe.Err
	}
	switch {
	case inner.Error() == "path escapes from parent":
		return outside(rel, "it goes through a symbolic link that leads outside the workspace "+
			"(or is absolute; only relative links that stay inside are followed)")
	case errors.Is(inner, fs.ErrNotExist):
		return notExistError{rel}
	case errors.Is(inner, syscall.ELOOP):
		return outside(rel, "too many levels of symbolic links")
	case errors.Is(inner, syscall.ENOTDIR):
		return fmt.Errorf("%s: a component of the path is not a directory", rel)
	case errors.Is(inner, syscall.ENAMETOOLONG):
		return outside(rel, "the path is too long")
	case errors.Is(inner, fs.ErrPermission):
		return fmt.Errorf("%s: permission denied", rel)
	}
	return fmt.Errorf("%s: %w", rel, err)
}

// notExistError says a path does not exist, in words for the model, and
// matches fs.ErrNotExist so that write_file can tell a new file.
type notExistError struct{ path string }

func (e notExistError) Error() string {
	return e.path + " does not exist (or is a dangling symbolic link): check the path with glob"
}

func (e notExistError) Is(target error) bool { return target == fs.ErrNotExist }
