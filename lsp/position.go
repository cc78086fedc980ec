package lsp

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"go.lsp.dev/protocol"
)

// Encoding is the negotiated unit of Position.Character.
type Encoding int

// Position encodings. UTF-16 is LSP's default; UTF-8 is used when the
// client offers it (general.positionEncodings).
const (
	UTF16 Encoding = iota
	UTF8
	UTF32
)

// String returns the LSP PositionEncodingKind.
func (e Encoding) String() string {
	switch e {
	case UTF8:
		return string(protocol.PositionEncodingKindUTF8)
	case UTF32:
		return string(protocol.PositionEncodingKindUTF32)
	default:
		return string(protocol.PositionEncodingKindUTF16)
	}
}

// Position is an LSP position: zero-based line and character, the
// character counted in the negotiated Encoding.
type Position = protocol.Position

// Range is an LSP range, end exclusive.
type Range = protocol.Range

// Mapper converts byte offsets of one text to positions and back. It is
// the one place that knows about line breaks (\n, \r\n and \r, as LSP
// says) and about UTF-16 surrogate pairs. Build it once per text version:
// the line index costs one pass; a lookup then scans one line.
type Mapper struct {
	text  string
	lines []int // byte offset of the start of each line
	cr    bool  // text contains \r
}

// NewMapper indexes text.
func NewMapper(text string) *Mapper {
	lines := make([]int, 1, 1+len(text)/40)
	if strings.IndexByte(text, '\r') < 0 {
		return &Mapper{text: text, lines: appendLines(lines, text, 0)}
	}
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '\n':
			lines = append(lines, i+1)
		case '\r':
			if i+1 < len(text) && text[i+1] == '\n' {
				i++
			}
			lines = append(lines, i+1)
		}
	}
	return &Mapper{text: text, lines: lines, cr: true}
}

// appendLines appends the start of each line after a \n in text, offset
// by base; the vectorized IndexByte finds them.
func appendLines(lines []int, text string, base int) []int {
	for i := 0; ; {
		j := strings.IndexByte(text[i:], '\n')
		if j < 0 {
			return lines
		}
		i += j + 1
		lines = append(lines, base+i)
	}
}

// sortSearch returns the first index i with lines[i] >= x.
func sortSearch(lines []int, x int) int {
	lo, hi := 0, len(lines)
	for lo < hi {
		h := int(uint(lo+hi) >> 1)
		if lines[h] < x {
			lo = h + 1
		} else {
			hi = h
		}
	}
	return lo
}

// Text returns the indexed text.
func (m *Mapper) Text() string { return m.text }

// Lines is the number of lines (a text ending in a line break has an
// empty last line).
func (m *Mapper) Lines() int { return len(m.lines) }

// lineEnd returns the offset of the end of line i's content, before its
// line break.
func (m *Mapper) lineEnd(i int) int {
	if i+1 >= len(m.lines) {
		return len(m.text)
	}
	end := m.lines[i+1]
	if end > 0 && m.text[end-1] == '\n' {
		end--
	}
	if end > m.lines[i] && m.text[end-1] == '\r' {
		end--
	}
	return end
}

// Position returns the position of byte offset off, clamped to the text.
// An offset inside a line break or a multi-byte character maps to the
// start of that break or character.
func (m *Mapper) Position(enc Encoding, off int) Position {
	off = max(0, min(off, len(m.text)))
	// Binary search for the last line starting at or before off.
	lo, hi := 0, len(m.lines)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if m.lines[mid] <= off {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	start := m.lines[lo]
	off = min(off, m.lineEnd(lo))
	for off > start && off < len(m.text) && !utf8.RuneStart(m.text[off]) {
		off--
	}
	return Position{Line: uint32(lo), Character: uint32(units(enc, m.text[start:off]))}
}

// Offset returns the byte offset of pos. A line past the end maps to the
// end of the text; a character past the end of its line maps to the end
// of the line (as LSP says); a character inside a surrogate pair or a
// multi-byte sequence maps to the start of that character.
func (m *Mapper) Offset(enc Encoding, pos Position) int {
	if int(pos.Line) >= len(m.lines) {
		return len(m.text)
	}
	start, end := m.lines[pos.Line], m.lineEnd(int(pos.Line))
	line := m.text[start:end]
	want := int(pos.Character)
	if enc == UTF8 {
		off := min(want, len(line))
		for off > 0 && off < len(line) && !utf8.RuneStart(line[off]) {
			off--
		}
		return start + off
	}
	n := 0
	for i := 0; i < len(line); {
		r, size := utf8.DecodeRuneInString(line[i:])
		w := 1
		if enc == UTF16 && r >= 0x10000 {
			w = 2
		}
		if n+w > want {
			return start + i
		}
		n += w
		i += size
	}
	return end
}

// units counts s (one line's prefix) in enc.
func units(enc Encoding, s string) int {
	switch enc {
	case UTF8:
		return len(s)
	case UTF32:
		return utf8.RuneCountInString(s)
	}
	n := 0
	for _, r := range s {
		// Invalid bytes decode as U+FFFD: one unit each, as Offset walks.
		n += utf16.RuneLen(r)
	}
	return n
}
