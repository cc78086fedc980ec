package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agent-lsp/agent-lsp/internal/text"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// Commands the code actions run.
const (
	cmdFix     = "agent-lsp.fix"
	cmdRewrite = "agent-lsp.rewrite"
	// cmdEdit is the inline edit: the user's instruction on a range
	// (VS Code's Ctrl+I-style command, Neovim's :AgentEdit). It is not
	// offered as a code action: it needs the instruction.
	cmdEdit = "agent-lsp.edit"
)

// DefaultRewriteInstruction is what "Rewrite with agent" asks for unless
// configured (rewriteInstruction).
const DefaultRewriteInstruction = "Rewrite the selected code to be clearer and simpler without changing its behaviour."

// defaultActionTurns bounds a code action's run.
const defaultActionTurns = 8

// codeActionParams reads the part of textDocument/codeAction we act on, with
// the client's diagnostics in our own type (see codeAction).
type codeActionParams struct {
	TextDocument struct {
		URI string `json:"uri"`
	} `json:"textDocument"`
	Range   Range `json:"range"`
	Context struct {
		Diagnostics []Diagnostic `json:"diagnostics"`
	} `json:"context"`
}

// codeAction is protocol.CodeAction with our own Diagnostic: a code
// action carries the client's diagnostic back unchanged, whatever shape
// its code and data have, and protocol's Diagnostic would normalise them.
type codeAction struct {
	Title       string                  `json:"title"`
	Kind        protocol.CodeActionKind `json:"kind"`
	Diagnostics []Diagnostic            `json:"diagnostics,omitempty"`
	Command     *protocol.Command       `json:"command,omitempty"`
}

// actionArgs is the argument of the commands.
type actionArgs struct {
	URI        string      `json:"uri"`
	Range      Range       `json:"range"`
	Diagnostic *Diagnostic `json:"diagnostic,omitempty"`
	// Instruction is what agent-lsp.edit asks for.
	Instruction string `json:"instruction,omitempty"`
}

// codeAction lists the agent's actions; it never calls the model.
func (s *Server) codeAction(_ context.Context, raw json.RawMessage) (any, error) {
	var p codeActionParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	out := []codeAction{}
	diags := p.Context.Diagnostics
	if len(diags) == 0 {
		// Neovim 0.11+ sends each server only its own diagnostics: offer
		// the fix for the ones the client forwarded (agent/diagnostics)
		// on the requested lines.
		diags = s.forwardedOn(p.TextDocument.URI, p.Range)
	}
	for _, d := range diags {
		d := d
		title := "Fix with agent: " + text.OneLine(d.Message, 80)
		out = append(out, codeAction{Title: title, Kind: protocol.CodeActionKindQuickFix, Diagnostics: []Diagnostic{d},
			Command: &protocol.Command{Title: title, Command: cmdFix, Arguments: lspArgs(actionArgs{URI: p.TextDocument.URI, Range: d.Range, Diagnostic: &d})}})
	}
	if p.Range.Start != p.Range.End {
		title := "Rewrite with agent"
		out = append(out, codeAction{Title: title, Kind: protocol.CodeActionKindRefactorRewrite,
			Command: &protocol.Command{Title: title, Command: cmdRewrite, Arguments: lspArgs(actionArgs{URI: p.TextDocument.URI, Range: p.Range})}})
	}
	return out, nil
}

// executeCommand runs a code action's bounded agent run; its edits arrive
// as workspace/applyEdit like any other.
func (s *Server) executeCommand(ctx context.Context, raw json.RawMessage) (any, error) {
	// Our own type: protocol.ExecuteCommandParams holds the arguments as
	// LSPAny (decoded into maps), and each is decoded into actionArgs.
	var p struct {
		Command   string            `json:"command"`
		Arguments []json.RawMessage `json:"arguments"`
	}
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	if p.Command != cmdFix && p.Command != cmdRewrite && p.Command != cmdEdit {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "unknown command %q", p.Command)
	}
	var a actionArgs
	if len(p.Arguments) != 1 || json.Unmarshal(p.Arguments[0], &a) != nil || a.URI == "" {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s takes one argument {uri, range, diagnostic?, instruction?}", p.Command)
	}
	if p.Command == cmdEdit && strings.TrimSpace(a.Instruction) == "" {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s needs an instruction", p.Command)
	}
	path := uriPath(a.URI)
	if path == "" {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "not a file URI: %s", a.URI)
	}
	s.mu.Lock()
	st := s.settings
	s.mu.Unlock()
	lim := runLimits{maxTurns: st.ActionMaxTurns, onlyPath: path}
	if lim.maxTurns <= 0 {
		lim.maxTurns = defaultActionTurns
	}
	if st.ActionAnyFile {
		lim.onlyPath = ""
	}
	r := a.Range
	pp := PromptParams{Range: &r}
	pp.TextDocument = &struct {
		URI string `json:"uri"`
	}{a.URI}
	switch p.Command {
	case cmdFix:
		msg := "the diagnostic"
		if a.Diagnostic != nil {
			msg = fmt.Sprintf("%q", a.Diagnostic.Message)
		}
		pp.Prompt = fmt.Sprintf("Fix %s at line %d of this file with the smallest correct edit.", msg, r.Start.Line+1)
		lim.title, lim.origin = "Fix with agent", "fix"
	case cmdEdit:
		pp.Prompt = strings.TrimSpace(a.Instruction) + "\n\nApply this to the selection and only change the selection."
		lim.title, lim.origin = "Edit: "+text.OneLine(a.Instruction, 60), "edit"
	default:
		instr := st.RewriteInstruction
		if instr == "" {
			instr = DefaultRewriteInstruction
		}
		pp.Prompt = instr + " Only change the selection."
		lim.title, lim.origin = "Rewrite with agent", "rewrite"
	}
	ctx, done := s.detach(ctx)
	defer done()
	return s.prompt(ctx, pp, lim)
}

// lspArgs encodes a command's one argument.
func lspArgs(a actionArgs) []protocol.LSPAny {
	b, _ := json.Marshal(a) // plain strings and numbers: cannot fail
	return []protocol.LSPAny{b}
}

// forwardedOn returns the diagnostics forwarded for uri whose lines meet r.
func (s *Server) forwardedOn(uri string, r Range) []Diagnostic {
	path := uriPath(uri)
	if path == "" {
		return nil
	}
	all, _ := s.diags.get(path)
	var out []Diagnostic
	for _, d := range all {
		if d.Range.Start.Line <= r.End.Line && d.Range.End.Line >= r.Start.Line {
			out = append(out, d)
		}
	}
	return out
}
