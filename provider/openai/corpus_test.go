package openai

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agent-lsp/agent-lsp/provider"
)

// checkText compares a field given verbatim or by length, digest and head.
func checkText(t *testing.T, w corpusWant, field, got string) {
	t.Helper()
	if want, ok := w.fields[field]; ok {
		if got != want {
			t.Errorf("%s\n got %q\nwant %q", field, got, want)
		}
		return
	}
	if n, ok := w.fields[field+"_len"]; ok {
		sum := sha256.Sum256([]byte(got))
		head := got
		if utf8.RuneCountInString(head) > 40 {
			head = string([]rune(head)[:40])
		}
		if strconv.Itoa(utf8.RuneCountInString(got)) != n || hex.EncodeToString(sum[:8]) != w.fields[field+"_sha256_16"] || head != w.fields[field+"_head"] {
			t.Errorf("%s: %d runes, sha %x, head %q; want %s, %s, %q", field, utf8.RuneCountInString(got), sum[:8], head, n, w.fields[field+"_sha256_16"], w.fields[field+"_head"])
		}
		return
	}
	if got != "" {
		t.Errorf("%s = %.80q, want none", field, got)
	}
}

// wantStop is the normalised reason the adapter must derive.
func wantStop(w corpusWant, raw string) provider.StopReason {
	switch raw {
	case "length":
		return provider.StopLength
	case "content_filter":
		return provider.StopFilter
	case "stop", "tool_calls", "":
		switch {
		case len(w.calls) > 0:
			return provider.StopToolCalls
		case w.fields["refusal"] != "":
			return provider.StopRefusal
		}
		return provider.StopEndTurn
	}
	return provider.StopOther
}

// TestOpenAICorpus replays every recorded stream through a real HTTP server
// and the adapter, and checks text, reasoning, refusal, tool calls, finish
// reason (raw and normalised) and usage against INDEX.tsv. A field the row
// does not give must be empty (no reasoning, no calls, no usage). Special
// rows:
//   - 008 (n=3): the adapter keeps choice 0, so choice0's text is expected.
//   - 026, 029 (error=...): the stream must fail; text and reasoning are
//     checked on the deltas before the error, finish and calls on the
//     accumulator at the error (there is no MessageEnd).
//   - 041 (finish=null, ends with [DONE]): a complete reply, RawStopReason "".
//   - 045 (no [DONE], finish_reason seen): a complete reply.
//   - total tokens are not checked: Usage has no total, and rows 012, 042
//     and 043 report a total above prompt+completion (reasoning tokens).
//   - 021 (completion:null): 0 output tokens.
func TestOpenAICorpus(t *testing.T) {
	t.Parallel()
	rows := corpusRows(t)
	if len(rows) != 61 {
		t.Fatalf("INDEX.tsv has %d rows, want 61", len(rows))
	}
	for _, row := range rows {
		t.Run(strings.TrimSuffix(row.file, ".sse"), func(t *testing.T) {
			t.Parallel()
			w, err := parseWant(row.want)
			if err != nil {
				t.Fatalf("parsing the INDEX row: %v", err)
			}
			if _, ok := w.fields["finish"]; !ok {
				t.Fatal("the INDEX row has no finish")
			}
			if n := strings.Count(row.want, "id="); n != len(w.calls) && !strings.HasPrefix(row.want, "choice0") {
				t.Fatalf("parsed %d calls from a row with %d ids", len(w.calls), n)
			}
			if w.fields["text"] == "" && w.fields["text_len"] == "" {
				if _, ok := w.fields["text"]; !ok {
					t.Fatal("the INDEX row has no text")
				}
			}
			body, err := os.ReadFile(filepath.Join("testdata", "streams", row.file))
			if err != nil {
				t.Fatal(err)
			}
			// Send the recording in small flushed pieces, so that lines and
			// UTF-8 sequences are split across reads.
			p := serve(t, func(rw http.ResponseWriter, r *http.Request) {
				rw.Header().Set("Content-Type", "text/event-stream")
				for b := body; len(b) > 0; {
					n := min(len(b), 61)
					rw.Write(b[:n])
					rw.(http.Flusher).Flush()
					b = b[n:]
				}
			}, Config{Model: rowModel(row.server)})
			// Every row is replayed with tools offered, so that calls
			// written as text are recovered (rows 047-061) and no other
			// row's text is mistaken for one.
			r := collectReq(t, context.Background(), p, provider.Request{Messages: []provider.Message{{Role: provider.RoleUser, Content: "hi"}}, Tools: corpusTools(t)})
			checkText(t, w, "reasoning", r.reasoning)
			checkText(t, w, "text", r.text)
			raw := strings.TrimSuffix(w.fields["finish"], "null")
			if w.err {
				if !errors.Is(r.err, provider.ErrProvider) || r.end != nil {
					t.Fatalf("err = %v, end = %+v; want the stream to fail", r.err, r.end)
				}
				// The failed reply has no MessageEnd; check what the
				// accumulator held when the error arrived.
				a := newAccumulator()
				for _, line := range dataLines(body) {
					if _, err := a.add(line); err != nil {
						break
					}
				}
				if a.finish != raw || len(a.calls) != len(w.calls) {
					t.Errorf("before the error: finish %q, %d calls; want %q, %d", a.finish, len(a.calls), raw, len(w.calls))
				}
				return
			}
			end := mustEnd(t, r)
			checkText(t, w, "refusal", end.Refusal)
			checkTextCalls(t, w, end.TextCalls)
			if len(end.Message.ToolCalls) != len(w.calls) {
				t.Fatalf("calls\n got %q\nwant %q", end.Message.ToolCalls, w.calls)
			}
			for i := range w.calls {
				if end.Message.ToolCalls[i] != w.calls[i] {
					t.Errorf("call %d\n got %q\nwant %q", i, end.Message.ToolCalls[i], w.calls[i])
				}
			}
			if end.RawStopReason != raw || end.StopReason != wantStop(w, raw) {
				t.Errorf("finish %q (%q), want %q (%q)", end.StopReason, end.RawStopReason, wantStop(w, raw), raw)
			}
			var u [2]int
			if w.usage != nil {
				u = *w.usage
			}
			if got := [2]int{end.Usage.InputTokens, end.Usage.OutputTokens}; got != u {
				t.Errorf("usage prompt/completion %v, want %v", got, u)
			}
		})
	}
}

// TestCorpusErrorMessages checks that the two streams that fail do so with
// the server's own words.
func TestCorpusErrorMessages(t *testing.T) {
	t.Parallel()
	for file, want := range map[string]string{
		"026-openrouter-error-midstream.sse":                     "Token limit reached",
		"029-groq-error-event-midstream.sse":                     "Tool call validation failed",
		"045-cerebras-qwen3coder-parallel-one-delta-no-done.sse": "",
	} {
		body, err := os.ReadFile(filepath.Join("testdata", "streams", file))
		if err != nil {
			t.Fatal(err)
		}
		r := collect(t, serveSSE(t, string(body)))
		if want == "" {
			mustEnd(t, r)
			continue
		}
		if r.err == nil || !strings.Contains(r.err.Error(), want) {
			t.Errorf("%s: err = %v, want it to mention %q", file, r.err, want)
		}
	}
}

// dataLines returns the payloads of a recording's data lines.
func dataLines(body []byte) [][]byte {
	var out [][]byte
	for _, line := range bytes.Split(body, []byte("\n")) {
		if p, ok := bytes.CutPrefix(bytes.TrimSpace(line), []byte("data:")); ok {
			if p = bytes.TrimSpace(p); string(p) != "[DONE]" {
				out = append(out, p)
			}
		}
	}
	return out
}

// FuzzAccumulator feeds arbitrary chunk sequences (lines separated by
// newlines) to the accumulator: it must not panic, and the calls it
// assembles have unique non-empty ids and respect the caps.
func FuzzAccumulator(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "streams", "*.sse"))
	for _, file := range files {
		body, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(bytes.Join(dataLines(body), []byte("\n")))
	}
	f.Add([]byte(tc(`"index":0,"id":"a"`) + "\n" + tc(`"index":0,"id":"a"`) + "\n" + tc(`"id":"call_0"`) + "\n" + tc(`"function":{"name":"x"}`)))
	f.Fuzz(func(t *testing.T, in []byte) {
		a := newAccumulator()
		deltas := 0
		for _, line := range bytes.Split(in, []byte("\n")) {
			evs, err := a.add(line)
			if err != nil {
				continue
			}
			for _, ev := range evs {
				if ev.Type == provider.EventToolCallDelta {
					deltas++
					if ev.ToolCall.ID == "" || ev.ToolCall.Index < 0 || ev.ToolCall.Index >= len(a.calls) {
						t.Fatalf("progress %+v", ev.ToolCall)
					}
				}
			}
		}
		_, end := a.end()
		calls := end.Message.ToolCalls
		if len(calls) > deltas {
			t.Fatalf("%d calls from %d tool-call deltas", len(calls), deltas)
		}
		seen := map[string]bool{}
		for _, c := range calls {
			if c.ID == "" || seen[c.ID] {
				t.Fatalf("empty or repeated id %q in %q", c.ID, calls)
			}
			seen[c.ID] = true
			if len(c.Arguments) > maxToolArgBytes || len(c.Name) > maxToolNameBytes {
				t.Fatalf("call over the caps: %d bytes of arguments, name %d", len(c.Arguments), len(c.Name))
			}
		}
		if len(calls) > 0 && end.StopReason == provider.StopEndTurn {
			t.Fatalf("calls with StopEndTurn")
		}
	})
}
