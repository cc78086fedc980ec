package tools

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzRareFinder checks rareFinder.index against bytes.Index on any
// haystack and needle, the needle also planted at a position the fuzzer
// picks (so that matches, not only misses, are found).
func FuzzRareFinder(f *testing.F) {
	f.Add(strings.Repeat("e t", 30)+"zeta", "zeta", uint16(7))
	f.Add(strings.Repeat("{{{e", 40), "a{b", uint16(0))
	f.Add(strings.Repeat("\tfunc (s *S) X(", 9), "\tfunc (s *S) X(", uint16(100))
	f.Fuzz(func(t *testing.T, hay, lit string, at uint16) {
		check := func(h []byte) {
			if got, want := newRareFinder([]byte(lit)).index(h), bytes.Index(h, []byte(lit)); got != want {
				t.Fatalf("%q in %q: %d, want %d", lit, h, got, want)
			}
		}
		check([]byte(hay))
		if len(lit) <= len(hay) {
			h := []byte(hay)
			copy(h[int(at)%(len(hay)-len(lit)+1):], lit)
			check(h)
		}
	})
}
