package textcalls

import (
	"fmt"
	"strings"

	textpkg "github.com/agent-lsp/agent-lsp/internal/text"
)

var asciiDeepSeek = strings.NewReplacer(
	"<|tool▁calls▁begin|>", dsCallsBegin, "<|tool▁calls▁end|>", dsCallsEnd,
	"<|tool▁call▁begin|>", dsCallBegin, "<|tool▁call▁end|>", dsCallEnd, "<|tool▁sep|>", dsSep)

// parseDeepSeek reads DeepSeek V3/R1 markers (google/adk-python#5654):
//
//	<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME
//	```json
//	{...}
//	```<｜tool▁call▁end｜><｜tool▁calls▁end｜>
//
// and V3.1's <｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{...}<｜tool▁call▁end｜>.
func parseDeepSeek(text string) (envelope, bool) {
	text = asciiDeepSeek.Replace(text)
	start := strings.Index(text, dsCallsBegin)
	if start < 0 {
		start = strings.Index(text, dsCallBegin)
	}
	if start < 0 {
		return envelope{}, false
	}
	env := envelope{prose: text[:start]}
	body := strings.TrimPrefix(text[start:], dsCallsBegin)
	if i := strings.Index(body, dsCallsEnd); i >= 0 {
		env.prose += body[i+len(dsCallsEnd):]
		body = body[:i]
	}
	for {
		body = strings.TrimSpace(body)
		if body == "" {
			break
		}
		if !strings.HasPrefix(body, dsCallBegin) {
			env.broken = fmt.Sprintf("unexpected text %q between the tool-call markers", textpkg.Clip(body, 40))
			return env, true
		}
		body = body[len(dsCallBegin):]
		end := strings.Index(body, dsCallEnd)
		if end < 0 {
			env.broken = "a <｜tool▁call▁begin｜> is not closed by <｜tool▁call▁end｜>; is the call cut short?"
			return env, true
		}
		one := body[:end]
		body = body[end+len(dsCallEnd):]
		kind, rest, ok := strings.Cut(one, dsSep)
		if !ok {
			env.broken = "a DeepSeek tool call has no <｜tool▁sep｜>"
			return env, true
		}
		var name, args string
		if strings.TrimSpace(kind) == "function" {
			name, args, _ = strings.Cut(rest, "\n")
		} else {
			name, args = kind, rest
		}
		env.calls = append(env.calls, rawCall{name: name, argsText: unfence(args)})
	}
	if len(env.calls) == 0 {
		env.broken = "the tool-call markers hold no call"
	}
	return env, true
}

// unfence returns the body of a ```json fence, or s when there is none.
// It closes at the last fence, so arguments holding fences stay whole.
func unfence(s string) string {
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, "```") {
		return t
	}
	t = t[3:]
	if nl := strings.IndexByte(t, '\n'); nl >= 0 {
		t = t[nl+1:]
	}
	if i := strings.LastIndex(t, "```"); i >= 0 {
		t = t[:i]
	}
	return strings.TrimSpace(t)
}
