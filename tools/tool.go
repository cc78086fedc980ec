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
	"unsafe"

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
	generated   bool // the schema is the params type's ToolSchema
	run         func(ctx context.Context, params any) (Result, error)
}

// Define makes a tool from a function over its params type P, whose
// schema genschemas wrote ahead as P's ToolSchema method (run `go generate
// ./tools` after changing P; CheckSchema, run by the tests, proves it
// equal to the one inferred from P). The schema is P's: field names from
// `json` tags, descriptions from `jsonschema` tags; fields without
// omitempty are required. Numeric bounds and allowed values come from
// `minimum:"1"`, `maximum:"100000"` and `enum:"a,b,c"` tags (see
// applyTags). P (or *P) may also implement Validator, for checks a schema
// cannot express, and Accessor, to tell a Guard which paths or command a
// call touches.
// A Go error returned by fn means the harness failed (I/O, cancellation);
// the dispatcher turns it into an error result too.
//
// The constraint, rather than a run-time assertion to an interface, is
// what keeps a fresh process from building P's method table when it
// defines its tools; DefineInferred takes any type.
func Define[P any, PP Generated[P]](name, description string, readOnly bool, fn func(ctx context.Context, p *P) (Result, error)) *Tool {
	sc := generatedSchema[P, PP](name)
	return newTool(name, description, readOnly, sc, fn)
}

// Generated is a params type whose schema genschemas generated.
type Generated[P any] interface {
	*P
	ToolSchema() string
}

// DefineInferred is Define for a params type without a generated schema
// (a test's, a plug-in's): P's schema is inferred when its first tool is
// defined (a bad tag panics there and then) and encoded in the background.
func DefineInferred[P any](name, description string, readOnly bool, fn func(ctx context.Context, p *P) (Result, error)) *Tool {
	sc := inferredSchema(reflect.TypeFor[P](), name)
	return newTool(name, description, readOnly, sc, fn)
}

func newTool[P any](name, description string, readOnly bool, sc *typeSchema, fn func(ctx context.Context, p *P) (Result, error)) *Tool {
	return &Tool{
		name:        name,
		description: description,
		readOnly:    readOnly,
		generated:   sc.generated,
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
	if !t.generated {
		return fmt.Errorf("%s has no generated ToolSchema method: add it to internal/genschemas, run go generate ./tools and define its tool with Define", t.paramsType)
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
// validation needs, is then made at the first call.
type typeSchema struct {
	generated bool
	schema    func() *jsonschema.Schema
	raw       func() json.RawMessage
	resolved  func() *jsonschema.Resolved
}

// schemas caches typeSchema by parameters type: tools are defined again
// for every session and run (write_todos, task), so tools of one type
// share it. Nothing changes a schema once made. (A plain map: a sync.Map
// allocated 18 KB of trie nodes for the dozen types a process defines.)
var (
	schemasMu sync.Mutex
	schemas   = map[reflect.Type]*typeSchema{}
)

func cachedSchema(typ reflect.Type) (*typeSchema, bool) {
	schemasMu.Lock()
	defer schemasMu.Unlock()
	ts, ok := schemas[typ]
	return ts, ok
}

// keepSchema keeps ts as typ's schema unless another goroutine kept one
// first, and returns the one kept.
func keepSchema(typ reflect.Type, ts *typeSchema) *typeSchema {
	schemasMu.Lock()
	defer schemasMu.Unlock()
	if kept, ok := schemas[typ]; ok {
		return kept
	}
	schemas[typ] = ts
	return ts
}

// generatedSchema returns P's schema from its ToolSchema method.
func generatedSchema[P any, PP Generated[P]](name string) *typeSchema {
	typ := reflect.TypeFor[P]()
	if ts, ok := cachedSchema(typ); ok {
		return ts
	}
	var zero P
	s := PP(&zero).ToolSchema()
	// The generated string's bytes as they are: nothing writes a tool's
	// schema, and a copy per tool cost a fresh process a heap page each.
	raw := json.RawMessage(unsafe.Slice(unsafe.StringData(s), len(s)))
	ts := &typeSchema{generated: true, raw: func() json.RawMessage { return raw }}
	ts.schema = sync.OnceValue(func() *jsonschema.Schema { return mustInfer(typ, name) })
	ts.resolved = resolveOnce(ts, name)
	return keepSchema(typ, ts)
}

// inferredSchema returns typ's schema, inferring it on first use.
func inferredSchema(typ reflect.Type, name string) *typeSchema {
	if ts, ok := cachedSchema(typ); ok {
		return ts
	}
	s := mustInfer(typ, name)
	ts := &typeSchema{schema: func() *jsonschema.Schema { return s }}
	ts.raw = sync.OnceValue(func() json.RawMessage {
		raw, err := json.Marshal(s)
		if err != nil {
			panic(fmt.Sprintf("tools: marshal schema for %s: %v", name, err))
		}
		return raw
	})
	ts.resolved = resolveOnce(ts, name)
	if kept := keepSchema(typ, ts); kept != ts {
		return kept
	}
	go func() {
		// A failure panics again, in the caller's goroutine, at Spec.
		defer func() { _ = recover() }()
		ts.raw()
	}()
	return ts
}

func resolveOnce(ts *typeSchema, name string) func() *jsonschema.Resolved {
	return sync.OnceValue(func() *jsonschema.Resolved {
		r, err := ts.schema().Resolve(nil)
		if err != nil {
			panic(fmt.Sprintf("tools: resolve schema for %s: %v", name, err)) // caught by CheckSchema
		}
		return r
	})
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
