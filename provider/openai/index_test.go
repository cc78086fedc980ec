package openai

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/provider"
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
	calls  []provider.ToolCall
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
func parseCalls(s string) ([]provider.ToolCall, int, error) {
	if !strings.HasPrefix(s, "[") {
		return nil, 0, errors.New("no [")
	}
	var calls []provider.ToolCall
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
		var c provider.ToolCall
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

type corpusRow struct{ file, want, server string }

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
		rows = append(rows, corpusRow{cols[0], cols[3], cols[1]})
	}
	return rows
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
