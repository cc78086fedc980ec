package openai

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"
)

func noProxy(*http.Request) (*url.URL, error) { return nil, nil }

// connServer is a real server on 127.0.0.1 that reports its connections'
// states and the remote address each request came from.
type connServer struct {
	*httptest.Server
	states chan connEvent

	mu      sync.Mutex
	remotes []string
}

type connEvent struct {
	remote string
	state  http.ConnState
}

func newConnServer(t *testing.T) *connServer {
	t.Helper()
	s := &connServer{states: make(chan connEvent, 64)}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		s.mu.Lock()
		s.remotes = append(s.remotes, r.RemoteAddr)
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, sse(`{"choices":[{"delta":{"content":"hi"},"finish_reason":"stop"}]}`))
	}))
	s.Config.ConnState = func(c net.Conn, st http.ConnState) {
		s.states <- connEvent{c.RemoteAddr().String(), st}
	}
	s.Start()
	t.Cleanup(s.Close)
	return s
}

// next waits for the next connection event of the given state.
func (s *connServer) next(t *testing.T, st http.ConnState) string {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case e := <-s.states:
			if e.state == st {
				return e.remote
			}
		case <-deadline:
			t.Fatalf("no connection reached %v", st)
		}
	}
}

// wantClosed waits for the next connection to close and wants it remote.
func (s *connServer) wantClosed(t *testing.T, remote string) {
	t.Helper()
	if closed := s.next(t, http.StateClosed); closed != remote {
		t.Fatalf("closed %s, want %s", closed, remote)
	}
}

func (s *connServer) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.remotes...)
}

func (s *connServer) client(pc *Preconn) *Client {
	return New(Config{BaseURL: s.URL + "/v1", Model: "m", RetryBaseDelay: time.Millisecond, Preconn: pc})
}

func TestPreconnectFirstRequestTakesTheConnection(t *testing.T) {
	t.Parallel()
	s := newConnServer(t)
	pc := preconnect(s.URL+"/v1", noProxy, time.Minute)
	if pc == nil {
		t.Fatal("nothing dialled")
	}
	defer pc.Close()
	ahead := s.next(t, http.StateNew) // dialled before any request
	p := s.client(pc)
	for range 3 {
		if end := mustEnd(t, collect(t, p)); end.Message.Content != "hi" {
			t.Fatalf("content %q", end.Message.Content)
		}
	}
	got := s.requests()
	for _, r := range got {
		if r != ahead {
			t.Fatalf("requests came from %v, want all on the connection dialled ahead %s", got, ahead)
		}
	}
	select {
	case e := <-s.states:
		if e.state == http.StateNew {
			t.Fatalf("a second connection %s was dialled", e.remote)
		}
	default:
	}
	// Close (the harness's, as `agent-lsp run` exits) leaves the pooled
	// connection to the transport: it still serves, and is not closed.
	pc.Close()
	if end := mustEnd(t, collect(t, p)); end.Message.Content != "hi" {
		t.Fatalf("content %q after Close", end.Message.Content)
	}
	if got := s.requests(); got[len(got)-1] != ahead {
		t.Fatalf("the request after Close came from %s, want the pooled %s", got[len(got)-1], ahead)
	}
	for {
		select {
		case e := <-s.states:
			if e.state == http.StateNew || e.state == http.StateClosed {
				t.Fatalf("connection %s: %v after Close", e.remote, e.state)
			}
			continue
		default:
		}
		break
	}
}

func TestPreconnectUnusedConnectionIsClosed(t *testing.T) {
	t.Parallel()
	// Closed by Close (the harness's), before any request; one not taken
	// in time is closed by the request that finds it aged
	// (TestPreconnectAgedConnectionIsNotTaken).
	s := newConnServer(t)
	pc := preconnect(s.URL+"/v1", noProxy, time.Minute)
	ahead := s.next(t, http.StateNew)
	pc.Close()
	s.wantClosed(t, ahead)
	// A request after Close dials anew.
	mustEnd(t, collect(t, s.client(pc)))
	if got := s.requests(); len(got) != 1 || got[0] == ahead {
		t.Fatalf("requests from %v; want one, not from the closed %s", got, ahead)
	}
}

func TestPreconnectAgedConnectionIsNotTaken(t *testing.T) {
	t.Parallel()
	s := newConnServer(t)
	pc := preconnect(s.URL+"/v1", noProxy, time.Minute)
	defer pc.Close()
	ahead := s.next(t, http.StateNew)
	<-pc.done
	pc.mu.Lock()
	pc.at = pc.at.Add(-2 * time.Minute) // as if dialled long ago
	pc.mu.Unlock()
	mustEnd(t, collect(t, s.client(pc)))
	if got := s.requests(); len(got) != 1 || got[0] == ahead {
		t.Fatalf("requests from %v; want one, not from the aged %s", got, ahead)
	}
	s.wantClosed(t, ahead)
}

func TestPreconnectNothingToDial(t *testing.T) {
	t.Parallel()
	s := newConnServer(t)
	viaProxy := func(*http.Request) (*url.URL, error) { return url.Parse("http://127.0.0.1:1") }
	if pc := preconnect(s.URL+"/v1", viaProxy, time.Minute); pc != nil {
		t.Fatal("dialled the server around the environment's proxy")
	}
	badProxy := func(*http.Request) (*url.URL, error) { return nil, errors.New("bad proxy setting") }
	if pc := preconnect(s.URL+"/v1", badProxy, time.Minute); pc != nil {
		t.Fatal("dialled despite a proxy setting that does not parse")
	}
	for _, u := range []string{"", "localhost:11434", "unix:///run/ollama.sock", "ftp://127.0.0.1/", "http://", "http://[::1", "http://%zz/v1", "\x00"} {
		if pc := preconnect(u, noProxy, time.Minute); pc != nil {
			pc.Close()
			t.Errorf("preconnect(%q) dialled %s", u, pc.addr)
		}
	}
	select {
	case e := <-s.states:
		t.Fatalf("the server saw a connection: %+v", e)
	default:
	}
	// The default port of each scheme.
	for u, want := range map[string]string{"http://127.0.0.1/v1": "127.0.0.1:80", "https://127.0.0.1/v1": "127.0.0.1:443", "http://[::1]:8080": "[::1]:8080"} {
		pc := preconnect(u, noProxy, time.Minute)
		if pc == nil || pc.addr != want {
			t.Fatalf("preconnect(%q) = %+v, want a dial of %s", u, pc, want)
		}
		pc.Close()
	}
}

func TestPreconnectRefusedIsTheUsualError(t *testing.T) {
	t.Parallel()
	base := refusedBaseURL(t)
	plain := collect(t, New(Config{BaseURL: base, Model: "m", RetryBaseDelay: time.Millisecond}))
	pc := preconnect(base, noProxy, time.Minute)
	defer pc.Close()
	ahead := collect(t, New(Config{BaseURL: base, Model: "m", RetryBaseDelay: time.Millisecond, Preconn: pc}))
	if plain.err == nil || ahead.err == nil || plain.err.Error() != ahead.err.Error() {
		t.Fatalf("refused with a dial ahead: %v; without: %v", ahead.err, plain.err)
	}
}

// A request whose context ends while the dial ahead is still under way
// gives up, and the connection that arrives later is closed.
func TestPreconnectCancelledWhileDialling(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	ours, peer := net.Pipe()
	defer peer.Close()
	pc := &Preconn{addr: "127.0.0.1:9", maxAge: time.Minute, done: make(chan struct{}),
		dial: func(context.Context, string, string) (net.Conn, error) {
			<-release
			return ours, nil
		}}
	pc.start()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if c, err := pc.DialContext(ctx, "tcp", "127.0.0.1:9"); c != nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("DialContext = %v, %v; want the context's error", c, err)
	}
	close(release)
	if _, err := peer.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("the late connection is open: read err %v", err)
	}
	<-pc.done
	if pc.conn != nil {
		t.Fatal("the late connection was kept")
	}
}
