package permission

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadShape(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	user := writeFile(t, dir, "user.toml", `
[model]
name = "x" # owned by another part of the configuration

[permissions.bash]
builtin = false          # drop the built-in lists
default = "ask"
allow = ["ls*", "cat *", "grep *", "git status*", "git diff*", "go test*"]
deny = ["rm *", "sudo *", "curl *", "wget *", "git push*"]
ask = []

[permissions.write_file]
default = "allow"
ask = ["docs/**"]
`)
	cfg, err := Load(user, filepath.Join(dir, "missing.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Sets) != 1 || cfg.Sets[0].Origin != FromUser {
		t.Fatalf("sets = %+v", cfg.Sets)
	}
	b := cfg.Sets[0].Tools["bash"]
	if b.Builtin == nil || *b.Builtin || b.Default != Ask || len(b.Allow) != 6 || len(b.Deny) != 5 {
		t.Errorf("bash rules = %+v", b)
	}
	e, err := New(dir, cfg.Sets...)
	if err != nil {
		t.Fatal(err)
	}
	for cmd, want := range map[string]Verdict{"lsof -i": Allow, "head x": Ask, "rm x": Deny, "git log": Ask} {
		if got := e.CheckCommand(cmd).Verdict; got != want {
			t.Errorf("%q: got %s, want %s", cmd, got, want)
		}
	}
	if got := e.CheckPath("write_file", "docs/a.md", true).Verdict; got != Ask {
		t.Errorf("docs write: got %s", got)
	}
}

func TestLoadUnknownKey(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	user := writeFile(t, dir, "user.toml", "[permissions.bash]\ndefault = \"ask\"\nalow = [\"ls *\"]\n")
	_, err := Load(user, "")
	var ce *ConfigError
	if !errors.As(err, &ce) {
		t.Fatalf("err = %v, want a ConfigError", err)
	}
	if ce.File != user || ce.Line != 3 || ce.Key != "permissions.bash.alow" {
		t.Errorf("got %+v", ce)
	}
	if !strings.Contains(err.Error(), "user.toml:3: permissions.bash.alow: unknown key") {
		t.Errorf("message %q", err)
	}

	ws := writeFile(t, dir, "ws.toml", "# comment\n[permissions]\n[permissions.bsh]\ndeny = [\"rm *\"]\n")
	_, err = Load("", ws)
	if !errors.As(err, &ce) || ce.Line != 3 || ce.Key != "permissions.bsh" {
		t.Errorf("unknown tool: %v", err)
	}
}

func TestLoadBadVerdict(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	user := writeFile(t, dir, "user.toml", "[permissions.bash]\n\ndefault = \"maybe\"\n")
	_, err := Load(user, "")
	var ce *ConfigError
	if !errors.As(err, &ce) {
		t.Fatalf("err = %v", err)
	}
	if ce.File != user || ce.Line != 3 || ce.Key != "permissions.bash.default" || !strings.Contains(ce.Msg, `"maybe"`) {
		t.Errorf("got %+v", ce)
	}
	bad := writeFile(t, dir, "bad.toml", "[permissions.write_file]\ndeny = [\"a/[\"]\n")
	if _, err := Load(bad, ""); err == nil || !strings.Contains(err.Error(), "bad.toml:2: permissions.write_file.deny") {
		t.Errorf("bad glob: %v", err)
	}
}

func TestWorkspaceCannotLoosen(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	user := writeFile(t, dir, "user.toml", `
[permissions.bash]
default = "ask"
deny = ["make deploy*"]
[permissions.write_file]
default = "ask"
`)
	ws := writeFile(t, dir, "ws.toml", `
[permissions.bash]
builtin = false
default = "allow"
allow = ["*", "curl *", "make deploy*"]
deny = ["go generate*"]
[permissions.write_file]
default = "allow"
allow = ["**"]
[permissions.read_file]
default = "deny"
`)
	cfg, err := Load(user, ws)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Notes) != 2 {
		t.Errorf("notes = %q, want two ignored allow lists", cfg.Notes)
	}
	e, err := New(dir, cfg.Sets...)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		cmd  string
		want Verdict
	}{
		{"curl https://example.com", Ask}, // workspace allow ignored
		{"make deploy", Deny},             // user deny kept
		{"go generate ./...", Deny},       // workspace deny applies
		{"sudo ls", Deny},                 // builtin=false in a workspace keeps built-in denials
		{"ls -la", Ask},                   // ...but drops built-in allows (tighter)
		{"some-unknown-tool", Ask},        // workspace default cannot lower ask
	} {
		if got := e.CheckCommand(tc.cmd).Verdict; got != tc.want {
			t.Errorf("%q: got %s, want %s", tc.cmd, got, tc.want)
		}
	}
	if got := e.CheckPath("write_file", "a.go", true).Verdict; got != Ask {
		t.Errorf("write: got %s, want ask (workspace cannot lower the user's default)", got)
	}
	if got := e.CheckPath("read_file", "a.go", false).Verdict; got != Deny {
		t.Errorf("read: got %s, want deny (workspace may raise the default)", got)
	}
}

func TestPrecedenceAnyOrder(t *testing.T) {
	t.Parallel()
	lists := []struct {
		v   Verdict
		pat string
	}{{Allow, "git *"}, {Ask, "git push*"}, {Deny, "git push --force*"}}
	perms := [][]int{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}
	for _, perm := range perms {
		// Each permutation puts the rules into separate rule sets in a
		// different order, and also into one set.
		var sets []RuleSet
		one := ToolRules{Default: Allow}
		for _, i := range perm {
			tr := ToolRules{}
			switch lists[i].v {
			case Allow:
				tr.Allow = []string{lists[i].pat}
				one.Allow = append(one.Allow, lists[i].pat)
			case Ask:
				tr.Ask = []string{lists[i].pat}
				one.Ask = append(one.Ask, lists[i].pat)
			case Deny:
				tr.Deny = []string{lists[i].pat}
				one.Deny = append(one.Deny, lists[i].pat)
			}
			sets = append(sets, RuleSet{Source: lists[i].v.String(), Tools: Permissions{"bash": tr}})
		}
		for _, rs := range [][]RuleSet{sets, {{Source: "one", Tools: Permissions{"bash": one}}}} {
			e, err := New(t.TempDir(), rs...)
			if err != nil {
				t.Fatal(err)
			}
			for cmd, want := range map[string]Verdict{
				"git log":                     Allow,
				"git push origin":             Ask,
				"git push --force origin":     Deny,
				"git log; git push --force x": Deny,
				"git log && git push":         Ask,
			} {
				if got := e.CheckCommand(cmd).Verdict; got != want {
					t.Errorf("order %v: %q got %s, want %s", perm, cmd, got, want)
				}
			}
		}
	}
	if Max(Allow, Deny, Ask) != Deny || Max(Allow, Ask) != Ask || Max() != Undecided || Max(Undecided, Allow) != Allow {
		t.Error("Max")
	}
}
