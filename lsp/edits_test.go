package lsp

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/tools"
)

// applySpans applies spans of old, as an editor would.
func applySpans(old string, sp []span) string {
	var b strings.Builder
	b.Grow(len(old)) // one allocation: BenchmarkDidChange100Edits' direct splice
	last := 0
	for _, s := range sp {
		b.WriteString(old[last:s.Start])
		b.WriteString(s.Text)
		last = s.End
	}
	b.WriteString(old[last:])
	return b.String()
}

func TestDiffSpans(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, old, new string
		want           []span
	}{
		{"same", "a\nb\n", "a\nb\n", nil},
		{"one word", "func f() {\n\treturn 1\n}\n", "func f() {\n\treturn 2\n}\n", []span{{19, 20, "2"}}},
		{"insert line", "a\nc\n", "a\nb\nc\n", []span{{2, 2, "b\n"}}},
		{"delete line", "a\nb\nc\n", "a\nc\n", []span{{2, 4, ""}}},
		{"everything", "x\ny\n", "p\nq\n", []span{{0, 4, "p\nq\n"}}},
		{"emoji", "s := \"😀 a\"\nz\n", "s := \"😀 b\"\nz\n", []span{{11, 12, "b"}}},
	}
	for _, c := range cases {
		got := diffSpans([]byte(c.old), []byte(c.new))
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
		if applySpans(c.old, got) != c.new {
			t.Errorf("%s: spans do not produce the new text", c.name)
		}
	}
}

func TestDiffSpansRandom(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewSource(2))
	words := []string{"a", "b", "😀", "\n", "€", " ", "xyz\n"}
	gen := func() string {
		var b strings.Builder
		for range rng.Intn(60) {
			b.WriteString(words[rng.Intn(len(words))])
		}
		return b.String()
	}
	for i := 0; i < 2000; i++ {
		old, new := gen(), gen()
		sp := diffSpans([]byte(old), []byte(new))
		if got := applySpans(old, sp); got != new {
			t.Fatalf("%q → %q: spans %v give %q", old, new, sp, got)
		}
		edits := toEdits(NewMapper(old), UTF16, sp)
		if len(edits) != len(sp) {
			t.Fatal("edit count")
		}
	}
}

func TestReplacementsUsedAsIs(t *testing.T) {
	t.Parallel()
	old := "a😀b\nc\n"
	c := tools.Change{Old: []byte(old), New: []byte("a😀B\nc\n"), Replacements: []tools.Replacement{{Start: 5, End: 6, Text: "B"}}}
	ed := toEdits(NewMapper(old), UTF16, spans(c))
	if len(ed) != 1 || ed[0].Range.Start != (Position{Line: 0, Character: 3}) || ed[0].Range.End != (Position{Line: 0, Character: 4}) {
		t.Fatalf("%+v", ed)
	}
	ed = toEdits(NewMapper(old), UTF8, spans(c))
	if ed[0].Range.Start != (Position{Line: 0, Character: 5}) {
		t.Fatalf("utf-8 %+v", ed)
	}
}
