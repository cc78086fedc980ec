package bench

import "testing"

func TestUnitName(t *testing.T) {
	t.Parallel()
	for u, want := range map[string]string{
		"ns/op": "ns/op", "agent-lsp-ms": "ms", "client-ms": "ms", "deps-client-ms": "ms",
		"agent-lsp-RSS-MiB": "MiB", "gopls-RssAnon-MiB": "MiB", "floor-ms": "ms", "alloc/size": "alloc/size",
	} {
		if got := unitName(u); got != want {
			t.Errorf("unitName(%q) = %q, want %q", u, got, want)
		}
	}
}
