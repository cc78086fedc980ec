// Command deps is a BenchmarkStartup anchor: a Go program that links
// every third-party package agent-lsp imports, none of agent-lsp's own,
// and exits. Beside `agent-lsp --version` it shows how much of
// agent-lsp's start is its dependencies' (their package initialisation
// and size). Given a base URL and a body file, it makes the minimal
// client's request (internal/minclient) instead: BenchmarkOneTurn's
// floor for a program built on these dependencies.
package main

import (
	"os"

	_ "github.com/BurntSushi/toml"
	_ "github.com/bmatcuk/doublestar/v4"
	_ "github.com/go-git/go-git/v5/plumbing/format/gitignore"
	_ "github.com/google/jsonschema-go/jsonschema"
	_ "github.com/landlock-lsm/go-landlock/landlock"
	_ "github.com/modelcontextprotocol/go-sdk/mcp"
	_ "github.com/sashabaranov/go-openai"
	_ "github.com/sergi/go-diff/diffmatchpatch"
	_ "go.lsp.dev/jsonrpc2"
	_ "go.lsp.dev/protocol"
	_ "go.lsp.dev/uri"
	_ "golang.org/x/sys/unix"
	_ "mvdan.cc/sh/v3/syntax"

	"github.com/agent-lsp/agent-lsp/internal/minclient"
)

func main() {
	if len(os.Args) > 1 {
		os.Exit(minclient.Main(os.Args[1:], os.Stderr))
	}
}
