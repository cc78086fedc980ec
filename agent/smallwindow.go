package agent

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agent-lsp/agent-lsp/internal/text"

	"github.com/agent-lsp/agent-lsp/tools"
)

// SmallWindow is the context window, in tokens, under which a run adapts
// to it: compact tool descriptions (CompactSpecs), and a result cap and a
// pruning threshold scaled to the window (ContextConfig.withDefaults).
// The full tool schemas alone are about 2.7k tokens: most of a 4k window.
const SmallWindow = 16384

// CompactSpecs returns specs with their prose dropped: each description
// cut to its first sentence, and the descriptions inside the parameter
// schemas removed. Names, types, enums and required lists stay, so the
// schemas stay valid and the dispatcher checks calls the same way.
func CompactSpecs(specs []tools.Spec) []tools.Spec {
	out := make([]tools.Spec, len(specs))
	for i, s := range specs {
		out[i] = tools.Spec{Name: s.Name, Description: firstSentence(s.Description), Parameters: s.Parameters, Marshaled: s.Marshaled}
		var schema any
		if json.Unmarshal(s.Parameters, &schema) == nil {
			if b, err := json.Marshal(dropDescriptions(schema)); err == nil {
				out[i].Parameters = b
			}
		}
	}
	return out
}

func firstSentence(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i+1]
	}
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return text.Clip(s, 160)
}

// dropDescriptions removes "description" (and "title", "examples") keys
// from schema objects; a property named "description" stays.
func dropDescriptions(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, sub := range x {
			if k == "properties" {
				if props, ok := sub.(map[string]any); ok {
					for name, p := range props {
						props[name] = dropDescriptions(p)
					}
				}
				continue
			}
			if k == "description" || k == "title" || k == "examples" {
				delete(x, k)
				continue
			}
			x[k] = dropDescriptions(sub)
		}
	case []any:
		for i := range x {
			x[i] = dropDescriptions(x[i])
		}
	}
	return v
}

// fitsAtStart checks, before the first request of a run, that the system
// prompt, the tool schemas and the user's prompt leave room for a reply.
// It returns the message for the user when they do not.
func (r *run) fitsAtStart() string {
	window := r.cc.Window
	if window <= 0 || window >= SmallWindow*4 {
		return ""
	}
	msgs := r.s.Messages()
	var sys, rest int
	for _, m := range msgs {
		if m.Role == RoleSystem {
			sys += MessageTokens(m)
		} else {
			rest += MessageTokens(m)
		}
	}
	schemas := specTokens(r.specs)
	reply := max(r.a.cfg.MaxTokens, min(1024, window/8))
	need := r.a.est.scale(sys + schemas + rest)
	if need+reply <= window {
		return ""
	}
	hint := r.cc.WindowHint
	if hint == "" {
		hint = "use a model server with a larger context window and set context_window to match"
	}
	return fmt.Sprintf("the request does not fit the model's %d-token context window: the system prompt (about %d tokens), the tool schemas (about %d) and the conversation with your prompt (about %d) need about %d tokens, plus about %d for the reply. Shorten the prompt, or %s", window, sys, schemas, rest, need, reply, hint)
}
