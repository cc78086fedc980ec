package lsp

import "testing"

// TestDiagnosticsSchema checks the diagnostics tool's generated schema
// (schemas_gen.go) against the one inferred from its params type.
func TestDiagnosticsSchema(t *testing.T) {
	if err := diagnosticsTool(&Workspace{}).CheckSchema(); err != nil {
		t.Fatal(err)
	}
}
