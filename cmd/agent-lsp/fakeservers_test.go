package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/agent-lsp/agent-lsp/agent/agenttest"
)

// fakeOllama is an Ollama that truncates as the real one does: a prompt
// over the window it runs the model with is cut silently and the prompt
// count reports that window. /v1/chat/completions runs the model at the
// server's default (window): it has no way to set the context size.
// /api/chat honours options.num_ctx, capped at the model's native context
// as Ollama caps it (llm/server.go), and streams NDJSON with tool calls
// whole, arguments as objects and no ids (Ollama before 0.12.10). It
// counts a request's tokens as its body bytes / 4 (real tokenizers pack
// 3-4.5 bytes a token on code and JSON: an overestimate, which makes
// "fitted" a safe verdict).
type fakeOllama struct {
	*httptest.Server
	window, native int
	mu             sync.Mutex
	next           func(n int, req agenttest.ChatRequest) agenttest.Reply
	reqs           []ollamaReq
}

// ollamaReq is what one chat request was.
type ollamaReq struct {
	path   string
	numCtx int // options.num_ctx (/api/chat), 0 when absent
	ran    int // the window the model ran with
	tokens int // the prompt, before truncation
	body   map[string]any
}

func newFakeOllama(t *testing.T, window, native int, next func(int, agenttest.ChatRequest) agenttest.Reply) *fakeOllama {
	f := &fakeOllama{window: window, native: native, next: next}
	mux := http.NewServeMux()
	mux.HandleFunc("/api/ps", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"models":[{"name":"qwen2.5-coder:7b","model":"qwen2.5-coder:7b","context_length":%d}]}`, window)
	})
	mux.HandleFunc("/api/show", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"parameters":"","model_info":{"general.architecture":"qwen2","qwen2.context_length":%d},"capabilities":["completion","tools","insert"]}`, native)
	})
	mux.HandleFunc("/v1/models", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"object":"list","data":[{"id":"qwen2.5-coder:7b","object":"model","owned_by":"library"}]}`)
	})
	mux.HandleFunc("/v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		rep, model := f.chat(r)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, agenttest.SSE(model, rep))
	})
	mux.HandleFunc("/api/chat", func(w http.ResponseWriter, r *http.Request) {
		rep, model := f.chat(r)
		w.Header().Set("Content-Type", "application/x-ndjson")
		io.WriteString(w, ollamaNDJSON(model, rep))
	})
	f.Server = httptest.NewServer(mux)
	t.Cleanup(f.Close)
	return f
}

// chat records one request and scripts its reply; a prompt over the
// window the model runs with gets an answer from the part that was left.
func (f *fakeOllama) chat(r *http.Request) (agenttest.Reply, string) {
	body, _ := io.ReadAll(r.Body)
	var req agenttest.ChatRequest
	_ = json.Unmarshal(body, &req)
	var opts struct {
		Options struct {
			NumCtx int `json:"num_ctx"`
		} `json:"options"`
	}
	_ = json.Unmarshal(body, &opts)
	var raw map[string]any
	_ = json.Unmarshal(body, &raw)
	ran := f.window
	if r.URL.Path == "/api/chat" && opts.Options.NumCtx > 0 {
		ran = min(opts.Options.NumCtx, f.native)
	}
	count := len(body) / 4
	f.mu.Lock()
	n := len(f.reqs)
	f.reqs = append(f.reqs, ollamaReq{path: r.URL.Path, numCtx: opts.Options.NumCtx, ran: ran, tokens: count, body: raw})
	f.mu.Unlock()
	rep := f.next(n, req)
	rep.PromptTokens = min(count, ran)
	if count > ran {
		rep = agenttest.Reply{Text: "I cannot see any file.", PromptTokens: ran, CompletionTokens: 6}
	}
	return rep, req.Model
}

// ollamaNDJSON renders a reply as /api/chat streams it: text and thinking
// in pieces, each tool call whole on its own line, then the done line
// with the counts.
func ollamaNDJSON(model string, rep agenttest.Reply) string {
	var b strings.Builder
	line := func(msg map[string]any) {
		msg["role"] = "assistant"
		data, _ := json.Marshal(map[string]any{"model": model, "created_at": "2026-01-01T00:00:00Z", "message": msg, "done": false})
		b.Write(append(data, '\n'))
	}
	for _, p := range chunks(rep.Reasoning, 16) {
		line(map[string]any{"content": "", "thinking": p})
	}
	for _, p := range chunks(rep.Text, 16) {
		line(map[string]any{"content": p})
	}
	for i, c := range rep.ToolCalls {
		line(map[string]any{"content": "", "tool_calls": []any{map[string]any{"function": map[string]any{"index": i, "name": c.Name, "arguments": json.RawMessage(c.Arguments)}}}})
	}
	data, _ := json.Marshal(map[string]any{"model": model, "created_at": "2026-01-01T00:00:01Z", "message": map[string]any{"role": "assistant", "content": ""},
		"done": true, "done_reason": "stop", "prompt_eval_count": rep.PromptTokens, "eval_count": rep.CompletionTokens})
	b.Write(append(data, '\n'))
	return b.String()
}

// chunks splits s into runs of about n bytes, whole runes each.
func chunks(s string, n int) []string {
	var out []string
	for len(s) > 0 {
		k := min(n, len(s))
		for k < len(s) && !utf8.RuneStart(s[k]) {
			k++
		}
		out, s = append(out, s[:k]), s[k:]
	}
	return out
}

// stats reports the largest prompt, whether every prompt fitted the window
// its request ran with, and how many chat requests there were.
func (f *fakeOllama) stats() (peak int, fitted bool, n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fitted = true
	for _, r := range f.reqs {
		peak = max(peak, r.tokens)
		fitted = fitted && r.tokens <= r.ran
	}
	return peak, fitted, len(f.reqs)
}

// requests returns the chat requests received so far.
func (f *fakeOllama) requests() []ollamaReq {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]ollamaReq(nil), f.reqs...)
}

// v1Only is a user configuration that keeps Ollama on /v1, for the tests
// of how a run adapts to a small window it cannot change.
func v1Only(t *testing.T, ws string, extra string) {
	writeFile(t, filepath.Join(ws, ".config", "agent-lsp", "config.toml"), "ollama_native = false\n"+extra)
}

// session40 is a 40-turn session: 39 reads of different 1.5 KB files,
// then the answer.
func session40(ws string) func(int, agenttest.ChatRequest) agenttest.Reply {
	return func(n int, _ agenttest.ChatRequest) agenttest.Reply {
		if n >= 39 {
			return agenttest.Reply{Text: "Read them all.", CompletionTokens: 4}
		}
		return agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: fmt.Sprintf("c%d", n), Name: "read_file", Arguments: fmt.Sprintf(`{"path":"f%02d.txt"}`, n)}}, CompletionTokens: 20}
	}
}

func writeSessionFiles(t *testing.T, ws string) {
	for i := range 39 {
		writeFile(t, filepath.Join(ws, fmt.Sprintf("f%02d.txt", i)), strings.Repeat(fmt.Sprintf("line %d of file %d: some words of content here\n", i, i), 30))
	}
}

// TestFakeOllamaSmallWindows: on /v1 (ollama_native = false), which
// cannot raise the window, at 2048 the run says at once that it cannot
// fit; at 4096 it fits (compact schemas); it never answers from a cut
// prompt without a warning.
func TestFakeOllamaSmallWindows(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	v1Only(t, ws, "")
	writeFile(t, filepath.Join(ws, "a.txt"), "alpha\n")
	// A short prompt fits 2048 with the compact schemas; a long one does
	// not, and the run says so before sending anything.
	ok := func(int, agenttest.ChatRequest) agenttest.Reply { return agenttest.Reply{Text: "ok"} }
	f := newFakeOllama(t, 2048, 32768, ok)
	r := runBinary(t, ws, "run", "--json", "--base-url", f.URL+"/v1", "--model", "qwen2.5-coder:7b", "say ok")
	peak, fitted, n := f.stats()
	t.Logf("2048 window, short prompt: %d requests, peak prompt %d tokens, fitted: %v", n, peak, fitted)
	if r.code != 0 || !fitted || !strings.Contains(r.stdout, "2048-token context window") {
		t.Errorf("2048, short prompt: exit %d, fitted %v:\n%s", r.code, fitted, r.stdout)
	}
	f = newFakeOllama(t, 2048, 32768, ok)
	long := "Review this log:\n" + strings.Repeat("2026-01-01 12:00:00 INFO request served in 12ms from cache\n", 120)
	r = runBinary(t, ws, "run", "--json", "--base-url", f.URL+"/v1", "--model", "qwen2.5-coder:7b", long)
	end := lastLine(r.stdout)
	if _, _, n := f.stats(); r.code != 1 || n != 0 || !strings.Contains(end, `"reason":"context_too_small"`) || !strings.Contains(end, "OLLAMA_CONTEXT_LENGTH") {
		t.Errorf("2048, long prompt: exit %d, %d requests, end %s", r.code, n, end)
	}

	f = newFakeOllama(t, 4096, 32768, func(n int, _ agenttest.ChatRequest) agenttest.Reply {
		if n == 0 {
			return agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: "c", Name: "read_file", Arguments: `{"path":"a.txt"}`}}}
		}
		return agenttest.Reply{Text: "It says alpha."}
	})
	r = runBinary(t, ws, "run", "--json", "--base-url", f.URL+"/v1", "--model", "qwen2.5-coder:7b", "what does a.txt say?")
	peak, fitted, n = f.stats()
	t.Logf("4096 window: %d requests, peak prompt %d tokens, all fitted: %v", n, peak, fitted)
	if r.code != 0 || !fitted || !strings.Contains(lastLine(r.stdout), "It says alpha.") {
		t.Errorf("4096: exit %d, fitted %v, end %s", r.code, fitted, lastLine(r.stdout))
	}
}

// TestFakeOllamaCutPromptWarns: on /v1 (ollama_native = false) a server
// whose window is smaller than the configured one cuts silently; the run
// says so before the reply is acted on, and on the first request says not
// to trust it.
func TestFakeOllamaCutPromptWarns(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	v1Only(t, ws, "context_window = 32768\n")
	f := newFakeOllama(t, 2048, 32768, func(int, agenttest.ChatRequest) agenttest.Reply { return agenttest.Reply{Text: "ok"} })
	r := runBinary(t, ws, "run", "--json", "--base-url", f.URL+"/v1", "--model", "qwen2.5-coder:7b", "say ok")
	evs := events(t, r.stdout)
	warn, answer := -1, -1
	for i, ev := range evs {
		b, _ := json.Marshal(ev)
		if ev["type"] == "warning" && strings.Contains(string(b), "cutting the prompt") && strings.Contains(string(b), "do not trust") {
			warn = i
		}
		if ev["type"] == "end" {
			answer = i
		}
	}
	if warn < 0 || warn > answer {
		t.Errorf("no warning before the end:\n%s", r.stdout)
	}
}

// TestFortyTurnWindows runs a 40-turn session through the binary against
// a fake Ollama at 4k, 8k, 16k and 32k windows on /v1 (the window a run
// cannot change: llama.cpp's -c, vLLM, ollama_native = false) and reports
// the peak prompt and whether every request fitted. A request that did
// not fit must have been warned about.
func TestFortyTurnWindows(t *testing.T) {
	t.Parallel()
	for _, window := range []int{4096, 8192, 16384, 32768} {
		t.Run(fmt.Sprint(window), func(t *testing.T) {
			t.Parallel()
			ws := t.TempDir()
			v1Only(t, ws, "")
			writeSessionFiles(t, ws)
			f := newFakeOllama(t, window, 32768, session40(ws))
			r := runBinary(t, ws, "run", "--json", "--max-turns", "60", "--base-url", f.URL+"/v1", "--model", "qwen2.5-coder:7b", "read f00.txt to f38.txt one by one")
			peak, fitted, n := f.stats()
			compactions := strings.Count(r.stdout, `"type":"compaction"`)
			t.Logf("window %5d: %d requests, peak prompt %5d tokens (%.0f%% of the window), every request fitted: %v, compactions %d, end %s",
				window, n, peak, 100*float64(peak)/float64(window), fitted, compactions, endReason(lastLine(r.stdout)))
			if !fitted && !strings.Contains(r.stdout, "cutting the prompt") {
				t.Errorf("a request did not fit and nothing said so")
			}
			if r.code != 0 {
				t.Errorf("exit %d: %s", r.code, lastLine(r.stdout))
			}
		})
	}
}

func endReason(line string) string {
	var ev map[string]any
	_ = json.Unmarshal([]byte(line), &ev)
	s, _ := ev["reason"].(string)
	return s
}

// TestDoctorAgainstFakeServers: doctor names the server kind, the window
// and the tool support of each.
func TestDoctorAgainstFakeServers(t *testing.T) {
	t.Parallel()
	models := `{"object":"list","data":[{"id":"m","object":"model","owned_by":"vllm","max_model_len":12288}]}`
	cases := map[string]struct {
		routes map[string]string
		want   []string
	}{
		"ollama": {map[string]string{
			"/api/ps": `{"models":[{"name":"m:latest","context_length":4096}]}`, "/api/show": `{"model_info":{"qwen2.context_length":32768},"capabilities":["completion","tools"]}`,
			"/v1/models": `{"data":[{"id":"m"}]}`,
		}, []string{"kind:      ollama", "window:    4096 tokens (ollama /api/ps", "supports 32768 tokens", "runs set num_ctx 32768 through Ollama's native /api/chat", "tools:     the model declares tool support"}},
		"llama.cpp": {map[string]string{"/props": `{"default_generation_settings":{"n_ctx":8192}}`, "/v1/models": `{"data":[{"id":"m"}]}`},
			[]string{"kind:      llama.cpp", "window:    8192 tokens", "-c 32768", "tools:     unknown"}},
		"vllm": {map[string]string{"/v1/models": models}, []string{"kind:      vllm", "window:    12288 tokens", "--max-model-len"}},
		"lmstudio": {map[string]string{"/api/v0/models": `{"data":[{"id":"m","max_context_length":32768,"capabilities":[]}]}`, "/v1/models": `{"data":[{"id":"m"}]}`},
			[]string{"kind:      lmstudio", "window:    32768 tokens", "does NOT declare tool support"}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if body, ok := c.routes[r.URL.Path]; ok {
					io.WriteString(w, body)
					return
				}
				http.NotFound(w, r)
			}))
			defer srv.Close()
			r := runBinary(t, t.TempDir(), "doctor", "--base-url", srv.URL+"/v1", "--model", "m")
			for _, w := range c.want {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("doctor output lacks %q:\n%s", w, r.stdout)
				}
			}
		})
	}
}
