package acp

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/agent-lsp/agent-lsp/agent"
)

// maxEmbeddedBytes caps the text of one embedded resource in a prompt.
const maxEmbeddedBytes = 256 << 10

// claimPrompt checks a session/prompt and marks its session running, on
// the read loop, so that a session/cancel sent right after it applies to
// this run. The returned function runs the prompt.
func (s *Server) claimPrompt(r *request) (func() (any, error), error) {
	var p promptParams
	if err := decode(r, &p); err != nil {
		return nil, err
	}
	se, err := s.lookup(r.Method, p.SessionID)
	if err != nil {
		return nil, err
	}
	text, err := promptText(se.root, p.Prompt)
	if err != nil {
		return nil, err
	}
	se.mu.Lock()
	defer se.mu.Unlock()
	if se.running {
		return nil, errorf(CodeInvalidRequest, "session %s is already running a prompt; cancel it with session/cancel first", se.id)
	}
	ctx, cancel := context.WithCancel(r.Ctx)
	se.running, se.cancel, se.cancelled = true, cancel, false
	return func() (any, error) {
		defer func() {
			cancel()
			se.mu.Lock()
			se.running, se.cancel = false, nil
			se.mu.Unlock()
		}()
		return s.runPrompt(ctx, se, text)
	}, nil
}

// runPrompt runs the agent and maps its ending to a stop reason.
func (s *Server) runPrompt(ctx context.Context, se *session, text string) (any, error) {
	se.ws.takeEdits() // nothing from an earlier run
	u := newUpdater(s.c, se.id, se.root, se.ws, se.h.AgentConfig.Context.EffectiveWindow())
	res := se.h.Agent.Run(ctx, se.as, text, u.observe)
	se.mu.Lock()
	cancelled := se.cancelled
	se.mu.Unlock()
	if cancelled || ctx.Err() != nil {
		res.Reason = agent.EndAborted
	}
	u.finish("Stopped: the run was cancelled before this call finished.")
	stop, note, err := stopReason(res)
	if note != "" {
		u.note(note)
	}
	if err != nil {
		return nil, err
	}
	out := promptResult{StopReason: stop}
	if in, o := res.Usage.InputTokens, res.Usage.OutputTokens; in+o > 0 {
		out.Usage = &turnUsage{TotalTokens: in + o, InputTokens: in, OutputTokens: o}
		if c := res.Usage.CachedInputTokens; c > 0 {
			out.Usage.CachedRead = &c
		}
	}
	return out, nil
}

// stopReason maps an ending to the response: a stop reason, a note shown
// to the user as a last message chunk, or a JSON-RPC error.
//
//	end_turn                 → end_turn
//	max_tokens               → max_tokens (+ note)
//	max_turns, max_tool_calls → max_turn_requests (+ note)
//	refusal                  → refusal (+ note)
//	aborted                  → cancelled
//	repeated_failure, empty_response → end_turn, the reason as a note
//	error                    → JSON-RPC error -32603 with the reason
//	                           (data.reason "error"): the model server
//	                           failed, which the client shows as an error
func stopReason(res agent.Result) (stop, note string, err error) {
	why := res.Error
	switch res.Reason {
	case agent.EndTurn:
		return StopEndTurn, "", nil
	case agent.EndMaxTokens:
		return StopMaxTokens, why, nil
	case agent.EndMaxTurns, agent.EndMaxToolCalls:
		return StopMaxRequests, why, nil
	case agent.EndRefusal:
		return StopRefusal, why, nil
	case agent.EndAborted:
		return StopCancelled, "", nil
	case agent.EndRepeatedFailure, agent.EndEmptyResponse:
		if why == "" {
			why = string(res.Reason)
		}
		return StopEndTurn, "stopped (" + string(res.Reason) + "): " + why, nil
	}
	if why == "" {
		why = "the run failed"
	}
	return "", "", &Error{Code: CodeInternalError, Message: "agent-lsp: " + why, Data: map[string]string{"reason": string(res.Reason)}}
}

// promptText is the user message a prompt's content blocks make: text as
// is, resource links as mentions with their paths, embedded resources as
// context with their paths and text.
func promptText(root string, blocks []contentBlock) (string, error) {
	var b strings.Builder
	var ctxs strings.Builder
	for i, c := range blocks {
		switch c.Type {
		case "text":
			b.WriteString(c.Text)
		case "resource_link":
			fmt.Fprintf(&b, "@%s", displayPath(root, c.URI, c.Name))
		case "resource":
			if c.Resource == nil {
				return "", errorf(CodeInvalidParams, "session/prompt: prompt[%d] (resource) has no resource", i)
			}
			p := displayPath(root, c.Resource.URI, "")
			fmt.Fprintf(&b, "@%s", p)
			if c.Resource.Text == nil {
				fmt.Fprintf(&ctxs, "\n\n%s is binary (%s); it is not included.", p, c.Resource.MimeType)
				continue
			}
			text := *c.Resource.Text
			if len(text) > maxEmbeddedBytes {
				text = text[:maxEmbeddedBytes] + "\n[… cut: read the rest with read_file]"
			}
			fmt.Fprintf(&ctxs, "\n\nContext from %s (as the editor has it):\n```\n%s\n```", p, strings.TrimRight(text, "\n"))
		case "image", "audio":
			return "", errorf(CodeInvalidParams, "session/prompt: %s content is not supported (promptCapabilities.%s is false)", c.Type, c.Type)
		default:
			return "", errorf(CodeInvalidParams, "session/prompt: prompt[%d] has unknown type %q", i, c.Type)
		}
	}
	text := b.String() + ctxs.String()
	if strings.TrimSpace(text) == "" {
		return "", errorf(CodeInvalidParams, "session/prompt: the prompt is empty")
	}
	return text, nil
}

// displayPath is a resource's path relative to root when it is a file
// inside it, else its URI.
func displayPath(root, uri, name string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		if uri == "" {
			return name
		}
		return uri
	}
	p := filepath.Clean(u.Path)
	if rel, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return p
}
