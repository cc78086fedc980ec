package tools

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"testing"
)

// memEditor holds files in memory, as an editor's buffers: ReadFile
// hands out the buffer itself (the tools never write to what they read),
// ApplyEdit checks Old and stores New. The edit benchmarks measure the
// tools against the direct edit of text already in memory, not a disk
// or a copy made by a particular workspace.
type memEditor struct {
	root  string
	mu    sync.Mutex
	files map[string][]byte
}

func (m *memEditor) Root() string { return m.root }

func (m *memEditor) ReadFile(_ context.Context, path string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.files[path]
	if !ok {
		return nil, fs.ErrNotExist
	}
	return b, nil
}

func (m *memEditor) ApplyEdit(_ context.Context, c Change) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !bytes.Equal(m.files[c.Path], c.Old) {
		return ErrConflict
	}
	m.files[c.Path] = c.New
	return nil
}

// benchLines is a 100,000-line source file (about 4.9 MB).
func benchLines() string {
	var sb strings.Builder
	for i := range 100000 {
		fmt.Fprintf(&sb, "\tline %d of the file with some code 😀 in it\n", i)
	}
	return sb.String()
}

// BenchmarkStrReplace100k runs str_replace end to end (read, checks,
// plan, apply, report) on a 100,000-line file in memory, beside the
// direct edit it stands for: strings.Index and a splice. The edit is near
// the top (line 12), where the direct search stops at once and the tool
// still reads the whole file for uniqueness, and near the end (line
// 87,654), where both read most of it.
func BenchmarkStrReplace100k(b *testing.B) {
	text := benchLines()
	for _, line := range []int{12, 87654} {
		b.Run(fmt.Sprintf("line_%d", line), func(b *testing.B) {
			benchStrReplace(b, text, fmt.Sprintf("line %d of", line), fmt.Sprintf("LINE %d of", line))
		})
	}
}

func benchStrReplace(b *testing.B, text, old, repl string) {
	b.Run("tool", func(b *testing.B) {
		ed := &memEditor{root: b.TempDir(), files: map[string][]byte{"big.go": []byte(text)}}
		reads := NewReads()
		reads.MarkRead("big.go", []byte(text))
		p := &StrReplaceParams{Path: "big.go"}
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			p.OldStr, p.NewStr = old, repl
			if i%2 == 1 {
				p.OldStr, p.NewStr = repl, old
			}
			res, err := strReplace(context.Background(), ed, reads, p)
			if err != nil || res.IsError {
				b.Fatal(err, res.Text)
			}
		}
	})
	b.Run("direct", func(b *testing.B) {
		cur := text
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			o, r := old, repl
			if i%2 == 1 {
				o, r = repl, old
			}
			at := strings.Index(cur, o)
			if at < 0 {
				b.Fatal("not found")
			}
			cur = cur[:at] + r + cur[at+len(o):]
		}
	})
}
