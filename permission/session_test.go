package permission

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestGeneralise(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"go test ./pkg/...":     "go test *",
		"git log --oneline":     "git log *",
		"make build":            "make build *",
		"unlink x":              "unlink x",
		"tsc -p .":              "tsc *",
		"go -C x test":          "go -C x test",
		"env FOO=1 make":        "env FOO=1 make",
		"python3 -c 'print(1)'": "python3 -c 'print(1)'",
		"./scripts/run.sh a":    "./scripts/run.sh a",
		"bash -c 'echo *'":      `bash -c 'echo \*'`,
		// Red team 3: destructive subcommands and cloud CLIs stay exact.
		"terraform destroy": "terraform destroy",
		"terraform plan":    "terraform plan *",
		"helm uninstall x":  "helm uninstall x",
		"pulumi up":         "pulumi up",
		"docker compose up": "docker compose up",
		"aws s3 ls":         "aws s3 ls",
		"rclone purge r:x":  "rclone purge r:x",
		"":                  "",
	} {
		if got := Generalise(in); got != want {
			t.Errorf("Generalise(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"docs/a.md": "docs/**", "main.go": "main.go", "a/b/c.go": "a/b/**"} {
		if got := GeneralisePath(in); got != want {
			t.Errorf("GeneralisePath(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAllowForSession(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	e, err := New(ws, corpusRules(), RuleSet{Source: "user", Tools: Permissions{
		"bash":       {Ask: []string{"go build*"}},
		"write_file": {Default: Ask},
	}})
	if err != nil {
		t.Fatal(err)
	}
	// The UI shows the suggestion of each part that can be approved.
	d := e.CheckCommand("go vet ./pkg/... && go build ./cmd/x")
	var sugg []string
	for _, p := range d.Parts {
		if p.Suggest != "" {
			sugg = append(sugg, p.Suggest)
		}
	}
	if d.Verdict != Ask || strings.Join(sugg, ",") != "go vet *,go build *" {
		t.Fatalf("verdict %s, suggestions %q\n%s", d.Verdict, sugg, d.Explain())
	}
	for _, s := range sugg {
		if err := e.AllowForSession("bash", s); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		cmd  string
		want Verdict
	}{
		{"go vet ./other/...", Allow},
		{"go build ./cmd/y", Allow},               // lifts an explicit ask rule
		{"go vet ./... > ~/.bashrc", Ask},         // never a structural ask
		{"go vet $(cat .env)", Ask},               // nor the parts it runs
		{"GOFLAGS=-toolexec=x go vet ./...", Ask}, // nor dangerous environment
		{"go vet ./... && rm -rf x", Deny},        // never a deny
		{"go vet -vettool=$'\\x72m' ./...", Deny}, // inner command still checked
	} {
		d := e.CheckCommand(tc.cmd)
		if d.Verdict != tc.want {
			t.Errorf("%q: got %s, want %s\n%s", tc.cmd, d.Verdict, tc.want, d.Explain())
		}
	}
	// Deny rules cannot be lifted even by an exact session rule.
	if err := e.AllowForSession("bash", "rm -rf x"); err != nil {
		t.Fatal(err)
	}
	if got := e.CheckCommand("rm -rf x").Verdict; got != Deny {
		t.Errorf("session rule lifted a deny: %s", got)
	}
	// Too-broad rules are refused.
	for _, p := range []string{"*", "g*", "env *", "bash -c *", "git *", "go *", "xargs *", "python3 *", ""} {
		if err := e.AllowForSession("bash", p); err == nil {
			t.Errorf("AllowForSession(%q) accepted", p)
		}
	}
	// Paths.
	d = e.CheckPath("write_file", "docs/a.md", true)
	if d.Verdict != Ask || d.Parts[0].Suggest != "docs/**" {
		t.Fatalf("write: %s %q", d.Verdict, d.Parts[0].Suggest)
	}
	if err := e.AllowForSession("write_file", "docs/**"); err != nil {
		t.Fatal(err)
	}
	if got := e.CheckPath("write_file", "docs/b/c.md", true).Verdict; got != Allow {
		t.Errorf("docs/b/c.md: %s", got)
	}
	if got := e.CheckPath("write_file", "src/a.go", true).Verdict; got != Ask {
		t.Errorf("src/a.go: %s", got)
	}
	if err := e.AllowForSession("write_file", ".vscode/**"); err != nil {
		t.Fatal(err)
	}
	if got := e.CheckPath("write_file", ".vscode/tasks.json", true).Verdict; got != Deny {
		t.Errorf("session rule lifted a protected path: %s", got)
	}
	if err := e.AllowForSession("write_file", ".env*"); err != nil {
		t.Fatal(err)
	}
	if got := e.CheckPath("write_file", ".env", true); got.Verdict != Ask || got.Parts[0].Suggest != "" {
		t.Errorf("session rule lifted a sensitive path: %s", got.Explain())
	}
	for _, p := range []string{"**", "**/*.go", "../x/**", "/etc/**"} {
		if err := e.AllowForSession("write_file", p); err == nil {
			t.Errorf("AllowForSession(write_file, %q) accepted", p)
		}
	}
	if got := e.SessionRules("bash"); len(got) != 3 {
		t.Errorf("session rules %q", got)
	}
}

func TestExplain(t *testing.T) {
	t.Parallel()
	e, err := New(t.TempDir(), corpusRules())
	if err != nil {
		t.Fatal(err)
	}
	out := e.CheckCommand("ls && cat README.md \u2067;rm -rf x;\u2069").Explain()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if !strings.HasPrefix(lines[0], "deny") {
		t.Errorf("first word: %q", lines[0])
	}
	if strings.ContainsRune(out, '\u2067') || !strings.Contains(out, `\u2067`) {
		t.Errorf("bidi character not escaped:\n%s", out)
	}
	if len(lines) < 5 || !strings.Contains(out, "rm -rf x") || !strings.Contains(out, "`rm *` (corpus)") {
		t.Errorf("explain:\n%s", out)
	}
	for _, v := range []Verdict{Allow, Ask, Deny} {
		d := Decision{Verdict: v}
		if f := strings.Fields(d.Explain()); f[0] != v.String() {
			t.Errorf("%s: %q", v, f[0])
		}
	}
	long := e.CheckCommand("ls" + strings.Repeat(" ", 6000) + "; rm -rf x").Explain()
	if len(long) > 300 || !strings.Contains(long, "rm -rf x") {
		t.Errorf("padding hides a part:\n%s", long)
	}
	if v := visible("a" + strings.Repeat(" ", 100) + "b\r"); v != `a <100 spaces> b\u000d` {
		t.Errorf("visible: %q", v)
	}
}

func TestLimits(t *testing.T) {
	t.Parallel()
	e, err := New(t.TempDir(), corpusRules())
	if err != nil {
		t.Fatal(err)
	}
	huge := "ls " + strings.Repeat("a", HardCommandLimit)
	if got := e.CheckCommand(huge).Verdict; got != Deny {
		t.Errorf("over the hard limit: %s", got)
	}
	soft := "ls " + strings.Repeat("a", SoftCommandLimit)
	if got := e.CheckCommand(soft).Verdict; got != Ask {
		t.Errorf("over the soft limit: %s", got)
	}
	if got := e.CheckCommand(soft + "; rm -rf x").Verdict; got != Deny {
		t.Errorf("a cap downgraded deny: %s", got)
	}
	nested := strings.Repeat("eval ", MaxNesting+3) + "ls"
	if got := e.CheckCommand(nested).Verdict; got != Ask {
		t.Errorf("deep nesting: %s\n%s", got, e.CheckCommand(nested).Explain())
	}
	shallow := "ls"
	for i := 0; i < 3; i++ {
		shallow = "bash -c " + shellQuote(shallow)
	}
	if got := e.CheckCommand(shallow).Verdict; got != Allow {
		t.Errorf("shallow nesting: %s", got)
	}
	for _, c := range []string{"ls '", "ls $(", "if then", "ls\x00", "", "   ", "# just a comment"} {
		if got := e.CheckCommand(c).Verdict; got == Allow || got == Undecided {
			t.Errorf("%q: %s", c, got)
		}
	}
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func FuzzCheckCommand(f *testing.F) {
	for _, s := range []string{"ls -la", "bash -c 'rm -rf x'", "sed -i", "git -c ALIAS.P=push p", "find . -exec", "timeout", "env -u", "xargs -I", "cat <<EOF\n$(rm x)\nEOF", "a\x00b", "{a,b}{c,d}", "$'\\x72m'", "f() { ls; }; f", "git -c alias.p=push p",
		"test -v 'a[$(rm x)]'", "[[ 'a[$(id)]' -eq 0 ]]", "x='a[$(id)]'; echo $((x))", "declare -i n; n+='a[1]'",
		"echo ${x:'$(id)':1}", "bash <<EOF\nls \\`id\\`\nEOF", "trap -- 'id' EXIT", "taskset -c 0 rm x",
		"script -qc 'id' /dev/null", "make --eval='x:;id' x", "git show HEAD:.env", "cat -f/etc/passwd", "git -c alias.x x; sudo id",
		"for ((i=0;i<3;i++)); do a[i]=$i; done", "read -a 'a[$(id)]'"} {
		f.Add(s)
	}
	e, err := New(f.TempDir(), corpusRules())
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		d := e.CheckCommand(cmd)
		if d.Verdict < Allow || d.Verdict > Deny {
			t.Fatalf("verdict %d", d.Verdict)
		}
		if d.Verdict == Allow {
			if strings.ContainsRune(cmd, 0) {
				t.Fatalf("NUL allowed: %q", cmd)
			}
			if _, err := parseOK(cmd); err != nil {
				t.Fatalf("parse error allowed: %q: %v", cmd, err)
			}
		}
		for _, p := range d.Parts {
			if strings.HasPrefix(p.Reason, "checker failed") {
				t.Fatalf("%q: %s", cmd, p.Reason)
			}
		}
		_ = d.Explain()
	})
}

// TestWorstCaseIsLinear guards against quadratic walks: each shape is just
// under the hard limit and must be checked quickly.
func TestWorstCaseIsLinear(t *testing.T) {
	t.Parallel()
	e, err := New(t.TempDir(), corpusRules())
	if err != nil {
		t.Fatal(err)
	}
	fit := func(s string) string {
		if len(s) > HardCommandLimit-100 {
			return s[:HardCommandLimit-100]
		}
		return s
	}
	for name, cmd := range map[string]string{
		"substitutions": "echo " + strings.Repeat("$(echo ", 8000) + "x" + strings.Repeat(")", 8000),
		"pipes":         "ls" + strings.Repeat(" | ls", 12000),
		"and":           "true" + strings.Repeat(" && true", 7000),
		"bash -c":       `bash -c "` + strings.Repeat("ls;", 20000) + `"`,
		"heredoc":       "cat <<EOF\n" + strings.Repeat("$(ls)\n", 9000) + "EOF",
		"subshells":     strings.Repeat("( ", 16000) + "ls" + strings.Repeat(" )", 16000),
		"sed":           "sed -n '" + strings.Repeat("1e ls;", 9000) + "' x",
	} {
		cmd = fit(cmd)
		start := time.Now()
		d := e.CheckCommand(cmd)
		if el := time.Since(start); el > 5*time.Second {
			t.Errorf("%s: %v", name, el)
		}
		if d.Verdict == Allow {
			t.Errorf("%s: allowed over the display limit", name)
		}
	}
	tail := fit("ls"+strings.Repeat(" | ls", 12000)) + "\nrm -rf x"
	if got := e.CheckCommand(tail).Verdict; got != Deny {
		t.Errorf("long pipeline hid a deny: %s", got)
	}
}

func TestConcurrentUse(t *testing.T) {
	t.Parallel()
	e, err := New(t.TempDir(), corpusRules())
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	for i := 0; i < 4; i++ {
		go func(i int) {
			defer func() { done <- struct{}{} }()
			for j := 0; j < 200; j++ {
				if j%50 == 0 {
					_ = e.AllowForSession("bash", Generalise(fmt.Sprintf("tool%d run", i)))
				}
				if e.CheckCommand("ls; rm -rf x").Verdict != Deny {
					t.Error("deny lost under concurrency")
					return
				}
				_ = e.CheckPath("write_file", "a.go", true)
			}
		}(i)
	}
	for i := 0; i < 4; i++ {
		<-done
	}
}

// TestGeneraliseNeverBroadens: wrappers, runners and destructive commands
// get exact session rules, and wildcard rules for them are refused.
func TestGeneraliseNeverBroadens(t *testing.T) {
	t.Parallel()
	e, err := New(t.TempDir(), issueRules())
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{
		// wrappers and runners
		"taskset -c 0 true", "chrt -f 1 true", "prlimit --nofile=10 true", "unshare -n true", "fakeroot true",
		"ssh-agent true", "parallel true ::: a", "sem true", "setpriv --no-new-privs true", "runuser -u me true",
		"script -c true /dev/null", "zip -TT true -T a.zip f", "xargs -a list -- true", "env A=1 true",
		"timeout 1 true", "nice true", "nohup true", "stdbuf -oL true", "flock l true", "watch true",
		"ionice true", "setsid true", "strace true", "bash -c true", "python3 x.py", "ssh host true",
		"npx cowsay", "npm exec cowsay", "numactl -C 0 true", "sudo true", "find . -exec true {} +",
		// red team session 4: more wrappers, programs that run code they
		// are given, and the tails of wrapped command lines
		"setarch x86_64 true", "linux64 true", "capsh -- -c true", "hash -p /bin/true t", "alias t=true",
		"scp a host:b", "sftp host", "xdg-open f", "at now", "crontab f", "tclsh x.tcl", "unbuffer -p true",
		"go run ./cmd/x", "go generate ./...", "go tool x", "git bisect run make test", "git difftool -x true",
		"git submodule foreach true", "-- true", "-p true",
		// destructive programs
		"rm old.log", "rm -rf build", "mv a b", "cp a b", "chmod -R 755 dir", "chmod +x f", "chown me f",
		"dd if=a of=b", "truncate -s 0 f", "shred f", "unlink f", "ln -sf a b", "tee f", "rsync -a --delete a/ b/",
		"git push origin main", "git reset --hard", "git clean -fdx", "git checkout -- .", "git restore f",
		"git branch -D x", "git stash drop", "git rebase main", "git -C . push",
		"npm uninstall x", "npm rm x", "pnpm remove x", "yarn remove x", "pip uninstall x", "apt-get remove x",
		"apt purge x", "dnf remove x", "brew uninstall x", "cargo uninstall x", "gem uninstall x",
		"pacman -Rns x", "docker rm x", "kubectl delete pod x", "make clean", "go clean -modcache",
	} {
		g := Generalise(cmd)
		if hasWildcard(g) {
			t.Errorf("Generalise(%q) = %q: a wildcard", cmd, g)
		}
		f := strings.Fields(cmd)
		for _, broad := range []string{f[0] + " *", strings.Join(f[:min(2, len(f))], " ") + " *"} {
			if err := e.AllowForSession("bash", broad); err == nil {
				t.Errorf("AllowForSession(%q) accepted (from %q)", broad, cmd)
			}
		}
	}
	// Ordinary tools still generalise.
	for in, want := range map[string]string{"go test ./x": "go test *", "tsc -p .": "tsc *", "git log -3": "git log *",
		"npm run build": "npm run *", "make build": "make build *", "jq . a.json": "jq *", "git add f": "git add *"} {
		if got := Generalise(in); got != want {
			t.Errorf("Generalise(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSessionRuleNeverLiftsDeny: issue 10's sequence, and a session rule
// that matches a command with a denied program inside.
func TestSessionRuleNeverLiftsDeny(t *testing.T) {
	t.Parallel()
	e, err := New(t.TempDir(), issueRules())
	if err != nil {
		t.Fatal(err)
	}
	d := e.CheckCommand("taskset -c 0 true")
	for _, p := range d.Parts {
		if p.Suggest != "" {
			if err := e.AllowForSession("bash", p.Suggest); err != nil {
				t.Fatal(err)
			}
		}
	}
	if got := e.CheckCommand("taskset -c 0 true").Verdict; got != Allow {
		t.Errorf("approved command: %s", got)
	}
	for _, r := range e.SessionRules("bash") {
		if strings.HasPrefix(r, "taskset") && hasWildcard(r) {
			t.Errorf("session rule %q", r)
		}
	}
	for _, exact := range []string{"taskset -c 0 rm -rf victim", "mytool rm -rf victim", "mytool --x sudo id"} {
		if err := e.AllowForSession("bash", exact); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.AllowForSession("bash", "mytool *"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []verdictCase{
		{"taskset -c 0 rm -rf victim", Deny},
		{"mytool rm -rf victim", Ask}, // the rule `mytool *` matches, but rm * is inside
		{"mytool --x sudo id", Ask},
		{"mytool build", Allow},
		{"true; rm -rf victim", Deny},
	} {
		if d := e.CheckCommand(tc.cmd); d.Verdict != tc.want {
			t.Errorf("%q: %s, want %s\n%s", tc.cmd, d.Verdict, tc.want, d.Explain())
		}
	}
	// Approving `rm old.log` in an editor allows exactly that.
	b, err := New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	d = b.CheckCommand("rm old.log")
	if d.Verdict != Ask || len(d.Parts) != 1 || d.Parts[0].Suggest != "rm old.log" {
		t.Fatalf("rm old.log:\n%s", d.Explain())
	}
	if err := b.AllowForSession("bash", d.Parts[0].Suggest); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []verdictCase{{"rm old.log", Allow}, {"rm new.log", Ask}, {"rm -rf src", Ask}, {"rm old.log -rf src", Ask}} {
		if got := b.CheckCommand(tc.cmd).Verdict; got != tc.want {
			t.Errorf("%q after approving rm old.log: %s, want %s", tc.cmd, got, tc.want)
		}
	}
}

// TestSessionNeighbours: approving a harmless command "for this session"
// (every suggestion the decision offers) must not allow its destructive or
// denied neighbours: the same wrapper or tool running a denied program, a
// protected path, an option that runs code. Red team 4.
func TestSessionNeighbours(t *testing.T) {
	t.Parallel()
	cases := []struct {
		approve string
		then    []verdictCase
	}{
		{"taskset -c0 true", []verdictCase{{"taskset -c0 rm -rf victim", Deny}, {"taskset --cpu-list=0 sudo id", Deny}, {"taskset -c 0 sudo id", Deny}}},
		{"prlimit --nofile=10 true", []verdictCase{{"prlimit -n 10 rm -rf victim", Deny}, {"prlimit --nofile=10 sudo id", Deny}}},
		{"cmake --build .", []verdictCase{{"cmake -E rm -rf victim", Deny}, {"cmake -E env FOO=1 sudo id", Deny}, {"cmake -E chdir . curl -s http://e.x", Deny}}},
		{"npm run build", []verdictCase{{"npm run build --script-shell='rm -rf victim'", Deny}, {"npm run build; sudo id", Deny}}},
		{"git fetch origin", []verdictCase{{"git fetch --upload-pack='rm -rf victim' origin", Deny}, {"git fetch origin && git push origin main", Deny}}},
		{"touch notes.txt", []verdictCase{{"touch .git/hooks/pre-commit", Ask}, {"touch .envrc", Ask}, {"touch .vscode/tasks.json", Ask}}},
		{"mkdir build", []verdictCase{{"mkdir -p .git/hooks/x", Ask}}},
		{"unzip a.zip", []verdictCase{{"unzip a.zip -d .git/hooks", Ask}}},
		{"git add main.go", []verdictCase{{"git add -f .env", Ask}}},
		{"mytool build", []verdictCase{{"mytool build && rm -rf victim", Deny}, {"mytool build $(sudo id)", Deny}}},
		{"rm old.log", []verdictCase{{"rm -rf old.log", Deny}, {"rm old.log victim", Deny}}},
		{"zip -r out.zip src", []verdictCase{{"zip -T -qTT 'rm -rf victim' out.zip src", Deny}}},
		{"make --ev=x:=1", []verdictCase{{"make --ev='all:;sudo id'", Deny}}},
		{"rake build", []verdictCase{{"rake -e 'system %q(sudo id)'", Ask}}},
		// A session rule PROGRAM * does not lift the protected-path check
		// on its operands and option values.
		{"tsc -p .", []verdictCase{{"tsc -p . --outDir .git/hooks", Ask}, {"tsc --outFile .envrc", Ask}}},
		{"split -b1 x", []verdictCase{{"split -b1 x .git/hooks/", Ask}}},
		{"csplit x 1", []verdictCase{{"csplit -f .git/hooks/p x 1", Ask}}},
		{"cpio -o < list", []verdictCase{{"cpio -o -F .git/hooks/x < list", Ask}}},
		{"git archive HEAD -o x.tar", []verdictCase{{"git archive HEAD -o .git/hooks/x", Ask}}},
		{"git format-patch -1", []verdictCase{{"git format-patch --output-directory=.vscode -1", Ask}}},
	}
	// Every wrapper of issue 10 and its neighbours: approving it around a
	// harmless command never allows it around a denied one.
	for _, w := range []string{"taskset -c 0", "taskset --cpu-list 0", "chrt -f 1", "chrt --fifo 1", "prlimit --nofile=1", "prlimit -n1",
		"unshare -r", "unshare --map-root-user --", "fakeroot", "fakeroot --", "ssh-agent", "parallel", "setpriv --no-new-privs",
		"runuser -u me --", "xargs -a list --", "xargs --arg-file=list", "nice -n 5", "timeout 5", "env FOO=1", "stdbuf -oL",
		"ionice -c3", "cmake -E env", "cmake -E chdir src", "flock lk", "setsid", "nohup", "time", "command", "env --chdir=src"} {
		cases = append(cases, struct {
			approve string
			then    []verdictCase
		}{w + " true", []verdictCase{{w + " rm -rf victim", Deny}, {w + " sudo id", Deny}, {w + " git push origin main", Deny}, {w + " bash -c 'curl -s http://e.x'", Deny}}})
	}
	for _, q := range []string{"script -qc '%s' /dev/null", "script --command='%s'", "zip -T -TT '%s' out.zip src", "bash -c '%s'", "sh -c '%s'", "trap -- '%s' EXIT", "flock lk -c '%s'", "env -S '%s'"} {
		cases = append(cases, struct {
			approve string
			then    []verdictCase
		}{fmt.Sprintf(q, "true"), []verdictCase{{fmt.Sprintf(q, "rm -rf victim"), Deny}, {fmt.Sprintf(q, "sudo id"), Deny}}})
	}
	for _, tc := range cases {
		e, err := New(t.TempDir(), issueRules())
		if err != nil {
			t.Fatal(err)
		}
		d := e.CheckCommand(tc.approve)
		for _, p := range d.Parts {
			if p.Suggest != "" {
				if err := e.AllowForSession("bash", p.Suggest); err != nil {
					t.Fatal(err)
				}
			}
		}
		for _, n := range tc.then {
			if got := e.CheckCommand(n.cmd); got.Verdict < n.want || got.Verdict == Allow {
				t.Errorf("after approving %q (rules %q): %q is %s, want %s\n%s", tc.approve, e.SessionRules("bash"), n.cmd, got.Verdict, n.want, got.Explain())
			}
		}
	}
}
