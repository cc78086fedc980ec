package permission

import (
	"fmt"
	"strings"
)

// MCPTable is the rule table of every MCP tool: `[permissions.mcp]`. Its
// patterns are globs over the full tool name as the model sees it,
// `mcp__SERVER__TOOL`: `*` matches any run of characters (underscores
// included), `\*` a literal star, and the match is anchored at both ends.
// Deny and ask patterns match case-insensitively, allow patterns exactly.
// Nothing is allowed by default: the built-in default is ask.
//
//	[permissions.mcp]
//	allow = ["mcp__github__get_*", "mcp__fs__read_text_file"]
//	deny  = ["mcp__*__delete_*"]
const MCPTable = "mcp"

// MCPPrefix starts the name of every tool that comes from an MCP server.
const MCPPrefix = "mcp__"

func init() {
	// Before any configuration is loaded (see KnownTools).
	KnownTools = append(KnownTools, MCPTable)
}

// IsMCPTool reports whether name is the name of an MCP server's tool.
func IsMCPTool(name string) bool { return strings.HasPrefix(name, MCPPrefix) }

// MCPServerOf returns the SERVER part of `mcp__SERVER__TOOL`, or "" when
// name is not such a name. Server parts never hold "__" (the client
// collapses it), so the first "__" after the prefix ends the server.
func MCPServerOf(name string) string {
	if !IsMCPTool(name) {
		return ""
	}
	server, _, ok := strings.Cut(name[len(MCPPrefix):], "__")
	if !ok || server == "" {
		return ""
	}
	return server
}

// MCPServerRule is the session rule that allows every tool of the server
// name belongs to, `mcp__SERVER__*`, or "" when name is not an MCP tool.
// The guard offers it only as an explicit, separate choice.
func MCPServerRule(name string) string {
	s := MCPServerOf(name)
	if s == "" {
		return ""
	}
	return MCPPrefix + quoteGlob(s) + "__*"
}

// CheckMCP decides a call of the MCP tool name. Deny beats a session
// allow, which beats ask, which beats allow; with no matching rule the
// table's default applies (ask unless the user's file says otherwise). The
// server's own annotations (readOnlyHint, destructiveHint) are not an
// input: a server cannot vouch for itself.
func (e *Engine) CheckMCP(name string) Decision {
	var d Decision
	if !IsMCPTool(name) || MCPServerOf(name) == "" {
		d.add(Part{Text: name, Verdict: Deny, Reason: "not an MCP tool name (mcp__SERVER__TOOL)", Structural: true})
		return d
	}
	if h := hostileText(name); h != "" {
		d.add(Part{Text: name, Verdict: Deny, Reason: h, Structural: true})
		return d
	}
	v, why, _ := e.listVerdict(MCPTable, []string{name}, []string{name}, false, mcpMatch)
	p := Part{Text: name, Verdict: v, Reason: why}
	if v == Ask {
		p.Suggest = quoteGlob(name)
	}
	d.add(p)
	return d
}

// mcpMatch matches a tool-name glob; deny and ask rules fold case, so a
// server cannot dodge `mcp__*__delete_*` with `Delete_Repo`.
func mcpMatch(r rule, name string, strict bool) bool {
	if strict {
		return matchCommand(strings.ToLower(r.pat), strings.ToLower(name))
	}
	return matchCommand(r.pat, name)
}

// checkMCPPattern returns why a `[permissions.mcp]` pattern is unusable,
// or "": it must start with mcp__ (or a star) and hold only the characters
// of tool names and stars.
func checkMCPPattern(p string) string {
	if !strings.HasPrefix(p, MCPPrefix) && !strings.HasPrefix(p, "*") {
		return fmt.Sprintf("pattern %q does not start with %q: MCP rules match full tool names such as mcp__github__get_issue", p, MCPPrefix)
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c == '\\' && i+1 < len(p) && (p[i+1] == '*' || p[i+1] == '\\') {
			i++
			continue
		}
		if !(c == '*' || c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return fmt.Sprintf("pattern %q has %q: MCP tool names hold only letters, digits, '_' and '-', and rules add '*'", p, c)
		}
	}
	return ""
}

// mcpSessionTooBroad returns why pattern may not become a session rule, or
// "": a session rule names one server, either one tool or all of its tools.
func mcpSessionTooBroad(pattern string) string {
	server := MCPServerOf(pattern)
	if server == "" || strings.Contains(server, "*") {
		return "a session rule must name one server: mcp__SERVER__TOOL or mcp__SERVER__*"
	}
	if tool := pattern[len(MCPPrefix)+len(server)+2:]; tool == "" || strings.Contains(strings.TrimSuffix(tool, "*"), "*") {
		return "a session rule allows one tool or every tool of the server (mcp__SERVER__*), nothing in between"
	}
	return ""
}
