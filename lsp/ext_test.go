package lsp

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestProtocolDocListsExtensions checks that docs/protocol.md documents
// exactly the methods of the Extensions table.
func TestProtocolDocListsExtensions(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../docs/protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## Extension methods\n")
	if !ok {
		t.Fatal("docs/protocol.md has no Extension methods section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var documented []string
	for _, m := range regexp.MustCompile("(?m)^### `([^`]+)`").FindAllStringSubmatch(section, -1) {
		documented = append(documented, m[1])
	}
	slices.Sort(documented)
	if want := extMethodNames(); !slices.Equal(documented, want) {
		t.Fatalf("docs/protocol.md documents %v; ext.go has %v", documented, want)
	}
}
