package lsp

import (
	"context"
	"encoding/json"
	"errors"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// The wire: params decoding, the codec and the stream that
// survives malformed frames.

// decode unmarshals params; a missing or null params decodes as {}.
func decode(params json.RawMessage, v any) error {
	if len(params) == 0 || string(params) == "null" {
		params = json.RawMessage("{}")
	}
	if err := json.Unmarshal(params, v); err != nil {
		return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: %v", err)
	}
	return nil
}

// decodeLSP unmarshals params into one of go.lsp.dev/protocol's types,
// with its own decoder (its union types need it); missing or null params
// decode as {}.
func decodeLSP(params json.RawMessage, v any) error {
	if len(params) == 0 || string(params) == "null" {
		params = json.RawMessage("{}")
	}
	if err := protocol.Unmarshal(params, v); err != nil {
		return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: %v", err)
	}
	return nil
}

// stdCodec marshals payloads with encoding/json: the server's own wire
// types are plain structs.
type stdCodec struct{}

func (stdCodec) Marshal(v any) ([]byte, error) {
	switch m := v.(type) {
	case jsonrpc2.RawMessage:
		if m == nil {
			return []byte("null"), nil
		}
		return m, nil
	case json.RawMessage:
		if m == nil {
			return []byte("null"), nil
		}
		return m, nil
	}
	return json.Marshal(v)
}

func (stdCodec) Unmarshal(data []byte, v any) error {
	if p, ok := v.(*jsonrpc2.RawMessage); ok {
		*p = append(jsonrpc2.RawMessage(nil), data...)
		return nil
	}
	return json.Unmarshal(data, v)
}

// watchStream reports the end of the input (the client went away) and
// skips frames that are not JSON-RPC instead of dropping the connection.
type watchStream struct {
	jsonrpc2.Stream
	s     *Server
	onEnd func()
}

func (w *watchStream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	for skipped := 0; ; skipped++ {
		msg, n, err := w.Stream.Read(ctx)
		if err == nil {
			return msg, n, nil
		}
		var je *jsonrpc2.Error
		if errors.As(err, &je) && skipped < 1000 {
			// The frame was read whole but is not a JSON-RPC message:
			// answer with an error (id null) and go on.
			w.s.log.Warn("Skipped a malformed message", "error", err)
			_, _ = w.Stream.Write(ctx, jsonrpc2.NewResponse(jsonrpc2.ID{}, nil, je))
			continue
		}
		w.s.log.Debug("Input ended", "error", err)
		w.onEnd()
		return msg, n, err
	}
}
