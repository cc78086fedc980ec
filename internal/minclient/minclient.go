// Package minclient is the anchor of BenchmarkOneTurn: the least a Go
// program does to get one streamed answer, posting a request body read
// from a file and reading the SSE stream to its [DONE]. It imports nothing
// beyond the standard library, so that a program made of it alone is the
// smallest client there is; bench/startup/deps runs the same code linked
// with every third-party package agent-lsp imports.
package minclient

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
)

// Main posts the file args[1] to args[0]+"/chat/completions" and reads the
// answer's stream; it returns the process's exit code.
func Main(args []string, stderr io.Writer) int {
	if len(args) != 2 {
		fmt.Fprintln(stderr, "usage: minclient BASE_URL BODY_FILE")
		return 2
	}
	body, err := os.ReadFile(args[1])
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	resp, err := http.Post(args[0]+"/chat/completions", "application/json", bytes.NewReader(body))
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if sc.Text() == "data: [DONE]" {
			return 0
		}
	}
	return 1
}
