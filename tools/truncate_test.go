package tools

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func lines(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func TestTruncate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name             string
		s                string
		maxLines, maxLen int
		want             string
	}{
		{"fits", "a\nb\n", 10, 100, "a\nb\n"},
		{"empty", "", 1, 1, ""},
		{"no limits", lines(1, 100), 0, 0, lines(1, 100)},
		{"lines", lines(1, 10), 4, 0, lines(1, 2) + "[... 6 lines / 42 bytes cut ...]\n" + lines(9, 10)},
		{"odd lines", lines(1, 10), 3, 0, lines(1, 2) + "[... 7 lines / 49 bytes cut ...]\n" + lines(10, 10)},
		{"bytes", lines(1, 10), 0, 28, lines(1, 2) + "[... 7 lines / 49 bytes cut ...]\n" + lines(10, 10)},
		{"no final newline", "a\nb\nc\nd\ne", 2, 0, "a\n[... 3 lines / 6 bytes cut ...]\ne"},
		{"one long line", strings.Repeat("x", 100), 0, 20, strings.Repeat("x", 10) + "\n[... 1 line / 80 bytes cut ...]\n" + strings.Repeat("x", 10)},
		{"kib", strings.Repeat("y\n", 3000), 10, 0, strings.Repeat("y\n", 5) + "[... 2990 lines / 6 KiB cut ...]\n" + strings.Repeat("y\n", 5)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Truncate(tt.s, tt.maxLines, tt.maxLen); got != tt.want {
				t.Fatalf("got:\n%q\nwant:\n%q", got, tt.want)
			}
		})
	}
}

var markerRE = regexp.MustCompile(`\[\.\.\. (\d+) lines? / ([^\]]+) cut \.\.\.\]\n`)

// TestTruncateProperties checks on random input that the result is valid
// UTF-8, within the limits (plus the marker), and that head + cut + tail
// is the input.
func TestTruncateProperties(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "é", "✓", "😀", "\n", "\n", " "}
	for i := 0; i < 2000; i++ {
		var b strings.Builder
		for n := r.IntN(400); n > 0; n-- {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		s := b.String()
		maxLines, maxBytes := r.IntN(20), r.IntN(200)
		got := Truncate(s, maxLines, maxBytes)
		if !utf8.ValidString(got) {
			t.Fatalf("Truncate(%q, %d, %d) = %q: invalid UTF-8", s, maxLines, maxBytes, got)
		}
		loc := markerRE.FindStringSubmatchIndex(got)
		if loc == nil {
			if got != s {
				t.Fatalf("Truncate(%q, %d, %d) = %q: changed without a marker", s, maxLines, maxBytes, got)
			}
			continue
		}
		head, tail := got[:loc[0]], got[loc[1]:]
		if maxBytes > 0 && len(head)+len(tail) > maxBytes+1 {
			t.Fatalf("Truncate(%q, %d, %d): kept %d bytes", s, maxLines, maxBytes, len(head)+len(tail))
		}
		n, _ := strconv.Atoi(got[loc[2]:loc[3]])
		// The head either ends at a newline of the input, or was cut inside a
		// line and got a newline before the marker: accept either reading.
		ok := false
		for _, h := range []string{head, strings.TrimSuffix(head, "\n")} {
			if !strings.HasPrefix(s, h) || !strings.HasSuffix(s, tail) || len(h)+len(tail) >= len(s) {
				continue
			}
			cut := s[len(h) : len(s)-len(tail)]
			if max(strings.Count(cut, "\n"), 1) == n {
				ok = true
			}
		}
		if !ok {
			t.Fatalf("Truncate(%q, %d, %d) = %q: head, marker and tail do not add up to the input", s, maxLines, maxBytes, got)
		}
	}
}
