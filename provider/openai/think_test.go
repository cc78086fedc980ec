package openai

import "testing"

// TestThinkSplit splits each content at every byte position into two
// pieces (so each tag is cut everywhere) and checks reasoning and text.
func TestThinkSplit(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, content   string
		expect          bool
		reasoning, text string
	}{
		{"think block", "<think>\nPlan it.\n</think>\n\nThe answer.", false, "Plan it.\n", "The answer."},
		{"thinking block", "<thinking>Check a.go first.</thinking>Done.", false, "Check a.go first.", "Done."},
		{"leading whitespace", "\n\n<think>x</think>y", false, "x", "y"},
		{"empty block", "<think>\n\n</think>\n\nHi", false, "", "Hi"},
		{"no tags", "Just text with <think> later.", false, "", "Just text with <think> later."},
		{"unclosed, reasoning model", "Let me see.\n</think>\n\nIt is 4.", true, "Let me see.\n", "It is 4."},
		{"reasoning model, no thinking", "Plain answer.", true, "", "Plain answer."},
		{"cut inside thinking", "<think>still thinking", false, "still thinking", ""},
		{"tag-like prefix", "<thin ice>", false, "", "<thin ice>"},
		{"closed at once", "</think>\n\n{\"name\": \"x\"}", false, "", "{\"name\": \"x\"}"},
		{"closed at once, reasoning model", "\n</think>Hi", true, "", "Hi"},
		{"thinking closed at once", "</thinking>\nHi", false, "", "Hi"},
		{"closing tag of html", "</div> ends it", false, "", "</div> ends it"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			for cut := 0; cut <= len(c.content); cut++ {
				ts := thinkSplit{expectOpen: c.expect}
				var r, x string
				for _, piece := range []string{c.content[:cut], c.content[cut:]} {
					a, b := ts.push(piece)
					r, x = r+a, x+b
				}
				a, b := ts.end()
				r, x = r+a, x+b
				if r != c.reasoning || x != c.text {
					t.Fatalf("cut at %d: reasoning %q text %q; want %q %q", cut, r, x, c.reasoning, c.text)
				}
			}
		})
	}
}

func TestSplitUnclosed(t *testing.T) {
	t.Parallel()
	if r, a, ok := splitUnclosed("thinking\n</think>\n\nanswer"); !ok || r != "thinking" || a != "answer" {
		t.Errorf("got %q %q %v", r, a, ok)
	}
	if _, _, ok := splitUnclosed("a <think>b</think> c"); ok {
		t.Error("an opening tag before the closing one is not the unclosed form")
	}
	for model, want := range map[string]bool{"deepseek-r1:14b": true, "qwq:32b": true, "qwen2.5-coder:7b": false, "llama3.1:8b": false, "Qwen3-30B-A3B-Thinking-2507": true} {
		if reasoningModel(model) != want {
			t.Errorf("reasoningModel(%q) = %v", model, !want)
		}
	}
}
