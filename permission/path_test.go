package permission

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// skipPathCases need the file tool's own boundary at use time (races, links
// the agent makes later) rather than a check before the call.
var skipPathCases = map[string]string{
	"P19": "link made by a later bash call: the tool must resolve at use time",
	"P55": "check-then-open race: os.Root in the tool",
	"P56": "ancestor swapped during the call: os.Root in the tool",
}

var fixtureRe = regexp.MustCompile(`fixture=(\[.*\])`)

func TestPathCorpus(t *testing.T) {
	t.Parallel()
	f, err := os.Open("testdata/path_cases.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	sc.Scan() // header
	n := 0
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		p, err := strconv.Unquote(cols[0])
		if err != nil {
			t.Fatal(err)
		}
		id, _, _ := strings.Cut(cols[1], ";")
		want, err := ParseVerdict(cols[2])
		if err != nil {
			t.Fatal(err)
		}
		tool := regexp.MustCompile(`tool=([a-z_]+)`).FindStringSubmatch(cols[1])[1]
		if why, ok := skipPathCases[id]; ok {
			t.Logf("%s skipped: %s", id, why)
			continue
		}
		n++
		t.Run(id, func(t *testing.T) {
			t.Parallel()
			base := t.TempDir()
			w, o, h := filepath.Join(base, "ws"), filepath.Join(base, "out"), filepath.Join(base, "home")
			for _, d := range []string{w, o, h} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			sub := strings.NewReplacer("{W}", w, "{O}", o, "{H}", h, "{Wbase}", strings.TrimPrefix(w, "/"))
			if m := fixtureRe.FindStringSubmatch(cols[1]); m != nil {
				var fx [][]any
				if err := json.Unmarshal([]byte(m[1]), &fx); err != nil {
					t.Fatal(err)
				}
				for _, x := range fx {
					kind, a := x[0].(string), sub.Replace(x[1].(string))
					var err error
					switch kind {
					case "dir":
						err = os.MkdirAll(a, 0o755)
					case "file":
						_ = os.MkdirAll(filepath.Dir(a), 0o755)
						err = os.WriteFile(a, []byte(x[2].(string)), 0o644)
					case "sym":
						l := sub.Replace(x[2].(string))
						_ = os.MkdirAll(filepath.Dir(l), 0o755)
						err = os.Symlink(a, l)
					case "hard":
						l := sub.Replace(x[2].(string))
						_ = os.MkdirAll(filepath.Dir(a), 0o755)
						_ = os.WriteFile(a, []byte("OUTSIDE-CANARY"), 0o600)
						err = os.Link(a, l)
					case "sparse":
						var fh *os.File
						if fh, err = os.Create(a); err == nil {
							err = fh.Truncate(int64(x[2].(float64)))
							fh.Close()
						}
					}
					if err != nil {
						t.Fatalf("fixture %v: %v", x, err)
					}
				}
			}
			e, err := New(w)
			if err != nil {
				t.Fatal(err)
			}
			write := tool == "write_file" || tool == "str_replace"
			d := e.CheckPath(tool, sub.Replace(p), write)
			if d.Verdict != want {
				t.Errorf("%s %s %q: got %s, want %s\n%s", id, tool, p, d.Verdict, want, d.Explain())
			}
		})
	}
	if n < 40 {
		t.Errorf("only %d path cases ran", n)
	}
}

func TestCheckPathRules(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	askWrites := RuleSet{Source: "user.toml", Tools: Permissions{
		"write_file":  {Default: Ask, Allow: []string{"src/**"}, Deny: []string{"vendor/**"}},
		"str_replace": {Ask: []string{"docs/**"}},
		"read_file":   {Deny: []string{"private/**"}},
	}}
	e, err := New(ws, askWrites)
	if err != nil {
		t.Fatal(err)
	}
	def, err := New(ws)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		e     *Engine
		tool  string
		path  string
		write bool
		want  Verdict
	}{
		{def, "write_file", "main.go", true, Allow},
		{def, "str_replace", "pkg/a.go", true, Allow},
		{def, "write_file", filepath.Join(ws, "pkg/a.go"), true, Allow},
		{def, "write_file", "../x.go", true, Deny},
		{def, "write_file", "/etc/passwd", true, Deny},
		{def, "write_file", ".git/config", true, Deny},
		{def, "str_replace", ".vscode/settings.json", true, Deny},
		{def, "write_file", ".idea/workspace.xml", true, Deny},
		{def, "write_file", ".agent-lsp/config.toml", true, Deny},
		{def, "write_file", "sub/.envrc", true, Deny},
		{def, "write_file", ".env.local", true, Ask},
		{def, "write_file", ".Git/hooks/post-checkout", true, Deny},
		{def, "read_file", ".git/config", false, Ask}, // may hold a token
		{def, "read_file", ".env", false, Ask},
		{def, "read_file", "certs/server.pem", false, Ask},
		{def, "read_file", "tls.key", false, Ask},
		{def, "read_file", "keys/id_ed25519", false, Ask},
		{def, "read_file", ".netrc", false, Ask},
		{def, "grep", ".env", false, Ask},
		{def, "glob", "**/*.pem", false, Allow},
		{def, "read_file", "README.md", false, Allow},
		{def, "read_file", "", false, Deny},
		{def, "read_file", "notes:2024.txt", false, Allow},
		{def, "read_file", "https://example.com/x", false, Deny},
		{def, "read_file", "file://host/etc/passwd", false, Deny},
		{e, "write_file", "main.go", true, Ask},
		{e, "write_file", "src/a.go", true, Allow},
		{e, "write_file", "vendor/x/a.go", true, Deny},
		{e, "write_file", "VENDOR/x/a.go", true, Deny},
		{e, "write_file", "src/.git/config", true, Deny}, // structural beats allow
		{e, "str_replace", "docs/a.md", true, Ask},
		{e, "str_replace", "main.go", true, Allow},
		{e, "read_file", "private/notes.txt", false, Deny},
	} {
		d := tc.e.CheckPath(tc.tool, tc.path, tc.write)
		if d.Verdict != tc.want {
			t.Errorf("%s %q write=%v: got %s, want %s\n%s", tc.tool, tc.path, tc.write, d.Verdict, tc.want, d.Explain())
		}
	}
}

func FuzzCheckPath(f *testing.F) {
	for _, s := range []string{"a.go", "../x", ".git/config", "file:///etc/passwd", "a\x00b", "~/.ssh/id_rsa", "src/.env", "a/../../b"} {
		f.Add(s, true)
	}
	ws := f.TempDir()
	e, err := New(ws)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, p string, write bool) {
		for _, tool := range []string{"write_file", "read_file", "glob"} {
			d := e.CheckPath(tool, p, write && tool == "write_file")
			if d.Verdict < Allow || d.Verdict > Deny {
				t.Fatalf("verdict %d", d.Verdict)
			}
			if d.Verdict != Allow {
				continue
			}
			if strings.ContainsAny(p, "\x00\n\r\\") || strings.HasPrefix(p, "~") {
				t.Fatalf("%s %q allowed", tool, p)
			}
			abs := p
			if !filepath.IsAbs(abs) {
				abs = filepath.Join(ws, abs)
			}
			if tool != "glob" && !strings.HasPrefix(p, "file:") && !within(ws, filepath.Clean(abs)) {
				t.Fatalf("%s %q outside allowed", tool, p)
			}
		}
	})
}

func TestZeroDecisionIsNotAllow(t *testing.T) {
	t.Parallel()
	var d Decision
	if d.Verdict == Allow || d.Verdict.String() != "undecided" {
		t.Errorf("zero decision: %s", d.Verdict)
	}
	var v Verdict
	if err := v.UnmarshalText([]byte("maybe")); err == nil || v != Undecided {
		t.Errorf("UnmarshalText(maybe): %v %s", err, v)
	}
	e, err := New(t.TempDir(), corpusRules())
	if err != nil {
		t.Fatal(err)
	}
	rules := strings.Join(e.Rules("bash"), "\n")
	for _, want := range []string{"deny  `rm *` (corpus)", "allow `ls*` (corpus)", "default ask (default of corpus)"} {
		if !strings.Contains(rules, want) {
			t.Errorf("Rules lacks %q:\n%s", want, rules)
		}
	}
	if _, err := New("relative/ws"); err == nil {
		t.Error("relative workspace accepted")
	}
	if _, err := New(t.TempDir(), RuleSet{Source: "x", Tools: Permissions{"bsh": {}}}); err == nil {
		t.Error("unknown tool accepted")
	}
}
