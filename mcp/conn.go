package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agent-lsp/agent-lsp/tools"
)

// protocolVersion is pinned: see the package doc.
const protocolVersion = "2025-11-25"

// maxToolsPerServer bounds what one server may add to every request.
const maxToolsPerServer = 128

// conn is one connected server.
type conn struct {
	srv     Server
	session *sdk.ClientSession
	proc    *proc // nil for HTTP servers
	stderr  *stderrLog

	mu    sync.Mutex
	tools []*sdk.Tool
	ended error // why the session ended, once it did
}

// connect starts s and lists its tools, all within ctx (the startup
// timeout). onChange is called, on a goroutine of its own, when the server
// says its tool list changed.
func (m *Manager) connect(ctx context.Context, s Server, onChange func()) (*conn, error) {
	c := &conn{srv: s}
	client := sdk.NewClient(&sdk.Implementation{Name: "agent-lsp", Version: m.opts.Version}, &sdk.ClientOptions{
		Logger: m.log.With("server", s.Name),
		// No roots, sampling or elicitation: a filesystem server keeps the
		// directories its command line names.
		Capabilities:           &sdk.ClientCapabilities{},
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { go onChange() },
	})
	var transport sdk.Transport
	if s.URL != "" {
		headers, err := resolveHeaders(s, m.getenv)
		if err != nil {
			return nil, err
		}
		transport = &sdk.StreamableClientTransport{
			Endpoint:   s.URL,
			HTTPClient: &http.Client{Transport: headerTransport{base: http.DefaultTransport, headers: headers}},
			MaxRetries: 1,
		}
	} else {
		c.stderr = &stderrLog{log: m.log, server: s.Name}
		p, err := startProc(s, m.opts.Root, serverEnv(m.environ(), s.Env), m.opts.Sandbox, c.stderr)
		if err != nil {
			return nil, err
		}
		c.proc = p
		transport = &sdk.IOTransport{Reader: p.stdout, Writer: p.stdin}
		// A server that hangs: stop it as soon as the startup time is up,
		// so that Connect returns at once.
		stop := context.AfterFunc(ctx, func() { go p.stop(0) })
		defer stop()
	}
	session, err := client.Connect(ctx, transport, &sdk.ClientSessionOptions{ProtocolVersion: protocolVersion})
	if err != nil {
		return nil, c.fail(ctx, "initialize", err)
	}
	c.session = session
	go func() {
		err := session.Wait()
		c.mu.Lock()
		if c.ended == nil {
			c.ended = errors.New(c.endedText(err))
		}
		c.mu.Unlock()
	}()
	if err := c.list(ctx); err != nil {
		c.close()
		return nil, c.fail(ctx, "tools/list", err)
	}
	return c, nil
}

// fail builds the error of a failed start: the step, the cause (the
// startup timeout, the exit status) and the end of stderr.
func (c *conn) fail(ctx context.Context, step string, err error) error {
	if c.proc != nil {
		c.proc.stop(0)
	}
	msg := step + ": " + err.Error()
	if ctx.Err() != nil {
		msg = step + ": no answer within the startup timeout"
	}
	if c.proc != nil {
		if e := c.proc.exited(); e != "" && ctx.Err() == nil {
			msg = "the server " + e + " before answering " + step
		}
		if t := c.stderr.Tail(); t != "" {
			msg += "; stderr: " + t
		}
	}
	return errors.New(msg)
}

func (c *conn) endedText(err error) string {
	msg := "the connection closed"
	if c.proc != nil {
		select {
		case <-c.proc.done:
			msg = "the server " + c.proc.exited()
		case <-time.After(100 * time.Millisecond):
		}
		if t := c.stderr.Tail(); t != "" {
			msg += "; stderr: " + t
		}
	} else if err != nil {
		msg += ": " + err.Error()
	}
	return msg
}

// list fetches every page of the server's tools.
func (c *conn) list(ctx context.Context) error {
	var all []*sdk.Tool
	for t, err := range c.session.Tools(ctx, nil) {
		if err != nil {
			return err
		}
		if len(all) == maxToolsPerServer {
			break
		}
		all = append(all, t)
	}
	all = filterTools(all, c.srv.EnabledTools, c.srv.DisabledTools)
	c.mu.Lock()
	c.tools = all
	c.mu.Unlock()
	return nil
}

func filterTools(ts []*sdk.Tool, enabled, disabled []string) []*sdk.Tool {
	var out []*sdk.Tool
	for _, t := range ts {
		if t == nil || (len(enabled) > 0 && !contains(enabled, t.Name)) || contains(disabled, t.Name) {
			continue
		}
		out = append(out, t)
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// snapshot returns the current tools.
func (c *conn) snapshot() []*sdk.Tool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.tools
}

// call runs one tool. A protocol failure the model can act on is an error
// result; a cancelled or timed-out ctx is returned as ctx's error, which
// the dispatcher words ("cancelled by user", "timed out"); the SDK has
// already sent notifications/cancelled.
func (c *conn) call(ctx context.Context, tool string, args json.RawMessage) (tools.Result, error) {
	c.mu.Lock()
	ended := c.ended
	c.mu.Unlock()
	if ended != nil {
		return tools.Errorf("MCP server %s is not running (%v); its tools cannot be used in this session", c.srv.Name, ended), nil
	}
	res, err := c.session.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	switch {
	case ctx.Err() != nil:
		return tools.Result{}, ctx.Err()
	case errors.Is(err, sdk.ErrConnectionClosed):
		return tools.Errorf("MCP server %s closed the connection during the call (%s)", c.srv.Name, c.endedText(err)), nil
	case err != nil:
		return tools.Errorf("MCP server %s answered with an error: %s", c.srv.Name, clipLine(err.Error(), 500)), nil
	case res == nil:
		return tools.Errorf("MCP server %s sent no result", c.srv.Name), nil
	}
	return render(res), nil
}

// close ends the session and stops the process.
func (c *conn) close() {
	if c.session != nil {
		_ = c.session.Close()
	}
	if c.proc != nil {
		c.proc.stop(2 * time.Second)
	}
}

// resolveHeaders reads "env:NAME" header values of a user's server from
// the environment. A workspace server's headers are sent as written: a
// repository must not pick which of the user's variables go where.
func resolveHeaders(s Server, getenv func(string) string) (map[string]string, error) {
	out := make(map[string]string, len(s.Headers))
	for k, v := range s.Headers {
		if name, ok := strings.CutPrefix(v, "env:"); ok && !s.Workspace {
			val := getenv(name)
			if val == "" {
				return nil, fmt.Errorf("header %s names the environment variable %s, which is not set", k, name)
			}
			v = val
		}
		out[k] = v
	}
	return out, nil
}

// headerTransport adds the server's headers to every request.
type headerTransport struct {
	base    http.RoundTripper
	headers map[string]string
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(t.headers) > 0 {
		r = r.Clone(r.Context())
		for k, v := range t.headers {
			r.Header.Set(k, v)
		}
	}
	return t.base.RoundTrip(r)
}
