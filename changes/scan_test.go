package changes

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func scanner(t *testing.T, root string) *Scanner {
	s := NewScanner(root, filepath.Join(t.TempDir(), "baseline"))
	s.Prepare()
	return s
}

func TestScannerSeesWhatACommandChanged(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string]string{
		"a.txt": "a\n", "d.txt": "d\n", "user.txt": "u\n", ".gitignore": "build/\n*.log\n",
		"build/out.bin": "o", "node_modules/m/index.js": "x", ".git/HEAD": "ref: refs/heads/main\n", "keep.log": "l",
	})
	s := scanner(t, f.root)
	ctx := context.Background()
	f.j.Begin("run things")
	// The agent wrote an ignored file this turn: it is watched too.
	f.edit("notes.log", ptr("agent\n"))
	// The user edits a file before the command: not the command's.
	writeFile(t, f.root, "user.txt", "mine\n")
	if err := s.Before(ctx, f.j.Paths()); err != nil {
		t.Fatal(err)
	}
	// "The command".
	writeFile(t, f.root, "a.txt", "a changed\n")
	writeFile(t, f.root, "c.txt", "new\n")
	os.Remove(filepath.Join(f.root, "d.txt"))
	writeFile(t, f.root, "notes.log", "agent\nand the command\n")
	writeFile(t, f.root, "node_modules/n/index.js", "y")
	writeFile(t, f.root, "build/more.bin", "p")
	writeFile(t, f.root, "other.log", "ignored")
	diffs, notes, err := s.After(ctx, f.j.Paths())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range diffs {
		got = append(got, fmt.Sprintf("%s:%q→%q", d.Path, d.Before, d.After))
		if err := f.j.Record("bash", d); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{`a.txt:"a\n"→"a changed\n"`, `c.txt:""→"new\n"`, `d.txt:"d\n"→""`, `notes.log:"agent\n"→"agent\nand the command\n"`}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("diffs:\n got %v\nwant %v", got, want)
	}
	if len(notes) != 2 || !strings.HasPrefix(notes[0], "build/ changed") || !strings.HasPrefix(notes[1], "node_modules/ changed") {
		t.Errorf("notes = %q", notes)
	}
	for _, n := range notes {
		f.j.Ignored(n)
	}
	turn := f.j.End()
	kinds := map[string]string{}
	for _, fl := range turn.Files {
		kinds[fl.Path] = string(fl.Kind) + " by " + fl.Tool
	}
	if kinds["notes.log"] != "created by write_file, bash" || kinds["d.txt"] != "deleted by bash" || len(turn.Ignored) != 2 {
		t.Errorf("turn = %+v", turn)
	}
	// Undo takes the command's changes back too, from the journal alone.
	f.undo(Selection{})
	for rel, want := range map[string]string{"a.txt": "a\n", "d.txt": "d\n", "user.txt": "mine\n"} {
		if got, _ := f.read(rel); got != want {
			t.Errorf("%s = %q, want %q", rel, got, want)
		}
	}
	for _, rel := range []string{"c.txt", "notes.log"} {
		if _, ok := f.read(rel); ok {
			t.Errorf("%s still exists", rel)
		}
	}
	if got, _ := f.read(".git/HEAD"); got != "ref: refs/heads/main\n" {
		t.Errorf(".git/HEAD = %q", got)
	}
}

func TestScannerLargeFileNotKept(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", MaxBaseline+1)
	f := newFixture(t, map[string]string{"big.txt": big})
	s := scanner(t, f.root)
	ctx := context.Background()
	f.j.Begin("big")
	if err := s.Before(ctx, nil); err != nil {
		t.Fatal(err)
	}
	writeFile(t, f.root, "big.txt", big+"y")
	diffs, _, err := s.After(ctx, nil)
	if err != nil || len(diffs) != 1 || diffs[0].NotKept == "" {
		t.Fatalf("diffs = %+v, %v", diffs, err)
	}
	f.j.Record("bash", diffs[0])
	f.j.End()
	p := f.undo(Selection{})
	if len(p.Conflicts) != 1 || !strings.Contains(p.Conflicts[0].Reason, "not journaled") {
		t.Errorf("conflicts = %+v", p.Conflicts)
	}
}

// agent-lsp's own state directory, when the workspace holds it (the
// workspace is the home directory), is never looked at: the journal does
// not record its own store or the transcripts.
func TestScannerExcludesTheStateDir(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	state := filepath.Join(root, ".local", "state", "agent-lsp")
	writeFile(t, root, "a.txt", "a\n")
	s := NewScanner(root, filepath.Join(state, "baseline"), state)
	s.Prepare()
	ctx := context.Background()
	if err := s.Before(ctx, nil); err != nil {
		t.Fatal(err)
	}
	writeFile(t, root, ".local/state/agent-lsp/sessions/x.jsonl", "{}\n")
	writeFile(t, root, "b.txt", "b\n")
	diffs, notes, err := s.After(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(diffs) != 1 || diffs[0].Path != "b.txt" || len(notes) != 0 {
		t.Fatalf("diffs %+v, notes %v", diffs, notes)
	}
}
