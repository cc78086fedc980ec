package proctest

import (
	"os"
	"testing"
)

// Need skips a test whose outside program (rg, git, bwrap, an editor, a
// protocol client library) is missing, except in CI or under scripts/test
// (AGENT_LSP_REQUIRE_CLIENTS set), which install every one: there a missing
// program is a broken set-up, and the test fails instead of passing unseen.
func Need(t testing.TB, what, hint string) {
	t.Helper()
	if os.Getenv("CI") != "" || os.Getenv("AGENT_LSP_REQUIRE_CLIENTS") != "" {
		t.Fatalf("%s is missing (CI or AGENT_LSP_REQUIRE_CLIENTS is set, so this fails instead of skipping): %s", what, hint)
	}
	t.Skipf("%s is missing: %s", what, hint)
}
