package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/agent-lsp/agent-lsp/tools"
)

// Limits on what a server may hand the model.
const (
	// MaxDescription caps a tool's description (Claude Code cuts at the
	// same length).
	MaxDescription = 2048
	// maxSchemaBytes caps an input schema; a larger one is reduced to its
	// top-level properties.
	maxSchemaBytes = 64 << 10
)

// capDescription cuts d to MaxDescription bytes at a rune boundary.
func capDescription(d string) string {
	d = strings.ToValidUTF8(strings.TrimSpace(d), "\uFFFD")
	if len(d) <= MaxDescription {
		return d
	}
	i := MaxDescription - len("…")
	for i > 0 && !utf8.RuneStart(d[i]) {
		i--
	}
	return d[:i] + "…"
}

// defineTool makes the tools.Tool for one MCP tool. The server's schema
// is offered as it is when it can be; what OpenAI's function format cannot
// carry (a top level that is not a plain object, remote $refs, a schema
// our validator cannot resolve, a huge one) is simplified step by step,
// never dropped: at worst the tool takes any object. The same schema the
// model sees is the one its arguments are checked against. The second
// result says what was simplified, or "".
func defineTool(name, description string, schema any, readOnly bool, fn func(ctx context.Context, args json.RawMessage) (tools.Result, error)) (*tools.Tool, string) {
	raw, _ := json.Marshal(schema)
	m, note := topObject(raw)
	steps := []func(map[string]any) (map[string]any, string){
		func(m map[string]any) (map[string]any, string) { return m, note },
		func(m map[string]any) (map[string]any, string) {
			return shallow(m), "input schema reduced to its top-level properties (it did not resolve)"
		},
		func(map[string]any) (map[string]any, string) {
			return map[string]any{"type": "object"}, "input schema dropped to \"any object\" (it did not resolve)"
		},
	}
	for _, step := range steps {
		s, why := step(m)
		b, err := json.Marshal(s)
		if err != nil {
			continue
		}
		if t, err := tools.DefineRaw(name, description, b, readOnly, fn); err == nil {
			return t, why
		}
	}
	// Unreachable: {"type":"object"} always resolves.
	t, _ := tools.DefineRaw(name, description, json.RawMessage(`{"type":"object"}`), readOnly, fn)
	return t, "input schema dropped"
}

// topObject parses a schema and makes its top level an object schema
// without the keywords OpenAI refuses there (anyOf, oneOf, allOf, enum,
// not), merging the branches' properties. Remote $refs become {}.
func topObject(raw []byte) (map[string]any, string) {
	var notes []string
	var m map[string]any
	if len(raw) > maxSchemaBytes {
		notes = append(notes, "input schema too large")
		if json.Unmarshal(raw, &m) == nil {
			m = shallow(m)
		}
	} else if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return map[string]any{"type": "object"}, "input schema is not a JSON object; the tool takes any object"
	}
	if m == nil {
		return map[string]any{"type": "object"}, strings.Join(notes, "; ")
	}
	delete(m, "$schema")
	delete(m, "$id")
	switch t := m["type"].(type) {
	case nil:
		if len(notes) == 0 && m["properties"] == nil && m["anyOf"] == nil && m["oneOf"] == nil && m["allOf"] == nil {
			notes = append(notes, "input schema had no type; it takes an object")
		}
	case string:
		if t != "object" {
			return map[string]any{"type": "object"}, "input schema is of type " + t + ", not object; the tool takes any object"
		}
	case []any:
		notes = append(notes, "input schema had several types; it takes an object")
	}
	m["type"] = "object"
	for _, kw := range []string{"anyOf", "oneOf", "allOf"} {
		branches, ok := m[kw].([]any)
		delete(m, kw)
		if !ok {
			continue
		}
		notes = append(notes, "top-level "+kw+" merged into one object")
		props, _ := m["properties"].(map[string]any)
		if props == nil {
			props = map[string]any{}
		}
		for _, b := range branches {
			bm, _ := b.(map[string]any)
			bp, _ := bm["properties"].(map[string]any)
			for k, v := range bp {
				if _, ok := props[k]; !ok {
					props[k] = v
				}
			}
			if kw == "allOf" {
				if req, ok := bm["required"].([]any); ok {
					m["required"] = append(asSlice(m["required"]), req...)
				}
			}
		}
		m["properties"] = props
	}
	for _, kw := range []string{"enum", "not", "const"} {
		if _, ok := m[kw]; ok {
			delete(m, kw)
			notes = append(notes, "top-level "+kw+" removed")
		}
	}
	if dropRemoteRefs(m) {
		notes = append(notes, "remote $ref replaced by any value")
	}
	return m, strings.Join(notes, "; ")
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

// dropRemoteRefs replaces every subschema whose $ref does not point into
// the document with {}, in place; it reports whether it did.
func dropRemoteRefs(v any) bool {
	changed := false
	switch x := v.(type) {
	case map[string]any:
		for k, sub := range x {
			if sm, ok := sub.(map[string]any); ok {
				if ref, ok := sm["$ref"].(string); ok && !strings.HasPrefix(ref, "#") {
					x[k] = map[string]any{}
					changed = true
					continue
				}
			}
			changed = dropRemoteRefs(sub) || changed
		}
	case []any:
		for i, sub := range x {
			if sm, ok := sub.(map[string]any); ok {
				if ref, ok := sm["$ref"].(string); ok && !strings.HasPrefix(ref, "#") {
					x[i] = map[string]any{}
					changed = true
					continue
				}
			}
			changed = dropRemoteRefs(sub) || changed
		}
	}
	return changed
}

// shallow keeps the top-level properties with their type, description and
// enum, and the required list: a schema that always resolves.
func shallow(m map[string]any) map[string]any {
	out := map[string]any{"type": "object"}
	props, _ := m["properties"].(map[string]any)
	if len(props) == 0 {
		return out
	}
	keep := map[string]any{}
	for k, v := range props {
		pm, _ := v.(map[string]any)
		p := map[string]any{}
		if t, ok := pm["type"].(string); ok {
			p["type"] = t
		}
		if d, ok := pm["description"].(string); ok {
			p["description"] = capDescription(d)
		}
		if e, ok := pm["enum"].([]any); ok && p["type"] != nil {
			p["enum"] = e
		}
		keep[k] = p
	}
	out["properties"] = keep
	var req []any
	for _, r := range asSlice(m["required"]) {
		if s, ok := r.(string); ok && keep[s] != nil {
			req = append(req, s)
		}
	}
	if len(req) > 0 {
		out["required"] = req
	}
	return out
}
