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

// TestGateRedTeam: the gate must hold what Recover takes for a call.
func TestGateRedTeam(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, text, shown string }{
		{"fence after intent on the same line", "I'll read it: ```json\n{\"name\": \"read_file\"}\n```", "I'll read it: "},
		{"brace after an unclosed </think>", "need a.go\n</think>\n\n{\"name\": \"read_file\"}", "need a.go\n</think>"},
		{"bracket after </think>", "plan</think>[read_file(path='a')]", "plan</think>"},
		{"BOM then brace", "\ufeff{\"name\": \"x\"}", ""},
		{"prose after </think> streams", "plan</think>\n\nThe answer.", "plan</think>\n\nThe answer."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			for _, step := range []int{1, 2, 3, 7, len(c.text)} {
				var g Gate
				var shown strings.Builder
				for s := c.text; s != ""; {
					n := min(step, len(s))
					for n < len(s) && s[n]&0xC0 == 0x80 {
						n++
					}
					shown.WriteString(g.Push(s[:n]))
					s = s[n:]
				}
				if shown.String() != c.shown || g.Emitted() != c.shown {
					t.Errorf("step %d: shown %q, want %q", step, shown.String(), c.shown)
				}
			}
		})
	}
}
