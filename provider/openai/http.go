package openai

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptrace"
	"strconv"
	"sync"
	"syscall"
	"time"
)

const (
	maxRetryAfter = 60 * time.Second // a longer Retry-After ends the retries
	maxBackoff    = 30 * time.Second
	maxErrorBody  = 64 << 10
)

// errIdle cancels a request whose server sent nothing for IdleTimeout.
var errIdle = errors.New("idle timeout")

// statusError is a non-2xx answer: its status and the start of its body.
type statusError struct {
	status int
	body   []byte
}

func (e *statusError) Error() string {
	return fmt.Sprintf("HTTP %d: %s", e.status, detailText(bodyMessage(e.body)))
}

// transport posts chat requests:
//
//  1. The default and configured headers are set on every request.
//  2. 429 and 5xx (but 501) responses and failures before a response are
//     retried with exponential backoff and jitter, honouring Retry-After.
//     A retry happens before any byte of the reply is read, so never
//     mid-stream (stream.open also retries a 2xx stream that ends before
//     its first byte). Connection refused is not retried: nothing is
//     listening. All attempts of one Stream share the retry budget.
//  3. No byte for IdleTimeout, waiting for headers or inside the body,
//     aborts the request with errIdle.
type transport struct {
	client     *http.Client
	url        string
	headers    map[string]string
	idle       time.Duration
	maxRetries int
	baseDelay  time.Duration
	// sleep waits between attempts; tests replace it to observe delays.
	sleep func(ctx context.Context, d time.Duration) error
}

// attempts counts the tries of one Stream, and what a refusal asked for.
type attempts struct {
	n         int
	waitAsked time.Duration // a Retry-After too long to honour
}

// post sends body until it gets a 2xx response or the retries run out. A
// non-2xx final answer is a *statusError. sent, when set, is called once,
// when an attempt has written the whole request.
func (t *transport) post(ctx context.Context, body net.Buffers, at *attempts, sent func()) (*http.Response, error) {
	if sent != nil {
		once := sync.OnceFunc(sent)
		ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{WroteRequest: func(w httptrace.WroteRequestInfo) {
			if w.Err == nil {
				once()
			}
		}})
	}
	size := 0
	for _, b := range body {
		size += len(b)
	}
	// A body that fits the write buffer is sent from one flat copy: a
	// *bytes.Reader tells net/http the body is in memory, so the headers
	// are not flushed ahead of it, and request and body leave in one
	// write (one segment to a local server, which then wakes once, not
	// twice). A larger body is written from its parts, uncopied.
	var flat []byte
	if size <= writeBufferSize {
		flat = bytes.Join(body, nil)
	}
	newBody := func() io.ReadCloser {
		if flat != nil {
			return io.NopCloser(bytes.NewReader(flat))
		}
		// net.Buffers is consumed as it is read: each attempt gets a copy
		// of the slice headers, not of the bytes.
		bufs := append(net.Buffers(nil), body...)
		return io.NopCloser(&bufs)
	}
	for {
		r, err := http.NewRequestWithContext(ctx, http.MethodPost, t.url, nil)
		if err != nil {
			return nil, err
		}
		r.Body, r.ContentLength = newBody(), int64(size)
		r.GetBody = func() (io.ReadCloser, error) { return newBody(), nil }
		for k, v := range t.headers {
			r.Header.Set(k, v)
		}
		at.n++
		resp, err := t.once(r)
		retry := false
		if err != nil {
			retry = ctx.Err() == nil && transient(err)
		} else if resp.StatusCode/100 != 2 {
			retry = resp.StatusCode == http.StatusTooManyRequests ||
				resp.StatusCode >= 500 && resp.StatusCode != http.StatusNotImplemented
		}
		if !retry || at.n > t.maxRetries {
			return t.final(resp, err)
		}
		delay, ok := t.backoff(at.n-1, resp)
		if !ok {
			at.waitAsked = delay
			return t.final(resp, err) // the server asks for a longer wait than we give
		}
		if resp != nil {
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBody))
			resp.Body.Close()
		}
		if err := t.sleep(ctx, delay); err != nil {
			return nil, err
		}
	}
}

// final turns a non-2xx response into a *statusError.
func (t *transport) final(resp *http.Response, err error) (*http.Response, error) {
	if err != nil || resp.StatusCode/100 == 2 {
		return resp, err
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	resp.Body.Close()
	return nil, &statusError{status: resp.StatusCode, body: bytes.TrimSpace(b)}
}

// once makes one attempt under the idle timer.
func (t *transport) once(r *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancelCause(r.Context())
	timer := time.AfterFunc(t.idle, func() { cancel(errIdle) })
	resp, err := t.client.Do(r.WithContext(ctx))
	if err != nil {
		timer.Stop()
		if context.Cause(ctx) == errIdle {
			err = errIdle
		}
		cancel(nil)
		return nil, err
	}
	resp.Body = &idleBody{rc: resp.Body, timer: timer, idle: t.idle, ctx: ctx, cancel: cancel}
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
	// net.ErrClosed: the server closed the connection while the request
	// body was still being written; the transport's reader saw the close
	// first and closed the connection under the writer.
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNABORTED) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, net.ErrClosed) || errors.As(err, &ne) && ne.Timeout()
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

// writeBufferSize is the transports' write buffer: a request and a body of
// up to this size leave in one write (post). net/http's default is 4 KiB,
// less than a first request's tools and system prompt.
const writeBufferSize = 64 << 10

// newTransport is http.DefaultTransport's configuration (proxy from the
// environment, timeouts, HTTP/2) with the larger write buffer.
func newTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.WriteBufferSize = writeBufferSize
	return t
}

// defaultClient carries the requests of every Client without an
// HTTPClient or a Preconn; one transport, so they share its connections.
var defaultClient = sync.OnceValue(func() *http.Client { return &http.Client{Transport: newTransport()} })
