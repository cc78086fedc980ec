// Command mcpsdk is a BenchmarkStartup anchor: a Go program that links
// the MCP SDK agent-lsp uses, and exits.
package main

import _ "github.com/modelcontextprotocol/go-sdk/mcp"

func main() {}
