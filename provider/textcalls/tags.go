package textcalls

import (
	"encoding/json"
	"fmt"
	"strings"

	textpkg "github.com/agent-lsp/agent-lsp/internal/text"
)

// The special tokens of the marker families. DeepSeek's use U+FF5C (full
// width bar) and U+2581; some servers print them with ASCII bars.
const (
	dsCallsBegin = "<｜tool▁calls▁begin｜>"
	dsCallsEnd   = "<｜tool▁calls▁end｜>"
	dsCallBegin  = "<｜tool▁call▁begin｜>"
	dsCallEnd    = "<｜tool▁call▁end｜>"
	dsSep        = "<｜tool▁sep｜>"
	mistralCalls = "[TOOL_CALLS]"
	mistralArgs  = "[ARGS]"
	mistralID    = "[CALL_ID]"
	pythonTag    = "<|python_tag|>"
	toolCallOpen = "<tool_call>"
	toolCallEnd  = "</tool_call>"
	functionOpen = "<function="
	functionEnd  = "</function>"
)

// parseMistral reads [TOOL_CALLS] [{"name":..,"arguments":..}] (tokenizer
// v3, vllm-project/vllm#10333) and [TOOL_CALLS]NAME[ARGS]{..} with an
// optional [CALL_ID]id (v11+, vllm-project/vllm#44596), repeated.
func parseMistral(text string) (envelope, bool) {
	start := -1
	for from := 0; ; {
		i := strings.Index(text[from:], mistralCalls)
		if i < 0 {
			return envelope{}, false
		}
		if mistralCallStarts(text[from+i+len(mistralCalls):]) {
			start = from + i
			break
		}
		from += i + len(mistralCalls) // a mention in prose
	}
	env := envelope{prose: text[:start]}
	rest := strings.TrimSuffix(strings.TrimSpace(text[start+len(mistralCalls):]), "</s>")
	rest = strings.TrimSpace(rest)
	if strings.HasPrefix(rest, "[") || strings.HasPrefix(rest, "{") {
		vals, after, err := readJSONPrefix(rest)
		if err != nil {
			env.broken = "after [TOOL_CALLS], " + err.Error()
			return env, true
		}
		env.prose += "\n" + after
		for _, v := range vals {
			calls, ok := callsFromJSON(v)
			if !ok {
				env.broken = "after [TOOL_CALLS], the JSON is not a list of {\"name\", \"arguments\"} objects"
				return env, true
			}
			env.calls = append(env.calls, calls...)
		}
		return env, true
	}
	for rest != "" {
		i := strings.Index(rest, mistralArgs)
		if i < 0 {
			env.broken = "[TOOL_CALLS] is not followed by NAME[ARGS]{...}"
			return env, true
		}
		name := rest[:i]
		if j := strings.Index(name, mistralID); j >= 0 {
			name = name[:j]
		}
		dec := json.NewDecoder(strings.NewReader(rest[i+len(mistralArgs):]))
		var args json.RawMessage
		if err := dec.Decode(&args); err != nil {
			env.broken = fmt.Sprintf("the [ARGS] of %s do not parse as JSON (%v); is the call cut short?", strings.TrimSpace(name), err)
			return env, true
		}
		env.calls = append(env.calls, rawCall{name: name, argsText: string(args)})
		rest = strings.TrimSpace(rest[i+len(mistralArgs)+int(dec.InputOffset()):])
		next, more := strings.CutPrefix(rest, mistralCalls)
		if !more && !strings.Contains(rest, mistralArgs) {
			env.prose += "\n" + rest // prose after the calls, as in v3
			break
		}
		rest = strings.TrimSpace(next)
	}
	return env, true
}

// mistralCallStarts says whether the text after [TOOL_CALLS] may begin a
// call: JSON, or NAME then [ARGS] or [CALL_ID] (or nothing: cut short).
// "Mistral emits [TOOL_CALLS] before its calls" mentions the marker.
func mistralCallStarts(rest string) bool {
	t := strings.TrimLeft(rest, " \t\r\n")
	if t == "" || t[0] == '[' || t[0] == '{' {
		return true
	}
	i := 0
	for i < len(t) && (t[i] == '_' || t[i] == '-' || t[i] == '.' || t[i] >= 'a' && t[i] <= 'z' || t[i] >= 'A' && t[i] <= 'Z' || t[i] >= '0' && t[i] <= '9') {
		i++
	}
	after := strings.TrimLeft(t[i:], " \t")
	return i > 0 && (after == "" || after == "</s>" || strings.HasPrefix(after, mistralArgs) || strings.HasPrefix(after, mistralID))
}

// parsePythonTag reads Llama 3.1's <|python_tag|>{"name": .., "parameters":
// ..}<|eom_id|> (several separated by ';'), or its built-in tool form
// <|python_tag|>brave_search.call(query="...").
func parsePythonTag(text string) (envelope, bool) {
	start := strings.Index(text, pythonTag)
	if start < 0 || !pythonTagStarts(text[start+len(pythonTag):]) {
		return envelope{}, false
	}
	env := envelope{prose: text[:start]}
	rest := text[start+len(pythonTag):]
	for _, stop := range []string{"<|eom_id|>", "<|eot_id|>"} {
		if i := strings.Index(rest, stop); i >= 0 {
			env.prose += rest[i+len(stop):]
			rest = rest[:i]
		}
	}
	rest = unfence(rest)
	if strings.HasPrefix(rest, "{") || strings.HasPrefix(rest, "[") {
		vals, err := readJSONValues(rest)
		if err != nil {
			env.broken = "after <|python_tag|>, " + err.Error()
			return env, true
		}
		for _, v := range vals {
			calls, ok := callsFromJSON(v)
			if !ok {
				env.broken = "after <|python_tag|>, the JSON is not a {\"name\", \"parameters\"} call"
				return env, true
			}
			env.calls = append(env.calls, calls...)
		}
		return env, true
	}
	calls, err := parsePyCalls(rest, "\n;")
	if err != nil {
		env.broken = "after <|python_tag|>, " + err.Error()
		return env, true
	}
	for i := range calls {
		calls[i].name = strings.TrimSuffix(calls[i].name, ".call")
	}
	env.calls = calls
	return env, true
}

// pythonTagStarts says whether the text after <|python_tag|> may begin a
// call: JSON, or NAME( / NAME.call( (or nothing: cut short).
func pythonTagStarts(rest string) bool {
	t := strings.TrimLeft(rest, " \t\r\n")
	if startsCall(t, "{", "[", "```") {
		return true
	}
	p := &pyParser{s: t}
	name := p.ident()
	p.skip("")
	return name != "" && !p.done() && p.s[p.i] == '('
}

// parseToolCallTags reads Hermes/Qwen <tool_call>{json}</tool_call>, one
// or several, and Qwen3-Coder's <tool_call><function=..>..</tool_call>.
func parseToolCallTags(text string) (envelope, bool) {
	if !strings.Contains(text, toolCallOpen) {
		return envelope{}, false
	}
	if inner, ok := strings.CutPrefix(strings.TrimSpace(text), toolCallOpen); ok {
		if body, ok := strings.CutSuffix(inner, toolCallEnd); ok && strings.TrimSpace(body) == "" {
			// The whole reply is an empty pair: a call the model left out.
			return envelope{broken: "the <tool_call> tag holds no call"}, true
		}
	}
	var env envelope
	rest := text
	seen := false
	for {
		i := strings.Index(rest, toolCallOpen)
		if i < 0 {
			env.prose += rest
			break
		}
		env.prose += rest[:i]
		rest = rest[i+len(toolCallOpen):]
		if !startsCall(rest, "{", "[", functionOpen, "```") {
			// A mention of the tag in prose ("Qwen writes <tool_call>
			// tags"), not an envelope.
			env.prose += toolCallOpen
			continue
		}
		seen = true
		end := strings.Index(rest, toolCallEnd)
		if end < 0 {
			env.broken = "a <tool_call> tag is not closed by </tool_call>; is the call cut short?"
			return env, true
		}
		body := unfence(rest[:end])
		if t := strings.TrimSpace(rest); strings.HasPrefix(t, "{") && !json.Valid([]byte(body)) {
			// The JSON may hold "</tool_call>" in a string: read the
			// value itself and look for the closing tag after it.
			dec := json.NewDecoder(strings.NewReader(t))
			var v json.RawMessage
			if dec.Decode(&v) == nil {
				if after := strings.TrimLeft(t[dec.InputOffset():], " \t\r\n"); strings.HasPrefix(after, toolCallEnd) {
					body, end = string(v), len(rest)-len(after)
				}
			}
		}
		rest = rest[end+len(toolCallEnd):]
		if strings.HasPrefix(body, functionOpen) {
			env.family = "Qwen3-Coder <tool_call><function=NAME>"
			fe, _ := parseFunctionTags(body)
			if fe.broken != "" {
				env.broken = fe.broken
				return env, true
			}
			env.calls = append(env.calls, fe.calls...)
			continue
		}
		// One object, an array, or several objects in one tag.
		vals, err := readJSONValues(body)
		if err != nil {
			env.broken = fmt.Sprintf("the JSON inside <tool_call> does not parse: %s", textpkg.Clip(body, 80))
			return env, true
		}
		for _, v := range vals {
			calls, ok := callsFromJSON(v)
			if !ok {
				env.broken = `the JSON inside <tool_call> is not {"name": ..., "arguments": {...}}`
				return env, true
			}
			env.calls = append(env.calls, calls...)
		}
	}
	return env, seen
}

// startsCall says whether the text after a marker may begin a call: it
// starts with one of prefixes, or is empty (the reply was cut right after
// the marker). Anything else is prose that mentions the marker.
func startsCall(rest string, prefixes ...string) bool {
	t := strings.TrimLeft(rest, " \t\r\n")
	if t == "" {
		return true
	}
	for _, p := range prefixes {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// parseFunctionTags reads <function=NAME>...</function>: Qwen3-Coder's
// <parameter=P>value</parameter> children (its published chat template),
// or a JSON body (Llama 3.1's custom format, meta-llama/llama-models#169).
func parseFunctionTags(text string) (envelope, bool) {
	if !strings.Contains(text, functionOpen) {
		return envelope{}, false
	}
	var env envelope
	rest := text
	for {
		i := strings.Index(rest, functionOpen)
		if i < 0 {
			env.prose += rest
			break
		}
		env.prose += rest[:i]
		rest = rest[i+len(functionOpen):]
		gt := strings.IndexByte(rest, '>')
		if gt < 0 || strings.ContainsAny(rest[:gt], "\n<") {
			env.broken = "a <function=NAME> tag is not closed by '>'"
			return env, true
		}
		name := strings.TrimSpace(rest[:gt])
		rest = rest[gt+1:]
		end := strings.Index(rest, functionEnd)
		if end < 0 {
			env.broken = fmt.Sprintf("<function=%s> is not closed by </function>; is the call cut short?", name)
			return env, true
		}
		body := strings.TrimSpace(rest[:end])
		rest = rest[end+len(functionEnd):]
		if strings.HasPrefix(body, "{") {
			env.calls = append(env.calls, rawCall{name: name, argsText: body})
			continue
		}
		args, raw, problem := parseParameters(body)
		if problem != "" {
			env.broken = fmt.Sprintf("in <function=%s>: %s", name, problem)
			return env, true
		}
		env.calls = append(env.calls, rawCall{name: name, args: args, raw: raw})
	}
	return env, true
}

// parseParameters reads <parameter=P>value</parameter> children. A value
// that parses as JSON (a number, true, a list) is taken as JSON, else as
// text with the newline the template puts around it removed; raw keeps
// the text, for parameters the schema says are strings.
func parseParameters(body string) (args map[string]any, raw map[string]string, problem string) {
	args, raw = map[string]any{}, map[string]string{}
	for {
		body = strings.TrimSpace(body)
		if body == "" {
			return args, raw, ""
		}
		if !strings.HasPrefix(body, "<parameter=") {
			return nil, nil, fmt.Sprintf("unexpected text %q; parameters are written <parameter=NAME>value</parameter>", textpkg.Clip(body, 40))
		}
		body = body[len("<parameter="):]
		gt := strings.IndexByte(body, '>')
		if gt < 0 {
			return nil, nil, "a <parameter=NAME> tag is not closed by '>'"
		}
		name := strings.TrimSpace(body[:gt])
		body = body[gt+1:]
		end := strings.Index(body, "</parameter>")
		if end < 0 {
			return nil, nil, fmt.Sprintf("<parameter=%s> is not closed by </parameter>", name)
		}
		// The template's newlines may come as CRLF (a Windows build, or
		// a model that learned them): "\r\na.go\r\n" is "a.go".
		text := strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(body[:end], "\r"), "\n"), "\n"), "\r")
		body = body[end+len("</parameter>"):]
		raw[name] = text
		var v any
		if t := strings.TrimSpace(text); t != "" && json.Unmarshal([]byte(t), &v) == nil {
			args[name] = v
			continue
		}
		args[name] = text
	}
}
