package lsptest_test

import (
	"testing"

	"github.com/agent-lsp/agent-lsp/lsp/lsptest"
)

// BenchmarkConnectInProcess is initialize + initialized over net.Pipe,
// without process start: the server's own share of bench.BenchmarkInitialize.
func BenchmarkConnectInProcess(b *testing.B) {
	for i := 0; i < b.N; i++ {
		e := lsptest.Connect(b, nil)
		b.StopTimer()
		e.Close()
		b.StartTimer()
	}
}
