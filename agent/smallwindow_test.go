package agent

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agent-lsp/agent-lsp/tools"
)

// TestCompactSpecs: on the real read-only tools, the loop's own and a
// schema with nested objects, the compact specs keep one sentence of
// description, lose the prose inside the schemas (not a property named
// "description"), still resolve, and accept and reject the same calls.
func TestCompactSpecs(t *testing.T) {
	t.Parallel()
	ws, err := tools.NewDiskWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	r := &run{a: &Agent{cfg: Config{Subagent: &SubagentConfig{}}}}
	var specs []tools.Spec
	for _, tool := range append(tools.ReadOnlyTools(ws), newWriteTodos(r), newTask(r)) {
		specs = append(specs, tool.Spec())
	}
	specs = append(specs, tools.Spec{Name: "issue", Description: "Files an issue. It goes to the tracker.\nMore text.", Parameters: json.RawMessage(`{
		"type": "object", "title": "Issue", "description": "An issue.",
		"properties": {
			"description": {"type": "string", "description": "the body"},
			"labels": {"type": "array", "items": {"type": "object", "description": "a label", "properties": {"title": {"type": "string", "description": "its name"}}, "required": ["title"]}}
		},
		"required": ["description"], "additionalProperties": false}`)})
	compact := CompactSpecs(specs)
	if before, after := specTokens(specs), specTokens(compact); after >= before*3/4 {
		t.Errorf("compact specs %d tokens, full %d", after, before)
	}
	for i, c := range compact {
		if c.Name != specs[i].Name || strings.Contains(c.Description, ". ") || strings.Contains(c.Description, "\n") || c.Description == "" {
			t.Errorf("%s: description %q", c.Name, c.Description)
		}
		if strings.Contains(string(c.Parameters), `"description":"`) || strings.Contains(string(c.Parameters), `"title":"`) {
			t.Errorf("%s: prose left in %s", c.Name, c.Parameters)
		}
		var full, small jsonschema.Schema
		if json.Unmarshal(specs[i].Parameters, &full) != nil || json.Unmarshal(c.Parameters, &small) != nil {
			t.Fatalf("%s: schema does not decode: %s", c.Name, c.Parameters)
		}
		if _, err := small.Resolve(nil); err != nil {
			t.Errorf("%s: compact schema does not resolve: %v", c.Name, err)
		}
	}
	issue := compact[len(compact)-1]
	var s jsonschema.Schema
	_ = json.Unmarshal(issue.Parameters, &s)
	rs, _ := s.Resolve(nil)
	if rs.Validate(map[string]any{"description": "x", "labels": []any{map[string]any{"title": "bug"}}}) != nil {
		t.Errorf("a valid call is rejected by %s", issue.Parameters)
	}
	for _, bad := range []map[string]any{{"labels": []any{}}, {"description": "x", "labels": []any{map[string]any{}}}, {"description": "x", "other": 1}} {
		if rs.Validate(bad) == nil {
			t.Errorf("%v passes the compact schema %s", bad, issue.Parameters)
		}
	}
}

// TestSmallWindowCaps: the result cap and the pruning threshold follow
// the window, as docs/local-models.md says.
func TestSmallWindowCaps(t *testing.T) {
	t.Parallel()
	for window, want := range map[int][2]int{2048: {2 << 10, 512}, 4096: {2 << 10, 1024}, 8192: {4 << 10, 2048}, 16384: {8 << 10, 4096}, 32768: {16 << 10, 8192}, 131072: {16 << 10, 16000}} {
		c := ContextConfig{Window: window}.withDefaults()
		if c.MaxResultBytes != want[0] || c.PruneAbove != want[1] {
			t.Errorf("window %d: result cap %d, prune above %d; want %v", window, c.MaxResultBytes, c.PruneAbove, want)
		}
	}
}

// TestObserveCut: the counts the estimator takes as a cut prompt (under
// half the estimate; under 80% and just under a window size), and those it
// takes as calibration.
func TestObserveCut(t *testing.T) {
	t.Parallel()
	req := Request{Messages: []Message{{Role: RoleUser, Content: strings.Repeat("word ", 8000)}}}
	raw := RawTokens(req) // about 10,000
	small := Request{Messages: []Message{{Role: RoleUser, Content: strings.Repeat("word ", 1000)}}}
	cases := []struct {
		name    string
		req     Request
		counted int
		fits    bool
	}{
		{"under half", req, raw * 45 / 100, false},
		{"60%, not a window size", req, raw * 60 / 100, true},
		{"just under 8192, 79%", req, 7900, false},
		{"79%, not near a window size", req, raw*79/100 - 300, true},
		{"exactly 8192, 82%", req, 8192, true},
		{"98%", req, raw * 98 / 100, true},
		{"over the estimate", req, raw * 13 / 10, true},
		{"a small prompt at 30%", small, RawTokens(small) * 3 / 10, true},
	}
	for _, c := range cases {
		var e Estimator
		if got := e.Observe(c.req, c.counted); got != c.fits {
			t.Errorf("%s: Observe(%d of %d) = %v", c.name, c.counted, RawTokens(c.req), got)
		}
		if !c.fits && e.Tokens(c.req) != RawTokens(c.req) {
			t.Errorf("%s: a cut count calibrated the estimator", c.name)
		}
	}
}
