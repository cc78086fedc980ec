package linediff

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// apply applies hunks to a, checking that they are in order, disjoint
// and on line boundaries.
func apply(t *testing.T, a, b string, hunks []Hunk) string {
	t.Helper()
	var sb strings.Builder
	last, lastB := 0, 0
	for _, h := range hunks {
		if h.A0 < last || h.A1 < h.A0 || h.B0 < lastB || h.B1 < h.B0 || (h.A0 == h.A1 && h.B0 == h.B1) {
			t.Fatalf("hunks out of order or empty: %v", hunks)
		}
		for _, p := range []struct {
			s   string
			off int
		}{{a, h.A0}, {a, h.A1}, {b, h.B0}, {b, h.B1}} {
			if p.off > 0 && p.off < len(p.s) && p.s[p.off-1] != '\n' {
				t.Fatalf("hunk %v is not on line boundaries", h)
			}
		}
		// Between hunks the texts are equal.
		if a[last:h.A0] != b[lastB:h.B0] {
			t.Fatalf("text between hunks differs: %q vs %q", a[last:h.A0], b[lastB:h.B0])
		}
		sb.WriteString(a[last:h.A0])
		sb.WriteString(b[h.B0:h.B1])
		last, lastB = h.A1, h.B1
	}
	sb.WriteString(a[last:])
	return sb.String()
}

// goDiffHunks counts the hunks of go-diff's line mode.
func goDiffHunks(a, b string) int {
	dmp := diffmatchpatch.New()
	ca, cb, lines := dmp.DiffLinesToChars(a, b)
	diffs := dmp.DiffCharsToLines(dmp.DiffMain(ca, cb, false), lines)
	n, in := 0, false
	for _, d := range diffs {
		if d.Type == diffmatchpatch.DiffEqual {
			in = false
		} else if !in {
			n, in = n+1, true
		}
	}
	return n
}

func TestDiff(t *testing.T) {
	t.Parallel()
	cases := []struct {
		a, b string
		want []Hunk
	}{
		{"", "", nil},
		{"a\n", "a\n", nil},
		{"", "a\n", []Hunk{{0, 0, 0, 2}}},
		{"a\n", "", []Hunk{{0, 2, 0, 0}}},
		{"a\nb\nc\n", "a\nx\nc\n", []Hunk{{2, 4, 2, 4}}},
		{"a\nc\n", "a\nb\nc\n", []Hunk{{2, 2, 2, 4}}},
		{"a\nb", "a\nb\n", []Hunk{{2, 3, 2, 4}}},
		{"a\r\nb\r\n", "a\nb\r\n", []Hunk{{0, 3, 0, 2}}},
		{"x\ny\n", "p\nq\n", []Hunk{{0, 4, 0, 4}}},
		{"}\n}\n}\n", "}\n}\n", []Hunk{{4, 6, 4, 4}}},
	}
	for _, c := range cases {
		got := Diff([]byte(c.a), []byte(c.b))
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("Diff(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
		if apply(t, c.a, c.b, got) != c.b {
			t.Errorf("Diff(%q, %q): hunks do not give b", c.a, c.b)
		}
	}
}

// TestDiffRandom applies the hunks of random pairs (few distinct lines,
// so gaps without unique lines go to Myers) and compares their number
// with go-diff's: for a text and an edit of it (what write_file sees),
// no more in all and more in hardly any case (both find a shortest
// script; ties can split differently); for unrelated texts, where many
// alignments are as short, not more than a tenth more in all.
func TestDiffRandom(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 8))
	words := []string{"a\n", "b\n", "}\n", "\n", "func f() {\n", "x", "\r\n", "😀\n"}
	gen := func(n int) string {
		var sb strings.Builder
		for range r.IntN(n) {
			sb.WriteString(words[r.IntN(len(words))])
		}
		return sb.String()
	}
	var ours, theirs [2]int
	worse := 0
	for i := range 4000 {
		a := gen(40)
		b := gen(40)
		edit := i%2 == 0
		if edit {
			b = mutate(r, a, 1+r.IntN(4))
		}
		h := Diff([]byte(a), []byte(b))
		if got := apply(t, a, b, h); got != b {
			t.Fatalf("%q → %q: hunks %v give %q", a, b, h, got)
		}
		g := goDiffHunks(a, b)
		if edit && len(h) > g {
			worse++
			t.Logf("%q → %q: %d hunks %v, go-diff %d", a, b, len(h), h, g)
		}
		k := i % 2
		ours[k] += len(h)
		theirs[k] += g
	}
	t.Logf("hunks: edits %d (go-diff %d), unrelated texts %d (go-diff %d)", ours[0], theirs[0], ours[1], theirs[1])
	if worse > 5 || ours[0] > theirs[0]+5 {
		t.Errorf("edits: more hunks than go-diff in %d of 2000 cases, %d in all (go-diff %d)", worse, ours[0], theirs[0])
	}
	if ours[1] > theirs[1]*11/10 {
		t.Errorf("unrelated texts: %d hunks, go-diff %d", ours[1], theirs[1])
	}
}

// mutate changes, inserts or deletes k lines of a.
func mutate(r *rand.Rand, a string, k int) string {
	lines := strings.SplitAfter(a, "\n")
	for range k {
		i := r.IntN(len(lines) + 1)
		switch r.IntN(3) {
		case 0:
			lines = append(lines[:i], append([]string{fmt.Sprintf("new %d\n", r.IntN(1000))}, lines[i:]...)...)
		case 1:
			if i < len(lines) {
				lines = append(lines[:i], lines[i+1:]...)
			}
		default:
			if i < len(lines) {
				lines[i] = "changed " + lines[i]
			}
		}
	}
	return strings.Join(lines, "")
}

// bigPair is a 100,000-line file and a copy with 100 scattered changes.
func bigPair(r *rand.Rand) (string, string) {
	var sb strings.Builder
	for i := range 100000 {
		switch i % 7 {
		case 0:
			sb.WriteString("}\n")
		case 3:
			sb.WriteString("\n")
		default:
			fmt.Fprintf(&sb, "\tline %d of the file with some code 😀 in it\n", i)
		}
	}
	a := sb.String()
	lines := strings.SplitAfter(a, "\n")
	for range 100 {
		i := r.IntN(len(lines) - 1)
		switch r.IntN(3) {
		case 0:
			lines[i] = "\tchanged " + lines[i]
		case 1:
			lines[i] = ""
		default:
			lines[i] += "\tinserted line\n"
		}
	}
	return a, strings.Join(lines, "")
}

func TestDiffLarge(t *testing.T) {
	t.Parallel()
	a, b := bigPair(rand.New(rand.NewPCG(9, 10)))
	h := Diff([]byte(a), []byte(b))
	if apply(t, a, b, h) != b {
		t.Fatal("hunks do not give b")
	}
	if g := goDiffHunks(a, b); len(h) > g {
		t.Fatalf("%d hunks, go-diff %d", len(h), g)
	}
	// Long texts of few distinct lines: no unique line to anchor on, so
	// Myers meets its bound and the gap is replaced whole; still correct.
	r := rand.New(rand.NewPCG(11, 12))
	var sa, sb strings.Builder
	for range 20000 {
		sa.WriteString([]string{"a\n", "b\n"}[r.IntN(2)])
		sb.WriteString([]string{"a\n", "b\n", "c\n"}[r.IntN(3)])
	}
	a, b = sa.String(), sb.String()
	if h := Diff([]byte(a), []byte(b)); apply(t, a, b, h) != b {
		t.Fatal("hunks of repeated lines do not give b")
	}
}

// BenchmarkLineDiff100 diffs a 100,000-line file with 100 scattered
// changes, beside go-diff's line mode.
func BenchmarkLineDiff100(b *testing.B) {
	x, y := bigPair(rand.New(rand.NewPCG(9, 10)))
	bx, by := []byte(x), []byte(y)
	b.Run("linediff", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			Diff(bx, by)
		}
	})
	b.Run("godiff_lines", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			dmp := diffmatchpatch.New()
			ca, cb, lines := dmp.DiffLinesToChars(x, y)
			dmp.DiffCharsToLines(dmp.DiffMain(ca, cb, false), lines)
		}
	})
}

// TestDiffCollisions diffs random edits with line hashes narrowed to two
// bits, so that most distinct lines collide: the hunks must still turn a
// into b exactly (equal hashes are compared by bytes; a collision may
// cost an anchor, never a wrong hunk). Not parallel: it narrows the hash
// of the whole package while it runs.
func TestDiffCollisions(t *testing.T) {
	hashMask = 3
	defer func() { hashMask = ^uint32(0) }()
	r := rand.New(rand.NewPCG(11, 12))
	words := []string{"a\n", "b\n", "c\n", "d\n", "e\n", "}\n", "\n", "x", "func f() {\n"}
	for i := range 2000 {
		var sb strings.Builder
		for range r.IntN(200) {
			sb.WriteString(words[r.IntN(len(words))])
		}
		a := sb.String()
		b := mutate(r, a, 1+r.IntN(8))
		if i%5 == 0 {
			b = a + b // long enough for the anchor search
		}
		if got := apply(t, a, b, Diff([]byte(a), []byte(b))); got != b {
			t.Fatalf("%q → %q: got %q", a, b, got)
		}
	}
}
