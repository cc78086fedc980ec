package agent

import (
	"maps"
	"slices"
	"strconv"

	"github.com/agent-lsp/agent-lsp/internal/jsonw"
)

// appendRecord appends rec as one JSON object, the bytes json.Marshal
// gives for it (TestRecordEncodingMatchesMarshal holds the two together,
// over every field, so a field added to Record or to a type it holds
// fails that test until it is written here too). Written by hand because
// json.Marshal builds Record's encoders by reflection at a process's
// first record, about 0.2 ms of CPU that a one-turn `agent-lsp run` spends
// while its first request is on the way (BenchmarkOneTurn).
func appendRecord(b []byte, rec Record) ([]byte, error) {
	when, err := rec.Time.MarshalJSON()
	if err != nil {
		return nil, err
	}
	b = append(b, `{"type":`...)
	b = jsonw.AppendString(b, rec.Type)
	b = append(append(b, `,"time":`...), when...)
	if rec.Version != 0 {
		b = strconv.AppendInt(append(b, `,"v":`...), int64(rec.Version), 10)
	}
	b = appendOmitEmpty(b, "id", rec.ID)
	b = appendOmitEmpty(b, "workspace", rec.Workspace)
	b = appendOmitEmpty(b, "model", rec.Model)
	if rec.Message != nil {
		b = appendMessage(append(b, `,"message":`...), *rec.Message)
	}
	if len(rec.Messages) > 0 {
		b = appendList(b, "messages", rec.Messages, appendMessage)
	}
	if len(rec.Stubs) > 0 {
		b = append(b, `,"stubs":{`...)
		// encoding/json writes a map's keys in sorted order.
		for i, k := range slices.Sorted(maps.Keys(rec.Stubs)) {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(jsonw.AppendString(b, k), ':')
			b = jsonw.AppendString(b, rec.Stubs[k])
		}
		b = append(b, '}')
	}
	if len(rec.Todos) > 0 {
		b = appendList(b, "todos", rec.Todos, appendTodo)
	}
	if rec.Usage != nil {
		b = appendUsage(append(b, `,"usage":`...), *rec.Usage)
	}
	if rec.Result != nil {
		b = appendResult(append(b, `,"result":`...), *rec.Result)
	}
	b = appendOmitEmpty(b, "callId", rec.CallID)
	b = appendOmitEmpty(b, "path", rec.Path)
	return append(b, '}'), nil
}

// appendList appends ,"key":[...], each item written by each.
func appendList[T any](b []byte, key string, items []T, each func([]byte, T) []byte) []byte {
	b = append(append(append(b, `,"`...), key...), `":[`...)
	for i, it := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = each(b, it)
	}
	return append(b, ']')
}

func appendToolCall(b []byte, tc ToolCall) []byte {
	b = append(b, `{"id":`...)
	b = jsonw.AppendString(b, tc.ID)
	b = append(b, `,"name":`...)
	b = jsonw.AppendString(b, tc.Name)
	b = append(b, `,"arguments":`...)
	return append(jsonw.AppendString(b, tc.Arguments), '}')
}

func appendTodo(b []byte, td Todo) []byte {
	b = append(b, `{"content":`...)
	b = jsonw.AppendString(b, td.Content)
	b = append(b, `,"status":`...)
	return append(jsonw.AppendString(b, td.Status), '}')
}

func appendChange(b []byte, c FileChange) []byte {
	b = append(b, `{"path":`...)
	b = jsonw.AppendString(b, c.Path)
	b = appendOmitEmpty(b, "from", c.From)
	b = append(b, `,"kind":`...)
	b = jsonw.AppendString(b, c.Kind)
	b = strconv.AppendInt(append(b, `,"added":`...), int64(c.Added), 10)
	b = strconv.AppendInt(append(b, `,"removed":`...), int64(c.Removed), 10)
	return append(b, '}')
}

// appendOmitEmpty appends ,"key":"s" unless s is empty (omitempty).
func appendOmitEmpty(b []byte, key, s string) []byte {
	if s == "" {
		return b
	}
	b = append(append(append(b, `,"`...), key...), `":`...)
	return jsonw.AppendString(b, s)
}

func appendMessage(b []byte, m Message) []byte {
	b = append(b, `{"role":`...)
	b = jsonw.AppendString(b, string(m.Role))
	b = appendOmitEmpty(b, "content", m.Content)
	b = appendOmitEmpty(b, "reasoning", m.Reasoning)
	if len(m.ToolCalls) > 0 {
		b = appendList(b, "toolCalls", m.ToolCalls, appendToolCall)
	}
	b = appendOmitEmpty(b, "toolCallId", m.ToolCallID)
	b = appendOmitEmpty(b, "name", m.Name)
	if m.IsError {
		b = append(b, `,"isError":true`...)
	}
	return append(b, '}')
}

func appendUsage(b []byte, u Usage) []byte {
	b = strconv.AppendInt(append(b, `{"inputTokens":`...), int64(u.InputTokens), 10)
	b = strconv.AppendInt(append(b, `,"outputTokens":`...), int64(u.OutputTokens), 10)
	if u.CachedInputTokens != 0 {
		b = strconv.AppendInt(append(b, `,"cachedInputTokens":`...), int64(u.CachedInputTokens), 10)
	}
	return append(b, '}')
}

func appendResult(b []byte, r Result) []byte {
	b = append(b, `{"reason":`...)
	b = jsonw.AppendString(b, string(r.Reason))
	b = strconv.AppendInt(append(b, `,"turns":`...), int64(r.Turns), 10)
	b = strconv.AppendInt(append(b, `,"toolCalls":`...), int64(r.ToolCalls), 10)
	b = appendUsage(append(b, `,"usage":`...), r.Usage)
	b = append(b, `,"text":`...)
	b = jsonw.AppendString(b, r.Text)
	b = appendOmitEmpty(b, "error", r.Error)
	// omitzero: a nil list is left out, an empty one ("none") is kept.
	if r.Changes != nil {
		b = appendList(b, "changes", r.Changes, appendChange)
	}
	return append(b, '}')
}

// recordSize is a first guess at rec's length, its texts plus room for
// the keys, so that a long tool result is not copied as its line grows.
func recordSize(rec Record) int {
	n := 128 + len(rec.ID) + len(rec.Workspace) + len(rec.Model) + len(rec.CallID) + len(rec.Path)
	msg := func(m Message) int {
		// A sixteenth more for escapes (a prompt's line breaks and quotes),
		// a quarter for arguments' quotes: one allocation, not two.
		text := len(m.Content) + len(m.Reasoning)
		n := 64 + text + text/16 + len(m.ToolCallID) + len(m.Name)
		for _, tc := range m.ToolCalls {
			n += 48 + len(tc.ID) + len(tc.Name) + len(tc.Arguments) + len(tc.Arguments)/4
		}
		return n
	}
	if rec.Message != nil {
		n += msg(*rec.Message)
	}
	for _, m := range rec.Messages {
		n += msg(m)
	}
	for k, v := range rec.Stubs {
		n += 8 + len(k) + len(v)
	}
	for _, td := range rec.Todos {
		n += 32 + len(td.Content)
	}
	if rec.Result != nil {
		n += 128 + len(rec.Result.Text) + len(rec.Result.Error) + 64*len(rec.Result.Changes)
	}
	// Escapes make a line longer than its texts; an eighth more covers
	// most of them.
	return n + n/8
}
