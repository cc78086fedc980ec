package tools

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestFoldFinder compares foldFinder with lowercasing both sides and
// bytes.Index, on random text over a small alphabet (so matches are common).
func TestFoldFinder(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	alphabet := []byte("aAbB(_ \nzZ")
	rnd := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		return b
	}
	for range 20000 {
		hay := rnd(r.IntN(60))
		lit := bytes.ToLower(rnd(1 + r.IntN(4)))
		from := 0
		if len(hay) > 0 {
			from = r.IntN(len(hay) + 1)
		}
		f := newFoldFinder([]byte(lowerASCII(string(lit))))
		want := bytes.Index([]byte(lowerASCII(string(hay[from:]))), lit)
		if want >= 0 {
			want += from
		}
		if got := f.index(hay, from); got != want {
			t.Fatalf("index(%q, %q, from %d) = %d, want %d", hay, lit, from, got, want)
		}
	}
}
