package openai

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/provider"
	"github.com/agent-lsp/agent-lsp/tools"
)

// corpusTools are the tools the recorded text-protocol replies call, with
// schemas that accept those calls (and reject others), plus read_file.
func corpusTools(t testing.TB) []tools.Spec {
	t.Helper()
	str := `{"type":"string"}`
	obj := func(required []string, props map[string]string) json.RawMessage {
		p := map[string]json.RawMessage{}
		for k, v := range props {
			p[k] = json.RawMessage(v)
		}
		b, err := json.Marshal(map[string]any{"type": "object", "properties": p, "required": required, "additionalProperties": false})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	return []tools.Spec{
		{Name: "calculator", Description: "Evaluates an expression.", Parameters: obj([]string{"expr"}, map[string]string{"expr": str})},
		{Name: "get_temperature", Description: "Current temperature.", Parameters: obj([]string{"city"}, map[string]string{"city": str})},
		{Name: "bash", Description: "Runs a command.", Parameters: obj([]string{"command"}, map[string]string{"command": str, "timeout": `{"type":"integer","minimum":1}`})},
		{Name: "trending_songs", Description: "Top songs.", Parameters: obj([]string{"n"}, map[string]string{"n": str, "genre": str})},
		{Name: "get_weather", Description: "Weather.", Parameters: obj([]string{"city"}, map[string]string{"city": str, "unit": `{"type":"string","enum":["celsius","fahrenheit"]}`})},
		{Name: "get_time", Description: "Time.", Parameters: obj([]string{"timezone"}, map[string]string{"timezone": str})},
		{Name: "get_product_name_by_PID", Description: "Product name.", Parameters: obj([]string{"PID"}, map[string]string{"PID": str})},
		{Name: "get_current_weather", Description: "Weather.", Parameters: obj([]string{"city"}, map[string]string{"city": str, "state": str, "unit": str})},
		{Name: "analysis_input", Description: "Analysis.", Parameters: obj([]string{"work_dir_name"}, map[string]string{"work_dir_name": str})},
		{Name: "write", Description: "Writes a file.", Parameters: obj([]string{"content", "filePath"}, map[string]string{"content": str, "filePath": str})},
		{Name: "attempt_completion", Description: "Done.", Parameters: obj([]string{"result"}, map[string]string{"result": str})},
		{Name: "read_file", Description: "Reads a file.", Parameters: obj([]string{"path"}, map[string]string{"path": str})},
	}
}

var modelField = regexp.MustCompile(`model=([^,)]+)`)

// rowModel is the model an INDEX row's server column names: it decides
// whether content may be thinking without an opening tag.
func rowModel(server string) string {
	if m := modelField.FindStringSubmatch(server); m != nil {
		return strings.TrimSpace(m[1])
	}
	return "test-model"
}

// checkTextCalls compares MessageEnd.TextCalls with the row's textcalls
// (the family) and textcalls_problem (a part of the problem) fields.
func checkTextCalls(t *testing.T, w corpusWant, got *provider.TextCalls) {
	t.Helper()
	family, want := w.fields["textcalls"]
	switch {
	case !want && got != nil:
		t.Errorf("text calls %+v, want none", got)
	case !want:
	case got == nil:
		t.Errorf("no text calls, want family %q", family)
	case got.Family != family:
		t.Errorf("text-call family %q, want %q", got.Family, family)
	default:
		problem := w.fields["textcalls_problem"]
		if problem == "" && (got.Problem != "" || got.Recovered != len(w.calls)) {
			t.Errorf("text calls %+v, want %d recovered", got, len(w.calls))
		}
		if problem != "" && (got.Recovered != 0 || !strings.Contains(got.Problem, problem)) {
			t.Errorf("text calls %+v, want a problem saying %q", got, problem)
		}
		if got.Hint == "" {
			t.Error("text calls without a hint for the user")
		}
	}
}
