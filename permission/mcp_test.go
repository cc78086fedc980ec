package permission

import (
	"strings"
	"testing"
)

func TestCheckMCP(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	user := RuleSet{Source: "user", Origin: FromUser, Tools: Permissions{MCPTable: {
		Allow: []string{"mcp__github__get_*", "mcp__fs__read_text_file", "mcp__github__delete_branch"},
		Deny:  []string{"mcp__*__delete_*"},
		Ask:   []string{"mcp__github__get_secret*"},
	}}}
	// A workspace may only tighten: its allow is ignored, its deny counts.
	wsSet := RuleSet{Source: "ws", Origin: FromWorkspace, Tools: Permissions{MCPTable: {
		Allow: []string{"mcp__evil__*"},
		Deny:  []string{"mcp__fs__write_*"},
	}}}
	e, err := New(ws, user, wsSet)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]Verdict{
		"mcp__github__get_issue":      Allow,
		"mcp__github__get_secret_key": Ask,   // ask beats allow
		"mcp__github__delete_branch":  Deny,  // deny beats allow
		"mcp__GitHub__Delete_Repo":    Deny,  // deny folds case
		"mcp__github__Get_issue":      Ask,   // allow does not
		"mcp__fs__read_text_file":     Allow, // exact
		"mcp__fs__read_text_files":    Ask,   // anchored
		"mcp__fs__write_file":         Deny,  // the workspace's deny
		"mcp__evil__anything":         Ask,   // the workspace's allow is ignored
		"mcp__other__tool":            Ask,   // default
		"mcp____tool":                 Deny,  // no server
		"read_file":                   Deny,  // not an MCP name
		"mcp__x__a\u202eb":            Deny,  // hostile
	} {
		d := e.CheckMCP(name)
		if d.Verdict != want {
			t.Errorf("CheckMCP(%q) = %s (%s), want %s", name, d.Verdict, d.Reason, want)
		}
		if d.Verdict == Ask && d.Parts[0].Suggest != name {
			t.Errorf("CheckMCP(%q) suggests %q, want the exact name", name, d.Parts[0].Suggest)
		}
	}
}

func TestMCPDefaultIsAskAndUserMayChangeIt(t *testing.T) {
	t.Parallel()
	e, err := New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if d := e.CheckMCP("mcp__a__b"); d.Verdict != Ask {
		t.Errorf("built-in default = %s, want ask", d.Verdict)
	}
	e, err = New(t.TempDir(),
		RuleSet{Source: "user", Origin: FromUser, Tools: Permissions{MCPTable: {Default: Allow}}},
		RuleSet{Source: "ws", Origin: FromWorkspace, Tools: Permissions{MCPTable: {Default: Ask}}})
	if err != nil {
		t.Fatal(err)
	}
	if d := e.CheckMCP("mcp__a__b"); d.Verdict != Ask {
		t.Errorf("workspace default ask over user allow = %s, want ask", d.Verdict)
	}
}

func TestMCPSessionRules(t *testing.T) {
	t.Parallel()
	e, err := New(t.TempDir(), RuleSet{Source: "user", Origin: FromUser, Tools: Permissions{MCPTable: {Deny: []string{"mcp__fs__delete"}}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"*", "mcp__*", "mcp__*__read", "mcp__fs__", "mcp__fs__re*d", "mcp__fs__read*x*", "read_file", "mcp__f.s__x"} {
		if err := e.AllowForSession(MCPTable, bad); err == nil {
			t.Errorf("AllowForSession(%q) accepted", bad)
		}
	}
	if err := e.AllowForSession(MCPTable, "mcp__fs__read"); err != nil {
		t.Fatal(err)
	}
	if d := e.CheckMCP("mcp__fs__read"); d.Verdict != Allow || !strings.Contains(d.Reason, "session") {
		t.Errorf("after the exact session rule: %s (%s)", d.Verdict, d.Reason)
	}
	if d := e.CheckMCP("mcp__fs__write"); d.Verdict != Ask {
		t.Errorf("another tool of the server: %s, want ask", d.Verdict)
	}
	rule := MCPServerRule("mcp__fs__write")
	if rule != "mcp__fs__*" {
		t.Fatalf("MCPServerRule = %q", rule)
	}
	if err := e.AllowForSession(MCPTable, rule); err != nil {
		t.Fatal(err)
	}
	if d := e.CheckMCP("mcp__fs__write"); d.Verdict != Allow {
		t.Errorf("after the server rule: %s", d.Verdict)
	}
	if d := e.CheckMCP("mcp__fs__delete"); d.Verdict != Deny {
		t.Errorf("a session rule lifted a deny: %s", d.Verdict)
	}
	if d := e.CheckMCP("mcp__fsx__write"); d.Verdict != Ask {
		t.Errorf("the server rule reached another server: %s", d.Verdict)
	}
}

func TestMCPPatternsInConfig(t *testing.T) {
	t.Parallel()
	_, _, err := ParseRuleSet("c.toml", []byte("[permissions.mcp]\nallow = [\"mcp__gh__get_*\"]\ndeny = [\"*__delete_*\"]\n"), FromUser)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{`allow = ["github__get"]`, `deny = ["mcp__a b"]`, `ask = ["mcp__a/b"]`} {
		if _, _, err := ParseRuleSet("c.toml", []byte("[permissions.mcp]\n"+bad+"\n"), FromUser); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

func TestMCPServerOf(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{
		"mcp__fs__read": "fs", "mcp__a-b__c__d": "a-b", "mcp__fs": "", "mcp____x": "", "fs__x": "",
	} {
		if got := MCPServerOf(name); got != want {
			t.Errorf("MCPServerOf(%q) = %q, want %q", name, got, want)
		}
	}
}
