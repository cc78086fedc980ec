package tools

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/permission"
)

// writeCaseStats are the figures of the write_file and str_replace rows.
var writeCaseStats struct {
	rows, escapes, hangs, protectedWritten, toolRefused, guardRefused atomic.Int32
}

// permissionGuard runs file-tool calls past a permission engine for the
// workspace, as the harness does; ask counts as a refusal (no approver).
func permissionGuard(t *testing.T, root string) (Guard, *permission.Engine) {
	eng, err := permission.New(root)
	if err != nil {
		t.Fatal(err)
	}
	return GuardFunc(func(ctx context.Context, a Access) Decision {
		d := eng.CheckPath(a.Tool, a.Paths[0], a.Kind == AccessWrite)
		if d.Verdict == permission.Allow {
			return Decision{Allow: true}
		}
		return Decision{Reason: d.Verdict.String() + ": " + d.Reason}
	}), eng
}

// snapshot records every name under base outside the workspace, with its
// content or link target.
func snapshot(t *testing.T, l layout) map[string]string {
	t.Helper()
	m := map[string]string{}
	filepath.WalkDir(l.base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if p == l.W {
			return filepath.SkipDir
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			m[p] = "-> " + target
		case d.Type().IsRegular():
			b, _ := os.ReadFile(p)
			m[p] = string(b)
		default:
			m[p] = d.Type().String()
		}
		return nil
	})
	return m
}

// runWriteCase runs a write_file or str_replace row twice on fresh copies
// of its fixture: the tool alone, which must never write a byte outside
// the workspace nor through a link, and the tool behind the permission
// guard, which must also leave protected paths (.git, .vscode, .envrc,
// .agent-lsp, CI config) alone. For str_replace the file is marked read
// with its current content first, so that only the boundary stops it.
func runWriteCase(t *testing.T, c pathCase) {
	writeCaseStats.rows.Add(1)
	path := ""
	var verdict permission.Decision
	var toolRes, guardedRes Result
	for _, guarded := range []bool{false, true} {
		l := newLayout(t)
		l.build(t, c)
		path = l.expand(c.Path)
		ws, err := NewDiskWorkspace(l.W)
		if err != nil {
			t.Fatal(err)
		}
		defer ws.Close()
		before := snapshot(t, l)
		reads := NewReads()
		var opts []Option
		if guarded {
			g, eng := permissionGuard(t, l.W)
			opts = append(opts, WithGuard(g))
			verdict = eng.CheckPath(c.Tool, path, true)
		}
		d := NewDispatcher(NewRegistry(FileTools(ws, reads, nil)...), append(opts, WithLogger(quietLogger()), WithTimeout(10*time.Second))...)
		args := map[string]any{"path": path, "content": "PWNED\n"}
		var target string
		if rel, err := ws.Resolve(path); err == nil {
			target = filepath.Join(l.W, filepath.FromSlash(rel))
		}
		if c.Tool == "str_replace" {
			// Pretend the agent has read whatever the path shows, even outside.
			if b, err := os.ReadFile(target); err == nil {
				reads.MarkRead(path, b)
				if rel, err := ws.Resolve(path); err == nil {
					reads.MarkRead(rel, b)
				}
			}
			args = map[string]any{"path": path, "old_str": "on", "new_str": "PWNED", "replace_all": true}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		start := time.Now()
		res := d.Dispatch(ctx, Call{ID: c.ID, Name: c.Tool, Arguments: mustJSON(t, args)})
		cancel()
		if time.Since(start) > 10*time.Second {
			writeCaseStats.hangs.Add(1)
			t.Errorf("%s: call took %v", c.ID, time.Since(start))
		}
		if after := snapshot(t, l); !equalMaps(before, after) {
			writeCaseStats.escapes.Add(1)
			t.Errorf("%s: outside the workspace changed:\nbefore %v\nafter  %v", c.ID, before, after)
		}
		wrote := false
		if target != "" {
			if st, err := os.Lstat(target); err == nil && st.Mode().IsRegular() {
				b, _ := os.ReadFile(target)
				wrote = strings.Contains(string(b), "PWNED")
			}
		}
		if guarded {
			guardedRes = res
			if wrote && c.Expected != "allow" {
				writeCaseStats.protectedWritten.Add(1)
				t.Errorf("%s: %s wrote %s behind the permission guard (expected %s):\n%s", c.ID, c.Tool, c.Path, c.Expected, res.Text)
			}
			if res.IsError && strings.Contains(res.Text, "call denied") {
				writeCaseStats.guardRefused.Add(1)
			}
		} else {
			toolRes = res
			if res.IsError {
				writeCaseStats.toolRefused.Add(1)
			}
		}
	}
	switch c.Expected {
	case "deny", "ask":
		if !guardedRes.IsError {
			t.Fatalf("%s: %s %q ran behind the guard, want %s:\n%s", c.ID, c.Tool, c.Path, c.Expected, guardedRes.Text)
		}
		if verdict.Verdict < permission.Ask && !toolRes.IsError {
			t.Fatalf("%s: neither the tool nor the permission engine refused %q", c.ID, c.Path)
		}
	}
	t.Logf("%s %s %q: tool alone: %s | permission: %s | guarded: %s", c.ID, c.Tool, c.Path,
		Truncate(toolRes.Text, 2, 200), strings.TrimSpace(strings.SplitN(verdict.Explain(), "\n", 2)[0]), Truncate(guardedRes.Text, 2, 200))
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestWriteRace swaps the file's directory, and the file itself, for
// symbolic links to the outside while write_file and str_replace write:
// nothing outside may ever change or appear.
func TestWriteRace(t *testing.T) {
	t.Parallel()
	l := newLayout(t)
	mustWrite(t, filepath.Join(l.W, "data/x.txt"), "inside on\n")
	mustWrite(t, filepath.Join(l.W, "y.txt"), "inside on\n")
	mustWrite(t, filepath.Join(l.O, "x.txt"), canary+" on\n")
	mustWrite(t, filepath.Join(l.O, "y.txt"), canary+" on\n")
	ws, err := NewDiskWorkspace(l.W)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	before := snapshot(t, l)
	data, moved, y := filepath.Join(l.W, "data"), filepath.Join(l.W, "data-moved"), filepath.Join(l.W, "y.txt")
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := 0; ctx.Err() == nil; i++ {
			if i%2 == 0 {
				os.Rename(data, moved)
				os.Symlink(l.O, data)
				os.Remove(y)
				os.Symlink(filepath.Join(l.O, "y.txt"), y)
			} else {
				os.Remove(data)
				os.Rename(moved, data)
				os.Remove(y)
				os.WriteFile(y, []byte("inside on\n"), 0o644)
			}
		}
	})
	reads := NewReads()
	wf, sr := NewWriteFile(ws, reads), NewStrReplace(ws, reads)
	var ok, refused, failed int
	call := func(tool *Tool, p any) Result {
		res, err := tool.run(ctx, p)
		if err != nil { // a harness error (the tree moved under it) is no escape
			failed++
			return Result{IsError: true}
		}
		return res
	}
	for i := 0; i < 2000 && ctx.Err() == nil; i++ {
		for _, p := range []string{"data/x.txt", "y.txt"} {
			// Claim to have read whatever is there, so only the boundary decides.
			if b, err := os.ReadFile(filepath.Join(l.W, p)); err == nil {
				reads.MarkRead(p, b)
			}
			for _, res := range []Result{
				call(sr, &StrReplaceParams{Path: p, OldStr: "on", NewStr: "PWNED", ReplaceAll: true}),
				call(wf, &WriteFileParams{Path: p, Content: "PWNED\n"}),
				call(wf, &WriteFileParams{Path: "data/new.txt", Content: "PWNED\n"}),
			} {
				if res.IsError {
					refused++
				} else {
					ok++
				}
			}
		}
	}
	cancel()
	wg.Wait()
	delete(before, moved)
	after := snapshot(t, l)
	delete(after, moved)
	for k, v := range after {
		if strings.HasPrefix(k, l.W) {
			delete(after, k)
		}
		if strings.Contains(v, "PWNED") {
			t.Errorf("outside file %s written: %q", k, v)
		}
	}
	for k, v := range before {
		if after[k] != v {
			t.Errorf("outside %s changed: %q -> %q", k, v, after[k])
		}
	}
	for k := range after {
		if _, ok := before[k]; !ok {
			t.Errorf("outside %s created", k)
		}
	}
	t.Logf("%d writes inside, %d refused (%d of them harness errors), none outside", ok, refused, failed)
}
