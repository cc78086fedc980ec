package textcalls

import (
	"strings"
	"testing"
)

// TestGate pushes each text one byte at a time, and whole, and checks what
// was released before the end.
func TestGate(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, text, shown string }{
		{"prose streams", "Hello, world.\nSecond line.", "Hello, world.\nSecond line."},
		{"marker after prose", "I'll read it.\n<tool_call>{\"name\":\"x\"}</tool_call>", "I'll read it.\n"},
		{"marker mid-line", "Checking.<｜tool▁calls▁begin｜>…", "Checking."},
		{"partial marker at the end", "Calling [TOOL_CA", "Calling "},
		{"leading brace holds all", "  {\"name\": \"x\"}", ""},
		{"leading bracket holds all", "[f(a=1)]", ""},
		{"json fence line", "Plan:\n```json\n{}\n```", "Plan:\n"},
		{"bare fence line", "Plan:\n```\n{}\n```", "Plan:\n"},
		{"go fence streams", "Code:\n```go\nx := 1\n```\nDone", "Code:\n```go\nx := 1\n```\nDone"},
		{"indented fence", "a\n   ```tool_code\nf()\n```", "a\n"},
		{"brace later is prose", "Use {x} here", "Use {x} here"},
		{"python tag", "<|python_tag|>{}", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			for _, step := range []int{1, 3, len(c.text)} {
				var g Gate
				var shown strings.Builder
				for s := c.text; s != ""; {
					n := min(step, len(s))
					shown.WriteString(g.Push(s[:n]))
					s = s[n:]
				}
				if shown.String() != c.shown || g.Emitted() != c.shown || g.Text() != c.text {
					t.Errorf("step %d: shown %q, want %q", step, shown.String(), c.shown)
				}
			}
		})
	}
}

// BenchmarkGateLongLine: a long answer on one line costs time linear in
// its length (each push looks only at the new bytes).
func BenchmarkGateLongLine(b *testing.B) {
	piece := "word "
	for b.Loop() {
		var g Gate
		for range 20000 {
			g.Push(piece)
		}
	}
}
