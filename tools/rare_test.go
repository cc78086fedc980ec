package tools

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestRareFinder checks rareFinder.index against bytes.Index: needles
// whose rarest byte is first, inside or last, in haystacks where that byte
// is rare (it jumps) and common (it hands over to bytes.Index), with
// matches at the start, the end, overlapping and absent.
func TestRareFinder(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(9, 10))
	needles := []string{"line 12 of", "zeta", "ab{", "{ab", "a{b", "\tfunc (s *S) X(", "x", "ee", strings.Repeat("e", 70) + "{"}
	for _, alphabet := range []string{"e t", "e t{", "{{{e", "abcdefghijklmnopqrstuvwxyz {}()\t\n"} {
		for _, size := range []int{0, 5, 63, 64, 65, 200, 5000} {
			hay := make([]byte, size)
			for i := range hay {
				hay[i] = alphabet[r.IntN(len(alphabet))]
			}
			for _, v := range needles {
				for _, at := range []int{-1, 0, size / 2, size - len(v)} {
					h := bytes.Clone(hay)
					if at >= 0 && at+len(v) <= len(h) {
						copy(h[at:], v)
					}
					if got, want := newRareFinder([]byte(v)).index(h), bytes.Index(h, []byte(v)); got != want {
						t.Fatalf("alphabet %q size %d %q at %d: %d, want %d", alphabet, size, v, at, got, want)
					}
				}
			}
		}
	}
}
