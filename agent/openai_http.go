package agent

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"
)

const (
	maxRetryAfter = 60 * time.Second // a longer Retry-After ends the retries
	maxBackoff    = 30 * time.Second
	maxSSELine    = 16 << 20
)

// errIdle cancels a request whose server sent nothing for IdleTimeout.
var errIdle = errors.New("idle timeout")

// wireProbe is what the transport learns about one reply that go-openai
// does not tell: the attempts made (all requests of one Stream share the
// retry budget), the stream bytes received, and whether the stream ended
// with "data: [DONE]" (go-openai reports both that and a bare EOF as
// io.EOF). It travels in the request context, from Stream to the transport.
type wireProbe struct {
	attempts  atomic.Int32
	bodyBytes atomic.Int64
	done      atomic.Bool
	waitAsked atomic.Int64 // a Retry-After too long to honour
}

type probeKey struct{}

func probeFrom(ctx context.Context) *wireProbe {
	p, _ := ctx.Value(probeKey{}).(*wireProbe)
	if p == nil {
		p = &wireProbe{}
	}
	return p
}

// transport is the adapter's http.RoundTripper. go-openai has no option for
// headers, retries or timeouts, so they live here:
//
//  1. Extra headers are set on every request.
//  2. Messages without "content" get null (assistant with tool calls) or ""
//     (anything else): go-openai omits empty content, which servers reject
//     for tool results and some reject for assistant tool-call messages.
//  3. 429 and 5xx (but 501) responses and failures before a response are
//     retried with exponential backoff and jitter, honouring Retry-After.
//     A retry happens before go-openai sees any byte, so never mid-stream
//     (openaiStream also retries a 2xx stream that ends before its first
//     byte). Connection refused is not retried: nothing is listening.
//  4. No byte for IdleTimeout, waiting for headers or inside the body,
//     aborts the request with errIdle.
//  5. The body of a successful response passes through sseFilter.
type transport struct {
	base       http.RoundTripper
	headers    map[string]string
	idle       time.Duration
	maxRetries int
	baseDelay  time.Duration
	// sleep waits between attempts; tests replace it to observe delays.
	sleep func(ctx context.Context, d time.Duration) error
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	probe := probeFrom(ctx)
	var body []byte
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		body = fillContent(b)
	}
	for {
		r := req.Clone(ctx)
		for k, v := range t.headers {
			r.Header.Set(k, v)
		}
		if body != nil {
			r.Body = io.NopCloser(bytes.NewReader(body))
			r.ContentLength = int64(len(body))
			r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		}
		attempt := int(probe.attempts.Add(1))
		resp, err := t.once(r, probe)
		retry := false
		if err != nil {
			retry = ctx.Err() == nil && transient(err)
		} else {
			retry = resp.StatusCode == http.StatusTooManyRequests ||
				resp.StatusCode >= 500 && resp.StatusCode != http.StatusNotImplemented
		}
		if !retry || attempt > t.maxRetries {
			return resp, err
		}
		delay, ok := t.backoff(attempt-1, resp)
		if !ok {
			probe.waitAsked.Store(int64(delay))
			return resp, err // the server asks for a longer wait than we give
		}
		if resp != nil {
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
			resp.Body.Close()
		}
		if err := t.sleep(ctx, delay); err != nil {
			return nil, err
		}
	}
}

// once makes one attempt under the idle timer.
func (t *transport) once(r *http.Request, probe *wireProbe) (*http.Response, error) {
	ctx, cancel := context.WithCancelCause(r.Context())
	timer := time.AfterFunc(t.idle, func() { cancel(errIdle) })
	resp, err := t.base.RoundTrip(r.WithContext(ctx))
	if err != nil {
		timer.Stop()
		if context.Cause(ctx) == errIdle {
			err = errIdle
		}
		cancel(nil)
		return nil, err
	}
	var rc io.ReadCloser = &idleBody{rc: resp.Body, timer: timer, idle: t.idle, ctx: ctx, cancel: cancel}
	if resp.StatusCode/100 == 2 {
		rc = &sseFilter{rc: rc, br: bufio.NewReader(rc), probe: probe}
	}
	resp.Body = rc
	return resp, nil
}

// transient says whether a failure before any response may pass if tried
// again: the connection was reset or closed, or a dial timed out. Refused
// connections, DNS and TLS errors, and the idle timeout are not.
func transient(err error) bool {
	if errors.Is(err, errIdle) || errors.Is(err, syscall.ECONNREFUSED) {
		return false
	}
	var ne net.Error
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNABORTED) ||
		errors.Is(err, syscall.EPIPE) || errors.As(err, &ne) && ne.Timeout()
}

// backoff is the wait before attempt+1: Retry-After when the server gives
// one, else base·2^attempt, jittered over its upper half. It is not ok when
// Retry-After exceeds maxRetryAfter (a spent daily quota, say): waiting
// less would be refused again, waiting longer would look like a hang.
func (t *transport) backoff(attempt int, resp *http.Response) (time.Duration, bool) {
	if resp != nil {
		if d, ok := retryAfter(resp.Header.Get("Retry-After"), time.Now()); ok {
			return d, d <= maxRetryAfter
		}
	}
	d := min(t.baseDelay<<min(attempt, 20), maxBackoff)
	return d/2 + rand.N(d/2+1), true
}

// retryAfter parses a Retry-After value: seconds or an HTTP date.
func retryAfter(v string, now time.Time) (time.Duration, bool) {
	if v == "" {
		return 0, false
	}
	if s, err := strconv.Atoi(v); err == nil {
		return time.Duration(max(s, 0)) * time.Second, true
	}
	if at, err := http.ParseTime(v); err == nil {
		return max(at.Sub(now), 0), true
	}
	return 0, false
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-tm.C:
		return nil
	}
}

// idleBody restarts the idle timer on every byte received.
type idleBody struct {
	rc     io.ReadCloser
	timer  *time.Timer
	idle   time.Duration
	ctx    context.Context
	cancel context.CancelCauseFunc
}

func (b *idleBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if n > 0 {
		b.timer.Reset(b.idle)
	}
	if err != nil {
		b.timer.Stop()
		if context.Cause(b.ctx) == errIdle {
			err = errIdle
		}
	}
	return n, err
}

func (b *idleBody) Close() error {
	b.timer.Stop()
	b.cancel(nil)
	return b.rc.Close()
}

// sseFilter passes go-openai only "data:" lines and blank lines. go-openai
// feeds every other line (": keep-alive" comments, "event:", "id:") into an
// error accumulator that it never resets (memory grows with every
// keep-alive) and that corrupts the error object which follows them;
// comments also count towards its EmptyMessagesLimit. Error objects are
// therefore all left to the accumulator: a data line starting {"error": is
// respaced so go-openai returns it as a chunk, and after "event: error" a
// data object without an "error" key is wrapped in one. The filter also
// records "data: [DONE]" in the probe, and ends a last line without a
// newline with one so go-openai does not drop it.
type sseFilter struct {
	rc      io.ReadCloser
	br      *bufio.Reader
	probe   *wireProbe
	pending []byte
	isError bool // the last event field was "error"
	err     error
}

func (f *sseFilter) Read(p []byte) (int, error) {
	for len(f.pending) == 0 {
		if f.err != nil {
			return 0, f.err
		}
		line, err := f.readLine()
		if err != nil {
			f.err = err
		}
		f.pending = f.filter(line)
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

func (f *sseFilter) readLine() ([]byte, error) {
	var line []byte
	for {
		frag, err := f.br.ReadSlice('\n')
		f.probe.bodyBytes.Add(int64(len(frag)))
		line = append(line, frag...)
		if err != bufio.ErrBufferFull {
			return line, err
		}
		if len(line) > maxSSELine {
			return nil, errors.New("stream line longer than 16 MiB")
		}
	}
}

func (f *sseFilter) filter(line []byte) []byte {
	if len(line) == 0 {
		return nil
	}
	if line[len(line)-1] != '\n' {
		line = append(line, '\n')
	}
	trimmed := bytes.TrimSpace(line)
	switch {
	case len(trimmed) == 0:
		f.isError = false // a blank line ends the event
		return line
	case bytes.HasPrefix(trimmed, []byte("data:")):
		payload := bytes.TrimSpace(trimmed[len("data:"):])
		if string(payload) == "[DONE]" {
			f.probe.done.Store(true)
		}
		if f.isError && len(payload) > 0 && payload[0] == '{' {
			f.isError = false
			var probe struct {
				Error json.RawMessage `json:"error"`
			}
			if json.Unmarshal(payload, &probe) == nil && probe.Error == nil {
				return append(append([]byte(`data: { "error":`), payload...), "}\n"...)
			}
		}
		if bytes.HasPrefix(payload, []byte(`{"error":`)) {
			// Hide it from go-openai's error path, which loses errors
			// that are not {"message": "..."} objects; the accumulator
			// reads them all.
			return append([]byte("data: { "), append(payload[1:], '\n')...)
		}
		return line
	case bytes.HasPrefix(trimmed, []byte("event:")):
		f.isError = string(bytes.TrimSpace(trimmed[len("event:"):])) == "error"
	}
	return nil
}

func (f *sseFilter) Close() error { return f.rc.Close() }

// fillContent gives every message of a chat request a "content" key (see
// transport rule 2). Bodies it cannot read are sent unchanged.
func fillContent(body []byte) []byte {
	var req map[string]json.RawMessage
	if json.Unmarshal(body, &req) != nil || req["messages"] == nil {
		return body
	}
	var msgs []map[string]json.RawMessage
	if json.Unmarshal(req["messages"], &msgs) != nil {
		return body
	}
	changed := false
	for _, m := range msgs {
		if _, ok := m["content"]; ok {
			continue
		}
		changed = true
		if _, ok := m["tool_calls"]; ok {
			m["content"] = json.RawMessage("null")
		} else {
			m["content"] = json.RawMessage(`""`)
		}
	}
	if !changed {
		return body
	}
	b, err := json.Marshal(msgs)
	if err != nil {
		return body
	}
	req["messages"] = b
	out, err := json.Marshal(req)
	if err != nil {
		return body
	}
	return out
}
