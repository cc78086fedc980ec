package acp_test

import (
	"bufio"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/agent/agenttest"
)

// BenchmarkStartup times, from process start: `agent-lsp acp` to its
// initialize response, and to its first session/new response (a harness
// with sandbox, tools and transcript built), against `agent-lsp serve` to
// its initialize response. The model server is the scripted one on
// 127.0.0.1 (its context window is probed once, then cached in the state
// dir, as for a user).
func BenchmarkStartup(b *testing.B) {
	m, err := agenttest.NewServer()
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	ws, state := b.TempDir(), b.TempDir()
	if r, err := filepath.EvalSymlinks(ws); err == nil {
		ws = r
	}
	env := []string{"HOME=" + ws, "XDG_CONFIG_HOME=" + filepath.Join(ws, ".config"), "XDG_STATE_HOME=" + state,
		"AGENT_LSP_BASE_URL=" + m.URL, "AGENT_LSP_MODEL=scripted"}
	initACP := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true,"writeTextFile":true}}}}` + "\n"
	newACP := fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":%q,"mcpServers":[]}}`+"\n", ws)
	initLSP := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"rootUri":"file://%s","capabilities":{}}}`, ws)
	initLSP = fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(initLSP), initLSP)
	for _, c := range []struct {
		name, cmd, send string
		responses       int
		lsp             bool
	}{
		{"acp-initialize", "acp", initACP, 1, false},
		{"acp-session-new", "acp", initACP + newACP, 2, false},
		{"serve-initialize", "serve", initLSP, 1, true},
	} {
		b.Run(c.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				cmd := exec.Command(binary, c.cmd)
				cmd.Dir, cmd.Env = ws, env
				in, _ := cmd.StdinPipe()
				out, _ := cmd.StdoutPipe()
				if err := cmd.Start(); err != nil {
					b.Fatal(err)
				}
				io.WriteString(in, c.send)
				r := bufio.NewReader(out)
				for n := 0; n < c.responses; n++ {
					if c.lsp {
						readLSP(b, r)
					} else if line, err := r.ReadString('\n'); err != nil || strings.Contains(line, `"error"`) {
						b.Fatalf("%s: %q %v", c.name, line, err)
					}
				}
				b.StopTimer()
				in.Close()
				_ = cmd.Process.Kill()
				_ = cmd.Wait()
				b.StartTimer()
			}
		})
	}
}

func readLSP(b *testing.B, r *bufio.Reader) {
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
}
