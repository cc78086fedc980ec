package openai

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"sync"
	"time"
)

// preconnMaxAge is how long a connection dialled ahead stays usable: a
// server may close a connection that sends no request, and a request on a
// closed one fails and waits a retry's backoff. The first request of a
// headless run follows within milliseconds.
const preconnMaxAge = 2 * time.Second

// Preconn is a connection to the server dialled ahead of the first
// request, while the caller builds what the request needs (tools, system
// prompt, session): DNS and the TCP handshake run on another goroutine
// instead of in front of the first request. The first request to the
// same address takes it; TLS, HTTP/2 and everything else stay the
// transport's. A connection older than preconnMaxAge when that request
// comes is closed instead of used, and so is one Close finds untaken (no
// timer: a run's first request follows within milliseconds, or the run
// ends and closes it). The connections the transport pooled
// stay until its idle timeout or the process's end: `agent-lsp run`, the
// front-end that dials ahead, exits right after Close, and waiting there
// for them to close cost 0.05 ms.
type Preconn struct {
	addr   string
	maxAge time.Duration
	done   chan struct{} // closed once the dial is over
	// dial is http.DefaultTransport's dialer; tests slow it down.
	dial func(ctx context.Context, network, addr string) (net.Conn, error)

	mu     sync.Mutex
	conn   net.Conn
	err    error     // the dial's failure
	at     time.Time // when the dial ended
	taken  bool      // by the first dial to addr
	closed bool      // by Close (or a cancelled take): a connection is closed
}

// Preconnect starts dialling the server of baseURL. It returns nil when
// there is nothing to dial ahead: a URL without a host, or a proxy that
// the environment names for it (the transport dials the proxy, and a
// connection to the server itself would bypass it).
func Preconnect(baseURL string) *Preconn {
	return preconnect(baseURL, http.ProxyFromEnvironment, preconnMaxAge)
}

func preconnect(baseURL string, proxy func(*http.Request) (*url.URL, error), maxAge time.Duration) *Preconn {
	u, err := url.Parse(baseURL)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil
	}
	if p, err := proxy(&http.Request{URL: u, Header: http.Header{}}); err != nil || p != nil {
		return nil
	}
	port := u.Port()
	switch {
	case port != "":
	case u.Scheme == "https":
		port = "443"
	default:
		port = "80"
	}
	pc := &Preconn{
		addr:   net.JoinHostPort(u.Hostname(), port),
		maxAge: maxAge,
		done:   make(chan struct{}),
		dial:   (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
	}
	pc.start()
	return pc
}

// start dials on a goroutine of its own and lets it send its SYN (or DNS
// query) before the caller goes on: on one P (`agent-lsp run` until its
// first tool, internal/singlep) it would otherwise wait for the caller to
// block, at its first request.
func (pc *Preconn) start() {
	go pc.ahead()
	runtime.Gosched()
}

func (pc *Preconn) ahead() {
	c, err := pc.dial(context.Background(), "tcp", pc.addr)
	pc.mu.Lock()
	switch {
	case err != nil:
		pc.err = err
	case pc.closed: // closed while dialling
		c.Close()
	default:
		pc.conn = c
	}
	pc.at = time.Now()
	pc.mu.Unlock()
	close(pc.done)
}

// Close closes the connection unless a request took it.
func (pc *Preconn) Close() error {
	pc.release()
	return nil
}

// release closes the connection unless a request took it; a request
// after this dials anew. The pooled connections stay: later turns reuse
// them.
func (pc *Preconn) release() {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	pc.taken, pc.closed = true, true
	if pc.conn != nil {
		pc.conn.Close()
		pc.conn = nil
	}
}

// DialContext is the transport's dialer: the first dial of pc's address
// waits for the dial ahead and takes its outcome, the connection or the
// failure to connect (dialling again would only wait as long again);
// every other dial, and that one when the outcome is older than maxAge,
// dials anew.
func (pc *Preconn) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	if addr == pc.addr && network == "tcp" {
		if c, ok, err := pc.take(ctx); ok {
			return c, err
		}
	}
	return pc.dial(ctx, network, addr)
}

// take returns the outcome of the dial ahead, at most once; ok is false
// when there is none to take.
func (pc *Preconn) take(ctx context.Context) (net.Conn, bool, error) {
	pc.mu.Lock()
	first := !pc.taken
	pc.taken = true
	pc.mu.Unlock()
	if !first {
		return nil, false, nil
	}
	select {
	case <-pc.done:
	case <-ctx.Done():
		pc.release() // ahead() sees closed and closes what it gets
		return nil, true, ctx.Err()
	}
	pc.mu.Lock()
	defer pc.mu.Unlock()
	c, err := pc.conn, pc.err
	pc.conn = nil
	if c == nil && err == nil || time.Since(pc.at) > pc.maxAge { // closed, or aged
		if c != nil {
			c.Close()
		}
		return nil, false, nil
	}
	return c, true, err
}

// client is an HTTP client like defaultClient's whose transport dials
// through pc.
func (pc *Preconn) client() *http.Client {
	t := newTransport()
	t.DialContext = pc.DialContext
	return &http.Client{Transport: t}
}
