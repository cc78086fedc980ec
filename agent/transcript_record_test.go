package agent

import (
	"encoding/json"
	"testing"
)

// TestDetachCopiesWhatIsShared: a record held while its transcript's file
// is created encodes as it was when written, whatever the writer changes
// afterwards in the slices and maps it passed.
func TestDetachCopiesWhatIsShared(t *testing.T) {
	t.Parallel()
	calls := []ToolCall{{ID: "c1", Name: "read_file", Arguments: `{"path":"a"}`}}
	msgs := []Message{{Role: RoleAssistant, ToolCalls: calls}}
	stubs := map[string]string{"c1": "stub"}
	todos := []Todo{{Content: "one", Status: TodoPending}}
	changes := []FileChange{{Path: "a", Kind: "modified"}}
	usage := Usage{InputTokens: 1}
	rec := Record{Type: recMessage, Message: &Message{Role: RoleAssistant, ToolCalls: calls}, Messages: msgs,
		Stubs: stubs, Todos: todos, Usage: &usage, Result: &Result{Turns: 1, Changes: changes}}
	want, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	held := detach(rec)
	calls[0].Arguments = "changed"
	msgs[0].Role = RoleUser
	stubs["c1"] = "changed"
	stubs["c2"] = "added"
	todos[0].Status = TodoCompleted
	changes[0].Path = "b"
	usage.InputTokens = 99
	rec.Message.Content = "changed"
	rec.Result.Turns = 9
	got, err := json.Marshal(held)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("held record changed with its writer's data:\n got %s\nwant %s", got, want)
	}
}
