// Command minclient is the anchor of BenchmarkOneTurn: internal/minclient
// alone, the least a Go program does to get one streamed answer.
package main

import (
	"os"

	"github.com/agent-lsp/agent-lsp/internal/minclient"
)

func main() {
	os.Exit(minclient.Main(os.Args[1:], os.Stderr))
}
