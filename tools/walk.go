package tools

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"
)

// The walk behind glob and grep:
//  1. the start directory is opened through the workspace's os.Root; each
//     entry below by its single name from its parent's handle with
//     O_NOFOLLOW (dir_unix.go; os.Root elsewhere), so nothing outside the
//     workspace is ever listed or read;
//  2. symbolic links are never followed, to files or directories (as rg
//     does without -L), so link cycles end and links out are not listed;
//  3. .git is always skipped; .gitignore files are honoured at every level
//     (negation, directory patterns, anchored patterns), with the
//     .gitignore files of the directories above the starting point;
//  4. hidden files are listed (agents need .github, .vscode and the like).

// maxIgnoreFile is the largest .gitignore read; bigger ones are ignored.
const maxIgnoreFile = 1 << 20

var (
	errNotRegular = errors.New("not a regular file")
	errTooLarge   = errors.New("file too large")
)

// walker lists the regular files under a directory of the workspace.
type walker struct {
	ctx context.Context
	// maxDepth limits how many directory levels below the start are
	// entered (0: no limit).
	maxDepth int
	// file is called for each regular file that is not ignored, with the
	// directory holding it (acquired once for the callee: release it), its
	// name, and its slash path relative to the workspace root. It returns
	// false to stop the walk.
	file func(d *dirNode, name, rel string) bool
	// skipDir, when set, is asked about every directory the walk would
	// enter; true skips it. ignored, when set, is called with the slash
	// path of each directory skipped because it is ignored (by .gitignore
	// or skipDir).
	skipDir func(name string) bool
	// exclude, when set, leaves out the directories whose slash path it
	// accepts, without telling ignored.
	exclude func(rel string) bool
	ignored func(rel string)
	stopped bool
}

// walk walks the directory rel (already through the boundary) of root.
func (w *walker) walk(root *os.Root, rel string) error {
	var segs []string
	var ps ignoreRules
	if rel != "." {
		segs = strings.Split(rel, "/")
	}
	// Patterns from the root down to the parent of rel.
	ps = append(ps, readIgnore(root, ".git/info/exclude", nil)...)
	for i := 0; i < len(segs); i++ {
		dir := "."
		if i > 0 {
			dir = strings.Join(segs[:i], "/")
		}
		ps = append(ps, readIgnore(root, joinRel(dir, ".gitignore"), segs[:i])...)
	}
	d, err := openStartDir(root, rel)
	if err != nil {
		return err
	}
	w.dir(d, rel, segs, ps, compileIgnore(ps), 0)
	return w.ctx.Err()
}

func (w *walker) dir(d *dirNode, rel string, segs []string, ps ignoreRules, m *ignoreMatcher, depth int) {
	defer d.release()
	if w.stopped || w.ctx.Err() != nil {
		w.stopped = true
		return
	}
	entries, _ := d.list()
	for _, e := range entries {
		if e.Name() == ".gitignore" && e.Type().IsRegular() {
			var buf []byte
			if data, big, err := d.readFile(".gitignore", &buf, maxIgnoreFile, true); big != nil {
				big.Close()
			} else if err == nil {
				if more := parseIgnore(data, segs); len(more) > 0 {
					ps = append(ps[:len(ps):len(ps)], more...)
					m = compileIgnore(ps)
				}
			}
			break
		}
	}
	path := make([]string, len(segs)+1)
	copy(path, segs)
	for _, e := range entries {
		if w.stopped {
			return
		}
		name, typ := e.Name(), e.Type()
		if name == ".git" {
			continue
		}
		path[len(segs)] = name
		child := joinRel(rel, name)
		switch {
		case typ.IsDir():
			if w.maxDepth > 0 && depth+1 >= w.maxDepth || w.exclude != nil && w.exclude(child) {
				continue
			}
			if m.match(path, true) || (w.skipDir != nil && w.skipDir(name)) {
				if w.ignored != nil {
					w.ignored(child)
				}
				continue
			}
			sd, err := d.openDir(name)
			if err != nil {
				continue
			}
			w.dir(sd, child, append(segs[:len(segs):len(segs)], name), ps, m, depth+1)
		case typ.IsRegular():
			if m.match(path, false) {
				continue
			}
			d.refs.Add(1)
			if !w.file(d, name, child) {
				w.stopped = true
			}
		}
	}
}

// readIgnore parses the ignore file at rel inside root; domain is the path
// of the directory it applies to, relative to the workspace root.
func readIgnore(root *os.Root, rel string, domain []string) ignoreRules {
	f, st, err := openRegular(root, rel, true)
	if err != nil {
		return nil
	}
	defer f.Close()
	if st.Size() > maxIgnoreFile {
		return nil
	}
	data, err := io.ReadAll(io.LimitReader(f, maxIgnoreFile))
	if err != nil {
		return nil
	}
	return parseIgnore(data, domain)
}

func joinRel(dir, name string) string {
	if dir == "." || dir == "" {
		return name
	}
	return dir + "/" + name
}
