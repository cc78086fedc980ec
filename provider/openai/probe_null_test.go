package openai

import "testing"

// TestWindowCacheHoldingNull: a cache file holding null is an empty
// cache, which the next probe writes to (json.Unmarshal makes the map
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
