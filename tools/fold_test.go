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

// TestSetFinder compares the multi-literal search with the first of
// bytes.Index over each literal, scanning one buffer from rising positions
// as scan does.
func TestSetFinder(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 8))
	alphabet := []byte("abAB \n")
	rnd := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		return b
	}
	for range 5000 {
		fold := r.IntN(2) == 0
		var lits []string
		for range 1 + r.IntN(4) {
			l := string(rnd(1 + r.IntN(3)))
			if fold {
				l = lowerASCII(l)
			}
			lits = append(lits, l)
		}
		hay := rnd(r.IntN(80))
		mode := litExact
		if fold {
			mode = litFold
		}
		f := newLiteralSet(lits, mode).finder()
		for from := 0; from <= len(hay); from += 1 + r.IntN(5) {
			want := -1
			h := hay
			if fold {
				h = []byte(lowerASCII(string(hay)))
			}
			for _, l := range lits {
				if i := bytes.Index(h[from:], []byte(l)); i >= 0 && (want < 0 || from+i < want) {
					want = from + i
				}
			}
			if got := f.index(hay, from); got != want {
				t.Fatalf("index(%q, %q fold=%v, from %d) = %d, want %d", hay, lits, fold, from, got, want)
			}
		}
	}
}

func TestHasKS(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{"plain ascii k s": false, "café": false, "\u212A": true, "x\u017Fy": true, "Å\u212B": false} {
		if got := hasKS([]byte(s)); got != want {
			t.Errorf("hasKS(%q) = %v", s, got)
		}
	}
}
