// Command floor is the smallest useful Go LSP server: it answers
// initialize over stdio and exits on exit. The initialize benchmark
// measures agent-lsp against it.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

func main() {
	r := bufio.NewReader(os.Stdin)
	for {
		n := -1
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				os.Exit(1)
			}
			line = strings.TrimSpace(line)
			if line == "" {
				break
			}
			if k, v, ok := strings.Cut(line, ":"); ok && strings.EqualFold(k, "Content-Length") {
				n, _ = strconv.Atoi(strings.TrimSpace(v))
			}
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(r, body); err != nil {
			os.Exit(1)
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal(body, &msg)
		switch msg.Method {
		case "exit":
			os.Exit(0)
		case "initialize", "shutdown":
			out := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"capabilities":{}}}`, msg.ID)
			if msg.Method == "shutdown" {
				out = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":null}`, msg.ID)
			}
			fmt.Printf("Content-Length: %d\r\n\r\n%s", len(out), out)
		}
	}
}
