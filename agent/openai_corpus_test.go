package agent

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// corpusWant is one row's expected_accumulated_result from
// testdata/streams/INDEX.tsv, e.g.
//
//	text="..."; calls=[{id="..",name=x,args="{..}"}]; finish=stop; usage={prompt:1,completion:2,total:3}
//
// Long texts are given as <field>_len (runes), <field>_sha256_16 (first 16
// hex digits of the SHA-256 of the UTF-8) and <field>_head (first 40 runes).
type corpusWant struct {
	fields map[string]string // text, reasoning, refusal, finish, *_len, *_sha256_16, *_head
	calls  []ToolCall
	usage  *[2]int // prompt, completion (null is 0)
	err    bool
}

// parseWant reads one expected_accumulated_result cell. Row 008 (n=3)
// lists one result per choice separated by " | "; the adapter keeps
// choice 0, and the usage sits at the end of the last part.
func parseWant(s string) (corpusWant, error) {
	parts := strings.Split(s, " | ")
	w, err := parseWantPart(strings.TrimPrefix(parts[0], "choice0: "))
	if err != nil || len(parts) == 1 {
		return w, err
	}
	last, err := parseWantPart(parts[len(parts)-1][strings.Index(parts[len(parts)-1], ": ")+2:])
	w.usage = last.usage
	return w, err
}

func parseWantPart(s string) (corpusWant, error) {
	w := corpusWant{fields: map[string]string{}}
	i := 0
	for {
		for i < len(s) && (s[i] == ' ' || s[i] == ';') {
			i++
		}
		if i >= len(s) {
			return w, nil
		}
		k := i
		for k < len(s) && (s[k] == '_' || s[k] >= 'a' && s[k] <= 'z' || s[k] >= '0' && s[k] <= '9') {
			k++
		}
		if k == i || k >= len(s) || s[k] != '=' {
			i = skipField(s, i) // free text: "1 choices:[] chunk(s)", "no [DONE]"
			continue
		}
		key := s[i:k]
		i = k + 1
		switch {
		case key == "calls":
			calls, n, err := parseCalls(s[i:])
			if err != nil {
				return w, fmt.Errorf("calls: %w", err)
			}
			w.calls, i = calls, i+n
		case key == "usage":
			end := strings.IndexByte(s[i:], '}')
			u := [2]int{}
			for _, kv := range strings.Split(strings.Trim(s[i:i+end], "{}"), ",") {
				name, val, _ := strings.Cut(kv, ":")
				n, _ := strconv.Atoi(val) // null is 0
				switch name {
				case "prompt":
					u[0] = n
				case "completion":
					u[1] = n
				}
			}
			w.usage, i = &u, i+end+1
		case key == "error":
			w.err, i = true, skipField(s, i) // the JSON is cut short in row 029
		case i < len(s) && s[i] == '"':
			v, n, err := readQuoted(s[i:])
			if err != nil {
				return w, fmt.Errorf("%s: %w", key, err)
			}
			w.fields[key], i = v, i+n
		case strings.HasSuffix(key, "_len") || strings.HasSuffix(key, "_sha256_16"):
			end := i + strings.IndexFunc(s[i:]+" ", func(r rune) bool { return r == ' ' || r == ';' })
			w.fields[key], i = s[i:end], end
		default: // finish may contain spaces: "function_call_filter: MALFORMED..."
			end := skipField(s, i)
			w.fields[key], i = strings.TrimSpace(strings.TrimSuffix(s[i:end], "; ")), end
		}
	}
}

// skipField returns the index after the next "; " (or the end).
func skipField(s string, i int) int {
	if j := strings.Index(s[i:], "; "); j >= 0 {
		return i + j + 2
	}
	return len(s)
}

// readQuoted reads a double-quoted, backslash-escaped string at s[0].
func readQuoted(s string) (string, int, error) {
	j := 1
	for ; j < len(s) && s[j] != '"'; j++ {
		if s[j] == '\\' {
			j++
		}
	}
	if j >= len(s) {
		return "", 0, fmt.Errorf("unterminated string %.40q", s)
	}
	lit := s[:j+1]
	if v, err := strconv.Unquote(lit); err == nil {
		return v, j + 1, nil
	}
	var v string
	err := json.Unmarshal([]byte(lit), &v)
	return v, j + 1, err
}

// parseCalls reads [{id="..",name=x,args=".."}, ...].
func parseCalls(s string) ([]ToolCall, int, error) {
	if !strings.HasPrefix(s, "[") {
		return nil, 0, errors.New("no [")
	}
	var calls []ToolCall
	i := 1
	for {
		for i < len(s) && (s[i] == ' ' || s[i] == ',') {
			i++
		}
		if i >= len(s) {
			return nil, 0, errors.New("no ]")
		}
		if s[i] == ']' {
			return calls, i + 1, nil
		}
		if s[i] != '{' {
			return nil, 0, fmt.Errorf("want { at %.20q", s[i:])
		}
		i++
		var c ToolCall
		for s[i] != '}' {
			eq := strings.IndexByte(s[i:], '=')
			key := s[i : i+eq]
			i += eq + 1
			var v string
			if s[i] == '"' {
				var n int
				var err error
				if v, n, err = readQuoted(s[i:]); err != nil {
					return nil, 0, err
				}
				i += n
			} else {
				end := strings.IndexAny(s[i:], ",}")
				v, i = s[i:i+end], i+end
			}
			switch key {
			case "id":
				c.ID = v
			case "name":
				c.Name = v
			case "args":
				c.Arguments = v
			}
			if s[i] == ',' {
				i++
			}
		}
		calls = append(calls, c)
		i++
	}
}

type corpusRow struct{ file, want string }

func corpusRows(t testing.TB) []corpusRow {
	f, err := os.Open(filepath.Join("testdata", "streams", "INDEX.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []corpusRow
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) < 4 || cols[0] == "file" {
			continue
		}
		rows = append(rows, corpusRow{cols[0], cols[3]})
	}
	return rows
}

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
func wantStop(w corpusWant, raw string) StopReason {
	switch raw {
	case "length":
		return StopLength
	case "content_filter":
		return StopFilter
	case "stop", "tool_calls", "":
		switch {
		case len(w.calls) > 0:
			return StopToolCalls
		case w.fields["refusal"] != "":
			return StopRefusal
		}
		return StopEndTurn
	}
	return StopOther
}

// TestOpenAICorpus replays every recorded stream through a real HTTP server
// and the adapter, and checks text, reasoning, refusal, tool calls, finish
// reason and usage against INDEX.tsv. Rows with an error expect the stream
// to fail with the server's message.
func TestOpenAICorpus(t *testing.T) {
	t.Parallel()
	rows := corpusRows(t)
	if len(rows) != 46 {
		t.Fatalf("INDEX.tsv has %d rows, want 46", len(rows))
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
			}, OpenAIConfig{})
			r := collect(t, p)
			checkText(t, w, "reasoning", r.reasoning)
			checkText(t, w, "text", r.text)
			if w.err {
				if !errors.Is(r.err, ErrProvider) || r.end != nil {
					t.Fatalf("err = %v, end = %+v; want the stream to fail", r.err, r.end)
				}
				return
			}
			end := mustEnd(t, r)
			checkText(t, w, "refusal", end.Refusal)
			if len(end.Message.ToolCalls) != len(w.calls) {
				t.Fatalf("calls\n got %q\nwant %q", end.Message.ToolCalls, w.calls)
			}
			for i := range w.calls {
				if end.Message.ToolCalls[i] != w.calls[i] {
					t.Errorf("call %d\n got %q\nwant %q", i, end.Message.ToolCalls[i], w.calls[i])
				}
			}
			raw := strings.TrimSuffix(w.fields["finish"], "null")
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

func TestParseWant(t *testing.T) {
	t.Parallel()
	rows := map[string]corpusRow{}
	for _, r := range corpusRows(t) {
		rows[r.file[:3]] = r
	}
	w, err := parseWant(rows["016"].want)
	if err != nil || len(w.calls) != 2 || w.calls[0].Arguments != `{"filePath":"hello.py","content":"print(\"hello\")"}` || w.fields["finish"] != "tool_calls" {
		t.Errorf("016: %+v %v", w, err)
	}
	w, err = parseWant(rows["008"].want)
	if err != nil || w.fields["text"] != `{"city":"San Francisco","temperature":65,"units":"f"}` || *w.usage != [2]int{79, 42} {
		t.Errorf("008: %+v %v", w, err)
	}
	w, err = parseWant(rows["029"].want)
	if err != nil || !w.err || w.fields["finish"] != "null" || w.fields["reasoning_len"] != "412" || w.fields["text"] != "" {
		t.Errorf("029: %+v %v", w, err)
	}
	w, err = parseWant(rows["038"].want)
	if err != nil || w.fields["finish"] != "function_call_filter: MALFORMED_FUNCTION_CALL" || *w.usage != [2]int{910, 0} {
		t.Errorf("038: %+v %v", w, err)
	}
	w, err = parseWant(rows["021"].want)
	if err != nil || *w.usage != [2]int{1, 0} || w.calls[0].ID != "call_public_0" {
		t.Errorf("021: %+v %v", w, err)
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
				if ev.Type == EventToolCallDelta {
					deltas++
					if ev.ToolCall.ID == "" || ev.ToolCall.Index < 0 || ev.ToolCall.Index >= len(a.calls) {
						t.Fatalf("progress %+v", ev.ToolCall)
					}
				}
			}
		}
		end := a.end()
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
		if len(calls) > 0 && end.StopReason == StopEndTurn {
			t.Fatalf("calls with StopEndTurn")
		}
	})
}
