package changes

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/agent-lsp/agent-lsp/tools"
)

// What a scan sees, and where the line is:
//  1. every regular file glob and grep see (tools.ListFiles): .git is
//     skipped, .gitignore honoured at every level, symbolic links not
//     followed; plus the files the turn already changed, ignored or not;
//  2. directories .gitignore ignores, and the ones named in Heavy
//     (node_modules, virtualenvs, caches) even when not ignored, are not
//     entered: a change in one is summarised from the directory's own
//     status (created, removed, entries added or removed), not journaled;
//  3. a file is read only when its size, modification time, change time
//     or inode differ from the last scan, so a scan of an unchanged tree
//     costs one lstat per file; the first scan of a session (in the
//     background, see Prepare) reads each file once to know its content
//     before any command changes it, except the files the index kept
//     from earlier sessions (index.go) shows unchanged;
//  4. files over MaxBaseline are listed when a command changes them but
//     their old content is not kept.

// Heavy are directory names never journaled file by file.
var Heavy = []string{"node_modules", ".venv", "venv", "__pycache__", ".tox", ".mypy_cache", ".pytest_cache", ".next", ".nuxt", ".turbo", ".gradle", ".cache"}

// MaxBaseline is the largest file whose content a scan keeps.
const MaxBaseline = 4 << 20

// stat is what a scan compares.
type stat struct {
	size, mtime, ctime int64
	ino                uint64
}

type entry struct {
	stat
	id      string // content in the store; "" when not kept
	notKept string
	racy    bool // read too soon after its last change to be saved (index.go)
}

// Diff is one file a command changed: its content before and after (nil:
// absent). NotKept says why the content before is unknown.
type Diff struct {
	Path          string
	Before, After []byte
	// Existed says the file was there before (Before may be nil when its
	// content was not kept).
	Existed bool
	NotKept string
}

// Scanner sees which files a command changed in a workspace.
type Scanner struct {
	root    string
	store   blobs
	exclude []string // slash paths under root never looked at

	mu    sync.Mutex
	index map[string]entry
	dirs  map[string]stat // ignored directories
	// known are the entries of the saved index, until the first scan is
	// over; dirty says the index changed since it was saved.
	known map[string]entry
	dirty bool
	tick  time.Duration // timestamp granularity allowed for: racyWindow, shorter in tests
	reads int           // files read, for the tests
	base  chan struct{} // closed when the baseline is taken
	once  sync.Once
	// stop ends a baseline still running (Close).
	ctx  context.Context
	stop context.CancelFunc
}

// NewScanner returns a scanner of root that keeps contents in storeDir
// (shared by the sessions of one workspace; contents unused for a week
// are pruned).
//
// exclude are directories never looked at: agent-lsp's state directory,
// when the workspace holds it (a workspace that is the home directory), so
// the journal does not record its own store.
func NewScanner(root, storeDir string, exclude ...string) *Scanner {
	s := &Scanner{root: root, store: blobs{storeDir}, base: make(chan struct{}), tick: racyWindow}
	for _, d := range exclude {
		if rel, err := filepath.Rel(root, d); err == nil && rel != "." && !strings.HasPrefix(rel, "..") && !filepath.IsAbs(rel) {
			s.exclude = append(s.exclude, filepath.ToSlash(rel))
		}
	}
	s.ctx, s.stop = context.WithCancel(context.Background())
	return s
}

// Close stops a baseline still being taken and waits for it, so nothing
// writes to the store afterwards.
func (s *Scanner) Close() error {
	s.stop()
	started := false
	s.once.Do(func() { close(s.base) }) // never started: nothing to wait for
	select {
	case <-s.base:
	default:
		started = true
	}
	if started {
		<-s.base
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.saveLocked()
	return nil
}

// Prepare takes the baseline (the first scan, which reads every file) in
// the background, so that the first command does not wait for it.
func (s *Scanner) Prepare() {
	s.once.Do(func() {
		go func() {
			defer close(s.base)
			s.mu.Lock()
			defer s.mu.Unlock()
			s.known = loadIndex(s.store.dir, s.root)
			s.store.pruneEvery(24*time.Hour, 7*24*time.Hour, s.known)
			_, _, _ = s.scanLocked(s.ctx, nil)
		}()
	})
}

// Before brings the scanner up to date right before a command: what
// changed since (the user's edits, saved buffers) is not the command's.
// extra are the paths the turn changed already.
func (s *Scanner) Before(ctx context.Context, extra []string) error {
	s.Prepare()
	select {
	case <-s.base:
	case <-ctx.Done():
		return ctx.Err()
	}
	if s.ctx.Err() != nil {
		return errors.New("the scanner is closed")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	_, _, err := s.scanLocked(ctx, extra)
	return err
}

// After scans again once the command is over and returns what it
// changed, and a line for each ignored directory it changed.
func (s *Scanner) After(ctx context.Context, extra []string) ([]Diff, []string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.scanLocked(ctx, extra)
}

// scanLocked lists the workspace, compares it with the index and makes
// the listing the new index.
func (s *Scanner) scanLocked(ctx context.Context, extra []string) ([]Diff, []string, error) {
	start := time.Now()
	r, err := os.OpenRoot(s.root)
	if err != nil {
		return nil, nil, fmt.Errorf("scan %s: %w", s.root, err)
	}
	defer r.Close()
	first := s.index == nil
	seen := make(map[string]stat, len(s.index))
	dirs := map[string]stat{}
	look := func(rel string) {
		if _, ok := seen[rel]; ok {
			return
		}
		if fi, err := r.Lstat(rel); err == nil && fi.Mode().IsRegular() {
			seen[rel] = statOf(fi)
		}
	}
	err = tools.ListFiles(ctx, r, tools.ListOptions{
		File: func(rel string, st tools.FileStat) {
			seen[rel] = stat{size: st.Size, mtime: st.ModTime, ctime: st.ChangeTime, ino: st.Inode}
		},
		SkipDir: func(name string) bool { return slices.Contains(Heavy, name) },
		Exclude: func(rel string) bool {
			return slices.ContainsFunc(s.exclude, func(d string) bool { return rel == d || hasPrefixDir(rel, d) })
		},
		Ignored: func(rel string) {
			if fi, err := r.Lstat(rel); err == nil {
				dirs[rel] = statOf(fi)
			}
		},
	})
	if err != nil {
		return nil, nil, err
	}
	for _, p := range extra {
		if p != ".git" && !hasPrefixDir(p, ".git") {
			look(p)
		}
	}
	var diffs []Diff
	next := make(map[string]entry, len(seen))
	read := 0
	for rel, st := range seen {
		old, had := s.index[rel]
		if had && old.stat == st {
			next[rel] = old
			continue
		}
		if k, ok := s.known[rel]; ok && k.stat == st { // known: first scan only
			next[rel] = k
			continue
		}
		if err := ctx.Err(); err != nil {
			if first && read > 0 {
				// A baseline cut short (the run is over) keeps what it
				// read for the next session.
				for rel, k := range s.known {
					if _, ok := next[rel]; !ok {
						next[rel] = k
					}
				}
				_ = saveIndex(s.store.dir, s.root, next)
			}
			return nil, nil, err
		}
		read++
		s.reads++
		e := entry{stat: st, racy: racy(st, start, s.tick)}
		data, err := readRegular(r, rel)
		switch {
		case errors.Is(err, errTooLarge):
			e.notKept = fmt.Sprintf("over %d MiB", MaxBaseline>>20)
		case err != nil:
			continue // gone or unreadable since the listing
		default:
			if e.id, err = s.store.put(data); err != nil {
				e.notKept = err.Error()
			}
		}
		next[rel] = e
		if first || (had && old.id == e.id && e.id != "") {
			continue
		}
		d := Diff{Path: rel, After: data}
		if had {
			d.Existed, d.NotKept = true, old.notKept
			if old.id != "" {
				if d.Before, err = s.store.get(old.id); err != nil {
					d.NotKept = err.Error()
				}
			}
		}
		if e.notKept != "" && d.NotKept == "" {
			d.NotKept = e.notKept
		}
		diffs = append(diffs, d)
	}
	for rel, old := range s.index {
		if _, ok := next[rel]; ok {
			continue
		}
		if _, err := r.Lstat(rel); err == nil {
			continue // out of view (newly ignored), not deleted
		}
		d := Diff{Path: rel, Existed: true, NotKept: old.notKept}
		if old.id != "" {
			if d.Before, err = s.store.get(old.id); err != nil {
				d.NotKept = err.Error()
			}
		} else if d.NotKept == "" {
			d.NotKept = "content not kept"
		}
		diffs = append(diffs, d)
	}
	var notes []string
	if !first {
		notes = dirNotes(s.dirs, dirs)
	}
	// The index changed: a file read, or one gone (the first scan compares
	// with the saved index).
	if was := len(s.index); read > 0 || (first && len(next) != len(s.known)) || (!first && len(next) != was) {
		s.dirty = true
	}
	s.index, s.dirs = next, dirs
	if first {
		s.known = nil
		s.saveLocked()
	}
	sort.Slice(diffs, func(i, j int) bool { return diffs[i].Path < diffs[j].Path })
	return diffs, notes, nil
}

// saveLocked writes the index when it changed since it was saved.
func (s *Scanner) saveLocked() {
	if !s.dirty || s.index == nil {
		return
	}
	if saveIndex(s.store.dir, s.root, s.index) == nil {
		s.dirty = false
	}
}

// dirNotes summarises the changes of ignored directories.
func dirNotes(before, after map[string]stat) []string {
	var out []string
	for rel, st := range after {
		old, ok := before[rel]
		switch {
		case !ok:
			out = append(out, rel+"/ created (ignored directory: its files are not journaled)")
		case old.mtime != st.mtime:
			out = append(out, rel+"/ changed (ignored directory: its files are not journaled)")
		}
	}
	for rel := range before {
		if _, ok := after[rel]; !ok {
			out = append(out, rel+"/ removed (ignored directory: its files were not journaled)")
		}
	}
	sort.Strings(out)
	return out
}

// readRegular reads a regular file through r, up to MaxBaseline.
func readRegular(r *os.Root, rel string) ([]byte, error) {
	f, err := r.OpenFile(rel, os.O_RDONLY|oNoFollow, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fs.ErrInvalid
	}
	if fi.Size() > MaxBaseline {
		return nil, errTooLarge
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxBaseline+1))
	if err == nil && len(data) > MaxBaseline {
		return nil, errTooLarge
	}
	return data, err
}

func hasPrefixDir(p, dir string) bool {
	return len(p) > len(dir) && p[:len(dir)] == dir && p[len(dir)] == '/'
}

// Root is the workspace root the scanner looks at.
func (s *Scanner) Root() string { return filepath.Clean(s.root) }
