package lsp

import (
	"strings"
	"time"

	"github.com/sergi/go-diff/diffmatchpatch"
	"go.lsp.dev/protocol"

	"github.com/agent-lsp/agent-lsp/internal/linediff"
	"github.com/agent-lsp/agent-lsp/tools"
)

// textEdit is an LSP TextEdit.
type textEdit = protocol.TextEdit

// span replaces old[Start:End] with Text.
type span struct {
	Start, End int
	Text       string
}

// DiffTimeout bounds the character diff of one hunk.
const DiffTimeout = 500 * time.Millisecond

// refineLimit is the largest hunk (old plus new bytes) refined by a
// character diff; bigger hunks are replaced whole.
const refineLimit = 4 << 10

// spans returns the minimal replacements that turn old into c.New: the
// change's own Replacements when it has them, else a line diff refined
// per hunk. nil means nothing changed.
func spans(c tools.Change) []span {
	if len(c.Replacements) > 0 {
		out := make([]span, 0, len(c.Replacements))
		for _, r := range c.Replacements {
			out = append(out, span{r.Start, r.End, r.Text})
		}
		return out
	}
	return diffSpans(c.Old, c.New)
}

// diffSpans diffs old and new by lines (linediff: anchored on unique
// lines, near-linear on a long file with few changes), then by characters
// inside small hunks. When no line is left in common the whole text is
// replaced.
func diffSpans(old, new []byte) []span {
	hunks := linediff.Diff(old, new)
	if len(hunks) == 0 {
		return nil
	}
	if h := hunks[0]; len(hunks) == 1 && h.A0 == 0 && h.A1 == len(old) && h.B0 == 0 && h.B1 == len(new) {
		return []span{{0, len(old), string(new)}}
	}
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = DiffTimeout
	out := make([]span, 0, len(hunks))
	for _, h := range hunks {
		out = append(out, refine(dmp, h.A0, string(old[h.A0:h.A1]), string(new[h.B0:h.B1]))...)
	}
	return out
}

// refine splits one hunk into character-level replacements when small.
func refine(dmp *diffmatchpatch.DiffMatchPatch, start int, del, ins string) []span {
	if len(del)+len(ins) > refineLimit || del == "" || ins == "" {
		return []span{{start, start + len(del), ins}}
	}
	diffs := dmp.DiffMain(del, ins, false)
	diffs = dmp.DiffCleanupSemantic(diffs)
	var out []span
	off := start
	for i := 0; i < len(diffs); {
		if diffs[i].Type == diffmatchpatch.DiffEqual {
			off += len(diffs[i].Text)
			i++
			continue
		}
		s := off
		var text strings.Builder
		for ; i < len(diffs) && diffs[i].Type != diffmatchpatch.DiffEqual; i++ {
			if diffs[i].Type == diffmatchpatch.DiffDelete {
				off += len(diffs[i].Text)
			} else {
				text.WriteString(diffs[i].Text)
			}
		}
		out = append(out, span{s, off, text.String()})
	}
	return out
}

// toEdits converts byte spans of the text m indexes into TextEdits.
func toEdits(m *Mapper, enc Encoding, sp []span) []textEdit {
	out := make([]textEdit, len(sp))
	for i, s := range sp {
		out[i] = textEdit{Range: Range{Start: m.Position(enc, s.Start), End: m.Position(enc, s.End)}, NewText: s.Text}
	}
	return out
}
