package lsp

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
	"unsafe"
)

// oneByOne applies changes as the protocol states them: each against the
// text the ones before it left, its line index built afresh.
func oneByOne(enc Encoding, text string, changes []contentChange) string {
	for _, c := range changes {
		if c.Range == nil {
			text = c.Text
			continue
		}
		m := NewMapper(text)
		start, end := m.Offset(enc, c.Range.Start), m.Offset(enc, c.Range.End)
		if end < start {
			start, end = end, start
		}
		text = text[:start] + c.Text + text[end:]
	}
	return text
}

// someChanges makes up to 8 changes of text from seed: most of them a
// multi-edit as editors send it (last edit first, exact positions), the
// rest anywhere, past line ends and the text's end, reversed, or the
// whole text.
func someChanges(text string, seed uint64) []contentChange {
	r := rand.New(rand.NewPCG(seed, seed>>7))
	pieces := []string{"", "x", "\n", "\r\n", "\r", "😀", "é", "ab\ncd", "\n\n"}
	m := NewMapper(text)
	n := 1 + r.IntN(8)
	var out []contentChange
	at := len(text)
	for range n {
		c := contentChange{Text: pieces[r.IntN(len(pieces))] + pieces[r.IntN(len(pieces))]}
		switch k := r.IntN(10); {
		case k < 7 && at > 0: // the next edit up, exact
			end := r.IntN(at + 1)
			start := r.IntN(end + 1)
			at = start
			c.Range = &Range{Start: m.Position(UTF16, start), End: m.Position(UTF16, end)}
		case k < 9: // anywhere, maybe past the ends, maybe reversed
			p := func() Position {
				return Position{Line: uint32(r.IntN(m.Lines() + 2)), Character: uint32(r.IntN(12))}
			}
			c.Range = &Range{Start: p(), End: p()}
		default: // the whole text
		}
		out = append(out, c)
	}
	return out
}

func checkApply(t *testing.T, text string, changes []contentChange) {
	t.Helper()
	want := oneByOne(UTF16, text, changes)
	for _, sent := range []string{"", want, strings.Repeat("?", len(want))} {
		d := &document{text: text}
		d.apply(UTF16, changes, sentEdit{text: sent})
		if d.text != want {
			t.Fatalf("apply(%q, %s) = %q, want %q", text, describeChanges(changes), d.text, want)
		}
		if got, ref := fmt.Sprint(d.mapperFor().lines), fmt.Sprint(NewMapper(want).lines); got != ref {
			t.Fatalf("apply(%q, %s): lines %s, want %s", text, describeChanges(changes), got, ref)
		}
	}
}

func describeChanges(cs []contentChange) string {
	var b strings.Builder
	for _, c := range cs {
		if c.Range == nil {
			fmt.Fprintf(&b, "[all %q]", c.Text)
			continue
		}
		fmt.Fprintf(&b, "[%d:%d-%d:%d %q]", c.Range.Start.Line, c.Range.Start.Character, c.Range.End.Line, c.Range.End.Character, c.Text)
	}
	return b.String()
}

// TestApplyAsOneByOne holds the one-pass didChange to the protocol's
// sequential reading, on multi-edits as editors send them and on changes
// in any order.
func TestApplyAsOneByOne(t *testing.T) {
	t.Parallel()
	texts := []string{"", "a", "ab\ncd\nef\n", "😀x\r\ny\rz€\n", "a\r\nb\r\nc", "\n\n\n", "line one\nline two 😀\nline three\n"}
	for _, text := range texts {
		for seed := range uint64(400) {
			checkApply(t, text, someChanges(text, seed))
		}
	}
	// An edit at the end of a line and one inserting after it, at the same
	// place: the later one lands before the earlier one's text.
	text := "abc\ndef\n"
	at := &Range{Start: Position{Line: 0, Character: 3}, End: Position{Line: 0, Character: 3}}
	checkApply(t, text, []contentChange{{Range: at, Text: "1"}, {Range: at, Text: "2"}})
	// A position past its line's end means the line's end: in the text
	// before the run, not after it.
	past := &Range{Start: Position{Line: 0, Character: 9}, End: Position{Line: 0, Character: 9}}
	checkApply(t, text, []contentChange{{Range: at, Text: "XYZ"}, {Range: past, Text: "!"}})
}

func FuzzApply(f *testing.F) {
	f.Add("ab\ncd\nef\n", uint64(1))
	f.Add("😀x\r\ny\rz€\n", uint64(2))
	f.Add("a\r\nb", uint64(3))
	f.Fuzz(func(t *testing.T, text string, seed uint64) {
		if !utf8.ValidString(text) {
			return
		}
		checkApply(t, text, someChanges(text, seed))
	})
}

// TestDidChangeKeepsSentText: the didChange reporting an edit this
// server sent keeps the tool's result as the document's text instead of
// building it again; any other change is built as usual.
func TestDidChangeKeepsSentText(t *testing.T) {
	t.Parallel()
	const uri, path = "file:///w/a.txt", "/w/a.txt"
	text := strings.Repeat("one line of text\n", 1000)
	edit := []contentChange{
		{Range: &Range{Start: Position{Line: 900, Character: 4}, End: Position{Line: 900, Character: 8}}, Text: "LINE"},
		{Range: &Range{Start: Position{Line: 10, Character: 0}, End: Position{Line: 10, Character: 0}}, Text: "new\n"},
	}
	result := oneByOne(UTF16, text, edit)
	sent := string([]byte(result)) // the tool's own memory
	same := func(a, b string) bool { return unsafe.StringData(a) == unsafe.StringData(b) }

	s := newStore()
	s.open(uri, path, 1, text)
	s.expect(path, 1, sentEdit{text: sent})
	if err := s.change(UTF16, uri, 2, edit); err != nil {
		t.Fatal(err)
	}
	if d, _ := s.byPath(path); d.text != result || !same(d.text, sent) {
		t.Fatalf("the sent text was not kept (equal: %v)", d.text == result)
	}

	// The user typed first: the edit's didChange no longer gives the sent
	// text, and the expectation is gone with the first change.
	s.open(uri, path, 1, text)
	s.expect(path, 1, sentEdit{text: sent})
	typed := []contentChange{{Range: &Range{Start: Position{Line: 0}, End: Position{Line: 0}}, Text: "x"}}
	if err := s.change(UTF16, uri, 2, typed); err != nil {
		t.Fatal(err)
	}
	if err := s.change(UTF16, uri, 3, edit); err != nil {
		t.Fatal(err)
	}
	if d, _ := s.byPath(path); d.text != oneByOne(UTF16, oneByOne(UTF16, text, typed), edit) || same(d.text, sent) {
		t.Fatal("a change after the user's keeps the sent text")
	}

	// Expected from another version: not kept.
	s.open(uri, path, 5, text)
	s.expect(path, 4, sentEdit{text: sent})
	if err := s.change(UTF16, uri, 6, edit); err != nil {
		t.Fatal(err)
	}
	if d, _ := s.byPath(path); d.text != result || same(d.text, sent) {
		t.Fatal("an expectation for another version was used")
	}
}

// TestDidChangeVouchedEdit: an edit the tool vouches for (New is Old with
// its replacements applied) is kept without comparing only when the
// didChange sends exactly those spans back on Old's own memory; a copy of
// the text, or other spans, and the text is built or checked as usual.
// A deliberately wrong text shows which path was taken.
func TestDidChangeVouchedEdit(t *testing.T) {
	t.Parallel()
	const uri, path = "file:///w/a.txt", "/w/a.txt"
	text := strings.Repeat("one line of text\n", 1000)
	edit := []contentChange{{Range: &Range{Start: Position{Line: 10, Character: 4}, End: Position{Line: 10, Character: 8}}, Text: "LINE"}}
	sentSpans := []span{{10*17 + 4, 10*17 + 8, "LINE"}}
	result := oneByOne(UTF16, text, edit)
	wrong := strings.Repeat("?", len(result)) // what no didChange gives

	run := func(open string, want sentEdit, changes []contentChange) string {
		s := newStore()
		s.open(uri, path, 1, open)
		s.expect(path, 1, want)
		if err := s.change(UTF16, uri, 2, changes); err != nil {
			t.Fatal(err)
		}
		d, _ := s.byPath(path)
		return d.text
	}
	if got := run(text, sentEdit{text: wrong, base: text, spans: sentSpans}, edit); got != wrong {
		t.Fatal("a vouched edit on its own memory was compared")
	}
	if got := run(strings.Clone(text), sentEdit{text: wrong, base: text, spans: sentSpans}, edit); got != result {
		t.Fatalf("a vouched edit was trusted on a copy of its text: %.40q", got)
	}
	other := []contentChange{{Range: &Range{Start: Position{Line: 10, Character: 4}, End: Position{Line: 10, Character: 8}}, Text: "LIME"}}
	if got := run(text, sentEdit{text: wrong, base: text, spans: sentSpans}, other); got != oneByOne(UTF16, text, other) {
		t.Fatalf("a vouched edit was trusted for other spans: %.40q", got)
	}
	sent := string([]byte(result))
	if got := run(text, sentEdit{text: sent, base: text, spans: sentSpans}, edit); got != result || unsafe.StringData(got) != unsafe.StringData(sent) {
		t.Fatal("a vouched edit's text was not kept")
	}
}
