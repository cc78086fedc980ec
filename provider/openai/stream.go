package openai

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"

	"github.com/agent-lsp/agent-lsp/provider"
)

// stream turns one reply's events into provider.StreamEvents.
//
// When is a reply complete? A stream that ends with "data: [DONE]" is
// complete, even without a finish_reason (Snowflake Cortex, corpus 041). A
// stream that sent a finish_reason and then closed without [DONE] is
// complete too (Cerebras, corpus 045). A stream that closes with neither is
// truncated: an error wrapping ErrTruncated, never a clean end. An error
// object anywhere in the stream fails the reply, even after a finish_reason
// (OpenRouter, corpus 026). On Ollama's native /api/chat (ndjson.go) the
// line with "done": true is both the finish reason and the end marker.
type stream struct {
	p    *Client
	ctx  context.Context
	body net.Buffers
	at   attempts
	sent func() // provider.Request.Sent

	resp    *http.Response
	src     payloadReader
	acc     *accumulator
	pending []provider.StreamEvent
	err     error // returned once pending is drained: io.EOF after the end
}

// open posts the request; a failure is the error Stream returns.
func (s *stream) open() error {
	resp, err := s.p.transport.post(s.ctx, s.body, &s.at, s.sent)
	if err != nil {
		if s.ctx.Err() != nil {
			return s.ctx.Err()
		}
		return s.p.startError(err, &s.at)
	}
	s.resp = resp
	if s.p.cfg.OllamaNumCtx > 0 {
		s.src = newNDJSON(resp.Body, newCallID)
	} else {
		s.src = newSSE(resp.Body)
	}
	return nil
}

// Recv returns the next event; after the EventMessageEnd, io.EOF.
func (s *stream) Recv() (provider.StreamEvent, error) {
	for {
		if len(s.pending) > 0 {
			ev := s.pending[0]
			s.pending = s.pending[1:]
			return ev, nil
		}
		if s.err != nil {
			return provider.StreamEvent{}, s.err
		}
		payload, err := s.src.next()
		if err != nil {
			if s.retryable(err) {
				s.reopen()
			} else {
				s.stop(s.streamEnd(err))
			}
			continue
		}
		evs, err := s.acc.add(payload)
		if err != nil {
			s.stop(s.chunkError(err))
			continue
		}
		s.pending = evs
	}
}

// retryable says whether a failed stream may be requested again: it failed
// before its first byte (a server that closes right after the headers),
// not by the idle timeout, within the retry budget.
func (s *stream) retryable(err error) bool {
	return s.ctx.Err() == nil && s.src.received() == 0 && !errors.Is(err, errIdle) &&
		s.at.n <= s.p.transport.maxRetries
}

// reopen waits the backoff and requests the reply again.
func (s *stream) reopen() {
	s.resp.Body.Close()
	delay, _ := s.p.transport.backoff(s.at.n-1, nil)
	if err := s.p.transport.sleep(s.ctx, delay); err != nil {
		s.err = err
		return
	}
	if err := s.open(); err != nil {
		s.err = err
	}
}

// stop records the terminal error and releases the connection.
func (s *stream) stop(err error) {
	s.err = err
	s.resp.Body.Close()
}

// streamEnd decides what the end of the body means.
func (s *stream) streamEnd(err error) error {
	base := s.p.cfg.BaseURL
	if s.ctx.Err() != nil {
		return s.ctx.Err()
	}
	if errors.Is(err, io.EOF) {
		if s.src.ended() || s.acc.finishSeen {
			evs, end := s.acc.end()
			s.pending = append(append(s.pending, evs...), provider.StreamEvent{Type: provider.EventMessageEnd, End: end})
			return io.EOF
		}
		if s.acc.chunks == 0 {
			return s.p.fail(0, provider.ErrTruncated, "the server at %s answered without any stream events (does it support \"stream\": true on %s?)", base, s.p.path())
		}
		return s.p.fail(0, provider.ErrTruncated, "the server at %s closed the stream before the reply was complete (%s)", base, s.p.endMarker())
	}
	if errors.Is(err, errIdle) {
		return s.p.fail(0, errors.Join(provider.ErrIdleTimeout, provider.ErrTruncated), "the server at %s sent nothing for %s in the middle of the reply", base, s.p.cfg.IdleTimeout)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		err = errors.Join(provider.ErrTruncated, err)
	}
	return s.p.fail(0, err, "the connection to %s broke during the reply: %v", base, err)
}

func (s *stream) chunkError(err error) error {
	var se *streamError
	if errors.As(err, &se) {
		return s.p.fail(0, err, "the server at %s reported an error during the reply: %s", s.p.cfg.BaseURL, se.msg)
	}
	return s.p.fail(0, err, "the server at %s sent a malformed stream: %v", s.p.cfg.BaseURL, err)
}

// Close releases the connection; it is safe to call more than once.
func (s *stream) Close() error {
	if s.resp != nil {
		return s.resp.Body.Close()
	}
	return nil
}
