package lsp

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/tools"
)

// benchDoc opens a 100,000-line document in a bare server.
func benchDoc(b *testing.B) (*Server, *Workspace, string) {
	dir := b.TempDir()
	s := New(Options{Stderr: io.Discard})
	ws, err := newWorkspace(dir, s.docs, s.diags, s.c, UTF16, clientCaps{documentChanges: true})
	if err != nil {
		b.Fatal(err)
	}
	var sb strings.Builder
	for i := range 100000 {
		fmt.Fprintf(&sb, "\tline %d of the file with some code 😀 in it\n", i)
	}
	text := sb.String()
	s.docs.open("file://"+filepath.Join(dir, "big.go"), filepath.Join(dir, "big.go"), 1, text)
	return s, ws, text
}

// BenchmarkStrReplaceEdit turns a str_replace (one Replacement) on a
// 100,000-line open document into its WorkspaceEdit. "cold" rebuilds the
// line index as after every didChange; "warm" reuses it.
func BenchmarkStrReplaceEdit(b *testing.B) {
	for _, cold := range []bool{true, false} {
		name := "warm"
		if cold {
			name = "cold"
		}
		b.Run(name, func(b *testing.B) {
			s, ws, text := benchDoc(b)
			at := strings.Index(text, "line 87654 ")
			c := tools.Change{Path: "big.go", Old: []byte(text), Replacements: []tools.Replacement{{Start: at, End: at + 4, Text: "LINE"}}}
			c.New = []byte(text[:at] + "LINE" + text[at+4:])
			abs := filepath.Join(ws.Root(), "big.go")
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if cold {
					s.docs.mu.Lock()
					s.docs.path[abs].mapper = nil
					s.docs.mu.Unlock()
				}
				p, _, err := ws.buildEdit(context.Background(), "big.go", abs, c)
				if err != nil || len(p.Edit.DocumentChanges) != 1 {
					b.Fatal(err)
				}
			}
		})
	}
}
