package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/internal/jsonw/jsonwtest"
)

// sameAsMarshal fails t when appendRecord and json.Marshal disagree on
// rec: in the bytes, or in whether it can be encoded at all.
func sameAsMarshal(t *testing.T, name string, rec Record) {
	t.Helper()
	want, werr := json.Marshal(rec)
	got, gerr := appendRecord([]byte("prefix"), rec)
	if (werr != nil) != (gerr != nil) {
		t.Fatalf("%s: error %v, json.Marshal's %v", name, gerr, werr)
	}
	if werr != nil {
		return
	}
	if !bytes.HasPrefix(got, []byte("prefix")) || !bytes.Equal(got[len("prefix"):], want) {
		t.Fatalf("%s:\n got %s\nwant prefix%s", name, got, want)
	}
}

func TestRecordEncodingMatchesMarshal(t *testing.T) {
	t.Parallel()
	when := time.Date(2026, 12, 2, 16, 5, 1, 123456789, time.UTC)
	usage := Usage{InputTokens: 12, OutputTokens: 3, CachedInputTokens: 8}
	calls := []ToolCall{{ID: "c1", Name: "read_file", Arguments: `{"path":"a.go"}`}, {}}
	cases := map[string]Record{
		"zero":               {},
		"session":            {Type: recSession, Time: when, Version: TranscriptVersion, ID: "20261202-160501-0c8302", Workspace: "/w", Model: "m"},
		"message":            {Type: recMessage, Time: when, Message: &Message{Role: RoleAssistant, Content: "hi", Reasoning: "think", ToolCalls: calls}},
		"tool result":        {Type: recMessage, Time: when, Message: &Message{Role: RoleTool, Content: "out", ToolCallID: "c1", Name: "bash", IsError: true}},
		"empty message":      {Type: recMessage, Time: when, Message: &Message{}},
		"empty calls":        {Type: recMessage, Time: when, Message: &Message{Role: RoleAssistant, ToolCalls: []ToolCall{}}},
		"replace":            {Type: recReplace, Time: when, Messages: []Message{{Role: RoleUser, Content: "a"}, {Role: RoleAssistant, ToolCalls: calls}}},
		"replace, empty":     {Type: recReplace, Time: when, Messages: []Message{}},
		"stubs":              {Type: recStubs, Time: when, Stubs: map[string]string{"z": "last", "a": "first", "m\u2028": "<&>", "": "empty key"}},
		"stubs, empty":       {Type: recStubs, Time: when, Stubs: map[string]string{}},
		"todos":              {Type: recTodos, Time: when, Todos: []Todo{{Content: "one", Status: TodoPending}, {}}},
		"usage":              {Type: recUsage, Time: when, Usage: &usage},
		"usage, uncached":    {Type: recUsage, Time: when, Usage: &Usage{InputTokens: -1}},
		"end":                {Type: recEnd, Time: when, Result: &Result{Reason: EndTurn, Turns: 2, ToolCalls: 1, Usage: usage, Text: "done", Error: "why", Changes: []FileChange{{Path: "a", From: "b", Kind: "renamed", Added: 1, Removed: 2}, {}}}},
		"end, no changes":    {Type: recEnd, Time: when, Result: &Result{Reason: EndTurn, Changes: []FileChange{}}},
		"end, no journal":    {Type: recEnd, Time: when, Result: &Result{}},
		"spill":              {Type: recSpill, Time: when, CallID: "c1", Path: "/state/spill/c1.txt"},
		"time, local zone":   {Type: recMessage, Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("X", -(3*3600+30*60)))},
		"time, year 10000":   {Type: recMessage, Time: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)},
		"time, zone seconds": {Type: recMessage, Time: time.Date(1900, 1, 1, 0, 0, 0, 0, time.FixedZone("LMT", 3208))},
	}
	for name, rec := range cases {
		sameAsMarshal(t, name, rec)
	}
	for i, s := range jsonwtest.Strings {
		name := fmt.Sprintf("hostile string %d", i)
		sameAsMarshal(t, name, Record{Type: s, Time: when, ID: s, Workspace: s, Model: s, CallID: s, Path: s,
			Message:  &Message{Role: Role(s), Content: s, Reasoning: s, ToolCalls: []ToolCall{{ID: s, Name: s, Arguments: s}}, ToolCallID: s, Name: s},
			Messages: []Message{{Role: Role(s), Content: s}},
			Stubs:    map[string]string{s: s, s + "2": s},
			Todos:    []Todo{{Content: s, Status: s}},
			Result:   &Result{Reason: Ending(s), Text: s, Error: s, Changes: []FileChange{{Path: s, From: s, Kind: s}}},
		})
	}
}

// TestRecordEncodingCoversEveryField fills every field of a Record, and of
// every type inside it, by reflection: a field added to any of them and
// not to appendRecord fails here.
func TestRecordEncodingCoversEveryField(t *testing.T) {
	t.Parallel()
	for seed := range 3 {
		var rec Record
		fill(t, reflect.ValueOf(&rec).Elem(), seed)
		sameAsMarshal(t, fmt.Sprintf("filled, seed %d", seed), rec)
	}
}

// fill sets v, and everything it holds, to values that are not zero
// (seed varies them; seed 0 leaves numbers and booleans zero, for the
// omitempty cases).
func fill(t *testing.T, v reflect.Value, seed int) {
	t.Helper()
	if v.Type() == reflect.TypeFor[time.Time]() {
		v.Set(reflect.ValueOf(time.Date(2026, 12, 2, 16, seed, 1, 500, time.UTC)))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(jsonwtest.Strings[(seed+3)%len(jsonwtest.Strings)])
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(int64(seed * 7))
	case reflect.Bool:
		v.SetBool(seed%2 == 1)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(t, v.Elem(), seed)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		for i := range 2 {
			fill(t, v.Index(i), seed+i)
		}
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		for i := range 3 {
			k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			fill(t, k, seed+i)
			fill(t, e, seed+i+1)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(t, v.Field(i), seed)
			}
		}
	default:
		t.Fatalf("fill: a %s field: teach fill, and appendRecord, about it", v.Type())
	}
}

// FuzzRecordEncoding holds appendRecord to json.Marshal over texts and
// numbers the fuzzer picks.
func FuzzRecordEncoding(f *testing.F) {
	for i, s := range jsonwtest.Strings {
		f.Add(s, i-3, i%2 == 0)
	}
	f.Fuzz(func(t *testing.T, s string, n int, b bool) {
		u := Usage{InputTokens: n, OutputTokens: -n, CachedInputTokens: n / 2}
		sameAsMarshal(t, "fuzzed", Record{Type: s, Time: time.Unix(int64(n), int64(n)).UTC(), Version: n, ID: s, Model: s,
			Message: &Message{Role: Role(s), Content: s, ToolCalls: []ToolCall{{ID: s, Arguments: s}}, IsError: b},
			Stubs:   map[string]string{s: s, "k": s},
			Usage:   &u,
			Result:  &Result{Reason: Ending(s), Turns: n, Usage: u, Text: s, Changes: []FileChange{{Path: s, Added: n}}},
		})
	})
}
