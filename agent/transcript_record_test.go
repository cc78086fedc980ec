package agent

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestHeldRecordKeepsWhatWasWritten: a record written while its
// transcript's file is being created lands in the file as it was when
// written, whatever the writer changes afterwards in the slices and maps
// it passed.
func TestHeldRecordKeepsWhatWasWritten(t *testing.T) {
	t.Parallel()
	calls := []ToolCall{{ID: "c1", Name: "read_file", Arguments: `{"path":"a"}`}}
	msgs := []Message{{Role: RoleAssistant, ToolCalls: calls}}
	stubs := map[string]string{"c1": "stub"}
	todos := []Todo{{Content: "one", Status: TodoPending}}
	changes := []FileChange{{Path: "a", Kind: "modified"}}
	usage := Usage{InputTokens: 1}
	rec := Record{Type: recMessage, Message: &Message{Role: RoleAssistant, ToolCalls: calls}, Messages: msgs,
		Stubs: stubs, Todos: todos, Usage: &usage, Result: &Result{Turns: 1, Changes: changes}}
	dir := t.TempDir()
	tr, err := CreateTranscript(dir, "held", TranscriptHeader{Workspace: "/ws", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	tr.write(rec) // most often before the file exists
	wantMsg := Message{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c1", Name: "read_file", Arguments: `{"path":"a"}`}}}
	calls[0].Arguments = "changed"
	msgs[0].Role = RoleUser
	stubs["c1"] = "changed"
	stubs["c2"] = "added"
	todos[0].Status = TodoCompleted
	changes[0].Path = "b"
	usage.InputTokens = 99
	rec.Message.Content = "changed"
	rec.Result.Turns = 9
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "held.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	var got Record
	if len(lines) != 2 || json.Unmarshal([]byte(lines[1]), &got) != nil {
		t.Fatalf("transcript: %s", data)
	}
	want := Record{Type: recMessage, Time: got.Time, Message: &wantMsg, Messages: []Message{wantMsg},
		Stubs: map[string]string{"c1": "stub"}, Todos: []Todo{{Content: "one", Status: TodoPending}},
		Usage: &Usage{InputTokens: 1}, Result: &Result{Turns: 1, Changes: []FileChange{{Path: "a", Kind: "modified"}}}}
	wb, _ := json.Marshal(want)
	gb, _ := json.Marshal(got)
	if string(gb) != string(wb) {
		t.Errorf("held record changed with its writer's data:\n got %s\nwant %s", gb, wb)
	}
}

// TestRecordsWrittenWhileCreatingKeepTheirOrder: records written while a
// new transcript's file is being created (held) and after it exists land in the file once each, in
// the order they were written, whenever the creation finishes.
func TestRecordsWrittenWhileCreatingKeepTheirOrder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for run := range 20 {
		id := fmt.Sprintf("s%d", run)
		tr, err := CreateTranscript(dir, id, TranscriptHeader{Workspace: "/ws", Model: "m"})
		if err != nil {
			t.Fatal(err)
		}
		const n = 200
		for i := range n {
			tr.message(Message{Role: RoleUser, Content: strconv.Itoa(i)})
			if i%10 == 9 { // spread the writes over the creation and the encoding of what is held
				time.Sleep(20 * time.Microsecond)
			}
		}
		if err := tr.Close(); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(dir, id+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
		if len(lines) != n+1 || !strings.Contains(lines[0], `"type":"session"`) {
			t.Fatalf("run %d: %d lines, first %q", run, len(lines), lines[0])
		}
		for i, l := range lines[1:] {
			var rec Record
			if err := json.Unmarshal([]byte(l), &rec); err != nil || rec.Message == nil || rec.Message.Content != strconv.Itoa(i) {
				t.Fatalf("run %d, line %d: %s (%v)", run, i+1, l, err)
			}
		}
	}
}
