package main

import (
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/internal/proctest"
)

// BenchmarkOneTurn is the wall time of `agent-lsp run` for a one-turn
// answer without tools (process start, configuration, the session, the
// request with the system prompt and the tool schemas, the streamed
// answer, the transcript), beside the same request body posted by a
// minimal Go client process (testdata/minclient) and by the same client
// linked with every third-party package agent-lsp imports
// (bench/startup/deps): the floor of a program built on them. All talk to
// the same server on 127.0.0.1; the state directory is kept between
// runs, as a user's is, so the endpoint probe is cached. "paired" runs
// the three in turn, which goes first rotating, and reports the median of
// each (agent-lsp-ms, client-ms, deps-client-ms): all then meet the same
// machine, page cache and server state, which runs of one side after the
// other do not (their ratio went from 1.0 to 2.2 between rounds of one
// suite run).
func BenchmarkOneTurn(b *testing.B) {
	const reply = "data: {\"choices\":[{\"delta\":{\"content\":\"Hello.\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"
	var mu sync.Mutex
	var last []byte
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		mu.Lock()
		last = body
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, reply)
	})}
	go srv.Serve(ln)
	b.Cleanup(func() { srv.Close() })
	base := "http://" + ln.Addr().String() + "/v1"
	ws, home := b.TempDir(), userHome(b)
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "XDG_STATE_HOME=" + filepath.Join(home, ".state")}
	run := func() {
		cmd := exec.Command(binary, "run", "--base-url", base, "--model", "scripted", "say hello")
		cmd.Dir, cmd.Env = ws, env
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("agent-lsp run: %v\n%s", err, out)
		}
	}
	run() // warms the state directory and records the request body
	mu.Lock()
	bodyFile := filepath.Join(b.TempDir(), "body.json")
	err = os.WriteFile(bodyFile, last, 0o644)
	mu.Unlock()
	if err != nil {
		b.Fatal(err)
	}
	client := filepath.Join(b.TempDir(), "minclient")
	if out, err := proctest.GoBuild(client, "./testdata/minclient"); err != nil {
		b.Fatalf("building minclient: %v\n%s", err, out)
	}
	b.Run("run", func(b *testing.B) {
		for b.Loop() {
			run()
		}
	})
	depsClient := filepath.Join(b.TempDir(), "deps")
	if out, err := proctest.GoBuild(depsClient, "../../bench/startup/deps"); err != nil {
		b.Fatalf("building bench/startup/deps: %v\n%s", err, out)
	}
	// asClient runs bin as the client of the recorded request.
	asClient := func(bin string) func() {
		return func() {
			cmd := exec.Command(bin, base, bodyFile)
			cmd.Env = env
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("%s: %v\n%s", filepath.Base(bin), err, out)
			}
		}
	}
	minimal, withDeps := asClient(client), asClient(depsClient)
	b.Run("minimal_client", func(b *testing.B) {
		for b.Loop() {
			minimal()
		}
	})
	b.Run("paired", func(b *testing.B) {
		sides := []struct {
			run    func()
			metric string
			times  []time.Duration
		}{{run, "agent-lsp-ms", nil}, {minimal, "client-ms", nil}, {withDeps, "deps-client-ms", nil}}
		for i := 0; b.Loop(); i++ {
			for k := range sides {
				s := &sides[(i+k)%len(sides)]
				t := time.Now()
				s.run()
				s.times = append(s.times, time.Since(t))
			}
		}
		for _, s := range sides {
			b.ReportMetric(medianMS(s.times), s.metric)
		}
	})
}

// medianMS is the median of ds in milliseconds.
func medianMS(ds []time.Duration) float64 {
	s := slices.Clone(ds)
	slices.Sort(s)
	return float64(s[len(s)/2]) / float64(time.Millisecond)
}

// userHome is a new home directory for the runs beside the user's own
// cache, not in the temporary directory: a user's state directory is in
// their home, while the temporary directory is where this suite's builds
// have just deleted thousands of files, and on a file system such as this
// machine's (ext4 without a journal) creating a file there first scans
// the inodes its block group freed in the last minutes.
func userHome(b *testing.B) string {
	cache, err := os.UserCacheDir()
	if err != nil {
		return b.TempDir()
	}
	if err := os.MkdirAll(cache, 0o700); err != nil {
		b.Fatal(err)
	}
	dir, err := os.MkdirTemp(cache, "agent-lsp-bench-")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}
