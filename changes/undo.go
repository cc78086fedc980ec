package changes

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strings"

	"github.com/agent-lsp/agent-lsp/internal/text"
)

// Selection picks the turns an undo takes back.
type Selection struct {
	// All takes back every turn not yet undone.
	All bool
	// Last takes back the last Last turns not yet undone that changed
	// something (1 when zero and nothing else is set).
	Last int
	// Turn, when set, takes back that turn alone.
	Turn int
}

// OpKind is what an undo does to one file.
type OpKind string

// Operations of a plan.
const (
	OpEdit   OpKind = "edit"
	OpCreate OpKind = "create"
	OpDelete OpKind = "delete"
)

// Op is one file operation of a plan: Old is what the file holds now (nil:
// absent), New what it will hold (nil: deleted). An executor applies it
// only if the file still holds Old.
type Op struct {
	Kind     OpKind
	Path     string
	Old, New []byte
}

// Plan is an undo worked out against the files' current content.
type Plan struct {
	Turns     []int
	Ops       []Op
	Conflicts []Conflict
	// Reverted are the files wholly taken back.
	Reverted []string
}

// ReadFunc returns a file's current content (an editor's unsaved buffer
// wins), or an error matching fs.ErrNotExist when there is none.
type ReadFunc func(ctx context.Context, path string) ([]byte, error)

// ErrNothing means no turn is left to undo.
var ErrNothing = errors.New("nothing to undo: no turn of this session changed a file that is not undone already")

// Plan works out how to take back the selected turns from the files as
// read finds them now. It changes nothing.
func (j *Journal) Plan(ctx context.Context, sel Selection, read ReadFunc) (*Plan, error) {
	turns, err := j.pick(sel)
	if err != nil {
		return nil, err
	}
	p := &Plan{}
	state := map[string]*fileState{}
	get := func(path string) (*fileState, error) {
		if s, ok := state[path]; ok {
			return s, nil
		}
		data, err := read(ctx, path)
		s := &fileState{}
		switch {
		case err == nil:
			if data == nil {
				data = []byte{}
			}
			s.cur, s.orig = data, data
		case errors.Is(err, fs.ErrNotExist):
		default:
			return nil, err
		}
		state[path] = s
		return s, nil
	}
	conflicts := map[string]string{}
	// Newest first: each turn is taken back from what the later ones left.
	for i := len(turns) - 1; i >= 0; i-- {
		t := turns[i]
		p.Turns = append(p.Turns, t.N)
		for _, f := range t.Files {
			if err := j.step(ctx, f, get, conflicts); err != nil {
				return nil, err
			}
		}
	}
	slices.Sort(p.Turns)
	paths := make([]string, 0, len(state))
	for path := range state {
		paths = append(paths, path)
	}
	sort.Strings(paths)
	for _, path := range paths {
		s := state[path]
		if why, ok := conflicts[path]; ok {
			p.Conflicts = append(p.Conflicts, Conflict{Path: path, Reason: why})
		} else {
			p.Reverted = append(p.Reverted, path)
		}
		switch {
		case s.orig == nil && s.cur == nil, bytes.Equal(s.orig, s.cur) && s.orig != nil && s.cur != nil:
		case s.orig == nil:
			p.Ops = append(p.Ops, Op{Kind: OpCreate, Path: path, New: s.cur})
		case s.cur == nil:
			p.Ops = append(p.Ops, Op{Kind: OpDelete, Path: path, Old: s.orig})
		default:
			p.Ops = append(p.Ops, Op{Kind: OpEdit, Path: path, Old: s.orig, New: s.cur})
		}
	}
	return p, nil
}

// fileState is a file's content during planning: orig as found, cur after
// the steps so far (nil: absent).
type fileState struct{ orig, cur []byte }

// step takes back one file's change of one turn.
func (j *Journal) step(ctx context.Context, f File, get func(string) (*fileState, error), conflicts map[string]string) error {
	conflict := func(path, why string) {
		if old, ok := conflicts[path]; ok && old != why {
			why = old + "; " + why
		}
		conflicts[path] = why
	}
	s, err := get(f.Path)
	if err != nil {
		return err
	}
	if f.NotKept != "" {
		conflict(f.Path, "not undone: its content was not journaled ("+f.NotKept+")")
		return nil
	}
	before, err := j.Content(f.Before)
	if err != nil {
		return err
	}
	after, err := j.Content(f.After)
	if err != nil {
		return err
	}
	if f.Before != "" && before == nil {
		before = []byte{}
	}
	if f.After != "" && after == nil {
		after = []byte{}
	}
	switch f.Kind {
	case Created, Renamed:
		switch {
		case s.cur == nil:
		case bytes.Equal(s.cur, after):
			s.cur = nil
		default:
			what := "created"
			if f.Kind == Renamed {
				what = "moved here from " + f.From
			}
			conflict(f.Path, "kept: changed since the agent "+what+" it")
			return nil
		}
		if f.Kind == Renamed {
			from, err := get(f.From)
			if err != nil {
				return err
			}
			switch {
			case from.cur == nil:
				from.cur = before
			case !bytes.Equal(from.cur, before):
				conflict(f.From, "kept: a file exists at this path again (the agent had moved it to "+f.Path+")")
			}
		}
	case Deleted:
		switch {
		case s.cur == nil:
			s.cur = before
		case !bytes.Equal(s.cur, before):
			conflict(f.Path, "kept: a file exists at this path again (the agent had deleted it)")
		}
	default:
		switch {
		case s.cur == nil:
			conflict(f.Path, "not recreated: deleted since the agent changed it")
		case bytes.Equal(s.cur, after):
			s.cur = before
		case bytes.Equal(s.cur, before):
		case f.Binary || isBinary(s.cur):
			conflict(f.Path, "kept: a binary file changed since the agent wrote it; binary files are not merged")
		default:
			merged, n := revert(after, before, s.cur)
			s.cur = merged
			if n > 0 {
				conflict(f.Path, fmt.Sprintf("%s you edited since the agent changed %s kept as you have %s; the rest was reverted", plural(n, "part"), them(n), them(n)))
			}
		}
	}
	return nil
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func them(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// pick returns the turns sel names, oldest first.
func (j *Journal) pick(sel Selection) ([]*Turn, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	var open []*Turn
	for _, t := range j.turns {
		if !t.Undone && len(t.Files) > 0 && t != j.open {
			open = append(open, t)
		}
	}
	switch {
	case sel.Turn > 0:
		for _, t := range j.turns {
			if t.N != sel.Turn {
				continue
			}
			if t.Undone {
				return nil, fmt.Errorf("turn %d is undone already", t.N)
			}
			if len(t.Files) == 0 {
				return nil, fmt.Errorf("turn %d changed no file", t.N)
			}
			return []*Turn{t}, nil
		}
		return nil, fmt.Errorf("no turn %d in this session", sel.Turn)
	case len(open) == 0:
		return nil, ErrNothing
	case sel.All:
		return open, nil
	}
	n := max(sel.Last, 1)
	return open[max(len(open)-n, 0):], nil
}

// Undone records that turns were taken back, leaving conflicts.
func (j *Journal) Undone(turns []int, conflicts []Conflict) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	var errs []error
	for _, t := range j.turns {
		if !slices.Contains(turns, t.N) {
			continue
		}
		var mine []Conflict
		for _, c := range conflicts {
			if t.has(c.Path) {
				mine = append(mine, c)
			}
		}
		t.Undone, t.Conflicts, t.told = true, mine, false
		errs = append(errs, j.write(record{Type: "undo", Turn: t.N, Conflicts: mine}))
	}
	return errors.Join(errs...)
}

func (t *Turn) has(path string) bool {
	return slices.ContainsFunc(t.Files, func(f File) bool { return f.Path == path || f.From == path })
}

// TakeNotice returns what the model must be told about turns the user
// undid since it was last told ("" when nothing), and marks it told.
func (j *Journal) TakeNotice() string {
	j.mu.Lock()
	defer j.mu.Unlock()
	var b strings.Builder
	for _, t := range j.turns {
		if !t.Undone || t.told {
			continue
		}
		t.told = true
		_ = j.write(record{Type: "told", Turn: t.N})
		fmt.Fprintf(&b, "- your changes of the request %q were undone:", text.OneLine(t.Prompt, 80))
		for _, f := range t.Files {
			kept := ""
			for _, c := range t.Conflicts {
				if c.Path == f.Path {
					kept = " (partly kept: " + c.Reason + ")"
				}
			}
			fmt.Fprintf(&b, " %s (%s)%s;", f.Path, undoneWord(f), kept)
		}
		b.WriteString("\n")
	}
	if b.Len() == 0 {
		return ""
	}
	return "The user undid some of your changes since your last turn; the files are as the user left them now, so read them again before you edit them:\n" + b.String()
}

func undoneWord(f File) string {
	switch f.Kind {
	case Created:
		return "your new file was deleted"
	case Deleted:
		return "the file you deleted was restored"
	case Renamed:
		return "moved back to " + f.From
	}
	return "your edits were reverted"
}
