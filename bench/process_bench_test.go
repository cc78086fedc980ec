package bench

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/internal/proctest"
)

// The language servers these benchmarks start: agent-lsp and the floor
// (both built by TestMain) and gopls when AGENT_LSP_BENCH_GOPLS names its
// binary (scripts/bench installs it).
var servers []server

type server struct {
	name string
	argv []string
}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "agent-lsp-bench")
	if err != nil {
		panic(err)
	}
	for _, b := range []struct{ name, pkg string }{{"agent-lsp", "../cmd/agent-lsp"}, {"floor", "./floor"}} {
		bin := filepath.Join(dir, b.name)
		if out, err := proctest.GoBuild(bin, b.pkg); err != nil {
			fmt.Fprintf(os.Stderr, "building %s: %v\n%s", b.name, err, out)
			os.RemoveAll(dir)
			os.Exit(1)
		}
		servers = append(servers, server{b.name, []string{bin}})
	}
	if gopls := os.Getenv("AGENT_LSP_BENCH_GOPLS"); gopls != "" {
		servers = append(servers, server{"gopls", []string{gopls}})
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// running is a language server process after initialize.
type running struct {
	cmd *exec.Cmd
	in  io.WriteCloser
}

// startInitialized starts s in a fresh workspace (a Go module, for
// gopls), sends initialize with processId (0: null) and waits for the
// response, then sends initialized.
func startInitialized(b *testing.B, s server, processID int) (*running, time.Duration) {
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/w\n\ngo 1.26\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	// gopls's telemetry ignores GOTELEMETRY; it reads its mode from this
	// file, and when on it starts a detached uploader (outside the group
	// killed below) that writes counters into HOME after it was removed.
	mode := filepath.Join(dir, ".config", "go", "telemetry", "mode")
	if err := os.MkdirAll(filepath.Dir(mode), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(mode, []byte("off"), 0o644); err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(s.argv[0], s.argv[1:]...)
	cmd.Dir = dir
	cmd.Env = []string{"HOME=" + dir, "XDG_CONFIG_HOME=" + filepath.Join(dir, ".config"), "PATH=" + os.Getenv("PATH"),
		"GOCACHE=" + filepath.Join(dir, ".cache"), "GOPATH=" + filepath.Join(dir, "go"), "GOFLAGS=-mod=mod", "GOTELEMETRY=off"}
	// Its own process group, killed whole: gopls runs `go` commands that
	// would otherwise outlive it and write into the temporary HOME after
	// the benchmark removed it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	pid := "null"
	if processID > 0 {
		pid = strconv.Itoa(processID)
	}
	send(in, fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":%s,"rootUri":"file://%s","capabilities":{}}}`, pid, dir))
	r := bufio.NewReader(out)
	for {
		body := readFrame(b, r)
		if strings.Contains(body, `"id":1`) && !strings.Contains(body, `"method"`) {
			break
		}
	}
	d := time.Since(start)
	send(in, `{"jsonrpc":"2.0","method":"initialized","params":{}}`)
	go io.Copy(io.Discard, r) // keep its stdout flowing
	p := &running{cmd: cmd, in: in}
	b.Cleanup(p.stop)
	return p, d
}

func (p *running) stop() {
	p.in.Close()
	pgid := p.cmd.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	_ = p.cmd.Wait()
	// The group's other members are not our children: wait until the
	// kernel has none left (bounded; a stuck one only leaves a folder).
	for i := 0; i < 500 && syscall.Kill(-pgid, 0) == nil; i++ {
		time.Sleep(10 * time.Millisecond)
	}
}

func send(w io.Writer, body string) {
	fmt.Fprintf(w, "Content-Length: %d\r\n\r\n%s", len(body), body)
}

func readFrame(b *testing.B, r *bufio.Reader) string {
	n := -1
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			b.Fatalf("reading a frame: %v", err)
		}
		line = strings.TrimSpace(line)
		if line == "" {
			break
		}
		if k, v, ok := strings.Cut(line, ":"); ok && strings.EqualFold(k, "Content-Length") {
			n, _ = strconv.Atoi(strings.TrimSpace(v))
		}
	}
	body := make([]byte, max(n, 0))
	if _, err := io.ReadFull(r, body); err != nil {
		b.Fatal(err)
	}
	return string(body)
}

// BenchmarkInitialize times process start to the initialize response,
// for each server.
func BenchmarkInitialize(b *testing.B) {
	for _, s := range servers {
		b.Run(s.name, func(b *testing.B) {
			for b.Loop() {
				p, _ := startInitialized(b, s, 0)
				b.StopTimer()
				p.stop()
				b.StartTimer()
			}
		})
	}
}

// BenchmarkIdle starts every server at once with processId set (to this
// process, which outlives them), lets them sit idle, and reports each
// one's resident memory after AGENT_LSP_BENCH_RSS_AFTER (default 20s) and
// its context switches (voluntary: wakeups; summed over all threads) in
// the AGENT_LSP_BENCH_IDLE_FOR (default 60s) that follow. Idle servers do
// not disturb each other, so one run serves all.
func BenchmarkIdle(b *testing.B) {
	rssAfter := envDuration(b, "AGENT_LSP_BENCH_RSS_AFTER", 20*time.Second)
	idleFor := envDuration(b, "AGENT_LSP_BENCH_IDLE_FOR", 60*time.Second)
	for b.Loop() {
		procs := make([]*running, len(servers))
		for i, s := range servers {
			procs[i], _ = startInitialized(b, s, os.Getpid())
		}
		time.Sleep(rssAfter)
		before := make([][3]int64, len(procs))
		for i, p := range procs {
			b.ReportMetric(float64(status(p.cmd.Process.Pid, "VmRSS"))/1024, servers[i].name+"-RSS-MiB")
			// Most of VmRSS is the binary's text, whose resident size
			// depends on the page cache (huge pages for a hot file);
			// RssAnon is the process's own memory.
			b.ReportMetric(float64(status(p.cmd.Process.Pid, "RssAnon"))/1024, servers[i].name+"-RssAnon-MiB")
			before[i] = switches(p.cmd.Process.Pid)
		}
		time.Sleep(idleFor)
		for i, p := range procs {
			after := switches(p.cmd.Process.Pid)
			b.ReportMetric(float64(after[0]-before[i][0]), servers[i].name+"-wakeups")
			b.ReportMetric(float64(after[1]-before[i][1]), servers[i].name+"-preempted")
			// The process's own line in /proc/PID/status counts its main
			// thread only: the measure the issue names, beside the sum.
			b.ReportMetric(float64(after[2]-before[i][2]), servers[i].name+"-wakeups-main")
			p.stop()
		}
	}
}

func envDuration(b *testing.B, key string, def time.Duration) time.Duration {
	v := os.Getenv(key)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		b.Fatalf("%s: %v", key, err)
	}
	return d
}

// status reads a number (kB or a count) from /proc/PID/status.
func status(pid int, field string) int64 {
	return statusOf(fmt.Sprintf("/proc/%d/status", pid), field)
}

// switches sums the voluntary and involuntary context switches of every
// thread of pid, and gives the main thread's voluntary ones (the
// process's own line in /proc/PID/status counts only that thread).
func switches(pid int) [3]int64 {
	var s [3]int64
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/status", pid))
	for _, t := range tasks {
		s[0] += statusOf(t, "voluntary_ctxt_switches")
		s[1] += statusOf(t, "nonvoluntary_ctxt_switches")
	}
	s[2] = status(pid, "voluntary_ctxt_switches")
	return s
}
