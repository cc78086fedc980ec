package lsp

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/sergi/go-diff/diffmatchpatch"
	"go.lsp.dev/protocol"

	"github.com/agent-lsp/agent-lsp/internal/proctest"
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

// scattered returns text with 100 changed, inserted or deleted lines
// spread over it, as a model's whole-file rewrite of a long file.
func scattered(text string) string {
	lines := strings.SplitAfter(text, "\n")
	step := len(lines) / 101
	for k := 1; k <= 100; k++ {
		i := k * step
		switch k % 3 {
		case 0:
			lines[i] = strings.Replace(lines[i], "code", "CODE", 1)
		case 1:
			lines[i] = ""
		default:
			lines[i] += "\t// a new line\n"
		}
	}
	return strings.Join(lines, "")
}

// BenchmarkWriteFileEdit turns a write_file of a 100,000-line open
// document with 100 scattered changes into its WorkspaceEdit (line diff,
// character refinement, positions), beside go-diff's line mode alone. It
// reports the bytes allocated per byte of the file. go_source does the
// same on real code, Go's net/http sources end to end (shorter lines, so
// more of them per byte).
func BenchmarkWriteFileEdit(b *testing.B) {
	s, ws, text := benchDoc(b)
	benchWriteFile(b, ws, "big.go", text)
	b.Run("go_source", func(b *testing.B) {
		files, err := filepath.Glob(filepath.Join(proctest.GoRoot(), "src", "net", "http", "*.go"))
		if err != nil || len(files) == 0 {
			b.Skip("no Go sources in GOROOT")
		}
		var sb strings.Builder
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				b.Fatal(err)
			}
			sb.Write(data)
		}
		abs := filepath.Join(ws.Root(), "http.go")
		s.docs.open("file://"+abs, abs, 1, sb.String())
		benchWriteFile(b, ws, "http.go", sb.String())
	})
}

// benchWriteFile is BenchmarkWriteFileEdit on the open document rel.
func benchWriteFile(b *testing.B, ws *Workspace, rel, text string) {
	next := scattered(text)
	b.Run("ours", func(b *testing.B) {
		c := tools.Change{Path: rel, Old: []byte(text), New: []byte(next)}
		abs := filepath.Join(ws.Root(), rel)
		b.ReportAllocs()
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		for b.Loop() {
			p, _, err := ws.buildEdit(context.Background(), rel, abs, c)
			if err != nil || len(p.Edit.DocumentChanges) != 1 {
				b.Fatal(err)
			}
		}
		runtime.ReadMemStats(&m1)
		b.ReportMetric(float64(m1.TotalAlloc-m0.TotalAlloc)/float64(b.N)/float64(len(text)), "alloc/size")
	})
	b.Run("godiff_lines", func(b *testing.B) {
		b.ReportAllocs()
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		for b.Loop() {
			dmp := diffmatchpatch.New()
			dmp.DiffTimeout = DiffTimeout
			x, y, lines := dmp.DiffLinesToChars(text, next)
			dmp.DiffCharsToLines(dmp.DiffMain(x, y, false), lines)
		}
		runtime.ReadMemStats(&m1)
		b.ReportMetric(float64(m1.TotalAlloc-m0.TotalAlloc)/float64(b.N)/float64(len(text)), "alloc/size")
	})
}

// benchEditor is the server's side of an edit without the wire: reads
// come from the open document (Workspace.ReadFile), an edit is built as
// workspace/applyEdit params (buildEdit) and comes back as the didChange
// an editor sends after applying it. Workspace.ApplyEdit does the same
// around sendEdit, which needs a connection.
type benchEditor struct {
	*Workspace
}

func (e benchEditor) ApplyEdit(ctx context.Context, c tools.Change) error {
	abs := filepath.Join(e.Root(), c.Path)
	p, _, err := e.buildEdit(ctx, c.Path, abs, c)
	if err != nil {
		return err
	}
	te := p.Edit.DocumentChanges[0].(*protocol.TextDocumentEdit)
	changes := make([]contentChange, len(te.Edits))
	for i := range te.Edits { // LSP applies them as if at once: last first
		ed := te.Edits[len(te.Edits)-1-i].(*protocol.TextEdit)
		changes[i] = contentChange{Range: &ed.Range, Text: ed.NewText}
	}
	e.expectEdit(abs, p, c)
	return e.docs.change(e.enc, string(te.TextDocument.URI), *te.TextDocument.Version+1, changes)
}

// BenchmarkStrReplaceLSP runs the str_replace tool on a 100,000-line open
// document through the server: read the buffer, check, plan, build the
// WorkspaceEdit, take the editor's didChange, report, as the session's
// dispatcher runs it. Only the JSON-RPC transport and the editor are left
// out. The edit is at line 12 and at line 87,654, as in
// tools.BenchmarkStrReplace100k, whose direct edits are the anchors.
func BenchmarkStrReplaceLSP(b *testing.B) {
	for _, line := range []int{12, 87654} {
		b.Run(fmt.Sprintf("line_%d", line), func(b *testing.B) {
			_, ws, text := benchDoc(b)
			reads := tools.NewReads()
			reads.MarkRead("big.go", []byte(text))
			d := tools.NewDispatcher(tools.NewRegistry(tools.NewStrReplace(benchEditor{ws}, reads)))
			args := [2]string{
				fmt.Sprintf(`{"path":"big.go","old_str":"line %d of","new_str":"LINE %d of"}`, line, line),
				fmt.Sprintf(`{"path":"big.go","old_str":"LINE %d of","new_str":"line %d of"}`, line, line),
			}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				res := d.Dispatch(context.Background(), tools.Call{ID: "c", Name: "str_replace", Arguments: args[i%2]})
				if res.IsError {
					b.Fatal(res.Text)
				}
			}
		})
	}
}
