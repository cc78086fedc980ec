package acp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"sync"
)

// JSON-RPC and ACP error codes.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
	CodeCancelled      = -32800
	CodeNotFound       = -32002
)

// MaxMessageBytes is the longest line (one message) read; a longer one is
// answered with an error and skipped, and the connection goes on.
const MaxMessageBytes = 64 << 20

// Error is a JSON-RPC error; handlers return it to choose the code.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func (e *Error) Error() string { return fmt.Sprintf("%s (%d)", e.Message, e.Code) }

// errorf builds an *Error.
func errorf(code int, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// message is any JSON-RPC message. ID is nil when absent and "null" when
// null, which JSON-RPC tells apart.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// request is an incoming call. Reply must be called exactly once.
type request struct {
	c      *conn
	id     json.RawMessage
	Method string
	Params json.RawMessage
	// Ctx ends when the client sends $/cancel_request for it or goes away.
	Ctx    context.Context
	cancel context.CancelFunc
}

// Reply sends the result, or the error (an *Error keeps its code; any
// other error is an internal error).
func (r *request) Reply(result any, err error) {
	defer r.c.finish(r)
	m := message{ID: r.id}
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			e = &Error{Code: CodeInternalError, Message: err.Error()}
		}
		m.Error = e
	} else {
		b, merr := json.Marshal(result)
		if merr != nil {
			m.Error = errorf(CodeInternalError, "encode result: %v", merr)
		} else {
			m.Result = b
		}
	}
	r.c.write(m)
}

// handler receives the client's messages on the read loop, in wire order:
// Request must not block (start a goroutine for slow work), Notify may do
// short work inline.
type handler interface {
	Request(r *request)
	Notify(method string, params json.RawMessage)
}

// conn is newline-delimited JSON-RPC 2.0 over a reader and a writer.
type conn struct {
	r   io.Reader
	w   io.Writer
	log *slog.Logger
	h   handler

	wmu sync.Mutex
	wer error

	mu       sync.Mutex
	nextID   int64
	pending  map[int64]chan message
	inflight map[string]context.CancelFunc
	done     chan struct{}
	ctx      context.Context
	stop     context.CancelFunc
}

func newConn(r io.Reader, w io.Writer, h handler, log *slog.Logger) *conn {
	ctx, stop := context.WithCancel(context.Background())
	return &conn{r: r, w: w, h: h, log: log, pending: map[int64]chan message{}, inflight: map[string]context.CancelFunc{}, done: make(chan struct{}), ctx: ctx, stop: stop}
}

// Done is closed when the client is gone (end of input or broken output).
func (c *conn) Done() <-chan struct{} { return c.done }

// run reads messages until the input ends, then fails every pending call.
func (c *conn) run() {
	defer c.close()
	br := bufio.NewReaderSize(c.r, 64<<10)
	for {
		line, tooLong, err := readLine(br, MaxMessageBytes)
		if tooLong {
			c.log.Warn("Message too large; skipped", "limit", MaxMessageBytes)
			c.write(message{ID: json.RawMessage("null"), Error: errorf(CodeInvalidRequest, "message over %d bytes; skipped", MaxMessageBytes)})
		} else if len(bytes.TrimSpace(line)) > 0 {
			c.dispatch(line)
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				c.log.Warn("Reading the client failed", "err", err)
			}
			return
		}
		select {
		case <-c.done:
			return
		default:
		}
	}
}

// readLine returns the next line without its newline; a line longer than
// max is consumed and reported as tooLong.
func readLine(br *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > max+1 {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimSuffix(line, []byte("\n")), tooLong, err
	}
}

func (c *conn) dispatch(line []byte) {
	line = bytes.TrimSpace(line)
	if line[0] == '[' {
		c.write(message{ID: json.RawMessage("null"), Error: errorf(CodeInvalidRequest, "JSON-RPC batches are not supported; send one message a line")})
		return
	}
	var m message
	if err := json.Unmarshal(line, &m); err != nil {
		c.write(message{ID: json.RawMessage("null"), Error: errorf(CodeParseError, "parse error: %v", err)})
		return
	}
	isResponse := m.Method == "" && m.ID != nil && (m.Result != nil || m.Error != nil)
	switch {
	case m.JSONRPC != "2.0":
		c.reject(m, "jsonrpc must be \"2.0\"")
	case isResponse:
		c.response(m)
	case m.Method == "":
		c.reject(m, "a message needs a method (a request or notification) or a result or error (a response)")
	case m.ID == nil:
		if m.Method == "$/cancel_request" {
			c.cancelRequest(m.Params)
			return
		}
		c.h.Notify(m.Method, m.Params)
	default:
		if !validID(m.ID) {
			c.write(message{ID: json.RawMessage("null"), Error: errorf(CodeInvalidRequest, "id must be a string or an integer")})
			return
		}
		ctx, cancel := context.WithCancel(c.ctx)
		r := &request{c: c, id: m.ID, Method: m.Method, Params: m.Params, Ctx: ctx, cancel: cancel}
		c.mu.Lock()
		c.inflight[string(m.ID)] = cancel
		c.mu.Unlock()
		c.h.Request(r)
	}
}

// reject answers a malformed message when it has an id to answer.
func (c *conn) reject(m message, why string) {
	id := m.ID
	if id == nil || !validID(id) {
		id = json.RawMessage("null")
	}
	c.write(message{ID: id, Error: errorf(CodeInvalidRequest, "invalid request: %s", why)})
}

func validID(id json.RawMessage) bool {
	var s string
	if json.Unmarshal(id, &s) == nil {
		return true
	}
	_, err := strconv.ParseInt(string(id), 10, 64)
	return err == nil
}

func (c *conn) finish(r *request) {
	r.cancel()
	c.mu.Lock()
	delete(c.inflight, string(r.id))
	c.mu.Unlock()
}

func (c *conn) cancelRequest(params json.RawMessage) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil || p.RequestID == nil {
		c.log.Warn("$/cancel_request without a requestId")
		return
	}
	c.mu.Lock()
	cancel := c.inflight[string(bytes.TrimSpace(p.RequestID))]
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// response hands a client's answer to the call waiting for it. An answer
// to no pending call (a wrong or repeated id) is logged and dropped.
func (c *conn) response(m message) {
	id, err := strconv.ParseInt(string(m.ID), 10, 64)
	c.mu.Lock()
	ch, ok := c.pending[id]
	delete(c.pending, id)
	c.mu.Unlock()
	if err != nil || !ok {
		c.log.Warn("Response to no pending request; dropped", "id", string(m.ID))
		return
	}
	ch <- m
}

// call sends a request to the client and decodes its result into out.
// When ctx ends first the request is withdrawn with $/cancel_request.
func (c *conn) call(ctx context.Context, method string, params, out any) error {
	b, err := json.Marshal(params)
	if err != nil {
		return err
	}
	ch := make(chan message, 1)
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	c.pending[id] = ch
	c.mu.Unlock()
	idRaw := json.RawMessage(strconv.FormatInt(id, 10))
	c.write(message{ID: idRaw, Method: method, Params: b})
	select {
	case m := <-ch:
		if m.Error != nil {
			return fmt.Errorf("%s: the client answered: %w", method, m.Error)
		}
		if out != nil {
			if err := json.Unmarshal(m.Result, out); err != nil {
				return fmt.Errorf("%s: the client's answer is not valid: %v", method, err)
			}
		}
		return nil
	case <-ctx.Done():
		c.drop(id)
		c.notify("$/cancel_request", map[string]any{"requestId": id})
		return ctx.Err()
	case <-c.done:
		c.drop(id)
		return fmt.Errorf("%s: the client is gone", method)
	}
}

func (c *conn) drop(id int64) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

// notify sends a notification.
func (c *conn) notify(method string, params any) {
	b, err := json.Marshal(params)
	if err != nil {
		c.log.Error("Notification not encoded", "method", method, "err", err)
		return
	}
	c.write(message{Method: method, Params: b})
}

// write sends one message a line. The first write error ends the
// connection: the client cannot hear us any more.
func (c *conn) write(m message) {
	m.JSONRPC = "2.0"
	b, err := json.Marshal(m)
	if err != nil {
		c.log.Error("Message not encoded", "err", err)
		return
	}
	b = append(b, '\n')
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.wer != nil {
		return
	}
	if _, err := c.w.Write(b); err != nil {
		c.wer = err
		c.log.Warn("Writing to the client failed", "err", err)
		go c.close()
	}
}

// close marks the client gone once.
func (c *conn) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	select {
	case <-c.done:
	default:
		close(c.done)
		c.stop()
	}
}
