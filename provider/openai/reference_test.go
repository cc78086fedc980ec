package openai

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	openai "github.com/sashabaranov/go-openai"
)

// TestChunkDecodingMatchesGoOpenAI compares the hand-rolled chunk decoding
// with go-openai's typed decoding, chunk by chunk over the corpus, on the
// fields both read: string content, reasoning_content, refusal, finish
// reason, usage, and each tool-call fragment (index, id, name, arguments).
// Chunks go-openai cannot decode (content as an array, row 033) are skipped.
func TestChunkDecodingMatchesGoOpenAI(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("testdata", "streams", "*.sse"))
	if err != nil || len(files) != 61 {
		t.Fatalf("%d corpus files, %v", len(files), err)
	}
	compared := 0
	for _, file := range files {
		body, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for n, line := range dataLines(body) {
			var ref openai.ChatCompletionStreamResponse
			if json.Unmarshal(line, &ref) != nil {
				continue
			}
			var mine rawChunk
			if err := json.Unmarshal(line, &mine); err != nil {
				t.Errorf("%s chunk %d: %v", filepath.Base(file), n, err)
				continue
			}
			compared++
			where := fmt.Sprintf("%s chunk %d", filepath.Base(file), n)
			if (ref.Usage != nil) != (mine.Usage != nil) {
				t.Errorf("%s: usage presence differs", where)
			} else if ref.Usage != nil {
				u := mine.Usage.toUsage()
				if u.InputTokens != ref.Usage.PromptTokens || u.OutputTokens != ref.Usage.CompletionTokens {
					t.Errorf("%s: usage %+v, go-openai %+v", where, u, ref.Usage)
				}
			}
			if len(ref.Choices) != len(mine.Choices) {
				t.Errorf("%s: %d choices, go-openai %d", where, len(mine.Choices), len(ref.Choices))
				continue
			}
			for i, rc := range ref.Choices {
				mc := mine.Choices[i]
				text, _ := contentText(mc.Delta.Content)
				if text != rc.Delta.Content || deref(mc.Delta.ReasoningContent) != rc.Delta.ReasoningContent ||
					deref(mc.Delta.Refusal) != rc.Delta.Refusal || deref(mc.FinishReason) != string(rc.FinishReason) {
					t.Errorf("%s choice %d: %q/%q/%q/%q, go-openai %q/%q/%q/%q", where, i,
						text, deref(mc.Delta.ReasoningContent), deref(mc.Delta.Refusal), deref(mc.FinishReason),
						rc.Delta.Content, rc.Delta.ReasoningContent, rc.Delta.Refusal, rc.FinishReason)
				}
				if len(rc.Delta.ToolCalls) != len(mc.Delta.ToolCalls) {
					t.Errorf("%s: %d tool-call fragments, go-openai %d", where, len(mc.Delta.ToolCalls), len(rc.Delta.ToolCalls))
					continue
				}
				for j, rt := range rc.Delta.ToolCalls {
					mt := mc.Delta.ToolCalls[j]
					var name, args string
					if mt.Function != nil {
						name, args = deref(mt.Function.Name), argumentsText(mt.Function.Arguments)
					}
					if (rt.Index != nil) != mt.Index.set || rt.Index != nil && *rt.Index != mt.Index.n ||
						deref(mt.ID) != rt.ID || name != rt.Function.Name || args != rt.Function.Arguments {
						t.Errorf("%s: fragment %d = %v/%q/%q/%q, go-openai %v/%q/%q/%q", where, j,
							mt.Index.n, deref(mt.ID), name, args, rt.Index, rt.ID, rt.Function.Name, rt.Function.Arguments)
					}
				}
			}
		}
	}
	if compared < 1000 {
		t.Errorf("only %d chunks compared", compared)
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
