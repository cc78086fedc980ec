package lsp

import (
	"slices"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/harness"
)

func TestPlainReasons(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		reason string
		want   []string
	}{
		{"ask   node --test  (no rule matches; built-in default is ask) [allow for session: `node --test *`]",
			[]string{"`node --test` is not in your allow list"}},
		{"allow cd src  (allow rule `cd *` (built-in))\nask   make  (ask rule `make *` (/home/u/.config/agent-lsp/config.toml))",
			[]string{"`make` matches the ask rule `make *` from /home/u/.config/agent-lsp/config.toml"}},
		{"ask: ask rule `main.go` (/ws/.agent-lsp/config.toml)",
			[]string{"it matches the ask rule `main.go` from /ws/.agent-lsp/config.toml"}},
		{"str_replace changes files without naming them", []string{"str_replace changes files without naming them"}},
		{"ask   eval $x  (runs text as code)", []string{"`eval $x`: runs text as code"}},
	} {
		if got := plainReasons(tc.reason); !slices.Equal(got, tc.want) {
			t.Errorf("plainReasons(%q) = %q, want %q", tc.reason, got, tc.want)
		}
	}
}

// TestPromptMessageHasNoJargon: the plain prompt names the command and
// the reason, offers the session rule, and does not show the engine's
// notation.
func TestPromptMessageHasNoJargon(t *testing.T) {
	t.Parallel()
	msg := promptMessage(harness.ApprovalRequest{Tool: "bash", Subject: "node --test",
		Reason:      "ask   node --test  (no rule matches; built-in default is ask) [allow for session: `node --test *`]",
		SessionRule: "node --test *"})
	for _, want := range []string{"wants to run `node --test`", "`node --test` is not in your allow list", "\"Allow for this session\" allows `node --test *`"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	for _, jargon := range []string{"Reason:", "no rule matches", "built-in default", "[allow for session"} {
		if strings.Contains(msg, jargon) {
			t.Errorf("message %q has %q", msg, jargon)
		}
	}
}
