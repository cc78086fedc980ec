package jsonw

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/agent-lsp/agent-lsp/internal/jsonw/jsonwtest"
)

func TestAppendStringMatchesMarshal(t *testing.T) {
	t.Parallel()
	for _, s := range jsonwtest.Strings {
		want, _ := json.Marshal(s)
		if got := AppendString([]byte("x"), s); !bytes.Equal(got[1:], want) || got[0] != 'x' {
			t.Errorf("%q:\n got %s\nwant x%s", s, got, want)
		}
	}
}

// FuzzAppendString holds AppendString to json.Marshal of a string.
func FuzzAppendString(f *testing.F) {
	for _, s := range jsonwtest.Strings {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := AppendString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("%q:\n got %s\nwant %s", s, got, want)
		}
	})
}
