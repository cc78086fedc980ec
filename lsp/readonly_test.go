package lsp

import "testing"

// TestReadOnlyBytes: an open document's bytes are its string's memory,
// with no spare capacity (an append copies instead of writing past the
// text), and sameText sees them equal without comparing.
func TestReadOnlyBytes(t *testing.T) {
	text := string([]byte("package main\n\nfunc main() {}\n"))
	b := readOnlyBytes(text)
	if string(b) != text || cap(b) != len(text) {
		t.Fatalf("bytes %q cap %d", b, cap(b))
	}
	grown := append(b, "// more\n"...)
	if &grown[0] == &b[0] || text != "package main\n\nfunc main() {}\n" {
		t.Fatalf("append wrote into the document: %q", text)
	}
	if !sameText(text, b) || !sameText(text, []byte(text)) || sameText(text, []byte("package main\n")) || !sameText("", nil) {
		t.Error("sameText")
	}
	if len(readOnlyBytes("")) != 0 {
		t.Error("empty")
	}
}
