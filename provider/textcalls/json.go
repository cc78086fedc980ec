package textcalls

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// callsFromJSON reads one call object or an array of them:
//
//	{"name": N, "arguments": A}   (Hermes, Qwen, Mistral)
//	{"name": N, "parameters": A}  (Llama 3.1)
//	{"type": "function", "function": {"name": N, "arguments": A}}
//
// A may be an object or a JSON string holding one. ok is false when the
// value is not shaped like calls (an answer that happens to be JSON).
func callsFromJSON(raw []byte) ([]rawCall, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '[' {
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil || len(items) == 0 {
			return nil, false
		}
		var out []rawCall
		for _, it := range items {
			c, ok := callFromObject(it)
			if !ok {
				return nil, false
			}
			out = append(out, c)
		}
		return out, true
	}
	c, ok := callFromObject(raw)
	if !ok {
		return nil, false
	}
	return []rawCall{c}, true
}

func callFromObject(raw []byte) (rawCall, bool) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return rawCall{}, false
	}
	if fn, ok := obj["function"]; ok && len(obj["name"]) == 0 {
		if t := string(obj["type"]); t != "" && t != `"function"` {
			return rawCall{}, false
		}
		return callFromObject(fn)
	}
	var name string
	if json.Unmarshal(obj["name"], &name) != nil || name == "" {
		return rawCall{}, false
	}
	args, hasArgs := obj["arguments"]
	if !hasArgs {
		args, hasArgs = obj["parameters"]
	}
	// An object with a name and other keys is data, not a call ({"name":
	// "Ada", "age": 36}); a call has arguments (or nothing but name/type).
	// With arguments, other keys mark data only where no marker says
	// "call" (rawCall.extra): a tool's definition shown as JSON has a
	// "description" and a schema for "parameters".
	extra := false
	for k := range obj {
		switch k {
		case "name", "arguments", "parameters", "type", "id", "index", "call_id", "tool_call_id":
		default:
			if !hasArgs {
				return rawCall{}, false
			}
			extra = true
		}
	}
	text := string(bytes.TrimSpace(args))
	if len(text) > 0 && text[0] == '"' {
		var s string
		if json.Unmarshal(args, &s) != nil {
			return rawCall{}, false
		}
		text = s
	}
	return rawCall{name: name, argsText: text, extra: extra, noArgs: !hasArgs}, true
}

// looksLikeCall says whether text that does not parse was meant as a call
// object: it names a function and its arguments.
func looksLikeCall(s string) bool {
	return strings.Contains(s, `"name"`) && (strings.Contains(s, `"arguments"`) || strings.Contains(s, `"parameters"`))
}

// readJSONValues reads consecutive JSON values separated by whitespace or
// ';' (Llama 3.1 writes several calls that way). It fails on anything
// else, and says how.
func readJSONValues(s string) ([]json.RawMessage, error) {
	vals, rest, err := readJSONPrefix(s)
	if err == nil && rest != "" {
		err = fmt.Errorf("the JSON does not parse (text %q after it); is it cut short?", clipText(rest))
	}
	return vals, err
}

// readJSONPrefix reads consecutive JSON values like readJSONValues and
// returns the text after them, once that text does not start a JSON
// object or array: the prose a model writes after the calls that follow
// a dedicated marker ([TOOL_CALLS] [...] I will now ...).
func readJSONPrefix(s string) (vals []json.RawMessage, rest string, err error) {
	for {
		s = strings.TrimLeft(s, " \t\r\n;")
		if s == "" || len(vals) > 0 && s[0] != '{' && s[0] != '[' {
			return vals, s, nil
		}
		dec := json.NewDecoder(strings.NewReader(s))
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, "", fmt.Errorf("the JSON does not parse (%v); is it cut short?", err)
		}
		vals = append(vals, v)
		s = s[dec.InputOffset():]
	}
}

func clipText(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// parseBareJSON: the whole reply is a call object or an array of them
// (qwen2.5-coder on Ollama, ollama/ollama#12174).
func parseBareJSON(text string) (envelope, bool) {
	s := strings.TrimSpace(text)
	if s == "" || s[0] != '{' && s[0] != '[' {
		return envelope{}, false
	}
	if !json.Valid([]byte(s)) {
		if looksLikeCall(s) && (strings.HasPrefix(s, "{") || strings.HasPrefix(s, "[{")) {
			vals, rest, err := readJSONPrefix(s)
			switch {
			case err != nil:
			case rest != "":
				if _, isCall := callsFromJSON(vals[0]); isCall && len(vals) == 1 {
					// A complete call, then prose: not run (the reply is
					// not only the call), but the model is told why.
					return envelope{broken: fmt.Sprintf("the reply starts with a tool call in JSON but has text after it (%q); send the call alone, or use the tool-calling format", clipText(rest))}, true
				}
				err = fmt.Errorf("the JSON does not parse (text %q after it)", clipText(rest))
			default:
				err = fmt.Errorf("more than one JSON value")
			}
			return envelope{broken: "the reply looks like a tool call in JSON, but " + err.Error()}, true
		}
		return envelope{}, false
	}
	calls, ok := callsFromJSON([]byte(s))
	if !ok {
		return envelope{}, false
	}
	return envelope{calls: calls}, true
}

// maxIntent bounds the sentence of intent allowed before a fenced call
// ("I'll read the file first."): a longer text is an answer with an example.
const maxIntent = 300

// parseFencedJSON: the reply is a single ```json (or bare ```) block
// holding a call, alone or after a short sentence of intent.
func parseFencedJSON(text string) (envelope, bool) {
	s := strings.TrimSpace(text)
	open := strings.Index(s, "```")
	if open < 0 || open > maxIntent {
		return envelope{}, false
	}
	prose := s[:open]
	rest := s[open+3:]
	nl := strings.IndexByte(rest, '\n')
	if nl < 0 {
		return envelope{}, false
	}
	if lang := strings.ToLower(strings.TrimSpace(rest[:nl])); lang != "" && lang != "json" {
		return envelope{}, false
	}
	body := rest[nl+1:]
	end := strings.LastIndex(body, "```")
	if end < 0 {
		if looksLikeCall(body) {
			return envelope{prose: prose, broken: "the ```json block is not closed; is the call cut short?"}, true
		}
		return envelope{}, false
	}
	if strings.TrimSpace(body[end+3:]) != "" || strings.Contains(body[:end], "\n```") {
		return envelope{}, false // text after the block, or several blocks: an answer
	}
	body = body[:end]
	if !json.Valid([]byte(body)) {
		if looksLikeCall(body) {
			_, err := readJSONValues(body)
			if err == nil {
				err = fmt.Errorf("holds more than one JSON value")
			}
			return envelope{prose: prose, broken: "the ```json block looks like a tool call, but " + err.Error()}, true
		}
		return envelope{}, false
	}
	calls, ok := callsFromJSON([]byte(body))
	if !ok {
		return envelope{}, false
	}
	return envelope{calls: calls, prose: prose}, true
}
