package tools

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/agent-lsp/agent-lsp/internal/text"
)

// Truncate shortens s to at most maxLines lines and about maxBytes bytes by
// cutting the middle: it keeps the head and the tail (half of each budget
// each, at line boundaries when it can, never inside a UTF-8 sequence) and
// puts a marker between them saying how much was cut, e.g.
//
//	[... 1234 lines / 56 KiB cut ...]
//
// A limit of zero or less means no limit of that kind. s is returned
// unchanged when it fits. The result may exceed maxBytes by the marker's
// length.
func Truncate(s string, maxLines, maxBytes int) string {
	lines := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") && s != "" {
		lines++
	}
	if (maxLines <= 0 || lines <= maxLines) && (maxBytes <= 0 || len(s) <= maxBytes) {
		return s
	}
	headLines, tailLines := (maxLines+1)/2, maxLines/2
	if maxLines <= 0 {
		headLines, tailLines = lines, lines
	}
	if maxBytes <= 0 {
		maxBytes = len(s)
	}
	headBytes, tailBytes := (maxBytes+1)/2, maxBytes/2

	// Head: up to headLines lines and headBytes bytes.
	h := 0
	for n := 0; n < headLines; n++ {
		i := strings.IndexByte(s[h:], '\n')
		if i < 0 || h+i+1 > headBytes {
			break
		}
		h += i + 1
	}
	if h == 0 { // the first line alone is over budget: cut inside it
		h = runeStart(s, min(headBytes, len(s)))
	}

	// Tail: up to tailLines lines and tailBytes bytes, not overlapping the head.
	t := tailStart(s, strings.TrimSuffix(s, "\n"), h, tailLines, tailBytes)

	if t <= h {
		return s
	}
	cut := s[h:t]
	cutLines := strings.Count(cut, "\n")
	if cutLines == 0 {
		cutLines = 1
	}
	unit := "lines"
	if cutLines == 1 {
		unit = "line"
	}
	marker := fmt.Sprintf("[... %d %s / %s cut ...]", cutLines, unit, text.Size(int64(len(cut))))
	var b strings.Builder
	b.Grow(h + len(marker) + len(s) - t + 2)
	b.WriteString(s[:h])
	if h > 0 && s[h-1] != '\n' {
		b.WriteByte('\n')
	}
	b.WriteString(marker)
	b.WriteByte('\n')
	b.WriteString(s[t:])
	return b.String()
}

// tailStart returns where the kept tail of s begins: after at most
// tailLines lines and tailBytes bytes, and not before h.
func tailStart(s, body string, h, tailLines, tailBytes int) int {
	t := len(s)
	end := len(body) // search for newlines before here
	for n := 0; n < tailLines; n++ {
		i := strings.LastIndexByte(body[:end], '\n')
		if i < h || len(s)-(i+1) > tailBytes {
			break
		}
		t = i + 1
		end = i
	}
	if t == len(s) && tailLines > 0 { // the last line alone is over budget
		t = max(len(s)-tailBytes, h)
		for t < len(s) && !utf8.RuneStart(s[t]) {
			t++
		}
	}
	return t
}

// runeStart moves i back to the start of the UTF-8 sequence it falls in.
func runeStart(s string, i int) int {
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

// cutLine shortens one line to at most max bytes at a rune boundary and
// says how long it was.
func cutLine(line []byte, max int) []byte {
	if len(line) <= max {
		return line
	}
	i := runeStart(string(line[:max+1]), max)
	out := make([]byte, 0, i+40)
	out = append(out, line[:i]...)
	return fmt.Appendf(out, " [... line cut, %d bytes in all]", len(line))
}

// isBinary reports whether data looks binary: a NUL byte or invalid UTF-8
// in the first 8 KiB. When truncated is set, data is a prefix of the file,
// so a rune cut at its end does not count.
func isBinary(data []byte, truncated bool) bool {
	head := data
	if len(head) > sniffLen {
		head = head[:sniffLen]
		truncated = true
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return true
	}
	if utf8.Valid(head) {
		return false
	}
	if truncated {
		// Drop an incomplete sequence at the end (at most 3 bytes).
		for k := 1; k <= 3 && k <= len(head); k++ {
			if utf8.RuneStart(head[len(head)-k]) {
				if utf8.Valid(head[:len(head)-k]) && !utf8.FullRune(head[len(head)-k:]) {
					return false
				}
				break
			}
		}
	}
	return true
}
