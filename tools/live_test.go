package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestBashLiveOutput: a call whose context carries a sink sees the
// command's output while it runs, redacted, and all of it by the time the
// call returns; a call without one runs as before.
func TestBashLiveOutput(t *testing.T) {
	t.Parallel()
	e := newBashEnv(t, BashOptions{Redactor: NewRedactor("sk-live-0123456789")})
	if err := os.WriteFile(filepath.Join(e.ws, "leak.txt"), []byte("key=sk-live-0123456789\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var chunks []string
	ctx := WithLiveOutput(context.Background(), func(s string) {
		mu.Lock()
		chunks = append(chunks, s)
		mu.Unlock()
	})
	raw, _ := json.Marshal(map[string]any{"command": "echo one; cat leak.txt; printf 'no newline'"})
	r := e.d.Dispatch(ctx, Call{ID: "c1", Name: "bash", Arguments: string(raw)})
	mu.Lock()
	live := strings.Join(chunks, "")
	mu.Unlock()
	if live != "one\nkey=[REDACTED]\nno newline" {
		t.Fatalf("live output %q (chunks %q)", live, chunks)
	}
	if strings.Contains(r.Text, "sk-live") || !strings.Contains(r.Text, "no newline") {
		t.Fatalf("result %q", r.Text)
	}
}

// TestLiveWriterLongLine: a line longer than the hold-back limit goes out
// in pieces that keep a secret on the boundary redacted and keep runes
// whole.
func TestLiveWriterLongLine(t *testing.T) {
	t.Parallel()
	secret := "sk-live-0123456789"
	var got strings.Builder
	w := &liveWriter{sink: func(s string) { got.WriteString(s) }, red: NewRedactor(secret)}
	line := strings.Repeat("é", liveMaxLine/2-4) + secret + strings.Repeat("x", 100)
	for i := 0; i < len(line); i += 100 {
		w.Write([]byte(line[i:min(i+100, len(line))]))
	}
	w.flush()
	if strings.Contains(got.String(), secret) || !strings.Contains(got.String(), "[REDACTED]") {
		t.Fatalf("secret not redacted across pieces")
	}
	if !strings.HasPrefix(got.String(), strings.Repeat("é", 100)) || !strings.HasSuffix(got.String(), "xxx") {
		t.Fatalf("text changed")
	}
}
