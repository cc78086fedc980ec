package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestBuiltinSchemas checks every file and search tool's generated schema
// (schemas_gen.go) against the one inferred from its params type, and that
// a params type without one still gets its schema by inference.
func TestBuiltinSchemas(t *testing.T) {
	ws, _ := newWS(t, nil)
	all := append([]*Tool{NewReadFile(ws), NewGlob(ws), NewGrep(ws), NewBash(BashOptions{})}, EditTools(ws, NewReads())...)
	if len(all) != 6 {
		t.Fatalf("%d tools, want the 6 genschemas lists", len(all))
	}
	for _, tool := range all {
		if err := tool.CheckSchema(); err != nil {
			t.Errorf("%s: %v", tool.Name(), err)
		}
	}

	type plain struct {
		N int `json:"n" jsonschema:"a number" minimum:"1"`
	}
	tool := DefineInferred("plain", "d", true, func(ctx context.Context, p *plain) (Result, error) { return Result{}, nil })
	var s struct {
		Properties map[string]struct {
			Minimum float64 `json:"minimum"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(tool.Spec().Parameters, &s); err != nil || s.Properties["n"].Minimum != 1 {
		t.Errorf("inferred schema %s (%v)", tool.Spec().Parameters, err)
	}
	if err := tool.CheckSchema(); err == nil || !strings.Contains(err.Error(), "go generate") {
		t.Errorf("a type without a generated schema: CheckSchema = %v, want the hint to generate it", err)
	}
	stale := Define("stale", "d", true, func(ctx context.Context, p *staleParams) (Result, error) { return Result{}, nil })
	if got := string(stale.Spec().Parameters); got != (staleParams{}).ToolSchema() {
		t.Errorf("Spec does not use the generated schema: %s", got)
	}
	if err := stale.CheckSchema(); err == nil || !strings.Contains(err.Error(), "stale") {
		t.Errorf("a stale generated schema: CheckSchema = %v", err)
	}
}

type staleParams struct {
	Path string `json:"path"`
}

func (staleParams) ToolSchema() string { return `{"type":"object"}` }
