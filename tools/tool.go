// Package tools holds the actions the agent can take on a workspace and the
// dispatcher that runs them safely. It knows nothing of LSP or of models:
//  1. a tool is a name, a description the model reads, a JSON Schema made
//     from a Go params type, and a function;
//  2. every failure the model can act on is a Result with IsError set, never
//     a Go error or a panic;
//  3. every path goes through the workspace boundary (boundary.go).
package tools

//go:generate go run ../internal/genschemas ..

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// Result is what a tool call returns to the model.
type Result struct {
	Text    string
	IsError bool
}

// Errorf builds an error Result whose text tells the model what went wrong
// and how to recover.
func Errorf(format string, args ...any) Result {
	return Result{Text: fmt.Sprintf(format, args...), IsError: true}
}

// Call is one tool call as the model wrote it.
type Call struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Spec describes a tool to the model.
type Spec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	// Marshaled says Parameters are encoding/json's output (compact, valid,
	// HTML-escaped), as every Tool's are: an encoder may copy them as they
	// are instead of compacting them again.
	Marshaled bool `json:"-"`
}

// Tool is a named action with a typed, schema-checked parameter struct.
type Tool struct {
	name        string
	description string
	readOnly    bool
	schema      func() *jsonschema.Schema // see typeSchema
	resolved    func() *jsonschema.Resolved
	schemaJSON  func() json.RawMessage
	paramsType  reflect.Type
	run         func(ctx context.Context, params any) (Result, error)
}

// Define makes a tool from a function over its params type P. The schema is
// generated from P: field names from `json` tags, descriptions from
// `jsonschema` tags; fields without omitempty are required. Numeric
// bounds and allowed values come from `minimum:"1"`, `maximum:"100000"`
// and `enum:"a,b,c"` tags (see applyTags). P (or *P) may also implement
// Validator, for checks a schema cannot express, and Accessor, to tell a
// Guard which paths or command a call touches.
// A Go error returned by fn means the harness failed (I/O, cancellation);
// the dispatcher turns it into an error result too.
func Define[P any](name, description string, readOnly bool, fn func(ctx context.Context, p *P) (Result, error)) *Tool {
	sc := schemaOf[P](name)
	return &Tool{
		name:        name,
		description: description,
		readOnly:    readOnly,
		schema:      sc.schema,
		resolved:    sc.resolved,
		schemaJSON:  sc.raw,
		paramsType:  reflect.TypeFor[P](),
		run: func(ctx context.Context, params any) (Result, error) {
			return fn(ctx, params.(*P))
		},
	}
}

// Name is the tool's name as the model calls it.
func (t *Tool) Name() string { return t.name }

// ReadOnly reports whether the tool never changes anything.
func (t *Tool) ReadOnly() bool { return t.readOnly }

// CheckSchema resolves the tool's parameter schema now (it is otherwise
// resolved at the first call) and reports a schema that cannot be, or a
// generated schema (ToolSchema) missing or unequal to the inferred one:
// programming errors in a tool definition, which a test finds this way.
func (t *Tool) CheckSchema() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	t.resolved()
	if t.paramsType == reflect.TypeFor[json.RawMessage]() {
		return nil // DefineRaw: the schema is the JSON it was given
	}
	inferred, err := json.Marshal(t.schema())
	if err != nil {
		return err
	}
	if _, ok := reflect.Zero(t.paramsType).Interface().(precomputed); !ok {
		return fmt.Errorf("%s has no generated ToolSchema method: add it to internal/genschemas and run go generate ./tools", t.paramsType)
	}
	if got := t.schemaJSON(); !bytes.Equal(got, inferred) {
		return fmt.Errorf("the generated schema of %s is stale: run go generate ./tools\ngenerated: %s\ninferred:  %s", t.paramsType, got, inferred)
	}
	return nil
}

// Spec describes the tool to the model.
func (t *Tool) Spec() Spec {
	return Spec{Name: t.name, Description: t.description, Parameters: t.schemaJSON(), Marshaled: true}
}

// Registry is the set of tools a session offers.
type Registry struct {
	tools map[string]*Tool
}

// NewRegistry returns a registry holding the given tools.
func NewRegistry(ts ...*Tool) *Registry {
	r := &Registry{tools: make(map[string]*Tool)}
	for _, t := range ts {
		r.Add(t)
	}
	return r
}

// Add registers a tool, replacing one of the same name.
func (r *Registry) Add(t *Tool) { r.tools[t.name] = t }

// Get returns the tool with that exact name.
func (r *Registry) Get(name string) (*Tool, bool) {
	t, ok := r.tools[name]
	return t, ok
}

// Names returns the tool names, sorted.
func (r *Registry) Names() []string {
	names := make([]string, 0, len(r.tools))
	for n := range r.tools {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Specs returns the specs of every tool, sorted by name so that the
// request prefix stays stable (prompt caches depend on it).
func (r *Registry) Specs() []Spec {
	specs := make([]Spec, 0, len(r.tools))
	for _, n := range r.Names() {
		specs = append(specs, r.tools[n].Spec())
	}
	return specs
}

// applyTags adds the keywords jsonschema.For does not read from struct
// tags: `minimum` and `maximum` (numbers) and `enum` (comma-separated
// strings, or numbers for numeric fields), on struct fields at any depth.
func applyTags(s *jsonschema.Schema, t reflect.Type) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case s == nil:
		return nil
	case t.Kind() == reflect.Slice || t.Kind() == reflect.Array:
		return applyTags(s.Items, t.Elem())
	case t.Kind() == reflect.Map:
		return applyTags(s.AdditionalProperties, t.Elem())
	case t.Kind() != reflect.Struct:
		return nil
	}
	for _, f := range reflect.VisibleFields(t) {
		if !f.IsExported() || f.Anonymous {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		fs := s.Properties[name]
		if fs == nil {
			continue
		}
		for _, key := range []string{"minimum", "maximum"} {
			v, ok := f.Tag.Lookup(key)
			if !ok {
				continue
			}
			x, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return fmt.Errorf("field %s: %s tag %q: %v", f.Name, key, v, err)
			}
			if key == "minimum" {
				fs.Minimum = &x
			} else {
				fs.Maximum = &x
			}
		}
		if v, ok := f.Tag.Lookup("enum"); ok {
			fs.Enum = nil
			for _, e := range strings.Split(v, ",") {
				e = strings.TrimSpace(e)
				switch f.Type.Kind() {
				case reflect.String:
					fs.Enum = append(fs.Enum, e)
				default:
					x, err := strconv.ParseFloat(e, 64)
					if err != nil {
						return fmt.Errorf("field %s: enum tag %q: %v", f.Name, v, err)
					}
					fs.Enum = append(fs.Enum, x)
				}
			}
		}
		if err := applyTags(fs, f.Type); err != nil {
			return err
		}
	}
	return nil
}

// typeSchema is the schema of a parameters type. The JSON the model reads
// comes from the type's ToolSchema method when it has one (generated ahead
// by `go generate ./tools`, see genschemas): inferring a schema by
// reflection and encoding it was most of what a fresh `agent-lsp run`
// spent before its first request. The inferred schema, which only
// validation needs, is then made at the first call. A type without
// ToolSchema is inferred when its first tool is defined (a bad tag panics
// there and then) and encoded in the background from that moment.
type typeSchema struct {
	schema   func() *jsonschema.Schema
	raw      func() json.RawMessage
	resolved func() *jsonschema.Resolved
}

// precomputed is a params type that carries its schema's JSON, as
// genschemas writes it; CheckSchema proves it equal to the inferred one.
type precomputed interface{ ToolSchema() string }

// schemas caches typeSchema by parameters type: tools are defined again
// for every session and run (write_todos, task), so tools of one type
// share it. Nothing changes a schema once made. (A plain map: a sync.Map
// allocated 18 KB of trie nodes for the dozen types a process defines.)
var (
	schemasMu sync.Mutex
	schemas   = map[reflect.Type]*typeSchema{}
)

// schemaOf returns P's schema, making it on first use.
func schemaOf[P any](name string) *typeSchema {
	typ := reflect.TypeFor[P]()
	schemasMu.Lock()
	ts, ok := schemas[typ]
	schemasMu.Unlock()
	if ok {
		return ts
	}
	return newTypeSchema(typ, name, *new(P))
}

// newTypeSchema makes the schema of typ, whose zero value is zero, and
// keeps it unless another goroutine kept one first.
func newTypeSchema(typ reflect.Type, name string, zero any) *typeSchema {
	ts := &typeSchema{}
	pre, havePre := zero.(precomputed)
	if havePre {
		raw := json.RawMessage(pre.ToolSchema())
		ts.raw = func() json.RawMessage { return raw }
		ts.schema = sync.OnceValue(func() *jsonschema.Schema { return mustInfer(typ, name) })
	} else {
		s := mustInfer(typ, name)
		ts.schema = func() *jsonschema.Schema { return s }
		ts.raw = sync.OnceValue(func() json.RawMessage {
			raw, err := json.Marshal(s)
			if err != nil {
				panic(fmt.Sprintf("tools: marshal schema for %s: %v", name, err))
			}
			return raw
		})
	}
	ts.resolved = sync.OnceValue(func() *jsonschema.Resolved {
		r, err := ts.schema().Resolve(nil)
		if err != nil {
			panic(fmt.Sprintf("tools: resolve schema for %s: %v", name, err)) // caught by CheckSchema
		}
		return r
	})
	schemasMu.Lock()
	if kept, ok := schemas[typ]; ok {
		schemasMu.Unlock()
		return kept
	}
	schemas[typ] = ts
	schemasMu.Unlock()
	if !havePre {
		go func() {
			// A failure panics again, in the caller's goroutine, at Spec.
			defer func() { _ = recover() }()
			ts.raw()
		}()
	}
	return ts
}

// mustInfer infers typ's schema; a bad tag is a programming error, which
// CheckSchema finds in the tests.
func mustInfer(typ reflect.Type, name string) *jsonschema.Schema {
	s, err := InferSchema(typ)
	if err != nil {
		panic(fmt.Sprintf("tools: schema for %s: %v", name, err))
	}
	return s
}

// InferSchema makes the schema of a params type from its Go type and
// tags, as Define documents: what genschemas encodes ahead of time.
func InferSchema(typ reflect.Type) (*jsonschema.Schema, error) {
	s, err := jsonschema.ForType(typ, nil)
	if err != nil {
		return nil, err
	}
	if err := applyTags(s, typ); err != nil {
		return nil, fmt.Errorf("tags: %w", err)
	}
	return s, nil
}
