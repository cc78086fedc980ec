package lsp

import (
	"fmt"
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
		d.apply(UTF16, []contentChange{{Range: r, Text: "y"}}, "")
	}
}

// BenchmarkDidChange100Edits applies the didChange an editor sends after
// applying a WorkspaceEdit of 100 scattered edits (a write_file's hunks)
// to a 100,000-line document: one change per edit, last edit first.
func BenchmarkDidChange100Edits(b *testing.B) {
	var sb strings.Builder
	for i := range 100000 {
		fmt.Fprintf(&sb, "\tline %d of the file with some code 😀 in it\n", i)
	}
	text := sb.String()
	var changes []contentChange
	for k := 100; k >= 1; k-- {
		r := &Range{Start: Position{Line: uint32(k * 990), Character: 1}, End: Position{Line: uint32(k * 990), Character: 5}}
		changes = append(changes, contentChange{Range: r, Text: "LINE"})
	}
	b.ReportAllocs()
	for b.Loop() {
		d := &document{text: text}
		d.apply(UTF16, changes, "")
	}
}
