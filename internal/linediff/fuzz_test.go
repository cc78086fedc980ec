package linediff

import (
	"strings"
	"testing"
)

// FuzzDiff checks Diff on any pair of texts, and on a text against
// itself with another spliced into it (a pair with long equal runs, where
// the anchors and the compaction of hunks do their work): the hunks are
// in order, disjoint, on line boundaries, never empty, the texts between
// them are equal, and applying them to a gives b.
func FuzzDiff(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nx\nc\n", uint16(2))
	f.Add("func f() {\n}\n\n}\n", "}\n", uint16(0))
	f.Add("x\r\ny\r\n", "x\ny", uint16(3))
	f.Add("", "only\nnew\n", uint16(0))
	f.Add(strings.Repeat("}\n\n", 40), "}\n", uint16(31))
	f.Fuzz(func(t *testing.T, a, b string, cut uint16) {
		if got := apply(t, a, b, Diff([]byte(a), []byte(b))); got != b {
			t.Fatalf("%q → %q: the hunks give %q", a, b, got)
		}
		at := int(cut) % (len(a) + 1)
		c := a[:at] + b + a[at:]
		if got := apply(t, a, c, Diff([]byte(a), []byte(c))); got != c {
			t.Fatalf("%q → %q: the hunks give %q", a, c, got)
		}
	})
}
