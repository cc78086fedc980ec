package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
)

// DefineRaw makes a tool whose schema comes as JSON from elsewhere (an MCP
// server) instead of from a Go type. Its calls go through the same steps as
// every other tool's: strict decoding, the schema check with the model's
// wording (unknown fields dropped where the schema forbids them, plain
// integer strings coerced), the library validator, the guard, the deadline
// and the output cap. fn receives the checked arguments as one JSON object.
//
// The schema must be a JSON object schema that resolves; DefineRaw returns
// an error, never panics, for one that does not, since it is not ours. A
// Guard sees Access.Params as *json.RawMessage and Kind read when readOnly,
// else write.
func DefineRaw(name, description string, schema json.RawMessage, readOnly bool, fn func(ctx context.Context, args json.RawMessage) (Result, error)) (*Tool, error) {
	var s jsonschema.Schema
	dec := json.NewDecoder(bytes.NewReader(schema))
	dec.UseNumber()
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("tools: schema of %s: %w", name, err)
	}
	if s.Type != "object" {
		return nil, fmt.Errorf("tools: schema of %s: type is %q, want \"object\"", name, s.Type)
	}
	resolved, err := s.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("tools: resolve schema of %s: %w", name, err)
	}
	raw, err := json.Marshal(&s)
	if err != nil {
		return nil, fmt.Errorf("tools: marshal schema of %s: %w", name, err)
	}
	return &Tool{
		name:        name,
		description: description,
		readOnly:    readOnly,
		schema:      func() *jsonschema.Schema { return &s },
		resolved:    func() *jsonschema.Resolved { return resolved },
		schemaJSON:  func() json.RawMessage { return raw },
		paramsType:  reflect.TypeFor[json.RawMessage](),
		run: func(ctx context.Context, params any) (Result, error) {
			return fn(ctx, *params.(*json.RawMessage))
		},
	}, nil
}
