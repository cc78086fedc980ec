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
		d.apply(UTF16, []contentChange{{Range: r, Text: "y"}}, sentEdit{})
	}
}

// BenchmarkDidChange100Edits applies the didChange an editor sends after
// applying a WorkspaceEdit of 100 scattered edits (a write_file's hunks)
// to a 100,000-line document: one change per edit, last edit first. The
// line index is there, as the change before left it. "direct" is the least any copy of the buffer costs: the 100 spans,
// already as offsets, spliced into one new string.
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
	b.Run("server", func(b *testing.B) {
		m := NewMapper(text) // as the change before this one left it
		b.ReportAllocs()
		for b.Loop() {
			d := &document{text: text, mapper: m}
			d.apply(UTF16, changes, sentEdit{})
		}
	})
	b.Run("direct", func(b *testing.B) {
		m := NewMapper(text)
		var spans []span
		for i := len(changes) - 1; i >= 0; i-- {
			r := changes[i].Range
			spans = append(spans, span{m.Offset(UTF16, r.Start), m.Offset(UTF16, r.End), changes[i].Text})
		}
		b.ReportAllocs()
		for b.Loop() {
			sink = applySpans(text, spans)
		}
	})
}

// sink keeps a benchmark's result alive.
var sink string
