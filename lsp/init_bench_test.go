package lsp_test

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkInitialize starts agent-lsp and the floor server, times
// process start to the initialize response, and reports the resident
// memory after initialize (VmRSS).
func BenchmarkInitialize(b *testing.B) {
	for _, c := range []struct{ name, bin string }{{"agent-lsp", binary}, {"floor", floor}} {
		b.Run(c.name, func(b *testing.B) {
			dir := b.TempDir()
			var rss int64
			for i := 0; i < b.N; i++ {
				d, r := startInitialize(b, c.bin, dir)
				_ = d
				rss += r
			}
			b.ReportMetric(float64(rss)/float64(b.N)/1024, "MiB-RSS")
		})
	}
}

func startInitialize(b *testing.B, bin, dir string) (time.Duration, int64) {
	cmd := exec.Command(bin)
	cmd.Dir = dir
	cmd.Env = []string{"HOME=" + dir, "XDG_CONFIG_HOME=" + filepath.Join(dir, ".config")}
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"rootUri":"file://%s","capabilities":{}}}`, dir)
	fmt.Fprintf(in, "Content-Length: %d\r\n\r\n%s", len(body), body)
	r := bufio.NewReader(out)
	n := 0
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			b.Fatal(err)
		}
		line = strings.TrimSpace(line)
		if line == "" {
			break
		}
		if k, v, ok := strings.Cut(line, ":"); ok && strings.EqualFold(k, "Content-Length") {
			n, _ = strconv.Atoi(strings.TrimSpace(v))
		}
	}
	if _, err := io.ReadFull(r, make([]byte, n)); err != nil {
		b.Fatal(err)
	}
	d := time.Since(start)
	b.StopTimer()
	rss := vmRSS(cmd.Process.Pid)
	in.Close()
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	b.StartTimer()
	return d, rss
}

// vmRSS reads a process's resident set in KiB.
func vmRSS(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}
