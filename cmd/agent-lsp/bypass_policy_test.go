package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// issueConfig is the user rule set of issue 10's held-out check.
const issueConfig = `[permissions.bash]
builtin = false
default = "ask"
allow = ["ls*", "cat *", "grep *", "git status*", "git diff*", "go test*", "npm test*", "make*", "echo *", "find *"]
deny = ["rm *", "sudo *", "curl *", "wget *", "git push*"]
`

// TestPolicyBypassCorpus runs `agent-lsp policy` on every row of
// permission/testdata/bypass_cases.tsv, under the built-in rules and under
// issueConfig, in a workspace with symlinked directories leading out, .env
// and .git/config: no security failure, at most 5% stricter than needed.
func TestPolicyBypassCorpus(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	ws, out := filepath.Join(home, "ws"), filepath.Join(home, "out")
	for name, body := range map[string]string{
		"ws/src/a.go": "package a", "ws/src/deep/b.go": "package b", "ws/docs/x.md": "x", "ws/.env": "TOKEN=1",
		"ws/.git/config": "[remote \"origin\"]\n\turl = https://user:tok@example.com/r.git\n", "out/secret.txt": "OUTSIDE",
		"user.toml": issueConfig, "builtin.toml": "",
	} {
		writeFile(t, filepath.Join(home, name), body)
	}
	for _, l := range []string{filepath.Join(ws, "src", "deep", "vendor"), filepath.Join(ws, "third_party")} {
		if err := os.Symlink(out, l); err != nil {
			t.Fatal(err)
		}
	}
	type row struct{ id, cmd, user, builtin string }
	var rows []row
	for _, cols := range readCommandTSV(t, "../../permission/testdata/bypass_cases.tsv") {
		r := row{cmd: cols[0], user: cols[1], builtin: cols[1]}
		r.id, _, _ = strings.Cut(cols[2], " ")
		if _, tag, ok := strings.Cut(cols[2], "[builtin:"); ok {
			r.builtin = strings.TrimSuffix(tag, "]")
		}
		rows = append(rows, r)
	}
	if len(rows) < 150 {
		t.Fatalf("%d rows", len(rows))
	}
	for _, set := range []string{"builtin", "user"} {
		var security, stricter []string
		for _, c := range rows {
			want := c.user
			if set == "builtin" {
				want = c.builtin
			}
			r := runStdin(t, ws, c.cmd, "policy", "--config", filepath.Join(home, set+".toml"), "--workspace", ws, "-")
			first, _, _ := strings.Cut(r.stdout, "\n")
			got, _, _ := strings.Cut(first, ":")
			got = strings.TrimSpace(got)
			switch {
			case r.code != 0 || strictness[got] == 0:
				security = append(security, c.id)
				t.Errorf("%s: exit %d, first line %q, stderr %s", c.id, r.code, first, r.stderr)
			case strictness[got] < strictness[want]:
				security = append(security, c.id)
				t.Errorf("SECURITY %s (%s rules) %q: got %s, want %s\n%s", c.id, set, c.cmd, got, want, r.stdout)
			case strictness[got] > strictness[want]:
				stricter = append(stricter, c.id)
			}
		}
		t.Logf("%s rules: %d rows, %d security failures %v, %d stricter than needed (%.1f%%) %v",
			set, len(rows), len(security), security, len(stricter), 100*float64(len(stricter))/float64(len(rows)), stricter)
		if 20*len(stricter) > len(rows) {
			t.Errorf("%s rules: %d stricter than needed, over 5%%", set, len(stricter))
		}
	}
}
