package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/agent-lsp/agent-lsp/internal/text"
)

func TestDecodeArgs(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in      string
		want    string // JSON of the decoded object, or "" on error
		errSub  string
		noteSub string
	}{
		{in: ``, want: `{}`},
		{in: " \t\n", want: `{}`},
		{in: `null`, want: `{}`},
		{in: `{}`, want: `{}`},
		{in: `{"a":1,"b":[true,null,"x",{"c":1.5e3}]}`, want: `{"a":1,"b":[true,null,"x",{"c":1.5e3}]}`},
		{in: `{"n":12345678901234567890123}`, want: `{"n":12345678901234567890123}`},
		{in: `"{\"a\":1}"`, want: `{"a":1}`, noteSub: "JSON string holding an object"},
		{in: `" {\"a\":1}"`, want: `{"a":1}`},
		{in: `"{\"a\":1"`, errSub: "the JSON string inside the arguments: arguments are not valid JSON: unexpected end of input"},
		{in: `"[1]"`, errSub: "got string"},
		{in: `"\"{}\""`, errSub: "got string"},
		{in: `[]`, errSub: "got array"},
		{in: `true`, errSub: "got boolean"},
		{in: `1.5`, errSub: "got number"},
		{in: `{"a":1}{"a":2}`, errSub: "trailing data after the first JSON value at byte 7"},
		{in: `{"a":1} x`, errSub: "trailing data after the first JSON value at byte 7"},
		{in: `{"a":1}}`, errSub: "trailing data"},
		{in: `{"a":1} `, want: `{"a":1}`},
		{in: `{"a":1,"a":1}`, errSub: `duplicate key "a" in arguments`},
		{in: `{"a":{"b":1,"b":2}}`, errSub: `duplicate key "b" in arguments.a`},
		{in: `{"a":[{},{"b":1,"b":2}]}`, errSub: `duplicate key "b" in arguments.a[1]`},
		{in: `{"a":1,"\u0061":2}`, errSub: `duplicate key "a"`},
		{in: `{"a":1,"A":2}`, want: `{"A":2,"a":1}`},
		{in: `{"a":"x\u0000"}`, errSub: "NUL character in the string at arguments.a"},
		{in: `{"a\u0000":1}`, errSub: "NUL character in a field name"},
		{in: "{\"a\":\"\x00\"}", errSub: "not valid JSON"},
		{in: "{\"a\":\"\xc3\x28\"}", errSub: "not valid UTF-8 at byte 6"},
		{in: "{\"a\":\"\xed\xa0\x80\"}", errSub: "not valid UTF-8 at byte 6"}, // surrogate half
		{in: `{"a":"\ud800"}`, want: `{"a":"` + "\uFFFD" + `"}`},
		{in: `{"a":1,}`, errSub: "not valid JSON"},
		{in: `{'a':1}`, errSub: "not valid JSON"},
		{in: `{"a":01}`, errSub: "not valid JSON"},
		{in: `{"a":Infinity}`, errSub: "not valid JSON"},
		{in: `{"a"`, errSub: "unexpected end of input at byte 4"},
		{in: `{"a":[1,2`, errSub: "unexpected end of input at byte 9"},
		{in: strings.Repeat("[", 100000), errSub: "nested too deeply"},
		{in: strings.Repeat(`{"a":`, 100000), errSub: "nested too deeply"},
		{in: `{"a":` + strings.Repeat("[", 63) + strings.Repeat("]", 63) + `}`, want: `{"a":` + strings.Repeat("[", 63) + strings.Repeat("]", 63) + `}`},
		{in: `{"a":` + strings.Repeat("[", 64) + strings.Repeat("]", 64) + `}`, errSub: "more than 64 levels"},
		{in: `{"a":"` + strings.Repeat("x", DefaultMaxArgBytes) + `"}`, errSub: "over the 1 MiB limit"},
		{in: `{"a":[` + strings.Repeat("0,", 2*maxArgValues) + `0]}`, errSub: "too many values (more than 100000)"},
		{in: `{"a":[` + strings.Repeat("0,", maxArgValues-10) + `0]}`, want: `{"a":[` + strings.Repeat("0,", maxArgValues-10) + `0]}`},
	}
	for _, tc := range cases {
		t.Run(text.Clip(tc.in, 40), func(t *testing.T) {
			t.Parallel()
			obj, notes, err := decodeArgs(tc.in, 0)
			if tc.errSub != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errSub) {
					t.Fatalf("err = %v, want it to contain %q", err, tc.errSub)
				}
				var ae *argError
				if !errors.As(err, &ae) {
					t.Errorf("error is %T, not *argError", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("err = %v", err)
			}
			got, _ := json.Marshal(obj)
			var a, b any
			_ = json.Unmarshal(got, &a)
			_ = json.Unmarshal([]byte(tc.want), &b)
			if !reflect.DeepEqual(a, b) {
				t.Errorf("got %s, want %s", got, tc.want)
			}
			if tc.noteSub != "" && !strings.Contains(strings.Join(notes, "\n"), tc.noteSub) {
				t.Errorf("notes %q lack %q", notes, tc.noteSub)
			}
		})
	}
}

// countMembers counts object members with a plain token walk that, unlike
// decodeArgs, keeps duplicates: an independent check that an accepted
// input had none.
func countMembers(data []byte) int {
	dec := json.NewDecoder(bytes.NewReader(data))
	type st struct{ obj, wantKey bool }
	var stack []st
	n := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return n
		}
		if len(stack) > 0 && stack[len(stack)-1].obj && stack[len(stack)-1].wantKey {
			if _, ok := tok.(string); ok {
				n++
				stack[len(stack)-1].wantKey = false
				continue
			}
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, st{obj: true, wantKey: true})
			continue
		case json.Delim('['):
			stack = append(stack, st{})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		if len(stack) > 0 && stack[len(stack)-1].obj {
			stack[len(stack)-1].wantKey = true
		}
	}
}

func treeMembers(v any) int {
	switch v := v.(type) {
	case map[string]any:
		n := len(v)
		for _, x := range v {
			n += treeMembers(x)
		}
		return n
	case []any:
		n := 0
		for _, x := range v {
			n += treeMembers(x)
		}
		return n
	}
	return 0
}

var argSeeds = []string{
	``, `null`, `{}`, `{"path":"a.go"}`, `{"path": "a.go"`, `"{\"path\":\"a.go\"}"`,
	`{"path":"a"}{"path":"b"}`, `["a.go"]`, `{"path":123}`, `{"command":["ls","-la"]}`,
	`{"offset":"10"}`, `{"limit":1e309}`, `{"offset":-5}`, `{"path":"a.go","recursive":true}`,
	`{"command":"rm -rf x","requires_approval":false}`, `{"path":"a.go","path":"/etc/passwd"}`,
	`{"path":"\u002e\u002e/etc/passwd"}`, `{"path":"a.go\u0000../x"}`, "{\"path\":\"a\xff\"}",
	`[[[[[[[[[[[[[[[[`, `{"a":{"b":[{"c":1,"c":2}]}}`, `{"edits":[{"old_str":"x","new_str":"y"}],"path":"p"}`,
}

// Fuzz with a short -fuzzminimizetime (e.g. 2s): minimising a large new
// input otherwise stalls the run for up to a minute at "0/sec".

// FuzzDecodeArgs: no panic, bounded time, and anything accepted is a JSON
// object that encoding/json reads the same way, without duplicate keys.
func FuzzDecodeArgs(f *testing.F) {
	for _, s := range argSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		start := time.Now()
		obj, _, err := decodeArgs(in, 0)
		if d := time.Since(start); d > time.Second {
			t.Errorf("decodeArgs took %v", d)
		}
		if err != nil {
			var ae *argError
			if !errors.As(err, &ae) || !utf8.ValidString(err.Error()) {
				t.Fatalf("bad error %T %q", err, err)
			}
			return
		}
		if obj == nil {
			t.Fatal("accepted without an object")
		}
		raw := []byte(in)
		var s string
		if json.Unmarshal(raw, &s) == nil && strings.HasPrefix(strings.TrimSpace(s), "{") {
			raw = []byte(s) // double-encoded
		}
		if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
			if len(obj) != 0 {
				t.Fatalf("empty input gave %v", obj)
			}
			return
		}
		if !json.Valid(raw) {
			t.Fatalf("accepted invalid JSON %q", raw)
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var ref any
		if err := dec.Decode(&ref); err != nil {
			t.Fatal(err)
		}
		if _, err := dec.Token(); err != io.EOF {
			t.Fatalf("accepted trailing data in %q", raw)
		}
		if !reflect.DeepEqual(any(obj), ref) {
			t.Fatalf("decoded %#v, encoding/json %#v", obj, ref)
		}
		if n, m := countMembers(raw), treeMembers(obj); n != m {
			t.Fatalf("input has %d members, tree %d: duplicate accepted in %q", n, m, raw)
		}
	})
}

// FuzzDispatch: whatever the name and arguments, one well-formed result,
// and a tool runs only on arguments the decoder accepts.
func FuzzDispatch(f *testing.F) {
	for _, name := range []string{"read_file", "write_file", "bash", "edit", "glob", "functions.read_file", "Read_File", "", "boom", "nilerr"} {
		f.Add(name, `{"path":"a.go","content":"x","command":"ls","edits":[{"old_str":"a","new_str":"b"}]}`)
	}
	for _, s := range argSeeds {
		f.Add("read_file", s)
	}
	sp := &spy{}
	// The slow tools are left out: each run would take the whole
	// deadline, and minimisation reruns an input thousands of times.
	all, reg := testTools(sp), NewRegistry()
	for _, n := range all.Names() {
		if tool, _ := all.Get(n); n != "stubborn" && n != "polite" {
			reg.Add(tool)
		}
	}
	d := NewDispatcher(reg, WithGuard(&denyRules{}), WithLogger(quietLogger()),
		WithTimeout(20*time.Millisecond), WithGrace(5*time.Millisecond), WithMaxOutput(4<<10))
	f.Fuzz(func(t *testing.T, name, args string) {
		before := sp.count()
		r := d.Dispatch(context.Background(), Call{ID: "call_f", Name: name, Arguments: args})
		ran := sp.count() > before
		checkInvariants(t, r, 4<<10)
		if _, _, err := decodeArgs(args, 0); err != nil && ran {
			t.Fatalf("tool ran on rejected arguments %q: %v", args, err)
		}
		if !r.IsError && !ran {
			t.Fatalf("success without running: %q", r.Text)
		}
	})
}

// The dispatcher's cap is Truncate by bytes alone: valid UTF-8, head and
// tail kept, the size cut named.
func TestDispatcherCap(t *testing.T) {
	t.Parallel()
	if got := Truncate("short", 0, 10); got != "short" {
		t.Errorf("got %q", got)
	}
	s := strings.Repeat("é", 1000) // 2000 bytes
	got := Truncate(s, 0, 101)
	if !utf8.ValidString(got) || !strings.Contains(got, " cut ...]") || len(got) > 101+100 {
		t.Errorf("got %q", got)
	}
	if !strings.HasPrefix(got, "éé") || !strings.HasSuffix(got, "éé") {
		t.Errorf("head or tail lost: %q", got)
	}
	big := strings.Repeat("x", 50<<20)
	if got := Truncate(big, 0, DefaultMaxOutput); !strings.Contains(got, "[... 1 line / 49.9 MiB cut ...]") {
		t.Errorf("marker: %q", got[DefaultMaxOutput/2-10:DefaultMaxOutput/2+100])
	}
}

func TestClosest(t *testing.T) {
	t.Parallel()
	names := []string{"bash", "glob", "grep", "read_file", "str_replace", "write_file"}
	for in, want := range map[string]string{
		"read_files": "read_file", "Read_File": "read_file", "readfile": "read_file",
		"write": "", "gerp": "grep", "str-replace": "str_replace", "launch_missiles": "",
		strings.Repeat("x", 1000): "",
	} {
		if got := closest(in, names); got != want {
			t.Errorf("closest(%q) = %q, want %q", text.Clip(in, 20), got, want)
		}
	}
}
