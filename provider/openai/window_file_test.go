package openai

import (
	"encoding/json"
	"testing"
	"time"
)

// windowFiles are cache files, as written and as they could be found:
// every field of every type, unknown fields, keys in other cases,
// repeated keys, entries that are not objects, times that are not times,
// text that is not JSON.
var windowFiles = []string{
	``, `{}`, `[]`, `"x"`, `42`, `true`, `{"a b": {}}`, `{"a`, `{"a":{}} trailing`, `{"a":{},}`,
	`{
  "http://127.0.0.1:11434/v1 qwen3": {
    "tokens": 40960,
    "probed": "2026-12-02T16:05:01.189001468Z",
    "source": "ollama /api/show",
    "server": "ollama",
    "native": 131072,
    "tools": "yes"
  },
  "http://127.0.0.1:8080/v1 m": {"tokens": 0, "probed": "2026-12-01T01:02:03+05:30", "noWindow": true}
}`,
	`{"k": {"tokens": "12", "probed": null, "source": 5, "server": true, "native": 1.5, "tools": ["yes"], "noWindow": "true"}}`,
	`{"k": {"tokens": 1e3, "native": -0, "extra": {"deep": [1, {"x": null}]}, "tokens": 7}}`,
	`{"k": {"TOKENS": 5, "NoWindow": true, "ſource": "long s", "tOoLs": "no", "Probed": "2026-01-01T00:00:00Z"}}`,
	`{"k": {"tokens": 99999999999999999999, "native": -9223372036854775808}}`,
	`{"a": null, "b": 3, "c": "s", "d": [1], "e": {"tokens": 1}}`,
	`{"a": {"tokens": 1}, "a": {"native": 2}}`,
	`{"a": {"tokens": 1}, "b": {"tokens": 2, "probed": "yesterday"}, "c": {"tokens": 3}}`,
	`{"a": {"probed": 5}, "b": {"tokens": 2}}`,
	`{"a": {"probed": {}}}`, `{"a": {"probed": "2026-13-01T00:00:00Z"}}`, `{"a": {"probed": "2026-01-01T24:00:00Z"}}`,
	"{\"bad \xff key\": {\"source\": \"bad \xfe value\"}}",
	`{"\u0061": {"source": "\ud83d\ude00 \u2028"}}`,
}

// sameWindows fails t when decodeWindows and json.Unmarshal read data
// differently.
func sameWindows(t *testing.T, data string) {
	t.Helper()
	got := map[string]windowEntry{}
	decodeWindows([]byte(data), got)
	want := map[string]windowEntry{}
	_ = json.Unmarshal([]byte(data), &want)
	if want == nil { // a file holding null
		if len(got) != 0 {
			t.Fatalf("%q: %v, want nothing", data, got)
		}
		return
	}
	if len(got) != len(want) {
		t.Fatalf("%q:\n got %v\nwant %v", data, got, want)
	}
	for k, w := range want {
		g, ok := got[k]
		if !ok || !g.Probed.Equal(w.Probed) || g.Probed.Location().String() != w.Probed.Location().String() {
			t.Fatalf("%q, %q:\n got %v\nwant %v", data, k, g, w)
		}
		g.Probed, w.Probed = time.Time{}, time.Time{}
		if g != w {
			t.Fatalf("%q, %q:\n got %+v\nwant %+v", data, k, g, w)
		}
	}
}

func TestDecodeWindowsMatchesUnmarshal(t *testing.T) {
	t.Parallel()
	for _, f := range windowFiles {
		sameWindows(t, f)
	}
	sameWindows(t, `null`)
}

// TestWindowCacheHoldingNull: a cache file holding null is an empty
// cache, which the next probe writes to (json.Unmarshal made the map
// nil, and the write panicked).
func TestWindowCacheHoldingNull(t *testing.T) {
	t.Parallel()
	path := t.TempDir() + "/windows.json"
	if err := writeJSON(path, nil); err != nil {
		t.Fatal(err)
	}
	c := &WindowCache{Path: path}
	c.mu.Lock()
	c.loadLocked()
	c.m["k"] = windowEntry{Tokens: 1}
	c.mu.Unlock()
}

// FuzzDecodeWindows holds decodeWindows to json.Unmarshal.
func FuzzDecodeWindows(f *testing.F) {
	for _, s := range windowFiles {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		sameWindows(t, data)
	})
}
