package lsp

import (
	"bytes"
	"context"
	"log/slog"
	"strings"

	"go.lsp.dev/protocol"
)

// logHandler writes records to stderr and, once the connection is up,
// sends them to the client as window/logMessage. Never stdout.
type logHandler struct {
	c    *client
	text slog.Handler
}

func (h *logHandler) Enabled(ctx context.Context, l slog.Level) bool { return h.text.Enabled(ctx, l) }

func (h *logHandler) Handle(ctx context.Context, r slog.Record) error {
	err := h.text.Handle(ctx, r)
	if h.c.conn == nil || r.Level < slog.LevelInfo {
		return err
	}
	var b bytes.Buffer
	b.WriteString(r.Message)
	r.Attrs(func(a slog.Attr) bool {
		b.WriteString(" " + a.Key + "=" + a.Value.String())
		return true
	})
	var typ protocol.MessageType
	switch {
	case r.Level >= slog.LevelError:
		typ = protocol.MessageTypeError
	case r.Level >= slog.LevelWarn:
		typ = protocol.MessageTypeWarning
	default:
		typ = protocol.MessageTypeInfo
	}
	msg := strings.TrimSpace(b.String())
	go func() { // never block the read loop on the client
		h.c.notify(protocol.MethodWindowLogMessage, &protocol.LogMessageParams{Type: typ, Message: msg})
	}()
	return err
}

func (h *logHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &logHandler{c: h.c, text: h.text.WithAttrs(as)}
}

func (h *logHandler) WithGroup(name string) slog.Handler {
	return &logHandler{c: h.c, text: h.text.WithGroup(name)}
}
