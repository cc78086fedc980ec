package openai

import (
	"bytes"
	"testing"

	"github.com/agent-lsp/agent-lsp/provider"
)

// FuzzEncodeMessage compares the hand-written message encoding with
// json.Marshal of go-openai's types (referenceMessage) on any strings in
// every field and every role, with and without tool calls.
func FuzzEncodeMessage(f *testing.F) {
	f.Add(uint8(0), "hello", "", "", "")
	f.Add(uint8(2), "", "call_1", "read_file", `{"path":"a\u2028b"}`)
	f.Add(uint8(3), "<tool> & \xff output", "call_\x00", "", "")
	f.Add(uint8(2), "text", "", "", " \t\n")
	f.Fuzz(func(t *testing.T, role uint8, content, id, name, args string) {
		roles := []provider.Role{provider.RoleSystem, provider.RoleUser, provider.RoleAssistant, provider.RoleTool}
		m := provider.Message{Role: roles[int(role)%len(roles)], Content: content, ToolCallID: id, Name: name}
		if role&4 != 0 {
			m.ToolCalls = []provider.ToolCall{{ID: id, Name: name, Arguments: args}, {ID: content, Name: args, Arguments: name}}
		}
		if got, want := encodeMessage(m), referenceMessage(m); !bytes.Equal(got, want) {
			t.Fatalf("%+v:\n got %s\nwant %s", m, got, want)
		}
	})
}
