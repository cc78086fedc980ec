package openai

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

const maxSSELine = 16 << 20

// sseReader yields the data payloads of a server-sent event stream. It
// ends with io.EOF at "data: [DONE]" (done is then set) or at the end of
// the body. Comments (": keep-alive", which OpenRouter sends by the
// thousand), "id:" and "retry:" lines are skipped. After "event: error" a
// data object without an "error" key is wrapped in one, so the
// accumulator sees every error object the same way. A last line without a
// newline still counts.
type sseReader struct {
	lineReader
	done    bool
	isError bool // the current event's type is "error"
}

func newSSE(r io.Reader) *sseReader { return &sseReader{lineReader: newLineReader(r)} }

// payloadReader yields the JSON payloads of one reply's body, in the
// chat.completion.chunk shape the accumulator reads: sseReader for
// /v1/chat/completions, ndjsonReader for Ollama's /api/chat.
type payloadReader interface {
	// next returns the next payload; io.EOF at the stream's own end
	// marker or at the end of the body.
	next() ([]byte, error)
	// received is how many bytes were read from the body.
	received() int64
	// ended says whether the stream's own end marker arrived ([DONE], or
	// a line with "done": true).
	ended() bool
}

func (s *sseReader) received() int64 { return s.bytes }
func (s *sseReader) ended() bool     { return s.done }

func (s *sseReader) next() ([]byte, error) {
	for {
		if s.done {
			return nil, io.EOF
		}
		line, err := s.readLine()
		if len(line) == 0 && err != nil {
			return nil, err
		}
		line = bytes.TrimSpace(line)
		switch {
		case len(line) == 0:
			s.isError = false // a blank line ends the event
		case bytes.HasPrefix(line, []byte("data:")):
			payload := bytes.TrimSpace(line[len("data:"):])
			if string(payload) == "[DONE]" {
				s.done = true
				return nil, io.EOF
			}
			if s.isError && len(payload) > 0 && payload[0] == '{' {
				s.isError = false
				var probe struct {
					Error json.RawMessage `json:"error"`
				}
				if json.Unmarshal(payload, &probe) == nil && probe.Error == nil {
					payload = append(append([]byte(`{"error":`), payload...), '}')
				}
			}
			if len(payload) > 0 {
				return payload, nil
			}
		case bytes.HasPrefix(line, []byte("event:")):
			s.isError = string(bytes.TrimSpace(line[len("event:"):])) == "error"
		}
		if err != nil {
			return nil, err
		}
	}
}

// lineReader reads a body line by line, counting its bytes.
type lineReader struct {
	br    *bufio.Reader
	bytes int64 // bytes read from the body
}

func newLineReader(r io.Reader) lineReader {
	return lineReader{br: bufio.NewReaderSize(r, 64<<10)}
}

// readLine returns one line, its newline included; the error is the
// body's, returned with the last (unterminated) line.
func (s *lineReader) readLine() ([]byte, error) {
	var line []byte
	for {
		frag, err := s.br.ReadSlice('\n')
		s.bytes += int64(len(frag))
		if err == nil && line == nil {
			return frag, nil // the common case: no copy
		}
		line = append(line, frag...)
		if err != bufio.ErrBufferFull {
			return line, err
		}
		if len(line) > maxSSELine {
			return nil, errors.New("stream line longer than 16 MiB")
		}
	}
}
