package tools

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

const canary = "OUTSIDE-CANARY"

// pathCase is one row of testdata/path_cases.tsv (copied from
// shared/corpus/path_cases.tsv).
type pathCase struct {
	ID       string
	Path     string // decoded, placeholders still in
	Tool     string
	Setup    string
	Fixture  [][]any
	Expected string // allow, ask or deny
	Why      string
}

func loadPathCases(t *testing.T) []pathCase {
	t.Helper()
	f, err := os.Open("testdata/path_cases.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []pathCase
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for first := true; sc.Scan(); first = false {
		if first {
			continue
		}
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) != 4 {
			t.Fatalf("row %q: %d columns", sc.Text(), len(cols))
		}
		path, err := strconv.Unquote(cols[0])
		if err != nil {
			t.Fatalf("row %q: %v", cols[0], err)
		}
		parts := strings.SplitN(cols[1], "; ", 3)
		c := pathCase{ID: parts[0], Path: path, Tool: strings.TrimPrefix(parts[1], "tool="), Setup: cols[1], Expected: cols[2], Why: cols[3]}
		if i := strings.Index(cols[1], "fixture="); i >= 0 {
			if err := json.Unmarshal([]byte(cols[1][i+len("fixture="):]), &c.Fixture); err != nil {
				t.Fatalf("%s: fixture: %v", c.ID, err)
			}
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

// layout is where a row's placeholders point: W the workspace, O a
// directory outside it, H a fake home directory; all under one temp dir.
type layout struct{ base, W, O, H string }

func newLayout(t *testing.T) layout {
	base := t.TempDir()
	l := layout{base: base, W: filepath.Join(base, "w"), O: filepath.Join(base, "o"), H: filepath.Join(base, "h")}
	for _, d := range []string{l.W, l.O, l.H} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return l
}

func (l layout) expand(s string) string {
	return strings.NewReplacer("{Wbase}", strings.TrimPrefix(l.W, "/"), "{W}", l.W, "{O}", l.O, "{H}", l.H).Replace(s)
}

// build makes a row's fixture with real files, symlinks and hard links.
func (l layout) build(t *testing.T, c pathCase) {
	t.Helper()
	for _, step := range c.Fixture {
		kind := step[0].(string)
		a := l.expand(step[1].(string))
		var err error
		switch kind {
		case "dir":
			err = os.MkdirAll(a, 0o755)
		case "file":
			if err = os.MkdirAll(filepath.Dir(a), 0o755); err == nil {
				err = os.WriteFile(a, []byte(step[2].(string)), 0o644)
			}
		case "sym":
			b := l.expand(step[2].(string))
			if err = os.MkdirAll(filepath.Dir(b), 0o755); err == nil {
				err = os.Symlink(a, b)
			}
		case "hard":
			err = os.Link(a, l.expand(step[2].(string)))
		case "sparse":
			var f *os.File
			if f, err = os.Create(a); err == nil {
				err = f.Truncate(int64(step[2].(float64)))
				f.Close()
			}
		default:
			t.Fatalf("%s: unknown fixture step %q", c.ID, kind)
		}
		if err != nil {
			t.Fatalf("%s: fixture %v: %v", c.ID, step, err)
		}
	}
	// Rows whose setup is described but has no fixture.
	switch c.ID {
	case "P07", "P19":
		mustWrite(t, filepath.Join(l.H, ".ssh/id_rsa"), canary)
		if c.ID == "P19" { // what `ln -s ~/.ssh/id_rsa notes.txt` run by the agent leaves
			if err := os.Symlink(filepath.Join(l.H, ".ssh/id_rsa"), filepath.Join(l.W, "notes.txt")); err != nil {
				t.Fatal(err)
			}
		}
	case "P08":
		mustWrite(t, filepath.Join(l.H, ".aws/credentials"), canary)
	}
	// A canary next to W for every row, so that any climb out shows.
	mustWrite(t, filepath.Join(l.base, "canary.txt"), canary)
}

func mustWrite(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// pathCaseSkips says why rows for tools this package does not have are
// skipped (none now: write_file and str_replace rows run in runWriteCase).
var pathCaseSkips = map[string]string{}

// raceCases are rows that need a goroutine changing the tree during the call.
var raceCases = map[string]bool{"P55": true, "P56": true}

func TestPathCases(t *testing.T) {
	t.Parallel()
	cases := loadPathCases(t)
	var ran, skipped atomic.Int32
	t.Cleanup(func() {
		t.Logf("path cases: %d rows, %d run, %d skipped", len(cases), ran.Load(), skipped.Load())
		s := &writeCaseStats
		t.Logf("write path cases: %d rows, %d escapes, %d hangs, %d protected files written behind the guard; %d refused by the tool alone, %d by the permission guard",
			s.rows.Load(), s.escapes.Load(), s.hangs.Load(), s.protectedWritten.Load(), s.toolRefused.Load(), s.guardRefused.Load())
	})
	for _, c := range cases {
		t.Run(c.ID, func(t *testing.T) {
			t.Parallel()
			if why, ok := pathCaseSkips[c.Tool]; ok {
				skipped.Add(1)
				t.Skipf("%s (%s): %s", c.ID, c.Tool, why)
			}
			ran.Add(1)
			if c.Tool == "write_file" || c.Tool == "str_replace" {
				runWriteCase(t, c)
				return
			}
			l := newLayout(t)
			l.build(t, c)
			ws, err := NewDiskWorkspace(l.W)
			if err != nil {
				t.Fatal(err)
			}
			defer ws.Close()
			path := l.expand(c.Path)
			if raceCases[c.ID] {
				runRaceCase(t, c, l, ws)
				return
			}
			var res Result
			switch c.Tool {
			case "read_file":
				res = runTool(t, NewReadFile(ws), ReadFileParams{Path: path})
				// The same path through grep's path argument must not leak either.
				g := runTool(t, NewGrep(ws), GrepParams{Pattern: ".", Path: path})
				assertNoCanary(t, c, "grep", g.Text)
			case "glob":
				res = runTool(t, NewGlob(ws), GlobParams{Pattern: path})
			default:
				t.Fatalf("%s: no runner for tool %q", c.ID, c.Tool)
			}
			assertNoCanary(t, c, c.Tool, res.Text)
			checkVerdict(t, c, l, res)
		})
	}
}

func assertNoCanary(t *testing.T, c pathCase, tool, text string) {
	t.Helper()
	if strings.Contains(text, canary) {
		t.Fatalf("%s: %s returned outside content for %q:\n%s", c.ID, tool, c.Path, text)
	}
}

// checkVerdict compares a result with the row's expectation. deny: the
// tool refused (read_file) or listed nothing outside (glob). ask: the tool
// refused, or the row is left to the permission layer (askByPermission).
// allow: no refusal as outside the workspace.
func checkVerdict(t *testing.T, c pathCase, l layout, res Result) {
	t.Helper()
	switch c.Expected {
	case "deny":
		if c.Tool == "glob" {
			if res.IsError || !strings.Contains(res.Text, l.base) && !strings.Contains(res.Text, "passwd") {
				t.Logf("%s glob listed nothing outside: %s", c.ID, res.Text)
				return
			}
			t.Fatalf("%s: glob %q listed outside entries:\n%s", c.ID, c.Path, res.Text)
		}
		if !res.IsError {
			t.Fatalf("%s: %q was read, want a refusal:\n%s", c.ID, c.Path, res.Text)
		}
		t.Logf("%s refused: %s", c.ID, res.Text)
	case "ask":
		if res.IsError {
			t.Logf("%s refused (stricter than ask): %s", c.ID, res.Text)
			return
		}
		if why, ok := askByPermission[c.ID]; ok {
			t.Logf("%s allowed by the tool; %s", c.ID, why)
			return
		}
		t.Fatalf("%s: %q was read, want at least ask:\n%s", c.ID, c.Path, res.Text)
	case "allow":
		if strings.Contains(res.Text, "outside the workspace") {
			t.Fatalf("%s: %q refused, want allow:\n%s", c.ID, c.Path, res.Text)
		}
		for _, step := range c.Fixture {
			if step[0] == "file" && l.expand(step[1].(string)) == l.expand(c.Path) || c.ID == "P16" && step[0] == "file" {
				if !strings.Contains(res.Text, step[2].(string)) {
					t.Fatalf("%s: want the content %q, got:\n%s", c.ID, step[2], res.Text)
				}
			}
		}
		t.Logf("%s allowed: %s", c.ID, Truncate(res.Text, 4, 300))
	default:
		t.Fatalf("%s: unknown verdict %q", c.ID, c.Expected)
	}
}

// askByPermission lists ask rows that the tool itself allows: the
// permission layer in front of the tools is what asks the user.
var askByPermission = map[string]string{
	"P65": "sensitive file names (.env) inside the workspace are the permission checker's ask, not the boundary's",
}

// runRaceCase reads the row's path in a loop while a goroutine swaps a file
// (P55) or an ancestor directory (P56) for a symlink to the outside. No
// read may ever return outside bytes.
func runRaceCase(t *testing.T, c pathCase, l layout, ws *DiskWorkspace) {
	var flip func(i int)
	switch c.ID {
	case "P55":
		f := filepath.Join(l.W, "race.txt")
		secret := filepath.Join(l.O, "secret.txt")
		mustWrite(t, f, "inside")
		flip = func(i int) {
			os.Remove(f)
			if i%2 == 0 {
				os.Symlink(secret, f)
			} else {
				os.WriteFile(f, []byte("inside"), 0o644)
			}
		}
	case "P56":
		data, moved := filepath.Join(l.W, "data"), filepath.Join(l.W, "data-moved")
		flip = func(i int) {
			if i%2 == 0 {
				os.Rename(data, moved)
				os.Symlink(l.O, data)
			} else {
				os.Remove(data)
				os.Rename(moved, data)
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := 0; ctx.Err() == nil; i++ {
			flip(i)
		}
	})
	tool := NewReadFile(ws)
	var ok, refused int
	for i := 0; i < 3000 && ctx.Err() == nil; i++ {
		res := runTool(t, tool, ReadFileParams{Path: c.Path})
		if strings.Contains(res.Text, canary) {
			cancel()
			wg.Wait()
			t.Fatalf("%s: read %d returned outside content:\n%s", c.ID, i, res.Text)
		}
		if res.IsError {
			refused++
		} else {
			ok++
		}
	}
	cancel()
	wg.Wait()
	t.Logf("%s: %d reads inside, %d refused, none outside", c.ID, ok, refused)
}

// runTool calls a tool's function with typed params, as the dispatcher will.
func runTool[P any](t *testing.T, tool *Tool, p P) Result {
	t.Helper()
	res, err := tool.run(context.Background(), &p)
	if err != nil {
		t.Fatalf("%s: harness error: %v", tool.Name(), err)
	}
	return res
}

// TestWalkRace swaps a directory of the workspace for a symbolic link to an
// outside directory (and back) while glob and grep walk the tree: no
// outside name or byte may ever show.
func TestWalkRace(t *testing.T) {
	t.Parallel()
	l := newLayout(t)
	mustWrite(t, filepath.Join(l.W, "data/x.txt"), "inside\n")
	mustWrite(t, filepath.Join(l.W, "data/sub/y.txt"), "inside\n")
	mustWrite(t, filepath.Join(l.O, "x.txt"), canary+"\n")
	mustWrite(t, filepath.Join(l.O, "outside-name.txt"), canary+"\n")
	mustWrite(t, filepath.Join(l.O, "sub/y.txt"), canary+"\n")
	ws, err := NewDiskWorkspace(l.W)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	data, moved := filepath.Join(l.W, "data"), filepath.Join(l.W, "data-moved")
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := 0; ctx.Err() == nil; i++ {
			if i%2 == 0 {
				os.Rename(data, moved)
				os.Symlink(l.O, data)
			} else {
				os.Remove(data)
				os.Rename(moved, data)
			}
		}
	})
	grepTool, globTool := NewGrep(ws), NewGlob(ws)
	runs := 0
	for ; runs < 500 && ctx.Err() == nil; runs++ {
		for _, res := range []Result{
			runTool(t, grepTool, GrepParams{Pattern: "CANARY|inside"}),
			runTool(t, grepTool, GrepParams{Pattern: "CANARY|inside", Path: "data"}),
			runTool(t, grepTool, GrepParams{Pattern: "CANARY|inside", Path: "data/x.txt"}),
			runTool(t, globTool, GlobParams{Pattern: "**"}),
			runTool(t, globTool, GlobParams{Pattern: "**", Path: "data"}),
		} {
			if strings.Contains(res.Text, canary) || strings.Contains(res.Text, "outside-name") {
				cancel()
				wg.Wait()
				t.Fatalf("run %d: outside content or name:\n%s", runs, res.Text)
			}
		}
	}
	cancel()
	wg.Wait()
	t.Logf("%d rounds of 3 greps and 2 globs, nothing from outside", runs)
}
