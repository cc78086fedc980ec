package agent

import (
	"context"
	"errors"
	"io"

	openai "github.com/sashabaranov/go-openai"
)

// openaiStream turns go-openai's raw chunks into StreamEvents.
//
// When is a reply complete? A stream that ends with "data: [DONE]" is
// complete, even without a finish_reason (Snowflake Cortex, corpus 041). A
// stream that sent a finish_reason and then closed without [DONE] is
// complete too (Cerebras, corpus 045). A stream that closes with neither is
// truncated: an error wrapping ErrTruncated, never a clean end. An error
// object anywhere in the stream fails the reply, even after a finish_reason
// (OpenRouter, corpus 026).
type openaiStream struct {
	p       *OpenAI
	ctx     context.Context // the caller's
	rctx    context.Context // the requests', carrying the probe
	cancel  context.CancelFunc
	req     openai.ChatCompletionRequest
	raw     *openai.ChatCompletionStream
	probe   *wireProbe
	acc     *accumulator
	pending []StreamEvent
	err     error // returned once pending is drained: io.EOF after the end
}

// Recv returns the next event; after the EventMessageEnd, io.EOF.
func (s *openaiStream) Recv() (StreamEvent, error) {
	for {
		if len(s.pending) > 0 {
			ev := s.pending[0]
			s.pending = s.pending[1:]
			return ev, nil
		}
		if s.err != nil {
			return StreamEvent{}, s.err
		}
		line, err := s.raw.RecvRaw()
		if err != nil {
			if s.retryable(err) {
				s.reopen()
			} else {
				s.stop(s.streamEnd(err))
			}
			continue
		}
		evs, err := s.acc.add(line)
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
func (s *openaiStream) retryable(err error) bool {
	return s.ctx.Err() == nil && s.probe.bodyBytes.Load() == 0 && !errors.Is(err, errIdle) &&
		int(s.probe.attempts.Load()) <= s.p.transport.maxRetries
}

// reopen waits the backoff and requests the reply again.
func (s *openaiStream) reopen() {
	_ = s.raw.Close()
	attempts := int(s.probe.attempts.Load())
	delay, _ := s.p.transport.backoff(attempts-1, nil)
	if err := s.p.transport.sleep(s.ctx, delay); err != nil {
		s.err = err
		s.cancel()
		return
	}
	raw, err := s.p.client.CreateChatCompletionStream(s.rctx, s.req)
	if err != nil {
		s.err = s.p.startError(err, s.probe)
		if s.ctx.Err() != nil {
			s.err = s.ctx.Err()
		}
		s.cancel()
		return
	}
	s.raw = raw
}

// stop records the terminal error and releases the connection.
func (s *openaiStream) stop(err error) {
	s.err = err
	s.cancel()
	_ = s.raw.Close()
}

// streamEnd decides what go-openai's last error means.
func (s *openaiStream) streamEnd(err error) error {
	base := s.p.cfg.BaseURL
	if s.ctx.Err() != nil {
		return s.ctx.Err()
	}
	if errors.Is(err, io.EOF) {
		if s.probe.done.Load() || s.acc.finishSeen {
			s.pending = append(s.pending, StreamEvent{Type: EventMessageEnd, End: s.acc.end()})
			return io.EOF
		}
		if s.acc.chunks == 0 {
			return s.p.fail(0, ErrTruncated, "the server at %s answered without any stream events (does it support \"stream\": true on /chat/completions?)", base)
		}
		return s.p.fail(0, ErrTruncated, "the server at %s closed the stream before the reply was complete (no finish_reason and no [DONE])", base)
	}
	if errors.Is(err, errIdle) {
		return s.p.fail(0, errors.Join(ErrIdleTimeout, ErrTruncated), "the server at %s sent nothing for %s in the middle of the reply", base, s.p.cfg.IdleTimeout)
	}
	var apiErr *openai.APIError
	if errors.As(err, &apiErr) {
		return s.p.fail(0, err, "the server at %s reported an error during the reply: %s", base, apiErr.Message)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		err = errors.Join(ErrTruncated, err)
	}
	return s.p.fail(0, err, "the connection to %s broke during the reply: %v", base, err)
}

func (s *openaiStream) chunkError(err error) error {
	var se *streamError
	if errors.As(err, &se) {
		return s.p.fail(0, err, "the server at %s reported an error during the reply: %s", s.p.cfg.BaseURL, se.msg)
	}
	return s.p.fail(0, err, "the server at %s sent a malformed stream: %v", s.p.cfg.BaseURL, err)
}

// Close releases the connection; it is safe to call more than once.
func (s *openaiStream) Close() error {
	s.cancel()
	return s.raw.Close()
}
