package openai

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/provider"
)

func TestOpenAIRetryAfterThenSuccess(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	p := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.Header().Set("Retry-After", "7")
			w.WriteHeader(http.StatusTooManyRequests)
			io.WriteString(w, `{"error":{"message":"slow down"}}`)
			return
		}
		io.WriteString(w, sse(`{"choices":[{"delta":{"content":"hi"},"finish_reason":"stop"}]}`))
	}, Config{})
	var mu sync.Mutex
	var waits []time.Duration
	p.transport.sleep = func(ctx context.Context, d time.Duration) error {
		mu.Lock()
		waits = append(waits, d)
		mu.Unlock()
		return nil
	}
	end := mustEnd(t, collect(t, p))
	if end.Message.Content != "hi" || calls.Load() != 2 {
		t.Fatalf("content %q after %d attempts", end.Message.Content, calls.Load())
	}
	if len(waits) != 1 || waits[0] != 7*time.Second {
		t.Fatalf("waited %v, want the server's Retry-After [7s]", waits)
	}
}

func TestOpenAIRetryAfterRealWait(t *testing.T) {
	t.Parallel()
	var first time.Time
	var gap atomic.Int64
	var calls atomic.Int32
	p := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			first = time.Now()
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		gap.Store(int64(time.Since(first)))
		io.WriteString(w, sse(`{"choices":[{"delta":{"content":"hi"},"finish_reason":"stop"}]}`))
	}, Config{})
	mustEnd(t, collect(t, p))
	// A lower bound only: the retry must not come before the server allowed.
	if calls.Load() != 2 || time.Duration(gap.Load()) < time.Second {
		t.Fatalf("%d attempts, second after %v; want 2, ≥1s", calls.Load(), time.Duration(gap.Load()))
	}
}

func TestRetryAfterParse(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, c := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"3", 3 * time.Second, true},
		{"0", 0, true},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second, true},
		{now.Add(-time.Hour).Format(http.TimeFormat), 0, true},
		{"soon", 0, false},
		{"", 0, false},
	} {
		got, ok := retryAfter(c.in, now)
		if got != c.want || ok != c.ok {
			t.Errorf("retryAfter(%q) = %v, %v; want %v, %v", c.in, got, ok, c.want, c.ok)
		}
	}
	tr := &transport{baseDelay: time.Second}
	resp := &http.Response{Header: http.Header{"Retry-After": {"86400"}}}
	if d, ok := tr.backoff(0, resp); ok || d != 24*time.Hour {
		t.Errorf("a day-long Retry-After gives %v, %v; want no retry", d, ok)
	}
	for attempt := range 8 {
		d, _ := tr.backoff(attempt, nil)
		hi := min(time.Second<<attempt, maxBackoff)
		if d < hi/2 || d > hi {
			t.Errorf("backoff(%d) = %v, want in [%v, %v]", attempt, d, hi/2, hi)
		}
	}
}

func TestOpenAI500ThenSuccess(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	p := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			http.Error(w, "boom", http.StatusInternalServerError)
			return
		}
		io.WriteString(w, sse(`{"choices":[{"delta":{"content":"ok"},"finish_reason":"stop"}]}`))
	}, Config{})
	if end := mustEnd(t, collect(t, p)); end.Message.Content != "ok" || calls.Load() != 2 {
		t.Fatalf("content %q after %d attempts", end.Message.Content, calls.Load())
	}
}

func TestOpenAI503Exhausted(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	p := serve(t, func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, `{"error":{"message":"model is loading","type":"server_error"}}`)
	}, Config{MaxRetries: 2})
	r := collect(t, p)
	var pe *provider.Error
	if !errors.As(r.err, &pe) || !errors.Is(r.err, provider.ErrProvider) || pe.StatusCode != 503 {
		t.Fatalf("err = %v, want a 503 provider.Error", r.err)
	}
	if calls.Load() != 3 {
		t.Errorf("%d attempts, want 3 (1 + MaxRetries 2)", calls.Load())
	}
	for _, want := range []string{"model is loading", "after 3 attempts", "503", pe.BaseURL} {
		if !strings.Contains(r.err.Error(), want) {
			t.Errorf("%q does not mention %q", r.err, want)
		}
	}
}

func TestOpenAIClosedBeforeResponseRetried(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	p := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			conn, _, err := http.NewResponseController(w).Hijack()
			if err != nil {
				t.Error(err)
				return
			}
			conn.Close() // no status line at all
			return
		}
		io.WriteString(w, sse(`{"choices":[{"delta":{"content":"ok"},"finish_reason":"stop"}]}`))
	}, Config{})
	if end := mustEnd(t, collect(t, p)); end.Message.Content != "ok" || calls.Load() != 2 {
		t.Fatalf("content %q after %d attempts", end.Message.Content, calls.Load())
	}
}

func TestOpenAIRetryAfterTooLong(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	p := serve(t, func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Retry-After", "3600")
		w.WriteHeader(http.StatusTooManyRequests)
		io.WriteString(w, `{"error":{"message":"daily quota exceeded"}}`)
	}, Config{})
	r := collect(t, p)
	if !errors.Is(r.err, provider.ErrProvider) || calls.Load() != 1 {
		t.Fatalf("err = %v after %d attempts; want a 429 error at once", r.err, calls.Load())
	}
	for _, want := range []string{"rate limiting", "daily quota exceeded", "wait 1h0m0s"} {
		if !strings.Contains(r.err.Error(), want) {
			t.Errorf("%q does not mention %q", r.err, want)
		}
	}
}

// TestSentOnceTheRequestIsWritten: Request.Sent runs once the server can
// read the whole request, before its answer, once across retries, and
// never for a request that could not be sent.
func TestSentOnceTheRequestIsWritten(t *testing.T) {
	t.Parallel()
	var sent, calls atomic.Int32
	var sentBeforeAnswer atomic.Bool
	p := serve(t, func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body)
		if calls.Add(1) == 1 {
			http.Error(w, "boom", http.StatusInternalServerError)
			return
		}
		// The client's trace runs after its write returns, which may be
		// after the server has the bytes: give it a moment.
		for range 1000 {
			if sent.Load() > 0 {
				sentBeforeAnswer.Store(true)
				break
			}
			time.Sleep(time.Millisecond)
		}
		io.WriteString(w, sse(`{"choices":[{"delta":{"content":"ok"},"finish_reason":"stop"}]}`))
	}, Config{})
	req := provider.Request{Messages: []provider.Message{{Role: provider.RoleUser, Content: "hi"}}, Sent: func() { sent.Add(1) }}
	if r := collectReq(t, context.Background(), p, req); r.err != nil || r.text != "ok" {
		t.Fatalf("text %q, err %v", r.text, r.err)
	}
	if calls.Load() != 2 || sent.Load() != 1 || !sentBeforeAnswer.Load() {
		t.Errorf("%d attempts, Sent called %d times (before the answer: %v); want 2 attempts and Sent once, before the answer", calls.Load(), sent.Load(), sentBeforeAnswer.Load())
	}

	// Nothing listens: the request is never written.
	refused := New(Config{BaseURL: "http://127.0.0.1:1/v1", Model: "m", MaxRetries: 1, RetryBaseDelay: time.Millisecond})
	var never atomic.Int32
	if _, err := refused.Stream(context.Background(), provider.Request{Messages: req.Messages, Sent: func() { never.Add(1) }}); err == nil || never.Load() != 0 {
		t.Errorf("refused connection: err %v, Sent called %d times", err, never.Load())
	}
}
