package tools

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestEditToolSpecs checks what the model sees of the write tools, and
// the Access they give the Guard.
func TestEditToolSpecs(t *testing.T) {
	t.Parallel()
	ws, _ := newWS(t, nil)
	reg := NewRegistry(FileTools(ws, nil, nil)...)
	if got := reg.Names(); !slices.Equal(got, []string{"glob", "grep", "read_file", "str_replace", "write_file"}) {
		t.Fatalf("names %q", got)
	}
	required := map[string][]string{"str_replace": {"path", "old_str", "new_str"}, "write_file": {"path", "content"}}
	for name, want := range required {
		tool, _ := reg.Get(name)
		if tool.ReadOnly() {
			t.Errorf("%s is read-only", name)
		}
		spec := tool.Spec()
		if len(spec.Description) < 100 {
			t.Errorf("%s: description %q", name, spec.Description)
		}
		var schema struct {
			Required   []string                                `json:"required"`
			Properties map[string]struct{ Description string } `json:"properties"`
		}
		if err := json.Unmarshal(spec.Parameters, &schema); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(schema.Required, want) {
			t.Errorf("%s: required %q, want %q", name, schema.Required, want)
		}
		for p, s := range schema.Properties {
			if s.Description == "" {
				t.Errorf("%s.%s has no description", name, p)
			}
		}
	}
	// The Guard sees a write of the path as given.
	var seen []Access
	d := NewDispatcher(reg, WithLogger(quietLogger()), WithGuard(GuardFunc(func(ctx context.Context, a Access) Decision {
		seen = append(seen, a)
		return Decision{Reason: "no writes in this test"}
	})))
	for _, c := range []Call{
		{Name: "write_file", Arguments: `{"path":".git/hooks/pre-commit","content":"x"}`},
		{Name: "str_replace", Arguments: `{"path":".env","old_str":"a","new_str":"b"}`},
		{Name: "str_replace", Arguments: `{"path":"a","old_str":"","new_str":"b"}`}, // invalid: never reaches the guard
	} {
		res := d.Dispatch(context.Background(), c)
		if !res.IsError {
			t.Fatalf("%s ran: %s", c.Name, res.Text)
		}
	}
	if len(seen) != 2 || seen[0].Kind != AccessWrite || !slices.Equal(seen[0].Paths, []string{".git/hooks/pre-commit"}) ||
		seen[1].Kind != AccessWrite || !slices.Equal(seen[1].Paths, []string{".env"}) {
		t.Fatalf("guard saw %+v", seen)
	}
	res := d.Dispatch(context.Background(), Call{Name: "str_replace", Arguments: `{"path":"a","old_str":"x","new_str":"x"}`})
	if !strings.Contains(res.Text, "identical") {
		t.Fatalf("same old and new: %s", res.Text)
	}
}
