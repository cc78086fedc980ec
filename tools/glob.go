package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

//go:embed glob.md
var globDescription string

// GlobMaxResults is how many paths one glob call shows.
const GlobMaxResults = 1000

// GlobParams are the arguments of glob.
type GlobParams struct {
	Pattern string `json:"pattern" jsonschema:"Glob pattern such as **/*.go or src/*_test.go, matched against paths relative to path"`
	Path    string `json:"path,omitempty" jsonschema:"Directory to search from, relative to the workspace root (default: the root)"`
}

// NewGlob returns the glob tool over ws. It lists the disk under ws.Root().
func NewGlob(ws Workspace) *Tool {
	return Define("glob", globDescription, true, func(ctx context.Context, p *GlobParams) (Result, error) {
		return glob(ctx, ws, p)
	})
}

func glob(ctx context.Context, ws Workspace, p *GlobParams) (Result, error) {
	base, pattern, res, ok := globStart(ws, p.Path, p.Pattern)
	if !ok {
		return res, nil
	}
	root, done, err := openWalkRoot(ws)
	if err != nil {
		return Result{}, fmt.Errorf("glob: open workspace: %w", err)
	}
	defer done()

	// Walk only below the pattern's fixed leading directories.
	dir, rest := doublestar.SplitPattern(pattern)
	start := base
	if dir != "." && dir != "" {
		start = path.Clean(joinRel(base, dir))
		pattern = rest
	}
	if fi, err := root.Stat(start); err != nil || !fi.IsDir() {
		if err != nil && errors.Is(rootError(start, err), ErrOutside) {
			return Errorf("glob: %v", rootError(start, err)), nil
		}
		if start != base {
			return Result{Text: fmt.Sprintf("No files match %q: %s is not a directory in the workspace.", p.Pattern, start)}, nil
		}
		if err != nil {
			return Errorf("glob: %v", rootError(start, err)), nil
		}
		return Errorf("glob: path %s is a file, not a directory; use read_file to read it", start), nil
	}
	var matches []string
	w := &walker{ctx: ctx, file: func(d *dirNode, name, rel string) bool {
		d.release()
		if ok, _ := doublestar.Match(pattern, relTo(start, rel)); ok {
			matches = append(matches, rel)
		}
		return true
	}}
	if !strings.Contains(pattern, "**") {
		w.maxDepth = strings.Count(pattern, "/") + 1
	}
	if err := w.walk(root, start); err != nil {
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		return Errorf("glob: %v", err), nil
	}
	if len(matches) == 0 {
		msg := fmt.Sprintf("No files match %q", p.Pattern)
		if base != "." {
			msg += " in " + base
		}
		if !strings.Contains(p.Pattern, "/") {
			msg += fmt.Sprintf(" (a pattern without / matches only at the top; try %q for any depth)", "**/"+p.Pattern)
		}
		return Result{Text: msg + "."}, nil
	}
	slices.Sort(matches)
	var b strings.Builder
	for _, m := range matches[:min(len(matches), GlobMaxResults)] {
		b.WriteString(m)
		b.WriteByte('\n')
	}
	if n := len(matches) - GlobMaxResults; n > 0 {
		fmt.Fprintf(&b, "[... %d more files not shown (%d in all); narrow the pattern or path]\n", n, len(matches))
	}
	return Result{Text: b.String()}, nil
}

// globStart checks a pattern and base directory against the boundary and
// returns the base (relative to the root) and the pattern relative to it.
func globStart(ws Workspace, dir, pattern string) (base, pat string, res Result, ok bool) {
	base = "."
	if dir != "" {
		rel, err := resolveIn(ws, dir)
		if err != nil {
			return "", "", Errorf("glob: %v", err), false
		}
		base = rel
	}
	if pattern == "" {
		return "", "", Errorf("glob: pattern is empty; for example **/*.go"), false
	}
	if err := checkChars(pattern); err != nil {
		return "", "", Errorf("glob: pattern: %v", err), false
	}
	switch {
	case pattern[0] == '~' || pattern[0] == '$':
		return "", "", Errorf("glob: pattern %q is outside the workspace: ~ and $VAR are not expanded; use a pattern relative to the workspace root", pattern), false
	case filepath.IsAbs(pattern):
		rel, err := resolveIn(ws, pattern)
		if err != nil {
			return "", "", Errorf("glob: pattern %q is outside the workspace: make it relative to the workspace root", pattern), false
		}
		pattern = relTo(base, rel)
		if strings.HasPrefix(pattern, "../") {
			return "", "", Errorf("glob: pattern %q is not under path %q", pattern, base), false
		}
	}
	if slices.Contains(strings.Split(pattern, "/"), "..") {
		return "", "", Errorf("glob: pattern %q is outside the workspace: .. is not allowed in patterns; use path to choose the directory", pattern), false
	}
	if !doublestar.ValidatePattern(pattern) {
		return "", "", Errorf("glob: pattern %q is not a valid glob (check brackets and braces)", pattern), false
	}
	return base, strings.TrimPrefix(pattern, "./"), Result{}, true
}

// relTo returns the slash path rel (relative to the workspace root) relative
// to the directory base (also relative to the root).
func relTo(base, rel string) string {
	if base == "." {
		return rel
	}
	if rel == base {
		return "."
	}
	if strings.HasPrefix(rel, base+"/") {
		return rel[len(base)+1:]
	}
	r, err := filepath.Rel(base, rel)
	if err != nil {
		return rel
	}
	return filepath.ToSlash(r)
}
