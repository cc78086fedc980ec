package lsp

import (
	"strings"
	"testing"
)

// BenchmarkDidChange20MiB applies one incremental change to a 20 MiB
// document, as each keystroke's didChange does.
func BenchmarkDidChange20MiB(b *testing.B) {
	line := strings.Repeat("x", 99) + "\n"
	d := &document{text: strings.Repeat(line, 20<<20/len(line)+1)}
	r := &Range{Start: Position{Line: 100000}, End: Position{Line: 100000, Character: 1}}
	for i := 0; i < b.N; i++ {
		d.apply(UTF16, []contentChange{{Range: r, Text: "y"}})
	}
}
