package harness

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agent-lsp/agent-lsp/internal/text"
	"github.com/agent-lsp/agent-lsp/permission"
	"github.com/agent-lsp/agent-lsp/sandbox"
	"github.com/agent-lsp/agent-lsp/tools"
)

// GuardOptions say what a Guard decides with.
type GuardOptions struct {
	// Engine holds the rules; required.
	Engine *permission.Engine
	// Approver answers "ask"; nil refuses, with a hint on how to allow.
	Approver Approver
	// Sandbox reports the status of the sandbox the bash tool runs in; it
	// is called at the first shell command (the probe is lazy). When the
	// sandbox is not confined, or Sandbox is nil, every shell command is
	// at least "ask".
	Sandbox func() sandbox.Status
	// Spill, when set, lets read tools read the files it wrote (full
	// outputs of earlier calls), which live outside the workspace.
	Spill *tools.Spill
	// AskHint tells the user, in a refusal of an "ask" verdict with no
	// approver, how to allow such calls; empty means the default hint.
	AskHint string
	// Log receives one line per decision; nil means slog.Default().
	Log *slog.Logger
	// MCPHint, when set, says what an MCP tool's server claims about it
	// (annotations), for the approval prompt only.
	MCPHint func(tool string) string
}

// DefaultAskHint is the AskHint of a headless run.
const DefaultAskHint = "no one can approve it in this run (rerun with --ask=allow, or add an allow rule to [permissions.TOOL] in your configuration; `agent-lsp policy -- COMMAND` shows which rule decides)"

// Guard is the dispatcher's permission check (tools.Guard) over a
// permission engine:
//  1. allow runs, deny refuses with the reason, ask goes to the Approver;
//  2. without an OS sandbox every shell command is at least ask, and the
//     reason says so;
//  3. approvals are asked one at a time, and a call waiting for its turn
//     is checked again first, since an earlier "allow for this session" may
//     have allowed it;
//  4. "allow for this session" adds the generalised rules shown in the
//     request to the engine; a failed, cancelled or timed-out approval is
//     a refusal.
//
// A refusal is a tool result saying what was blocked and why; it never
// ends the run.
type Guard struct {
	opts GuardOptions
	log  *slog.Logger
	turn chan struct{} // one approval at a time
}

var _ tools.Guard = (*Guard)(nil)

// NewGuard returns a Guard.
func NewGuard(opts GuardOptions) *Guard {
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	if opts.AskHint == "" {
		opts.AskHint = DefaultAskHint
	}
	return &Guard{opts: opts, log: opts.Log, turn: make(chan struct{}, 1)}
}

// sandbox is the status the guard decides with.
func (g *Guard) sandbox() sandbox.Status {
	if g.opts.Sandbox == nil {
		return sandbox.Status{}
	}
	return g.opts.Sandbox()
}

// verdict is the engine's decision for one call, adapted to the guard.
type verdict struct {
	tool    string // the rule table used
	subject string
	wider   string // for an MCP tool: the rule allowing its whole server
	d       permission.Decision
	rules   []string // session rules that would lift the ask; nil if none can
	note    string   // why the guard raised the verdict, if it did
}

// Check implements tools.Guard.
func (g *Guard) Check(ctx context.Context, a tools.Access) tools.Decision {
	if g.opts.Engine == nil {
		return tools.Decision{Reason: "no permission engine is configured"}
	}
	v := g.decide(a)
	if v.d.Verdict == permission.Ask && ctx.Err() == nil {
		// Wait for our turn, then look again: an answer given meanwhile
		// ("allow for this session") may have settled this call too.
		select {
		case g.turn <- struct{}{}:
			defer func() { <-g.turn }()
			v = g.decide(a)
		case <-ctx.Done():
		}
	}
	switch {
	case v.d.Verdict == permission.Allow:
		g.log.Debug("Permission allow", "tool", a.Tool, "subject", v.subject, "reason", v.d.Reason)
		return tools.Decision{Allow: true}
	case v.d.Verdict == permission.Ask:
		return g.ask(ctx, a, v)
	default:
		g.log.Info("Permission deny", "tool", a.Tool, "subject", v.subject, "reason", v.d.Reason)
		return tools.Decision{Reason: "blocked by the permission rules: " + describe(v)}
	}
}

// ask puts an "ask" verdict to the Approver. The caller holds the turn.
func (g *Guard) ask(ctx context.Context, a tools.Access, v verdict) tools.Decision {
	if ctx.Err() != nil {
		return tools.Decision{Reason: "needs approval (" + describe(v) + "), and none came in time"}
	}
	if g.opts.Approver == nil {
		g.log.Info("Permission ask refused: no approver", "tool", a.Tool, "subject", v.subject, "reason", v.d.Reason)
		hint := strings.ReplaceAll(g.opts.AskHint, "[permissions.TOOL]", "[permissions."+v.tool+"]")
		return tools.Decision{Reason: "needs the user's approval (" + describe(v) + "), but " + hint}
	}
	req := ApprovalRequest{Tool: a.Tool, CallID: a.CallID, Subject: v.subject, Reason: reasonText(v), SessionRule: strings.Join(v.rules, "; ")}
	if len(v.rules) > 0 {
		req.ServerRule = v.wider
	}
	ans, err := g.opts.Approver.Approve(ctx, req)
	switch {
	case err != nil:
		g.log.Warn("Approval failed", "tool", a.Tool, "subject", v.subject, "err", err)
		return tools.Decision{Reason: fmt.Sprintf("needs approval (%s), and asking the user failed: %v", describe(v), err)}
	case ctx.Err() != nil:
		return tools.Decision{Reason: "needs approval (" + describe(v) + "), and none came in time"}
	}
	g.log.Info("Permission asked", "tool", a.Tool, "subject", v.subject, "answer", ans.String())
	switch ans {
	case Allow:
		return tools.Decision{Allow: true}
	case AllowForSession, AllowServerForSession:
		if ans == AllowServerForSession && req.ServerRule != "" {
			v.rules = []string{req.ServerRule}
		}
		for _, r := range v.rules {
			if err := g.opts.Engine.AllowForSession(v.tool, r); err != nil {
				g.log.Warn("Session rule refused; allowed this call only", "tool", v.tool, "rule", r, "err", err)
			}
		}
		return tools.Decision{Allow: true}
	default:
		return tools.Decision{Reason: "the user refused it (" + describe(v) + "); do not retry the same call"}
	}
}

// decide runs the engine on the call's command or paths.
func (g *Guard) decide(a tools.Access) verdict {
	e := g.opts.Engine
	var v verdict
	switch {
	case permission.IsMCPTool(a.Tool):
		// An MCP tool is checked by its name alone, whatever its kind;
		// the server's annotations only word the prompt.
		v.tool, v.subject, v.wider = permission.MCPTable, mcpSubject(a), permission.MCPServerRule(a.Tool)
		v.d = e.CheckMCP(a.Tool)
		if g.opts.MCPHint != nil && v.d.Verdict == permission.Ask {
			v.note = g.opts.MCPHint(a.Tool)
		}
	case a.Kind == tools.AccessExec || a.Command != "":
		v.tool, v.subject = "bash", a.Command
		if known(a.Tool) {
			v.tool = a.Tool
		}
		v.d = e.CheckCommand(a.Command)
		if !g.sandbox().Confined() && v.d.Verdict <= permission.Ask {
			// Without a sandbox a session rule would not stop the asking
			// either, so none is offered.
			v.note = "no OS sandbox is available (sandbox: none), so every command needs approval; see `agent-lsp doctor`"
			if v.d.Verdict < permission.Ask {
				v.d.Verdict, v.d.Reason = permission.Ask, v.note
			}
		}
	default:
		v.tool = a.Tool
		write := a.Kind == tools.AccessWrite
		if !known(v.tool) {
			v.tool = map[bool]string{true: "write_file", false: "read_file"}[write]
		}
		v.subject = strings.Join(a.Paths, ", ")
		v.d = permission.Decision{Verdict: permission.Allow, Reason: "no path named"}
		if write && len(a.Paths) == 0 {
			v.d = permission.Decision{Verdict: permission.Ask, Reason: a.Tool + " changes files without naming them"}
		}
		for i, p := range a.Paths {
			var d permission.Decision
			if !write && g.spillFile(p) {
				d.Verdict, d.Reason = permission.Allow, "full output of an earlier call"
				d.Parts = []permission.Part{{Text: p, Verdict: permission.Allow, Reason: d.Reason}}
			} else {
				d = e.CheckPath(v.tool, p, write)
			}
			if i == 0 || d.Verdict > v.d.Verdict {
				v.d.Verdict, v.d.Reason = d.Verdict, d.Reason
			}
			v.d.Parts = append(v.d.Parts, d.Parts...)
		}
	}
	if v.d.Verdict == permission.Ask && (v.note == "" || v.tool == permission.MCPTable) {
		v.rules = sessionRules(v.d)
	}
	return v
}

// spillFile reports whether p is a file the Spill wrote.
func (g *Guard) spillFile(p string) bool {
	return g.opts.Spill != nil && filepath.IsAbs(p) && g.opts.Spill.Owns(filepath.Clean(p))
}

// sessionRules returns the rules that would lift every ask part of d, or nil
// when some part cannot be lifted by a session rule (structural asks).
func sessionRules(d permission.Decision) []string {
	var out []string
	for _, p := range d.Parts {
		if p.Verdict < permission.Ask {
			continue
		}
		if p.Verdict > permission.Ask || p.Structural || p.Suggest == "" {
			return nil
		}
		if !slices.Contains(out, p.Suggest) {
			out = append(out, p.Suggest)
		}
	}
	return out
}

func known(tool string) bool { return slices.Contains(permission.KnownTools, tool) }

// describe is the subject and the reason, for refusals the model reads.
func describe(v verdict) string {
	var parts []string
	for _, p := range v.d.Parts {
		if p.Verdict == v.d.Verdict && p.Verdict > permission.Allow {
			parts = append(parts, fmt.Sprintf("`%s`: %s", text.Clip(p.Text, 200), p.Reason))
		}
	}
	if v.note != "" {
		parts = append([]string{v.note}, parts...)
	}
	if len(parts) == 0 {
		parts = []string{v.d.Reason}
	}
	return strings.Join(parts, "; ")
}

// reasonText is the reason shown to the person approving: every checked
// part, one per line, with its verdict and the rule or check that decided
// it (control, bidi and invisible characters escaped), so that a harmless
// first part cannot hide the rest.
func reasonText(v verdict) string {
	lines := strings.Split(strings.TrimRight(v.d.Explain(), "\n"), "\n")
	if len(lines) > 1 {
		lines = lines[1:]
		for i, l := range lines {
			lines[i] = strings.TrimSpace(l)
		}
	}
	if v.note != "" {
		lines = append([]string{v.note}, lines...)
	}
	return strings.Join(lines, "\n")
}
