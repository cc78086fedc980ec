// Package text holds the few string helpers every layer needs when it
// shows something to a person or a model: one line of a text, a clipped
// string, a size. One copy, so every message reads the same.
package text

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// OneLine folds runs of white space (newlines included) into single
// spaces; with n > 0 it also cuts the result to n runes, the last one "…".
func OneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if n <= 0 || utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// Cut returns s cut to at most n bytes, at a UTF-8 boundary.
func Cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if n < 0 {
		n = 0
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Clip is Cut with "…" after a cut.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return Cut(s, n) + "…"
}

// Size formats n bytes for people: "512 bytes", "6 KiB", "1 MiB", "49.9 MiB".
func Size(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return fmt.Sprintf("%d KiB", (n+1<<9)>>10)
	case n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	default:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
}
