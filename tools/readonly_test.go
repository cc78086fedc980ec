package tools

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestReadOnlyToolSpecs checks what the model sees: names, descriptions,
// required parameters and a description for every parameter.
func TestReadOnlyToolSpecs(t *testing.T) {
	t.Parallel()
	ws, _ := newWS(t, nil)
	reg := NewRegistry(ReadOnlyTools(ws)...)
	if got := reg.Names(); !slices.Equal(got, []string{"glob", "grep", "read_file"}) {
		t.Fatalf("names %q", got)
	}
	required := map[string][]string{"read_file": {"path"}, "glob": {"pattern"}, "grep": {"pattern"}}
	for _, spec := range reg.Specs() {
		tool, _ := reg.Get(spec.Name)
		if !tool.ReadOnly() {
			t.Errorf("%s is not read-only", spec.Name)
		}
		if len(spec.Description) < 100 || strings.Contains(spec.Description, "TODO") {
			t.Errorf("%s: description %q", spec.Name, spec.Description)
		}
		var schema struct {
			Type       string                                  `json:"type"`
			Required   []string                                `json:"required"`
			Properties map[string]struct{ Description string } `json:"properties"`
		}
		if err := json.Unmarshal(spec.Parameters, &schema); err != nil {
			t.Fatalf("%s: %v", spec.Name, err)
		}
		if schema.Type != "object" || !slices.Equal(schema.Required, required[spec.Name]) {
			t.Errorf("%s: type %q, required %q; want object, %q", spec.Name, schema.Type, schema.Required, required[spec.Name])
		}
		for name, p := range schema.Properties {
			if p.Description == "" {
				t.Errorf("%s.%s has no description", spec.Name, name)
			}
		}
	}
}

// TestCancelled checks that a cancelled call is a harness error (a Go
// error), not a result for the model.
func TestCancelled(t *testing.T) {
	t.Parallel()
	ws, _ := newWS(t, map[string]string{"a.txt": "a\n", "d/b.txt": "b\n"})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	calls := map[string]func() (Result, error){
		"read_file": func() (Result, error) {
			return readFile(ctx, ws, &readFileConfig{reads: NewReads()}, &ReadFileParams{Path: "a.txt"})
		},
		"glob":      func() (Result, error) { return glob(ctx, ws, &GlobParams{Pattern: "**"}) },
		"grep":      func() (Result, error) { return grep(ctx, ws, &GrepParams{Pattern: "a"}) },
		"grep file": func() (Result, error) { return grep(ctx, ws, &GrepParams{Pattern: "a", Path: "a.txt"}) },
	}
	for name, call := range calls {
		if res, err := call(); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: got %v, %+v; want context.Canceled", name, err, res)
		}
	}
}
