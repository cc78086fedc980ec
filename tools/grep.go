package tools

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"regexp/syntax"
	"runtime"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"
)

//go:embed grep.md
var grepDescription string

// Limits of one grep call.
const (
	GrepMaxMatches   = 500
	GrepMaxLineBytes = 300
	// grepWholeFile is the largest file grep reads whole; bigger ones are
	// read in chunks of grepChunk bytes.
	grepWholeFile = 32 << 20
	grepChunk     = 8 << 20
)

// GrepParams are the arguments of grep.
type GrepParams struct {
	Pattern    string `json:"pattern" jsonschema:"RE2 regular expression (Go syntax) matched against each line; a fixed string if literal is true"`
	Path       string `json:"path,omitempty" jsonschema:"File or directory to search, relative to the workspace root (default: the root)"`
	Glob       string `json:"glob,omitempty" jsonschema:"Only search files matching this glob, e.g. *.go or src/**/*.ts (without / it matches file names)"`
	Literal    bool   `json:"literal,omitempty" jsonschema:"Treat pattern as a fixed string, not a regular expression"`
	IgnoreCase bool   `json:"ignore_case,omitempty" jsonschema:"Match without regard to letter case"`
}

// NewGrep returns the grep tool over ws. It searches the disk under
// ws.Root() (unsaved editor changes are not seen).
func NewGrep(ws Workspace) *Tool {
	return Define("grep", grepDescription, true, func(ctx context.Context, p *GrepParams) (Result, error) {
		return grep(ctx, ws, p)
	})
}

func grep(ctx context.Context, ws Workspace, p *GrepParams) (Result, error) {
	m, err := compileGrep(p.Pattern, p.Literal, p.IgnoreCase)
	if err != nil {
		return Errorf("grep: %v", err), nil
	}
	base := "."
	if p.Path != "" {
		if base, err = resolveIn(ws, p.Path); err != nil {
			return Errorf("grep: %v", err), nil
		}
	}
	var include string
	if p.Glob != "" {
		include = strings.TrimPrefix(p.Glob, "./")
		if !doublestar.ValidatePattern(include) || checkChars(include) != nil {
			return Errorf("grep: glob %q is not a valid glob pattern", p.Glob), nil
		}
	}
	hard := false
	if h, ok := ws.(interface{ AllowsHardLinks() bool }); ok {
		hard = h.AllowsHardLinks()
	}
	root, done, err := openWalkRoot(ws)
	if err != nil {
		return Result{}, fmt.Errorf("grep: open workspace: %w", err)
	}
	defer done()

	s := &grepSearch{m: m, hard: hard}
	fi, err := root.Stat(base)
	if err != nil {
		return Errorf("grep: %v", rootError(base, err)), nil
	}
	if !fi.IsDir() {
		// One file, named explicitly: search it even if ignored.
		f, st, err := openRegular(root, base, hard)
		if err != nil {
			return Errorf("grep: %v", err), nil
		}
		if st.Size() <= grepWholeFile {
			data, err := io.ReadAll(f)
			if err != nil {
				f.Close()
				return Errorf("grep: read %s: %v", base, err), nil
			}
			s.search(data, base)
		} else {
			var buf []byte
			s.searchStream(ctx, f, base, &buf)
		}
		f.Close()
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		if s.binary > 0 {
			return Errorf("grep: %s is a binary file, %d bytes; grep searches text only", base, st.Size()), nil
		}
	} else if err := s.walk(ctx, root, base, include); err != nil {
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		return Errorf("grep: %v", err), nil
	}
	return Result{Text: s.report(p.Pattern, base)}, nil
}

// grepMatcher finds matching lines in a whole file. Files are searched
// with bytes.Index (or IndexByte for case-insensitive ASCII) for literals
// one of which every match must contain; the regular expression then runs
// only on the lines holding one. Without such literals, it runs over the
// whole buffer. The expression runs as a lazily built DFA (see lineDFA),
// one per worker, kept in a pool.
type grepMatcher struct {
	lits *literalSet    // nil: no prefilter
	line *regexp.Regexp // checks one line; nil when the literal is the whole pattern
	dfas sync.Pool      // of *lineDFA over line's program
}

func compileGrep(pattern string, literal, ignoreCase bool) (*grepMatcher, error) {
	if pattern == "" {
		return nil, errors.New("pattern is empty")
	}
	if literal && !ignoreCase {
		if strings.Contains(pattern, "\n") {
			return nil, errors.New("pattern contains a newline; grep matches one line at a time")
		}
		return &grepMatcher{lits: newLiteralSet([]string{pattern}, litExact)}, nil
	}
	expr := pattern
	if literal {
		expr = regexp.QuoteMeta(pattern)
	}
	if ignoreCase {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, fmt.Errorf("pattern %q is not a valid RE2 regular expression (%v); set literal to search for the text as written", pattern, err)
	}
	// The same parse and compilation as regexp.Compile's, so that the DFA
	// runs the very program regexp would.
	tree, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil, fmt.Errorf("pattern %q: %v", pattern, err)
	}
	tree = tree.Simplify()
	prog, err := syntax.Compile(tree)
	if err != nil {
		return nil, fmt.Errorf("pattern %q: %v", pattern, err)
	}
	m := &grepMatcher{line: re}
	m.dfas.New = func() any { return newLineDFA(prog, re) }
	for _, mode := range []litMode{litExact, litFold, litFoldASCII} {
		if lits := requiredLiterals(tree, mode); lits != nil {
			m.lits = newLiteralSet(lits, mode)
			break
		}
	}
	return m, nil
}

// scan calls emit for each matching line of buf with its 1-based number,
// in order, until emit returns false. Line numbers are counted only up to
// the matches.
func (m *grepMatcher) scan(buf []byte, emit func(n int, line []byte) bool) {
	var d *lineDFA
	if m.line != nil {
		d = m.dfas.Get().(*lineDFA)
		defer m.dfas.Put(d)
	}
	n, counted := 1, 0
	if m.lits == nil || (m.lits.noKS && hasKS(buf)) {
		d.scan(buf, func(ls, le int) bool {
			n += bytes.Count(buf[counted:ls], nl)
			counted = ls
			return emit(n, buf[ls:le])
		})
		return
	}
	f := m.lits.finder()
	for pos := 0; pos < len(buf); {
		start := f.index(buf, pos)
		if start < 0 {
			return
		}
		ls := pos + bytes.LastIndexByte(buf[pos:start], '\n') + 1
		le := len(buf)
		if i := bytes.IndexByte(buf[start:], '\n'); i >= 0 {
			le = start + i
		}
		line := buf[ls:le]
		if d == nil || d.match(line) {
			n += bytes.Count(buf[counted:ls], nl)
			counted = ls
			if !emit(n, line) {
				return
			}
		}
		pos = le + 1
	}
}

var nl = []byte{'\n'}

// grepSearch gathers the results of one grep call.
type grepSearch struct {
	m    *grepMatcher
	hard bool

	mu     sync.Mutex
	files  []grepFile
	kept   int // lines held in files
	total  int // matches found
	binary int // files skipped as binary
	large  int // files skipped as too large
	linked int // files skipped as hard-linked
	unread int // files that could not be read
}

type grepFile struct {
	rel   string
	lines []string // "n:text", at most GrepMaxMatches
	count int
}

type grepJob struct {
	d         *dirNode
	name, rel string
}

func (s *grepSearch) walk(ctx context.Context, root *os.Root, base, include string) error {
	jobs := make(chan grepJob, 256)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			var buf []byte
			for j := range jobs {
				if ctx.Err() == nil {
					s.openAndSearch(ctx, j, &buf)
				}
				j.d.release()
			}
		})
	}
	w := &walker{ctx: ctx, file: func(d *dirNode, name, rel string) bool {
		if include != "" && !globIncludes(include, name, relTo(base, rel)) {
			d.release()
			return true
		}
		jobs <- grepJob{d, name, rel}
		return true
	}}
	err := w.walk(root, base)
	close(jobs)
	wg.Wait()
	return err
}

// globIncludes matches grep's glob filter: against the file name when it
// has no slash (as rg -g does), else against the path relative to the base.
func globIncludes(pattern, name, rel string) bool {
	if !strings.Contains(pattern, "/") {
		ok, _ := doublestar.Match(pattern, name)
		return ok
	}
	ok, _ := doublestar.Match(pattern, rel)
	return ok
}

func (s *grepSearch) openAndSearch(ctx context.Context, j grepJob, buf *[]byte) {
	data, big, err := j.d.readFile(j.name, buf, grepWholeFile, s.hard)
	switch {
	case big != nil:
		s.searchStream(ctx, big, j.rel, buf)
		big.Close()
	case err == nil:
		s.search(data, j.rel)
	case errors.Is(err, ErrHardLink):
		s.count(&s.linked)
	case errors.Is(err, errTooLarge):
		s.count(&s.large)
	case errors.Is(err, errNotRegular):
	default:
		s.count(&s.unread)
	}
}

// searchStream searches a file of any size in chunks of whole lines.
func (s *grepSearch) searchStream(ctx context.Context, r io.Reader, rel string, buf *[]byte) {
	if cap(*buf) < 2*grepChunk {
		*buf = make([]byte, 2*grepChunk)
	}
	b := (*buf)[:cap(*buf)]
	carry, lines := 0, 0
	var gf *grepFile
	for first := true; ctx.Err() == nil; first = false {
		n, err := io.ReadFull(r, b[carry:carry+grepChunk])
		data := b[:carry+n]
		eof := err != nil
		if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
			s.count(&s.unread)
			return
		}
		if first && bytes.IndexByte(data[:min(len(data), sniffLen)], 0) >= 0 {
			s.count(&s.binary)
			return
		}
		cut := len(data)
		if !eof {
			if i := bytes.LastIndexByte(data, '\n'); i >= 0 {
				cut = i + 1
			} // else: a line longer than a chunk is searched in pieces
		}
		gf = s.scanInto(gf, data[:cut], rel, lines)
		lines += bytes.Count(data[:cut], nl)
		carry = copy(b, data[cut:])
		if eof {
			break
		}
	}
	if gf != nil {
		s.add(gf)
	}
}

func (s *grepSearch) count(n *int) {
	s.mu.Lock()
	*n++
	s.mu.Unlock()
}

// search searches the content of one file.
func (s *grepSearch) search(data []byte, rel string) {
	if bytes.IndexByte(data[:min(len(data), sniffLen)], 0) >= 0 {
		s.count(&s.binary)
		return
	}
	if gf := s.scanInto(nil, data, rel, 0); gf != nil {
		s.add(gf)
	}
}

// scanInto adds the matches in data, whose first line is line lines+1 of
// the file, to gf (made if nil and needed) and returns it.
func (s *grepSearch) scanInto(gf *grepFile, data []byte, rel string, lines int) *grepFile {
	s.m.scan(data, func(ln int, line []byte) bool {
		ln += lines
		if gf == nil {
			gf = &grepFile{rel: rel}
		}
		gf.count++
		if len(gf.lines) < GrepMaxMatches {
			line = trimCR(line)
			text := strings.ToValidUTF8(string(cutLine(line, GrepMaxLineBytes)), "\uFFFD")
			gf.lines = append(gf.lines, fmt.Sprintf("%d:%s", ln, text))
		}
		return true
	})
	return gf
}

func trimCR(line []byte) []byte {
	if len(line) > 0 && line[len(line)-1] == '\r' {
		return line[:len(line)-1]
	}
	return line
}
