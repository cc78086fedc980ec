package openai

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// corpusChunks are the data lines of every recorded stream: what real
// servers send.
func corpusChunks(t testing.TB) [][]byte {
	files, err := filepath.Glob(filepath.Join("testdata", "streams", "*.sse"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no recorded streams: %v", err)
	}
	var out [][]byte
	for _, file := range files {
		body, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, dataLines(body)...)
	}
	return out
}

// oddChunks are chunks a broken or hostile server may send: each is
// either read as encoding/json reads it or left to encoding/json.
var oddChunks = []string{
	`null`, ` null `, `nullx`, `{}`, `[]`, `[1]`, `"s"`, `1`, `true`, ``, `{`, `{}}`, `{} {}`, `{"choices":[]}`, `{"choices":null}`,
	`{"choices":[null]}`, `{"choices":[null,{"index":1}]}`, `{"choices":{}}`, `{"choices":"x"}`, `{"choices":[1]}`, `{"choices":[{}],}`,
	`{"choices":[{"delta":null}]}`, `{"choices":[{"delta":[]}]}`, `{"choices":[{"delta":"x"}]}`, `{"choices":[{"delta":{"content":null}}]}`,
	`{"choices":[{"delta":{"content":[{"type":"text","text":"a"}]}}]}`, `{"choices":[{"delta":{"content":{"x":[1,2,{"y":null}]}}}]}`,
	`{"choices":[{"delta":{"content":"a"},"delta":{"content":"b"}}]}`, `{"choices":[],"choices":[{"index":0}]}`,
	`{"Choices":[{"delta":{"content":"a"}}]}`, `{"CHOICES":[]}`, `{"choices":[{"Delta":{"content":"a"}}]}`, `{"choices":[{"delta":{"Content":"a"}}]}`,
	"{\"choices\":[{\"delta\":{\"conten\u212at\":\"a\"}}]}", "{\"u\u017fage\":{\"prompt_tokens\":3}}", `{"us\u0061ge":{"prompt_tokens":3}}`,
	`{"choices":[{"index":0}],"id":"x","object":"chat.completion.chunk","created":1,"model":"m","system_fingerprint":null,"x":{"a":[true,false,null,-1.5e+3,0,0.25,1E9]}}`,
	`{"choices":[{"index":"0"}]}`, `{"choices":[{"index":1.0}]}`, `{"choices":[{"index":null}]}`, `{"choices":[{"index":[0]}]}`, `{"choices":[{"index":-0}]}`,
	`{"choices":[{"index":1e400}]}`, `{"choices":[{"index":99999999999}]}`, `{"choices":[{"index":01}]}`, `{"choices":[{"index":-}]}`, `{"choices":[{"index":1.}]}`,
	`{"choices":[{"index":.5}]}`, `{"choices":[{"index":+1}]}`, `{"choices":[{"index":1e}]}`, `{"choices":[{"index":"\u0031"}]}`,
	`{"choices":[{"text":null,"finish_reason":null}]}`, `{"choices":[{"text":"","finish_reason":""}]}`, `{"choices":[{"finish_reason":1}]}`, `{"choices":[{"text":true}]}`,
	`{"choices":[{"delta":{"content":"\ud83d\ude00 \u00e9 \/ \b\f\n\r\t \" \\"}}]}`, `{"choices":[{"delta":{"content":"\ud83d"}}]}`, `{"choices":[{"delta":{"content":"\ude00x"}}]}`,
	`{"choices":[{"delta":{"content":"\ud83d\u0041"}}]}`, `{"choices":[{"delta":{"content":"\ud83d\ud83d\ude00"}}]}`, `{"choices":[{"delta":{"content":"\uZZZZ"}}]}`,
	`{"choices":[{"delta":{"content":"\x"}}]}`, `{"choices":[{"delta":{"content":"\u12"}}]}`, "{\"choices\":[{\"delta\":{\"content\":\"a\tb\"}}]}",
	"{\"choices\":[{\"delta\":{\"reasoning_content\":\"\xff\xfe a \xe2\x82\"}}]}", "{\"choices\":[{\"delta\":{\"content\":\"\xff\"}}]}",
	"{\"\xff\":1,\"choices\":[]}", `{"choices":[{"delta":{"reasoning_content":"r","reasoning":"s","refusal":"no","reasoning_details":[{"type":"reasoning.text","text":"t"}]}}]}`,
	`{"choices":[{"delta":{"tool_calls":null}}]}`, `{"choices":[{"delta":{"tool_calls":[]}}]}`, `{"choices":[{"delta":{"tool_calls":[null]}}]}`,
	`{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}}]}}]}`,
	`{"choices":[{"delta":{"tool_calls":[{"function":null}]}}]}`, `{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":{"a":[1]}}}]}}]}`,
	`{"choices":[{"delta":{"tool_calls":[{"function":{"name":null,"arguments":null}}]}}]}`, `{"choices":[{"delta":{"tool_calls":[{"function":"f"}]}}]}`,
	`{"choices":[{"delta":{"tool_calls":[{"id":7}]}}]}`, `{"choices":[{"delta":{"tool_calls":{"id":"a"}}}]}`,
	`{"usage":null}`, `{"usage":{}}`, `{"usage":{"prompt_tokens":5,"completion_tokens":"7","total_tokens":12,"prompt_tokens_details":{"cached_tokens":2}}}`,
	`{"usage":{"prompt_tokens_details":null}}`, `{"usage":{"prompt_tokens_details":[]}}`, `{"usage":[]}`, `{"usage":1}`,
	`{"error":null}`, `{"error":{"message":"bad","code":429}}`, `{"error":"oops"}`, `{"error":[1,{}]}`, `{"error":nul}`,
	` { "choices" : [ { "index" : 0 , "delta" : { "content" : "a" } } ] } `, "{\n\"choices\":\r[\t]}", "{\"choices\":[]\f}",
	`{"choices":[{"delta":{"content":"a"}}]}x`, `{"choices":[{"delta":{"content":"a"}}]`, `{"choices":[{"delta":{"content":"a"}}`, `{"choices"[]}`,
	`{"choices":[]` + strings.Repeat(`,"x":[`, 1) + `]}`, `{"x":` + strings.Repeat(`[`, 200) + strings.Repeat(`]`, 200) + `,"choices":[]}`,
	`{"x":` + strings.Repeat(`{"a":`, 20) + `1` + strings.Repeat(`}`, 20) + `}`, `{"x":[1,]}`, `{"x":[,1]}`, `{"x":{,}}`, `{"x":{"a"}}`, `{"x":{1:2}}`,
}

// TestReadChunkMatchesJSON: every chunk of the recorded streams is read
// without encoding/json, and for every chunk, read or left to
// encoding/json, the result is encoding/json's.
func TestReadChunkMatchesJSON(t *testing.T) {
	for _, line := range corpusChunks(t) {
		var c rawChunk
		if !readChunk(line, &c) {
			t.Errorf("readChunk leaves a recorded chunk to encoding/json: %s", line)
		}
		checkChunkLikeJSON(t, line)
	}
	for _, line := range oddChunks {
		checkChunkLikeJSON(t, []byte(line))
	}
}

// TestReadChunkTakesOddButValid: chunks a server may send that are not
// in the corpus but are still read without encoding/json.
func TestReadChunkTakesOddButValid(t *testing.T) {
	for _, line := range []string{`null`, `{}`, `{"choices":[null]}`, `{"choices":[{"delta":null}]}`, `{"choices":[{"index":"0"}]}`,
		`{"choices":[{"delta":{"content":"\ud83d\ude00 \ud83d"}}]}`, "{\"choices\":[{\"delta\":{\"content\":\"\xff\"}}]}",
		`{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":{"a":[1]}}}]}}]}`, `{"error":{"message":"bad","code":429}}`} {
		var c rawChunk
		if !readChunk([]byte(line), &c) {
			t.Errorf("readChunk leaves %s to encoding/json", line)
		}
	}
}

func checkChunkLikeJSON(t *testing.T, line []byte) {
	t.Helper()
	var want rawChunk
	jsonErr := json.Unmarshal(line, &want)
	var got rawChunk
	if !readChunk(line, &got) {
		return // encoding/json decides
	}
	if jsonErr != nil {
		t.Fatalf("readChunk took %q, which json refuses: %v", line, jsonErr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("readChunk(%q) = %s, json gives %s", line, dumpChunk(got), dumpChunk(want))
	}
}

// dumpChunk shows a chunk's pointers' values.
func dumpChunk(c rawChunk) string {
	b, _ := json.Marshal(c)
	return string(b)
}

// TestStringsLikeJSON: strings are decoded as json decodes them,
// escapes, surrogates and bytes that are not UTF-8 included.
func TestStringsLikeJSON(t *testing.T) {
	for _, s := range []string{`""`, `"a"`, `"\ud83d\ude00"`, `"\ud83d"`, `"\ude00"`, `"\ud83dx"`, `"\ud83d\u0041"`, `"\ud83d\ud83d\ude00"`, `"\u0000"`,
		"\"\xff\"", "\"a\xe2\x82\"", "\"\xef\xbf\xbd\"", `"\/\b\f\n\r\t\"\\"`, `"\u00E9\u00e9"`, "\"\xed\xa0\x80\""} {
		var want string
		if err := json.Unmarshal([]byte(s), &want); err != nil {
			t.Fatalf("json refuses %q: %v", s, err)
		}
		if got, ok := jsonString([]byte(s)); !ok || got != want {
			t.Errorf("jsonString(%q) = %q, %v; json gives %q", s, got, ok, want)
		}
		r := jsonReader{b: []byte(s)}
		if got, ok := r.str(); !ok || got != want {
			t.Errorf("str(%q) = %q, %v; json gives %q", s, got, ok, want)
		}
	}
}

func FuzzReadChunk(f *testing.F) {
	for _, line := range corpusChunks(f) {
		f.Add(line)
	}
	for _, line := range oddChunks {
		f.Add([]byte(line))
	}
	f.Fuzz(func(t *testing.T, line []byte) { checkChunkLikeJSON(t, line) })
}
