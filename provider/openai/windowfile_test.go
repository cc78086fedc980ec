package openai

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

// windowFiles are cache files: what the cache writes, and what a broken,
// old or hand-edited one may hold.
func windowFiles(t testing.TB) [][]byte {
	written, err := json.MarshalIndent(map[string]windowEntry{
		"http://127.0.0.1:11434/v1 qwen3:8b":                       {Tokens: 40960, Probed: time.Date(2026, 12, 4, 1, 2, 3, 456, time.UTC), Source: "ollama /api/show", Server: ServerOllama, Native: 131072, Tools: SupportYes},
		"https://api.example.com/v1 gpt <&> \u2028\"q\"\\ \t\x01é": {NoWindow: true, Probed: time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("", 3600))},
		"": {},
	}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return [][]byte{
		written,
		[]byte(`{}`), []byte(`null`), []byte(` { "a b" : null } `), []byte(`{"k":{"tokens":null,"source":null}}`),
		[]byte(`{"k":{"tokens":1,"tokens":2},"k":{"native":3}}`),
		[]byte(`{"k":{"Tokens":5}}`), []byte(`{"k":{"extra":[1,{"x":2}],"tokens":5}}`),
		[]byte(`{"k":{"tokens":1.0}}`), []byte(`{"k":{"tokens":1e3}}`), []byte(`{"k":{"tokens":01}}`), []byte(`{"k":{"tokens":-0}}`),
		[]byte(`{"k":{"tokens":99999999999999999999}}`), []byte(`{"k":{"tokens":"8"}}`), []byte(`{"k":{"noWindow":"true"}}`),
		[]byte(`{"k":{"probed":"2026-12-04T01:02:03Z"}}`), []byte(`{"k":{"probed":"2026-12-04T01:02:03\u005a"}}`), []byte(`{"k":{"probed":"yesterday"}}`),
		[]byte(`{"\ud83d\ude00":{}}`), []byte(`{"\u00e9\/\b\f\n\r\t":{}}`), []byte("{\"\xff\":{}}"), []byte(`{"a\x":{}}`), []byte("{\"a\nb\":{}}"),
		[]byte(`{"k":{}`), []byte(`{"k":{}}}`), []byte(`{"k":{},}`), []byte(`[]`), []byte(``), []byte(`nul`), []byte(`nullx`), []byte(`{"k":truex}`),
		[]byte(`{"k":{"noWindow":tru}}`), []byte(`{"k" {}}`), []byte(`{"k":{"source":"x" "tools":"y"}}`),
	}
}

// decodeLikeCache is what loadLocked makes of data.
func decodeLikeCache(data []byte, fast bool) map[string]windowEntry {
	m := map[string]windowEntry{}
	if fast {
		if got, ok := readWindows(data); ok {
			m = got
		} else {
			_ = json.Unmarshal(data, &m)
		}
	} else {
		_ = json.Unmarshal(data, &m)
	}
	if m == nil {
		m = map[string]windowEntry{}
	}
	return m
}

// TestReadWindowsMatchesJSON: the cache's own reader takes what the cache
// writes, and for every file, taken or left to encoding/json, the cache
// ends with what encoding/json alone would make of it.
func TestReadWindowsMatchesJSON(t *testing.T) {
	files := windowFiles(t)
	if _, ok := readWindows(files[0]); !ok {
		t.Fatalf("readWindows does not take the file the cache writes:\n%s", files[0])
	}
	for _, f := range files {
		checkWindowsLikeJSON(t, f)
	}
}

func checkWindowsLikeJSON(t *testing.T, data []byte) {
	t.Helper()
	want := map[string]windowEntry{}
	jsonErr := json.Unmarshal(data, &want)
	got, ok := readWindows(data)
	if !ok {
		return // encoding/json decides
	}
	if jsonErr != nil {
		t.Fatalf("readWindows took %q, which json refuses: %v", data, jsonErr)
	}
	if got == nil {
		got = map[string]windowEntry{}
	}
	if want == nil {
		want = map[string]windowEntry{}
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("readWindows(%q) = %+v, json gives %+v", data, got, want)
	}
	if !reflect.DeepEqual(decodeLikeCache(data, true), decodeLikeCache(data, false)) {
		t.Fatalf("the cache reads %q differently with the fast reader", data)
	}
}

func FuzzReadWindows(f *testing.F) {
	for _, d := range windowFiles(f) {
		f.Add(d)
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkWindowsLikeJSON(t, data) })
}
