package lsp

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/agent-lsp/agent-lsp/harness"
	"github.com/agent-lsp/agent-lsp/internal/text"
)

// The permission engine explains a verdict part by part, in its own terms
// ("ask   node --test  (no rule matches; built-in default is ask)
// [allow for session: …]"). A person approving a call reads plain words:
// these turn the parts that need approval into sentences. Anything not in
// that shape is kept as it is, so nothing the engine said is lost.
var (
	// Compiled at the first approval, not at every start.
	partLine = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(allow|ask|deny)\s+(.*?)  \((.*)\)(?: \[allow for session: .*\])?$`)
	})
	oneLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(allow|ask|deny): (.*)$`) })
	ruleWhy = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile("^(ask|deny|allow|session) rule (`[^`]*`)(?: \\((.*)\\))?$")
	})
)

// plainReasons says why each part of a call needs approval, one sentence a
// part; allowed parts are left out (the whole command is shown above them).
func plainReasons(reason string) []string {
	var out []string
	for _, line := range strings.Split(reason, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if m := partLine().FindStringSubmatch(line); m != nil {
			if m[1] != "allow" {
				out = append(out, sentence("`"+text.Clip(m[2], 200)+"`", m[3]))
			}
			continue
		}
		if m := oneLine().FindStringSubmatch(line); m != nil {
			if m[1] != "allow" {
				out = append(out, sentence("it", m[2]))
			}
			continue
		}
		out = append(out, line)
	}
	return out
}

// sentence is why, about what, in plain words.
func sentence(what, why string) string {
	switch {
	case strings.HasPrefix(why, "no rule matches"):
		return what + " is not in your allow list"
	case ruleWhy().MatchString(why):
		m := ruleWhy().FindStringSubmatch(why)
		s := fmt.Sprintf("%s matches the %s rule %s", what, m[1], m[2])
		if m[3] != "" {
			s += " from " + m[3]
		}
		return s
	}
	return what + ": " + why
}

// actionWords is what a tool does to its subject, for "wants to …".
func actionWords(tool string) string {
	switch tool {
	case "bash":
		return "run"
	case "write_file", "str_replace", "edit", "multi_edit":
		return "edit"
	case "read_file", "grep", "glob":
		return "read"
	}
	return "use " + tool + " on"
}

// promptMessage is the whole prompt in plain words, for
// window/showMessageRequest and as agent/approve's message.
func promptMessage(req harness.ApprovalRequest) string {
	var b strings.Builder
	subject := text.Clip(req.Subject, 300)
	if req.Tool == "bash" {
		subject = "`" + subject + "`"
	}
	if strings.HasPrefix(req.Tool, "the workspace's MCP server") {
		fmt.Fprintf(&b, "agent-lsp: %s wants to start: %s.", req.Tool, subject)
	} else {
		fmt.Fprintf(&b, "agent-lsp: the agent wants to %s %s.", actionWords(req.Tool), subject)
	}
	for _, r := range plainReasons(req.Reason) {
		b.WriteString("\n" + capitalise(r) + ".")
	}
	if req.SessionRule != "" {
		fmt.Fprintf(&b, "\n%q allows %s until the session ends.", ActionSession, quoteRules(req.SessionRule))
	}
	if req.ServerRule != "" {
		fmt.Fprintf(&b, "\n%q allows %s.", ActionServer, quoteRules(req.ServerRule))
	}
	return b.String()
}

func capitalise(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// quoteRules puts each of "a; b" in backticks.
func quoteRules(rules string) string {
	parts := strings.Split(rules, "; ")
	for i, r := range parts {
		parts[i] = "`" + strings.Trim(r, "`") + "`"
	}
	return strings.Join(parts, ", ")
}
