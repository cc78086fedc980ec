// Package textcalls recovers tool calls that a model wrote as text in its
// reply, because the server's chat template or tool parser did not turn
// them into structured tool_calls (common with 7–32B models on Ollama,
// llama.cpp, LM Studio and vLLM). Rules:
//  1. It runs only on a reply without structured tool calls, and only when
//     the request offered tools.
//  2. Each text protocol is one row of the families table: a parser that
//     finds the envelope and reads the calls out of it. Adding a family is
//     a row, a parser and a recorded example (provider/openai/testdata).
//  3. A call is recovered only if it names an offered tool and its
//     arguments pass that tool's JSON schema.
//  4. Prose is never executed. Families whose envelope is only JSON or
//     Python syntax (a bare object, a ```json block, a [call(...)] list)
//     are implicit: when they name no offered tool they are an answer
//     that shows an example. Families with a dedicated marker
//     (<tool_call>, [TOOL_CALLS], <|python_tag|>, ...) are explicit: an
//     unknown tool there is a broken call.
//  5. A recognised envelope that is broken (unclosed, truncated JSON,
//     unknown tool, bad arguments) yields a Problem, never a call.
package textcalls

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/agent-lsp/agent-lsp/provider"
	"github.com/agent-lsp/agent-lsp/tools"
)

// Result is what Recover found in a reply's text.
type Result struct {
	// Family names the envelope's protocol; empty when the text held none.
	Family string
	// Calls are the recovered calls (ids text_call_<n>), in order.
	Calls []provider.ToolCall
	// Text is the reply without the envelope: the prose around it.
	Text string
	// Problem says why a recognised envelope cannot run; Calls is then nil.
	Problem string
}

// rawCall is one call as a parser read it, not yet checked.
type rawCall struct {
	name string
	// argsText is the arguments as JSON text, when the model wrote JSON;
	// otherwise args holds the decoded value (Python or XML syntax).
	argsText string
	args     map[string]any
	// raw is the text of each XML parameter, used where the schema wants
	// a string ("42" stays "42").
	raw map[string]string
	// inner is the call inside print(...) (Gemma).
	inner *rawCall
	// extra: the JSON object has keys a call does not have; noArgs: it
	// has no arguments key. See toolset.data.
	extra, noArgs bool
}

// envelope is what a parser found.
type envelope struct {
	calls []rawCall
	prose string
	// broken says what is wrong with an envelope that cannot be read.
	broken string
	// family, when set, names the protocol more precisely than the row.
	family string
}

// family is one text protocol.
type family struct {
	name string
	// implicit families are JSON or Python syntax without a marker; see
	// rule 4.
	implicit bool
	// marker families start at a dedicated marker (the markers list).
	marker bool
	// parse returns ok=false when text is not in this family.
	parse func(text string) (envelope, bool)
}

// families are tried in order: dedicated markers first, then fenced
// blocks, then whole-reply syntax.
var families = []family{
	{name: "DeepSeek <｜tool▁calls▁begin｜>", marker: true, parse: parseDeepSeek},
	{name: "Mistral [TOOL_CALLS]", marker: true, parse: parseMistral},
	{name: "Llama 3.1 <|python_tag|>", marker: true, parse: parsePythonTag},
	{name: "Hermes/Qwen <tool_call>", marker: true, parse: parseToolCallTags},
	{name: "<function=NAME> tags (Qwen3-Coder, Llama 3.1)", marker: true, parse: parseFunctionTags},
	{name: "Gemma ```tool_code", parse: parseToolCode},
	{name: "Python call list (Llama 3.2)", implicit: true, parse: parsePythonList},
	{name: "fenced ```json call", implicit: true, parse: parseFencedJSON},
	{name: "bare JSON call", implicit: true, parse: parseBareJSON},
}

// Families lists the names of the recognised protocols, for docs and doctor.
func Families() []string {
	out := make([]string, len(families))
	for i, f := range families {
		out[i] = f.name
	}
	return out
}

// Recover looks for a tool-call envelope in text. With no specs, or no
// envelope, it returns a zero Result: the text is the answer.
func Recover(text string, specs []tools.Spec) Result {
	if len(specs) == 0 || strings.TrimSpace(text) == "" {
		return Result{}
	}
	// A byte-order mark some servers put first is not part of the reply
	// (a bare call must be "the whole reply").
	text = strings.TrimPrefix(strings.TrimLeft(text, " \t\r\n"), "\ufeff")
	r, _ := recoverText(text, newToolset(specs), true)
	for i := range r.Calls {
		r.Calls[i].ID = fmt.Sprintf("text_call_%d", i)
	}
	return r
}

// recoverText is Recover on a toolset; start is where the first envelope
// begins in text. With again set, prose left by a dedicated-marker family
// that still holds another family's marker (a model mixing two formats in
// one reply) is searched once more, and the calls of both run in the
// order they were written.
func recoverText(text string, ts *toolset, again bool) (Result, int) {
	text = trimEndTokens(text)
	markers := markersOutsideCode(text)
	for _, f := range families {
		if f.marker && !markers {
			continue // every marker is inside a code span or block: an example
		}
		env, ok := f.parse(text)
		if !ok {
			continue
		}
		name := f.name
		if env.family != "" {
			name = env.family
		}
		start := commonPrefix(text, env.prose)
		r := Result{Family: name, Text: proseText(env.prose)}
		if env.broken != "" {
			if f.implicit && !ts.mentioned(text) && !ts.namesAny(env.calls) {
				return Result{}, 0 // broken JSON about no tool of ours: an answer
			}
			r.Problem = env.broken
			return r, start
		}
		if f.implicit && (!ts.namesAny(env.calls) || ts.data(env.calls)) {
			return Result{}, 0 // an example, not a call (rule 4)
		}
		for i, c := range env.calls {
			tc, problem := ts.check(c)
			if problem != "" {
				if len(env.calls) > 1 {
					problem = fmt.Sprintf("call %d of %d: %s", i+1, len(env.calls), problem)
				}
				return Result{Family: name, Text: r.Text, Problem: problem}, start
			}
			r.Calls = append(r.Calls, tc)
		}
		if len(r.Calls) == 0 {
			r.Problem = "the envelope holds no call"
			return r, start
		}
		if again && f.marker && markersOutsideCode(env.prose) {
			more, at := recoverText(env.prose, ts, false)
			switch {
			case more.Problem != "":
				more.Family = name + " and " + more.Family
				return more, min(start, at)
			case len(more.Calls) > 0:
				if at < start {
					r.Calls = append(more.Calls, r.Calls...)
				} else {
					r.Calls = append(r.Calls, more.Calls...)
				}
				r.Family, r.Text = name+" and "+more.Family, more.Text
			}
		}
		return r, start
	}
	return Result{}, 0
}

// proseText is the text kept around an envelope: anything from an
// end-of-turn token on was written past the end of the turn (a server that
// does not stop on <|im_end|> lets the model write the next turn).
func proseText(prose string) string {
	cut := len(prose)
	for _, tok := range endTokens {
		if i := strings.Index(prose, tok); i >= 0 && i < cut {
			cut = i
		}
	}
	// A fence the model put around the envelope is left empty: drop it.
	return strings.TrimSpace(emptyFence.ReplaceAllString(prose[:cut], ""))
}

var emptyFence = regexp.MustCompile("```[A-Za-z_]*[ \t\r\n]*```")

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// markersOutsideCode says whether text holds a dedicated marker outside
// inline code (`...`) and outside a fenced block in another language
// (```xml, ```text, ...): a marker there shows the format, it is not a
// call (rule 4; "a code block in another language is always an answer").
func markersOutsideCode(text string) bool {
	for _, m := range markers {
		for from := 0; ; {
			i := strings.Index(text[from:], m)
			if i < 0 {
				break
			}
			if !inCode(text, from+i) {
				return true
			}
			from += i + len(m)
		}
	}
	return false
}

// inCode says whether byte pos of text is inside inline code or inside a
// fenced block whose language is not one a call is written in.
func inCode(text string, pos int) bool {
	fence, lang := false, ""
	lineStart := 0
	for lineStart <= pos {
		end := strings.IndexByte(text[lineStart:], '\n')
		line := text[lineStart:]
		if end >= 0 {
			line = text[lineStart : lineStart+end]
		}
		if t := strings.TrimLeft(line, " \t"); strings.HasPrefix(t, "```") && (end < 0 || lineStart+end < pos) {
			if fence {
				fence = false
			} else {
				fence, lang = true, strings.ToLower(strings.TrimSpace(t[3:]))
			}
		} else if lineStart+len(line) >= pos {
			// pos is on this line: inside inline code when an odd
			// number of backticks precede it.
			if fence {
				return !callFenceLang(lang)
			}
			return strings.Count(text[lineStart:pos], "`")%2 == 1
		}
		if end < 0 {
			break
		}
		lineStart += end + 1
	}
	return fence && !callFenceLang(lang)
}

// callFenceLang: the languages of fences a call may be written in.
func callFenceLang(lang string) bool {
	switch lang {
	case "", "json", "tool_code", "tool_call", "tool_calls":
		return true
	}
	return false
}

// endTokens are the end-of-turn tokens a server prints as text when it
// does not treat them as special (ChatML, Llama 3, Gemma, Mistral,
// DeepSeek). After a call they are not part of its envelope.
var endTokens = []string{"<|im_end|>", "<|eot_id|>", "<|eom_id|>", "<|end|>", "<|endoftext|>", "<end_of_turn>", "</s>", "<｜end▁of▁sentence｜>", "<|end▁of▁sentence|>"}

// trimEndTokens removes end-of-turn tokens (and spaces) from the end of
// text.
func trimEndTokens(text string) string {
	for {
		t := strings.TrimRight(text, " \t\r\n")
		trimmed := false
		for _, tok := range endTokens {
			if s, ok := strings.CutSuffix(t, tok); ok {
				t, trimmed = s, true
			}
		}
		if !trimmed {
			return text
		}
		text = t
	}
}
