package openai

import "strings"

// thinkSplit moves inline thinking out of the content stream, as if the
// server had sent it as reasoning_content. Three shapes, all at the start
// of the content:
//
//  1. <think>…</think>answer (R1 distills on llama.cpp with
//     --reasoning-format none, QwQ, Qwen3 on servers without a reasoning
//     parser);
//  2. <thinking>…</thinking>answer;
//  3. …</think>answer, unclosed at the start: the chat template already
//     opened the tag in the prompt (DeepSeek-R1's template ends with
//     "<think>\n"). Nothing marks its start, so for models named like
//     reasoning models (expectOpen) the content is held until </think> or
//     the end; for other models the split happens at the end of the reply
//     (accumulator.end), after the text was streamed.
//
// Tags split across chunks are handled: a partial tag is kept back until
// the next piece decides it.
type thinkSplit struct {
	state      int
	pending    string // undecided bytes: a partial tag, or held content
	close      string // the closing tag being looked for
	expectOpen bool
	started    bool // the reasoning's first non-space byte was seen
	trimLead   bool // drop the whitespace that follows the closing tag
}

const (
	thinkStart  = iota // nothing decided yet
	thinkInside        // inside a think block
	thinkMaybe         // expectOpen: content may be unclosed thinking
	thinkAnswer        // past the thinking: everything is text
)

var thinkOpens = []struct{ open, close string }{
	{"<think>", "</think>"},
	{"<thinking>", "</thinking>"},
}

// push splits one content delta.
func (t *thinkSplit) push(s string) (reasoning, text string) {
	t.pending += s
	for {
		switch t.state {
		case thinkAnswer:
			if t.trimLead {
				// The blank lines after </think> may come in later pieces.
				t.pending = strings.TrimLeft(t.pending, " \t\r\n")
				if t.pending == "" {
					return reasoning, text
				}
				t.trimLead = false
			}
			text, t.pending = text+t.pending, ""
			return reasoning, text
		case thinkStart:
			lead := strings.TrimLeft(t.pending, " \t\r\n")
			if lead == "" {
				return reasoning, text
			}
			decided := true
			for _, o := range thinkOpens {
				// A closing tag as the very first token: the template
				// opened the block and the model closed it at once.
				if strings.HasPrefix(lead, o.close) {
					t.pending, t.state, t.trimLead = lead[len(o.close):], thinkAnswer, true
					break
				}
				if strings.HasPrefix(o.close, lead) {
					decided = false
				}
				if strings.HasPrefix(lead, o.open) {
					t.state, t.close, t.pending = thinkInside, o.close, lead[len(o.open):]
					break
				}
				if strings.HasPrefix(o.open, lead) {
					decided = false
				}
			}
			if t.state == thinkStart {
				if !decided {
					return reasoning, text // a partial opening tag
				}
				t.state = thinkAnswer
				if t.expectOpen {
					t.state, t.close = thinkMaybe, "</think>"
				}
			}
		case thinkInside, thinkMaybe:
			if t.state == thinkInside && reasoning == "" && !t.started {
				t.pending = strings.TrimLeft(t.pending, " \t\r\n")
				t.started = t.pending != ""
			}
			if i := strings.Index(t.pending, t.close); i >= 0 {
				reasoning += t.pending[:i]
				t.pending = t.pending[i+len(t.close):]
				t.state, t.trimLead = thinkAnswer, true
				continue
			}
			if t.state == thinkMaybe {
				return reasoning, text // held until </think> or the end
			}
			keep := partialSuffix(t.pending, t.close)
			reasoning += t.pending[:len(t.pending)-keep]
			t.pending = t.pending[len(t.pending)-keep:]
			return reasoning, text
		}
	}
}

// end flushes what is still undecided at the end of the reply: held
// content without a closing tag was the answer after all; an unclosed
// <think> block is reasoning (the reply was cut inside it).
func (t *thinkSplit) end() (reasoning, text string) {
	p := t.pending
	t.pending = ""
	switch t.state {
	case thinkInside:
		return p, ""
	case thinkStart:
		if strings.TrimSpace(p) == "" {
			return "", ""
		}
	}
	return "", p
}

// partialSuffix is the length of the longest suffix of s that is a proper
// prefix of tag.
func partialSuffix(s, tag string) int {
	for k := min(len(tag)-1, len(s)); k > 0; k-- {
		if strings.HasSuffix(s, tag[:k]) {
			return k
		}
	}
	return 0
}

// splitUnclosed splits a finished reply of the unclosed shape (3) for a
// model that was not expected to think: "reasoning</think>answer" with no
// opening tag anywhere before the closing one.
func splitUnclosed(text string) (reasoning, answer string, ok bool) {
	i := strings.Index(text, "</think>")
	if i < 0 || strings.Contains(text[:i], "<think>") {
		return "", text, false
	}
	return strings.TrimSpace(text[:i]), strings.TrimLeft(text[i+len("</think>"):], " \t\r\n"), true
}

// reasoningModel says whether a model's name suggests it thinks before it
// answers, so that content without an opening tag may still be thinking.
func reasoningModel(model string) bool {
	m := strings.ToLower(model)
	if strings.Contains(m, "coder") && !strings.Contains(m, "think") {
		return false
	}
	for _, k := range []string{"deepseek-r1", "-r1", "r1-", "qwq", "think", "reason", "magistral", "exaone-deep", "marco-o1"} {
		if strings.Contains(m, k) {
			return true
		}
	}
	return false
}
