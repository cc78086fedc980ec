package lsp

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

func TestMapperTable(t *testing.T) {
	t.Parallel()
	text := "ab\n😀x\r\ny\rz€"
	// offsets: a0 b1 \n2 | 😀3-6 x7 \r8 \n9 | y10 \r11 | z12 €13-15 end16
	cases := []struct {
		off  int
		enc  Encoding
		want Position
	}{
		{0, UTF16, Position{Line: 0, Character: 0}},
		{2, UTF16, Position{Line: 0, Character: 2}},
		{3, UTF16, Position{Line: 1, Character: 0}},
		{7, UTF16, Position{Line: 1, Character: 2}}, // after the surrogate pair
		{7, UTF8, Position{Line: 1, Character: 4}},
		{7, UTF32, Position{Line: 1, Character: 1}},
		{8, UTF16, Position{Line: 1, Character: 3}},
		{9, UTF16, Position{Line: 1, Character: 3}}, // inside \r\n: end of the line
		{10, UTF16, Position{Line: 2, Character: 0}},
		{12, UTF16, Position{Line: 3, Character: 0}},
		{16, UTF16, Position{Line: 3, Character: 2}},
		{16, UTF8, Position{Line: 3, Character: 4}},
		{5, UTF16, Position{Line: 1, Character: 0}}, // inside the emoji: its start
		{99, UTF16, Position{Line: 3, Character: 2}},
	}
	m := NewMapper(text)
	if m.Lines() != 4 {
		t.Fatalf("lines %d", m.Lines())
	}
	for _, c := range cases {
		if got := m.Position(c.enc, c.off); got != c.want {
			t.Errorf("Position(%v, %d) = %v, want %v", c.enc, c.off, got, c.want)
		}
	}
	offs := []struct {
		pos  Position
		enc  Encoding
		want int
	}{
		{Position{Line: 1, Character: 1}, UTF16, 3},  // inside the surrogate pair: its start
		{Position{Line: 1, Character: 2}, UTF16, 7},  // after it
		{Position{Line: 1, Character: 99}, UTF16, 8}, // past the line end: the line end
		{Position{Line: 1, Character: 2}, UTF8, 3},   // inside the UTF-8 sequence: its start
		{Position{Line: 3, Character: 1}, UTF16, 13},
		{Position{Line: 9, Character: 0}, UTF16, 16}, // past the last line: the end
		{Position{Line: 1, Character: 1}, UTF32, 7},
	}
	for _, c := range offs {
		if got := m.Offset(c.enc, c.pos); got != c.want {
			t.Errorf("Offset(%v, %v) = %d, want %d", c.enc, c.pos, got, c.want)
		}
	}
}

// reference computes a position by brute force.
func reference(text string, off int, enc Encoding) Position {
	var line, char uint32
	for i, r := range text {
		if i >= off {
			break
		}
		if r == '\n' || (r == '\r' && !strings.HasPrefix(text[i+1:], "\n")) {
			line, char = line+1, 0
			continue
		}
		if r == '\r' {
			continue // part of \r\n, and off is past it only when past \n too
		}
		switch enc {
		case UTF8:
			char += uint32(utf8.RuneLen(r))
		case UTF16:
			char += uint32(len(utf16.Encode([]rune{r})))
		default:
			char++
		}
	}
	return Position{Line: line, Character: char}
}

func FuzzMapper(f *testing.F) {
	for _, s := range []string{"", "a", "😀\n😀", "a\r\nb\rc\n", "€😀\r\r\n\n𝄞x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if !utf8.ValidString(text) {
			return
		}
		m := NewMapper(text)
		for off := 0; off <= len(text); off++ {
			if off < len(text) && !utf8.RuneStart(text[off]) {
				continue
			}
			if off > 0 && text[off-1] == '\r' && off < len(text) && text[off] == '\n' {
				continue // between \r and \n: not a position
			}
			for _, enc := range []Encoding{UTF16, UTF8, UTF32} {
				p := m.Position(enc, off)
				if want := reference(text, off, enc); p != want {
					t.Fatalf("%q Position(%v,%d) = %v, want %v", text, enc, off, p, want)
				}
				if back := m.Offset(enc, p); back != off {
					t.Fatalf("%q Offset(%v,%v) = %d, want %d", text, enc, p, back, off)
				}
			}
		}
	})
}

func FuzzMapperReplace(f *testing.F) {
	f.Add("a\nb\nc\n", 1, 3, "x\ny")
	f.Add("😀\n\n", 0, 5, "")
	f.Add("a\r\nb", 1, 2, "\n")
	f.Fuzz(func(t *testing.T, text string, start, end int, repl string) {
		if start < 0 || end < start || end > len(text) {
			return
		}
		got := NewMapper(text).Replace(start, end, repl)
		want := NewMapper(text[:start] + repl + text[end:])
		if got.text != want.text || fmt.Sprint(got.lines) != fmt.Sprint(want.lines) {
			t.Fatalf("Replace(%q, %d, %d, %q): lines %v, want %v", text, start, end, repl, got.lines, want.lines)
		}
	})
}
