// Package changes keeps the change journal of a session: for every turn
// (one prompt), each file the agent created, modified, deleted or renamed,
// whichever tool did it, with its content before the turn's first change
// and after its last. It lists a turn's changes as diffs and takes turns
// back (undo.go). Rules:
//  1. the journal lives in the session's state directory, next to its
//     transcript, and is append-only: undone turns stay, marked undone;
//  2. it never uses git and never reads or writes .git/;
//  3. nothing the user wrote is lost: an undo leaves every part of a file
//     the user changed since as the user has it, and says so (a conflict);
//  4. ignored directories (.gitignore'd, node_modules and the like) are
//     summarised, not journaled file by file (scan.go).
package changes

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// Kind is what a turn did to a file.
type Kind string

// Kinds of change.
const (
	Created  Kind = "created"
	Modified Kind = "modified"
	Deleted  Kind = "deleted"
	Renamed  Kind = "renamed"
)

// File is one file a turn changed.
type File struct {
	// Path is slash-separated, relative to the workspace root; From is the
	// old path of a renamed file.
	Path string `json:"path"`
	From string `json:"from,omitempty"`
	Kind Kind   `json:"kind"`
	// Tool names the tools that changed it ("str_replace", "bash", …).
	Tool string `json:"tool"`
	// Before and After identify the content (in the journal's store)
	// before the turn's first change and after its last; empty means the
	// file did not exist.
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
	// NotKept, when set, says why the content was not journaled (too
	// large); such a change is listed but cannot be undone.
	NotKept string `json:"notKept,omitempty"`
	Binary  bool   `json:"binary,omitempty"`
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
}

// Turn is one prompt's changes.
type Turn struct {
	N      int       `json:"turn"`
	Prompt string    `json:"prompt"`
	Time   time.Time `json:"time"`
	Files  []File    `json:"files"`
	// Ignored summarises the changes in ignored directories.
	Ignored []string `json:"ignored,omitempty"`
	// Undone is set once the turn was undone; Conflicts are the files
	// whose parts the user had edited and that were left as the user had
	// them.
	Undone    bool       `json:"undone,omitempty"`
	Conflicts []Conflict `json:"conflicts,omitempty"`
	// told is set once the model was told of the undo.
	told bool
}

// Conflict is a file an undo left (wholly or partly) as the user has it.
type Conflict struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// record is one line of journal.jsonl.
type record struct {
	Type      string     `json:"type"` // turn, file, ignored, undo, told
	Turn      int        `json:"turn"`
	Prompt    string     `json:"prompt,omitempty"`
	Time      time.Time  `json:"time,omitzero"`
	File      *File      `json:"file,omitempty"`
	Text      string     `json:"text,omitempty"`
	Conflicts []Conflict `json:"conflicts,omitempty"`
}

// Journal is one session's change journal.
type Journal struct {
	dir   string
	store blobs

	mu    sync.Mutex
	turns []*Turn
	open  *Turn
	// files of the open turn by path: the current entry, and whether the
	// file existed before the turn.
	cur     map[string]*File
	existed map[string]bool
	f       *os.File
	// unsaved is the open turn's record until something of that turn (or
	// any other record) is written: a turn that changes nothing creates
	// no file, so a run without edits does not touch the disk here.
	unsaved *record
}

// Dir is where the journal of session id is kept under the sessions
// directory: next to its transcript.
func Dir(sessionsDir, id string) string {
	return filepath.Join(sessionsDir, strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == 0 {
			return '_'
		}
		return r
	}, id)+".changes")
}

// New is the journal of a session that has none yet, in dir: nothing is
// read, and nothing is created until the first change.
func New(dir string) *Journal {
	return &Journal{dir: dir, store: blobs{filepath.Join(dir, "blobs")}}
}

// Open loads the journal in dir (creating nothing until the first
// change). A line cut by a crash is skipped.
func Open(dir string) (*Journal, error) {
	j := New(dir)
	f, err := os.Open(filepath.Join(dir, "journal.jsonl"))
	if errors.Is(err, fs.ErrNotExist) {
		return j, nil
	}
	if err != nil {
		return nil, fmt.Errorf("change journal: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	byN := map[int]*Turn{}
	for sc.Scan() {
		var r record
		if json.Unmarshal(sc.Bytes(), &r) != nil {
			continue
		}
		t := byN[r.Turn]
		if r.Type == "turn" {
			t = &Turn{N: r.Turn, Prompt: r.Prompt, Time: r.Time}
			byN[r.Turn] = t
			j.turns = append(j.turns, t)
			continue
		}
		if t == nil {
			continue
		}
		switch r.Type {
		case "file":
			if r.File != nil {
				t.setFile(*r.File)
			}
		case "drop":
			t.Files = slices.DeleteFunc(t.Files, func(f File) bool { return f.Path == r.Text })
		case "ignored":
			t.Ignored = append(t.Ignored, r.Text)
		case "undo":
			t.Undone, t.Conflicts = true, r.Conflicts
		case "told":
			t.told = true
		}
	}
	return j, sc.Err()
}

func (t *Turn) setFile(f File) {
	for i := range t.Files {
		if t.Files[i].Path == f.Path {
			t.Files[i] = f
			return
		}
	}
	t.Files = append(t.Files, f)
}

// write appends r to the journal file, creating it.
func (j *Journal) write(r record) error {
	if u := j.unsaved; u != nil {
		j.unsaved = nil
		if err := j.write(*u); err != nil {
			return err
		}
	}
	if j.f == nil {
		if err := os.MkdirAll(j.dir, 0o700); err != nil {
			return fmt.Errorf("change journal: %w", err)
		}
		f, err := os.OpenFile(filepath.Join(j.dir, "journal.jsonl"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return fmt.Errorf("change journal: %w", err)
		}
		j.f = f
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if _, err := j.f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("change journal: %w", err)
	}
	return nil
}

// Close releases the journal file.
func (j *Journal) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return nil
	}
	err := j.f.Close()
	j.f = nil
	return err
}

// Turns returns a copy of the turns, oldest first.
func (j *Journal) Turns() []Turn {
	j.mu.Lock()
	defer j.mu.Unlock()
	out := make([]Turn, 0, len(j.turns))
	for _, t := range j.turns {
		c := *t
		c.Files = slices.Clone(t.Files)
		out = append(out, c)
	}
	return out
}

// Content returns a journaled content (File.Before, File.After).
func (j *Journal) Content(id string) ([]byte, error) {
	if id == "" {
		return nil, nil
	}
	return j.store.get(id)
}

// Begin opens a turn for prompt. A turn still open (a crash, a run that
// never ended) is closed first.
func (j *Journal) Begin(prompt string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.open != nil {
		j.endLocked()
	}
	n := 1
	if len(j.turns) > 0 {
		n = j.turns[len(j.turns)-1].N + 1
	}
	t := &Turn{N: n, Prompt: prompt, Time: time.Now().UTC()}
	j.turns = append(j.turns, t)
	j.open, j.cur, j.existed = t, map[string]*File{}, map[string]bool{}
	j.unsaved = &record{Type: "turn", Turn: n, Prompt: prompt, Time: t.Time}
}

// maxContent is the largest content journaled; bigger files are listed
// as changed but not kept (and cannot be undone).
const maxContent = 16 << 20

// Change records that tool changed path from before to after (nil: the
// file does not exist) during the open turn. The first before and the
// last after count. Without an open turn it does nothing.
func (j *Journal) Change(path, tool string, before, after []byte) error {
	return j.Record(tool, Diff{Path: path, Before: before, After: after, Existed: before != nil})
}

// Record records a change a scan found (or Change's): d.NotKept, when
// set, says the content before is unknown.
func (j *Journal) Record(tool string, d Diff) error {
	bid, berr := j.keep(d.Before)
	aid, aerr := j.keep(d.After)
	why := d.NotKept
	if err := errors.Join(berr, aerr); err != nil && why == "" {
		why = err.Error()
	}
	return j.change(tool, d, bid, aid, why)
}

// keep stores content and returns its id ("" for nil).
func (j *Journal) keep(data []byte) (string, error) {
	if data == nil {
		return "", nil
	}
	if len(data) > maxContent {
		return "", errTooLarge
	}
	return j.store.put(data)
}

var errTooLarge = fmt.Errorf("over the journal's %d MiB limit", maxContent>>20)

// change records a change whose contents are stored already.
func (j *Journal) change(tool string, d Diff, bid, aid, notKept string) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.open == nil {
		return nil
	}
	path := d.Path
	f, ok := j.cur[path]
	if !ok {
		f = &File{Path: path, Before: bid, Tool: tool}
		j.cur[path] = f
		j.existed[path] = d.Existed
		f.NotKept = notKept
	} else {
		if !slices.Contains(strings.Split(f.Tool, ", "), tool) {
			f.Tool += ", " + tool
		}
		if f.NotKept == "" && aid == "" && d.After != nil {
			f.NotKept = notKept // the new content could not be kept
		}
	}
	f.After = aid
	if d.Before != nil && isBinary(d.Before) || d.After != nil && isBinary(d.After) {
		f.Binary = true
	}
	existed, exists := j.existed[path], d.After != nil
	switch {
	case !existed && exists:
		f.Kind = Created
	case existed && !exists:
		f.Kind = Deleted
	default:
		f.Kind = Modified
	}
	j.open.setFile(*f)
	return j.write(record{Type: "file", Turn: j.open.N, File: f})
}

// Paths are the files the open turn changed so far.
func (j *Journal) Paths() []string {
	j.mu.Lock()
	defer j.mu.Unlock()
	out := make([]string, 0, len(j.cur))
	for p := range j.cur {
		out = append(out, p)
	}
	return out
}

// Ignored adds a summary of changes in an ignored directory to the open
// turn.
func (j *Journal) Ignored(text string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.open == nil || slices.Contains(j.open.Ignored, text) {
		return
	}
	j.open.Ignored = append(j.open.Ignored, text)
	_ = j.write(record{Type: "ignored", Turn: j.open.N, Text: text})
}

// End closes the open turn: files changed and changed back are dropped, a
// deleted file whose content reappears under a new name becomes one
// rename, and the line counts are filled in. It returns the turn (nil
// when none was open).
func (j *Journal) End() *Turn {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.open == nil {
		return nil
	}
	t := j.endLocked()
	c := *t
	c.Files = slices.Clone(t.Files)
	return &c
}

func (j *Journal) endLocked() *Turn {
	t := j.open
	j.open, j.cur, j.existed = nil, nil, nil
	var keep []File
	for _, f := range t.Files {
		if f.Before == f.After && f.NotKept == "" {
			_ = j.write(record{Type: "drop", Turn: t.N, Text: f.Path})
			continue
		}
		keep = append(keep, f)
	}
	// Renames: a file deleted and one created with the same content.
	for i := range keep {
		if keep[i].Kind != Deleted || keep[i].Before == "" {
			continue
		}
		for k := range keep {
			if keep[k].Kind == Created && keep[k].After == keep[i].Before && keep[k].From == "" {
				keep[k].Kind, keep[k].From, keep[k].Before = Renamed, keep[i].Path, keep[i].Before
				_ = j.write(record{Type: "drop", Turn: t.N, Text: keep[i].Path})
				keep[i].Path = ""
				break
			}
		}
	}
	keep = slices.DeleteFunc(keep, func(f File) bool { return f.Path == "" })
	for i := range keep {
		f := &keep[i]
		if f.NotKept == "" && !f.Binary {
			b, _ := j.store.get2(f.Before)
			a, _ := j.store.get2(f.After)
			f.Added, f.Removed = counts(b, a)
		}
		_ = j.write(record{Type: "file", Turn: t.N, File: f})
	}
	slices.SortFunc(keep, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	t.Files = keep
	return t
}
