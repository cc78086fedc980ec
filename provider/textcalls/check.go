package textcalls

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	textpkg "github.com/agent-lsp/agent-lsp/internal/text"
	"github.com/agent-lsp/agent-lsp/provider"
	"github.com/agent-lsp/agent-lsp/tools"
)

// toolset is the request's tools, by name, for checking recovered calls.
type toolset struct {
	specs map[string]tools.Spec
	names []string
}

func newToolset(specs []tools.Spec) *toolset {
	ts := &toolset{specs: make(map[string]tools.Spec, len(specs))}
	for _, s := range specs {
		ts.specs[s.Name] = s
		ts.names = append(ts.names, s.Name)
	}
	sort.Strings(ts.names)
	return ts
}

// canonicalName trims the name and drops the "functions." prefix some
// models copy from OpenAI's own prompt format (as the dispatcher does),
// and the ":0" index of the "functions.NAME:0" ids that harmony and Kimi
// K2 write. Gemini's "default_api." namespace is dropped when no offered
// tool has the name with it.
func (ts *toolset) canonicalName(name string) string {
	name = strings.TrimSpace(name)
	if n, ok := strings.CutPrefix(name, "functions."); ok {
		name = n
		if i := strings.LastIndexByte(n, ':'); i > 0 && i < len(n)-1 && strings.Trim(n[i+1:], "0123456789") == "" {
			name = n[:i]
		}
	}
	if _, ok := ts.specs[name]; !ok {
		name = strings.TrimPrefix(name, "default_api.")
	}
	return name
}

func (ts *toolset) has(name string) bool {
	_, ok := ts.specs[ts.canonicalName(name)]
	return ok
}

func (ts *toolset) namesAny(calls []rawCall) bool {
	for _, c := range calls {
		if ts.has(c.name) {
			return true
		}
	}
	return false
}

// data says whether calls read from JSON without a marker are data that
// happens to name a tool: an object with keys no call has (a tool's
// definition: "description", a schema as "parameters"), or objects with
// no arguments that do not make a valid call ([{"name": "bash"}, {"name":
// "read_file"}], a list of the tools).
func (ts *toolset) data(calls []rawCall) bool {
	allBare, invalid := true, false
	for _, c := range calls {
		if c.extra {
			return true
		}
		allBare = allBare && c.noArgs
		if _, problem := ts.check(c); problem != "" {
			invalid = true
		}
	}
	return allBare && invalid
}

// mentioned says whether text names an offered tool in quotes, as a
// call's "name" would.
func (ts *toolset) mentioned(text string) bool {
	for _, n := range ts.names {
		if strings.Contains(text, `"`+n+`"`) || strings.Contains(text, `"functions.`+n) || strings.Contains(text, `"default_api.`+n+`"`) {
			return true
		}
	}
	return false
}

// check returns the call to run, or a problem in words for the model.
func (ts *toolset) check(c rawCall) (provider.ToolCall, string) {
	name := ts.canonicalName(c.name)
	spec, ok := ts.specs[name]
	if !ok {
		if name == "" {
			return provider.ToolCall{}, "the call names no tool"
		}
		return provider.ToolCall{}, fmt.Sprintf("%q is not a tool you have (tools: %s)", name, strings.Join(ts.names, ", "))
	}
	text := strings.TrimSpace(c.argsText)
	var args any
	switch {
	case c.args != nil:
		stringsWhereWanted(spec.Parameters, c.args, c.raw)
		b, err := json.Marshal(c.args)
		if err != nil {
			return provider.ToolCall{}, fmt.Sprintf("the arguments of %s cannot be encoded as JSON: %v", name, err)
		}
		text = string(b)
		_ = json.Unmarshal(b, &args) // validate the JSON form: int64 becomes a number
	case text == "" || text == "null":
		text, args = "{}", map[string]any{}
	default:
		if err := json.Unmarshal([]byte(text), &args); err != nil {
			return provider.ToolCall{}, fmt.Sprintf("the arguments of %s are not valid JSON (%v); is the call cut short?", name, err)
		}
	}
	if _, isObj := args.(map[string]any); !isObj {
		return provider.ToolCall{}, fmt.Sprintf("the arguments of %s must be a JSON object, not %s", name, textpkg.Clip(text, 60))
	}
	if err := validate(spec.Parameters, args); err != nil {
		return provider.ToolCall{}, fmt.Sprintf("the arguments of %s do not match its schema: %v", name, err)
	}
	return provider.ToolCall{Name: name, Arguments: text}, ""
}

// stringsWhereWanted puts back the written text of parameters whose
// schema type is string but whose text parsed as another JSON value.
func stringsWhereWanted(schema json.RawMessage, args map[string]any, raw map[string]string) {
	var s struct {
		Properties map[string]struct {
			Type any `json:"type"`
		} `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return
	}
	for k, v := range args {
		if _, isString := v.(string); isString {
			continue
		}
		if p, ok := s.Properties[k]; ok && p.Type == "string" {
			if r, ok := raw[k]; ok {
				args[k] = r
			}
		}
	}
}

// validate checks args against a tool's JSON schema with jsonschema-go. A
// schema the library cannot resolve (an MCP server's, say) only requires
// an object: the dispatcher validates again before anything runs.
func validate(schema json.RawMessage, args any) error {
	if len(bytes.TrimSpace(schema)) == 0 || string(schema) == "null" {
		return nil
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		return nil
	}
	return rs.Validate(args)
}
