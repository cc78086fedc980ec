package lsp

import (
	"slices"
	"strings"
	"unsafe"
)

// Replace returns the mapper of the text with [start, end) replaced by
// repl.
func (m *Mapper) Replace(start, end int, repl string) *Mapper {
	return m.splice([]span{{start, end, repl}}, sentEdit{})
}

// sentEdit is what the didChange reporting an edit this server sent is
// expected to give: text, the tool's result (Change.New). When the tool
// vouches that text is base with spans applied (a Change with
// Replacements: New is Old with them applied), base is Old's memory and
// spans are those replacements.
type sentEdit struct {
	text  string
	base  string
	spans []span
}

// vouched reports whether text with spans applied is e.text by the tool's
// word: text is the very memory e.base is (an open document's text never
// changes, nor does Change.Old), and the spans are e's.
func (e sentEdit) vouched(text string, spans []span) bool {
	return len(e.base) > 0 && len(e.base) == len(text) && unsafe.StringData(e.base) == unsafe.StringData(text) && slices.Equal(spans, e.spans)
}

// splice returns the mapper of the text with spans (sorted by start,
// non-overlapping) replaced, in one pass: the text is copied once, not
// once per span, and the line index is updated, not rebuilt (texts with
// \r are re-indexed whole: a \r\n pair may form or split at the seams).
// When want.text is the text the spans give, vouched for by the tool or
// else checked byte for byte, its memory becomes the text and nothing is
// copied: an edit this server sent comes back as a didChange, and the
// tool that made it already holds the result.
func (m *Mapper) splice(spans []span, want sentEdit) *Mapper {
	size := len(m.text)
	cr := m.cr
	for _, s := range spans {
		size += len(s.Text) - (s.End - s.Start)
		cr = cr || strings.IndexByte(s.Text, '\r') >= 0
	}
	text := want.text
	if len(text) != size || !(want.vouched(m.text, spans) || splicedIs(m.text, spans, text)) {
		var b strings.Builder
		b.Grow(size) // not zeroed, unlike make
		last := 0
		for _, s := range spans {
			b.WriteString(m.text[last:s.Start])
			b.WriteString(s.Text)
			last = s.End
		}
		b.WriteString(m.text[last:])
		text = b.String()
	}
	if cr {
		return NewMapper(text)
	}
	// Lines starting at or before a span's start are kept; those whose
	// newline was inside it go; the rest shift by the length change so far.
	n := len(m.lines)
	for _, s := range spans {
		n += strings.Count(s.Text, "\n")
	}
	lines := make([]int, 0, n)
	i, delta := 0, 0
	for _, s := range spans {
		lo := i + sortSearch(m.lines[i:], s.Start+1) // first line starting after start
		for _, l := range m.lines[i:lo] {
			lines = append(lines, l+delta)
		}
		lines = appendLines(lines, s.Text, s.Start+delta)
		i = lo + sortSearch(m.lines[lo:], s.End+1) // first line starting after end
		delta += len(s.Text) - (s.End - s.Start)
	}
	for _, l := range m.lines[i:] {
		lines = append(lines, l+delta)
	}
	return &Mapper{text: text, lines: lines}
}

// splicedIs reports whether old with spans replaced is want, which has
// the result's length, comparing piece by piece without building it.
func splicedIs(old string, spans []span, want string) bool {
	at, last := 0, 0
	for _, s := range spans {
		for _, piece := range [2]string{old[last:s.Start], s.Text} {
			if want[at:at+len(piece)] != piece {
				return false
			}
			at += len(piece)
		}
		last = s.End
	}
	return want[at:] == old[last:]
}

// apply applies changes in order, as the protocol says. A run of range
// changes each ending at or before the start of the one before it (the
// order editors send a multi-edit in: last edit first) is applied in one
// splice, all its ranges read in the text before the run: the text before
// a change's start is the same in both, so a position there (one that
// Position gives back, not clamped) means the same offset. (Not so in a
// text with \r: a \r before a change may pair with a \n it inserts, and
// line starts move. Such changes are applied one by one.) want, when
// set, is what the changes are expected to give (see splice).
func (d *document) apply(enc Encoding, changes []contentChange, want sentEdit) {
	var run []span // last first
	var base *Mapper
	flush := func(want sentEdit) {
		if len(run) > 0 {
			slices.Reverse(run)
			d.mapper = base.splice(run, want)
			d.text = d.mapper.text
			run = run[:0]
		}
	}
	for _, c := range changes {
		if c.Range == nil {
			flush(sentEdit{})
			d.text, d.mapper = c.Text, nil
			continue
		}
		if len(run) > 0 {
			if s, ok := exactly(base, enc, *c.Range); ok && !base.cr && s.End <= run[len(run)-1].Start {
				s.Text = c.Text
				run = append(run, s)
				continue
			}
			flush(sentEdit{})
		}
		base = d.mapperFor()
		start, end := base.Offset(enc, c.Range.Start), base.Offset(enc, c.Range.End)
		if end < start {
			start, end = end, start
		}
		run = append(run, span{start, end, c.Text})
	}
	flush(want)
}

// exactly returns the offsets of r in m when both its ends are exact
// positions there: inside the text, and Position gives them back.
func exactly(m *Mapper, enc Encoding, r Range) (span, bool) {
	start, end := m.Offset(enc, r.Start), m.Offset(enc, r.End)
	if end < start || m.Position(enc, start) != r.Start || m.Position(enc, end) != r.End {
		return span{}, false
	}
	return span{Start: start, End: end}, true
}
