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
	// parse returns ok=false when text is not in this family.
	parse func(text string) (envelope, bool)
}

// families are tried in order: dedicated markers first, then fenced
// blocks, then whole-reply syntax.
var families = []family{
	{name: "DeepSeek <｜tool▁calls▁begin｜>", parse: parseDeepSeek},
	{name: "Mistral [TOOL_CALLS]", parse: parseMistral},
	{name: "Llama 3.1 <|python_tag|>", parse: parsePythonTag},
	{name: "Hermes/Qwen <tool_call>", parse: parseToolCallTags},
	{name: "<function=NAME> tags (Qwen3-Coder, Llama 3.1)", parse: parseFunctionTags},
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
	ts := newToolset(specs)
	text = trimEndTokens(text)
	for _, f := range families {
		env, ok := f.parse(text)
		if !ok {
			continue
		}
		name := f.name
		if env.family != "" {
			name = env.family
		}
		r := Result{Family: name, Text: strings.TrimSpace(env.prose)}
		if env.broken != "" {
			if f.implicit && !ts.mentioned(text) {
				return Result{} // broken JSON about no tool of ours: an answer
			}
			r.Problem = env.broken
			return r
		}
		if f.implicit && !ts.namesAny(env.calls) {
			return Result{} // an example, not a call (rule 4)
		}
		for i, c := range env.calls {
			tc, problem := ts.check(c)
			if problem != "" {
				if len(env.calls) > 1 {
					problem = fmt.Sprintf("call %d of %d: %s", i+1, len(env.calls), problem)
				}
				return Result{Family: name, Text: r.Text, Problem: problem}
			}
			tc.ID = fmt.Sprintf("text_call_%d", i)
			r.Calls = append(r.Calls, tc)
		}
		if len(r.Calls) == 0 {
			r.Problem = "the envelope holds no call"
		}
		return r
	}
	return Result{}
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
