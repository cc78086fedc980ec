package openai

import (
	"strings"

	"github.com/agent-lsp/agent-lsp/provider"
	"github.com/agent-lsp/agent-lsp/provider/textcalls"
)

// finishText settles the answer text at the end of a reply and returns
// the events for the text the gate held back:
//
//  1. "thinking</think>answer" without an opening tag, from a model not
//     expected to think, is split now (think.go, shape 3);
//  2. with no structured call, calls written as text are recovered
//     (provider/textcalls): the recovered calls become the message's tool
//     calls and the envelope leaves the text; a broken envelope is kept as
//     text and reported in MessageEnd.TextCalls.
//
// What was already streamed stays a prefix of the final Content.
func (a *accumulator) finishText(m *provider.MessageEnd, evs []provider.StreamEvent) []provider.StreamEvent {
	full := a.text.String()
	content := full
	if !a.opts.expectThink && a.reasoning.Len() == 0 {
		if r, answer, ok := splitUnclosed(full); ok {
			m.Message.Reasoning, content = r, answer
		}
	}
	shown := full
	if a.gate != nil {
		shown = a.gate.Emitted()
		if len(m.Message.ToolCalls) == 0 {
			res := textcalls.Recover(content, a.opts.specs)
			switch {
			case len(res.Calls) > 0:
				m.Message.ToolCalls = res.Calls
				content = res.Text
				m.TextCalls = &provider.TextCalls{Family: res.Family, Recovered: len(res.Calls), Hint: a.opts.hint}
			case res.Problem != "":
				m.TextCalls = &provider.TextCalls{Family: res.Family, Problem: res.Problem, Hint: a.opts.hint}
			}
		}
	}
	flush := full[len(shown):] // held text that is answer after all
	if m.TextCalls != nil && m.TextCalls.Recovered > 0 {
		flush = ""
		if rest, ok := strings.CutPrefix(content, shown); ok {
			flush = rest
		} else if strings.HasPrefix(shown, content) && strings.TrimSpace(shown[len(content):]) == "" {
			content = shown // the whitespace before the envelope was shown
		}
		// Otherwise what was shown is the thinking of shape 3: it cannot
		// be taken back, and the answer is not shown again.
	}
	m.Message.Content = content
	if flush != "" {
		evs = append(evs, provider.StreamEvent{Type: provider.EventTextDelta, Text: flush})
	}
	return evs
}

// textCallHint names the likely cause of tool calls arriving as text, and
// the setting that fixes it, for the server kind.
func textCallHint(kind ServerKind, model string) string {
	var cause string
	switch kind {
	case ServerOllama:
		cause = "Ollama's chat template for " + model + " does not turn its tool calls into tool_calls: check that `ollama show " + model + "` lists \"tools\" under Capabilities, update Ollama and re-pull the model, or use a model whose template parses tools (qwen3, qwen2.5, llama3.1, mistral-nemo)"
	case ServerLlamaCpp:
		cause = "llama-server is not parsing the model's tool calls: start it with --jinja (and the model's own template, --chat-template-file, if its GGUF has none)"
	case ServerVLLM:
		cause = "vLLM is not parsing the model's tool calls: start it with --enable-auto-tool-choice and the --tool-call-parser of the model family (hermes for Qwen, qwen3_coder, llama3_json, pythonic, mistral, deepseek_v3)"
	case ServerLMStudio:
		cause = "LM Studio does not recognise this model's tool-call format: use a model it lists with tool use, or update its chat template in the model's settings"
	default:
		cause = "the server's chat template or tool parser is not turning the model's tool calls into tool_calls"
	}
	return cause + "; or set text_tool_calls = false to take such replies as plain answers"
}
