package changes

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/tools"
)

// fixture is a workspace on disk and a journal beside it.
type fixture struct {
	t    *testing.T
	root string
	ws   *tools.DiskWorkspace
	j    *Journal
	dir  string
}

func newFixture(t *testing.T, files map[string]string) *fixture {
	t.Helper()
	root := t.TempDir()
	for p, c := range files {
		writeFile(t, root, p, c)
	}
	ws, err := tools.NewDiskWorkspace(root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	dir := filepath.Join(t.TempDir(), "s1.changes")
	j, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	return &fixture{t: t, root: root, ws: ws, j: j, dir: dir}
}

func writeFile(t *testing.T, root, rel, content string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// edit changes a file on disk as a tool would and journals it.
func (f *fixture) edit(rel string, content *string) {
	f.t.Helper()
	old, err := os.ReadFile(filepath.Join(f.root, rel))
	if errors.Is(err, fs.ErrNotExist) {
		old = nil
	}
	var next []byte
	if content == nil {
		os.Remove(filepath.Join(f.root, rel))
	} else {
		next = []byte(*content)
		writeFile(f.t, f.root, rel, *content)
	}
	if err := f.j.Change(rel, "write_file", old, next); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) read(rel string) (string, bool) {
	b, err := os.ReadFile(filepath.Join(f.root, rel))
	return string(b), err == nil
}

// undo plans and applies on the disk.
func (f *fixture) undo(sel Selection) *Plan {
	f.t.Helper()
	p, err := f.j.Plan(context.Background(), sel, f.ws.ReadFile)
	if err != nil {
		f.t.Fatal(err)
	}
	p.Merge(ApplyDisk(context.Background(), f.ws, p))
	if err := f.j.Undone(p.Turns, p.Conflicts); err != nil {
		f.t.Fatal(err)
	}
	return p
}

func ptr(s string) *string { return &s }

func TestJournalKindsAndReload(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string]string{"a.txt": "one\ntwo\n", "gone.txt": "bye\n", "old.txt": "moved\n", "same.txt": "x\n"})
	f.j.Begin("do things")
	f.edit("a.txt", ptr("one\nTWO\nthree\n"))
	f.edit("new.txt", ptr("hello\n"))
	f.edit("gone.txt", nil)
	f.edit("old.txt", nil)
	f.edit("moved.txt", ptr("moved\n"))
	f.edit("same.txt", ptr("y\n"))
	f.edit("same.txt", ptr("x\n")) // changed back: not a change
	f.edit("tmp.txt", ptr("t\n"))  // created and deleted: not a change
	f.edit("tmp.txt", nil)
	turn := f.j.End()
	got := map[string]File{}
	for _, fl := range turn.Files {
		got[fl.Path] = fl
	}
	if len(got) != 4 {
		t.Fatalf("files = %+v, want a.txt, new.txt, gone.txt, moved.txt", turn.Files)
	}
	if a := got["a.txt"]; a.Kind != Modified || a.Added != 2 || a.Removed != 1 || a.Tool != "write_file" {
		t.Errorf("a.txt = %+v", a)
	}
	if got["new.txt"].Kind != Created || got["gone.txt"].Kind != Deleted {
		t.Errorf("new/gone = %+v %+v", got["new.txt"], got["gone.txt"])
	}
	if m := got["moved.txt"]; m.Kind != Renamed || m.From != "old.txt" {
		t.Errorf("moved.txt = %+v", m)
	}
	// Reloaded from disk, the turn is the same.
	f.j.Close()
	j2, err := Open(f.dir)
	if err != nil {
		t.Fatal(err)
	}
	defer j2.Close()
	turns := j2.Turns()
	if len(turns) != 1 || turns[0].Prompt != "do things" || len(turns[0].Files) != 4 {
		t.Fatalf("reloaded turns = %+v", turns)
	}
	f.j = j2
	p := f.undo(Selection{})
	if len(p.Conflicts) != 0 {
		t.Fatalf("conflicts: %+v", p.Conflicts)
	}
	for rel, want := range map[string]string{"a.txt": "one\ntwo\n", "gone.txt": "bye\n", "old.txt": "moved\n", "same.txt": "x\n"} {
		if got, _ := f.read(rel); got != want {
			t.Errorf("%s = %q, want %q", rel, got, want)
		}
	}
	for _, rel := range []string{"new.txt", "moved.txt"} {
		if _, ok := f.read(rel); ok {
			t.Errorf("%s still exists", rel)
		}
	}
	if ts := f.j.Turns(); !ts[0].Undone {
		t.Error("turn not marked undone")
	}
	if _, err := f.j.Plan(context.Background(), Selection{}, f.ws.ReadFile); !errors.Is(err, ErrNothing) {
		t.Errorf("second undo: %v, want ErrNothing", err)
	}
	note := f.j.TakeNotice()
	if !strings.Contains(note, "a.txt (your edits were reverted)") || !strings.Contains(note, "new.txt (your new file was deleted)") {
		t.Errorf("notice = %q", note)
	}
	if f.j.TakeNotice() != "" {
		t.Error("the model is told once")
	}
}

func TestUndoKeepsTheUsersWork(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string]string{"a.txt": "1\n2\n3\n4\n5\n6\n7\n", "b.txt": "b\n", "bin": "\x00\x01old"})
	f.j.Begin("first")
	f.edit("a.txt", ptr("1\nTWO\n3\n4\n5\n6\n7\n"))
	f.edit("made.txt", ptr("agent\n"))
	f.edit("bin", ptr("\x00\x01new"))
	f.j.End()
	// The user: edits another line of a.txt, adds to the created file,
	// rewrites the binary file.
	writeFile(t, f.root, "a.txt", "1\nTWO\n3\n4\n5\n6\nseven (mine)\n")
	writeFile(t, f.root, "made.txt", "agent\nmine\n")
	writeFile(t, f.root, "bin", "\x00\x01mine")
	p := f.undo(Selection{})
	if got, _ := f.read("a.txt"); got != "1\n2\n3\n4\n5\n6\nseven (mine)\n" {
		t.Errorf("a.txt = %q", got)
	}
	if got, _ := f.read("made.txt"); got != "agent\nmine\n" {
		t.Errorf("made.txt = %q: the user's edits must stay", got)
	}
	if got, _ := f.read("bin"); got != "\x00\x01mine" {
		t.Errorf("bin = %q", got)
	}
	reasons := map[string]string{}
	for _, c := range p.Conflicts {
		reasons[c.Path] = c.Reason
	}
	if len(reasons) != 2 || !strings.Contains(reasons["made.txt"], "changed since the agent created it") || !strings.Contains(reasons["bin"], "binary files are not merged") {
		t.Errorf("conflicts = %+v", p.Conflicts)
	}
	if len(p.Reverted) != 1 || p.Reverted[0] != "a.txt" {
		t.Errorf("reverted = %v", p.Reverted)
	}
}

func TestUndoBinaryUntouchedAndSeveralTurns(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string]string{"bin": "\x00old", "a.txt": "a\n"})
	f.j.Begin("one")
	f.edit("bin", ptr("\x00new"))
	f.edit("a.txt", ptr("a1\n"))
	f.j.End()
	f.j.Begin("nothing")
	f.j.End()
	f.j.Begin("two")
	f.edit("a.txt", ptr("a2\n"))
	f.j.End()
	// Only the last turn: a.txt goes back to a1.
	f.undo(Selection{})
	if got, _ := f.read("a.txt"); got != "a1\n" {
		t.Errorf("after undoing the last turn a.txt = %q", got)
	}
	p := f.undo(Selection{All: true})
	if len(p.Conflicts) != 0 || len(p.Turns) != 1 || p.Turns[0] != 1 {
		t.Fatalf("plan = %+v", p)
	}
	if got, _ := f.read("bin"); got != "\x00old" {
		t.Errorf("bin = %q: an untouched binary file is restored whole", got)
	}
	if got, _ := f.read("a.txt"); got != "a\n" {
		t.Errorf("a.txt = %q", got)
	}
}

func TestUndoConflictWhileApplying(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string]string{"a.txt": "a\n"})
	f.j.Begin("one")
	f.edit("a.txt", ptr("b\n"))
	f.j.End()
	p, err := f.j.Plan(context.Background(), Selection{}, f.ws.ReadFile)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, f.root, "a.txt", "typed meanwhile\n")
	p.Merge(ApplyDisk(context.Background(), f.ws, p))
	if got, _ := f.read("a.txt"); got != "typed meanwhile\n" || len(p.Conflicts) != 1 || len(p.Reverted) != 0 {
		t.Errorf("a.txt = %q, plan %+v", got, p)
	}
}
