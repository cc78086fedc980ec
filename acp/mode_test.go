package acp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/agent/agenttest"
)

// TestModesConflictsAndNotes drives the real binary on raw pipes through
// what TestOfficialClient does not: a read-only session (session/set_mode)
// refuses an edit and a command, with no fs/write_text_file sent and the
// disk untouched; back in the default mode, an edit whose buffer changed
// after it was read through fs/read_text_file is refused as a conflict
// (nothing written); a client that answers "" for a missing file still
// lets write_file create it; and empty_response and repeated_failure
// endings are end_turn with the reason as the last agent_message_chunk.
func TestModesConflictsAndNotes(t *testing.T) {
	t.Parallel()
	m, ws := agenttest.Fixture(t, map[string]string{"main.go": "package main // disk\n"},
		// Prompt 1 (read-only).
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{
			call("w1", "write_file", `{"path":"main.go","content":"overwritten\n"}`),
			call("b1", "bash", `{"command":"touch ro.txt"}`),
		}},
		agenttest.Reply{Text: "I may only plan."},
		// Prompt 2 (default): read, then an edit of a buffer changed meanwhile.
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{call("r1", "read_file", `{"path":"main.go"}`)}},
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{call("e1", "str_replace", `{"path":"main.go","old_str":"buffer one","new_str":"edited"}`)}},
		agenttest.Reply{Text: "conflict seen"},
		// Prompt 3: a new file, read as "" by the client (CodeCompanion does).
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{call("n1", "write_file", `{"path":"new.txt","content":"fresh\n"}`)}},
		agenttest.Reply{Text: "created"},
		// Prompt 4: two empty replies.
		agenttest.Reply{},
		agenttest.Reply{},
		// Prompt 5: the same failing call three times.
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{call("g1", "grep", `{"pattern":"("}`)}},
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{call("g2", "grep", `{"pattern":"("}`)}},
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{call("g3", "grep", `{"pattern":"("}`)}},
		agenttest.Reply{Text: "never reached"},
	)
	w := startWire(t, ws, m.URL)
	w.send(map[string]any{"id": 1, "method": "initialize", "params": map[string]any{"protocolVersion": 1,
		"clientCapabilities": map[string]any{"fs": map[string]any{"readTextFile": true, "writeTextFile": true}}}})
	if r := w.reply(1, nil); errCode(r) != 0 {
		t.Fatalf("initialize: %v", r)
	}
	w.send(map[string]any{"id": 2, "method": "session/new", "params": map[string]any{"cwd": ws, "mcpServers": []any{}}})
	res, _ := w.reply(2, nil)["result"].(map[string]any)
	sid, _ := res["sessionId"].(string)
	if sid == "" {
		t.Fatalf("session/new: %v", res)
	}
	prompt := func(id int, text string) {
		w.send(map[string]any{"id": id, "method": "session/prompt", "params": map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": text}}}})
	}
	// methods lists the agent's requests among msgs.
	methods := func(msgs []map[string]any) []string {
		var out []string
		for _, m := range msgs {
			if mt, _ := m["method"].(string); mt != "" && m["id"] != nil {
				out = append(out, mt)
			}
		}
		return out
	}

	// Read-only: the edit and the command are refused without asking.
	w.send(map[string]any{"id": 3, "method": "session/set_mode", "params": map[string]any{"sessionId": sid, "modeId": "read-only"}})
	if r := w.reply(3, nil); errCode(r) != 0 {
		t.Fatalf("set_mode read-only: %v", r)
	}
	prompt(4, "overwrite main.go")
	var seen []map[string]any
	if r, _ := w.reply(4, &seen)["result"].(map[string]any); r["stopReason"] != "end_turn" {
		t.Fatalf("read-only prompt: %v", r)
	}
	if got := methods(seen); len(got) != 0 {
		t.Errorf("read-only prompt sent requests %v", got)
	}
	if got := m.Requests()[1].Messages; !strings.Contains(toJSON(got), "not available in read-only mode") {
		t.Errorf("the refusals the model got: %s", toJSON(got))
	}
	if tools := m.Requests()[0]; tools.HasTool("write_file") || tools.HasTool("bash") || !tools.HasTool("read_file") {
		t.Errorf("read-only tools offered: %v", tools.Tools)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "main.go")); string(b) != "package main // disk\n" {
		t.Errorf("main.go changed in read-only mode: %q", b)
	}
	if _, err := os.Stat(filepath.Join(ws, "ro.txt")); err == nil {
		t.Error("a command ran in read-only mode")
	}

	// Default mode: the buffer changes between the read and the edit.
	w.send(map[string]any{"id": 5, "method": "session/set_mode", "params": map[string]any{"sessionId": sid, "modeId": "default"}})
	if r := w.reply(5, nil); errCode(r) != 0 {
		t.Fatalf("set_mode default: %v", r)
	}
	prompt(6, "edit main.go")
	seen = nil
	reads := 0
	for {
		msg := w.next(&seen, func(m map[string]any) bool {
			id, _ := m["id"].(float64)
			return m["method"] == "fs/read_text_file" || m["method"] == "fs/write_text_file" || (m["method"] == nil && id == 6)
		})
		if msg["method"] == nil {
			if r, _ := msg["result"].(map[string]any); r["stopReason"] != "end_turn" {
				t.Fatalf("prompt 6: %v", msg)
			}
			break
		}
		if msg["method"] == "fs/write_text_file" {
			t.Errorf("an edit of a changed buffer was written: %v", msg["params"])
			w.send(map[string]any{"id": msg["id"], "result": map[string]any{}})
			continue
		}
		// The first reads (read_file, str_replace's own) see buffer one;
		// the re-read before the write sees what the user typed since.
		reads++
		text := "package main // buffer one\n"
		if reads >= 3 {
			text = "package main // the user typed this\n"
		}
		w.send(map[string]any{"id": msg["id"], "result": map[string]any{"content": text}})
	}
	if reads < 3 {
		t.Errorf("fs/read_text_file asked %d times, want the reads and a re-read before the write", reads)
	}
	reqs := m.Requests()
	if got := reqs[3].LastToolResult(); !strings.Contains(got, "buffer one") {
		t.Errorf("read_file gave the model %q", got)
	}
	if got := reqs[4].LastToolResult(); !strings.Contains(strings.ToLower(got), "changed") {
		t.Errorf("the conflicting edit gave the model %q", got)
	}
	var final map[string]any
	for _, m := range seen {
		if p, _ := m["params"].(map[string]any); m["method"] == "session/update" {
			if u, _ := p["update"].(map[string]any); u["sessionUpdate"] == "tool_call_update" && u["toolCallId"] == "e1" {
				final = u
			}
		}
	}
	if final == nil || final["status"] != "failed" || strings.Contains(toJSON(final["content"]), `"diff"`) {
		t.Errorf("the conflicting edit's final update: %v", final)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "main.go")); string(b) != "package main // disk\n" {
		t.Errorf("main.go on disk: %q", b)
	}

	// A client that answers "" for a file missing on disk: write_file
	// still creates it (through fs/write_text_file).
	prompt(7, "create new.txt")
	var wrote map[string]any
	for {
		msg := w.next(nil, func(m map[string]any) bool {
			id, _ := m["id"].(float64)
			return m["method"] == "fs/read_text_file" || m["method"] == "fs/write_text_file" || (m["method"] == nil && id == 7)
		})
		if msg["method"] == nil {
			break
		}
		if msg["method"] == "fs/write_text_file" {
			wrote, _ = msg["params"].(map[string]any)
			w.send(map[string]any{"id": msg["id"], "result": nil})
			continue
		}
		w.send(map[string]any{"id": msg["id"], "result": map[string]any{"content": ""}})
	}
	if wrote == nil || wrote["path"] != filepath.Join(ws, "new.txt") || wrote["content"] != "fresh\n" {
		t.Errorf("write_file of a new file sent %v; the model got %q", wrote, m.Requests()[6].LastToolResult())
	}

	// empty_response: end_turn, and the reason as the last chunk.
	prompt(8, "say nothing")
	seen = nil
	if r, _ := w.reply(8, &seen)["result"].(map[string]any); r["stopReason"] != "end_turn" {
		t.Fatalf("empty_response prompt: %v", r)
	}
	var last string
	for _, m := range seen {
		if p, _ := m["params"].(map[string]any); m["method"] == "session/update" {
			if u, _ := p["update"].(map[string]any); u["sessionUpdate"] == "agent_message_chunk" {
				c, _ := u["content"].(map[string]any)
				last, _ = c["text"].(string)
			}
		}
	}
	if !strings.Contains(last, "stopped (empty_response)") {
		t.Errorf("last agent_message_chunk %q, want the empty_response reason", last)
	}

	// repeated_failure: end_turn, every call's final update failed, and
	// the reason as the last chunk.
	prompt(9, "search for a bad pattern")
	seen = nil
	if r, _ := w.reply(9, &seen)["result"].(map[string]any); r["stopReason"] != "end_turn" {
		t.Fatalf("repeated_failure prompt: %v", r)
	}
	last = ""
	failed := map[string]bool{}
	for _, m := range seen {
		p, _ := m["params"].(map[string]any)
		u, _ := p["update"].(map[string]any)
		switch u["sessionUpdate"] {
		case "agent_message_chunk":
			c, _ := u["content"].(map[string]any)
			last, _ = c["text"].(string)
		case "tool_call_update":
			if id, _ := u["toolCallId"].(string); u["status"] == "failed" {
				failed[id] = true
			}
		}
	}
	if !strings.Contains(last, "stopped (repeated_failure)") {
		t.Errorf("last agent_message_chunk %q, want the repeated_failure reason", last)
	}
	if len(failed) != 3 {
		t.Errorf("failed tool calls %v, want the three grep calls", failed)
	}
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
