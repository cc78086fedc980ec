// Command minclient is the anchor of BenchmarkOneTurn: the least a Go
// program does to get one streamed answer, posting a request body read
// from a file and reading the SSE stream to its [DONE].
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"net/http"
	"os"
)

func main() {
	body, err := os.ReadFile(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	resp, err := http.Post(os.Args[1]+"/chat/completions", "application/json", bytes.NewReader(body))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if sc.Text() == "data: [DONE]" {
			return
		}
	}
	os.Exit(1)
}
