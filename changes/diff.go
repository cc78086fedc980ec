package changes

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// diffTimeout bounds one line diff; past it go-diff returns a coarser but
// still correct diff.
const diffTimeout = time.Second

// hunk replaces the lines [a0, a1) of the old text with the lines
// [b0, b1) of the new one.
type hunk struct{ a0, a1, b0, b1 int }

// splitLines cuts b into lines that keep their terminators ("\n" or
// "\r\n"), so that joining them gives b back byte for byte; a last line
// without a newline is a line of its own.
func splitLines(b []byte) []string {
	var out []string
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			out = append(out, string(b))
			break
		}
		out = append(out, string(b[:i+1]))
		b = b[i+1:]
	}
	return out
}

// lineHunks diffs a and b line by line (go-diff's line mode).
func lineHunks(a, b []string) []hunk {
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = diffTimeout
	// Map each distinct line to one rune, as DiffLinesToRunes does, but
	// from lines already split (so the terminators stay as they are).
	index := map[string]rune{}
	enc := func(lines []string) []rune {
		out := make([]rune, len(lines))
		for i, l := range lines {
			r, ok := index[l]
			if !ok {
				r = rune(len(index) + 1)
				if r >= 0xD800 { // skip the surrogates: go-diff works on strings too
					r += 0x800
				}
				index[l] = r
			}
			out[i] = r
		}
		return out
	}
	ra, rb := enc(a), enc(b)
	diffs := dmp.DiffMainRunes(ra, rb, false)
	var out []hunk
	i, j := 0, 0
	for k := 0; k < len(diffs); {
		d := diffs[k]
		n := len([]rune(d.Text))
		if d.Type == diffmatchpatch.DiffEqual {
			i, j = i+n, j+n
			k++
			continue
		}
		h := hunk{a0: i, b0: j}
		for ; k < len(diffs) && diffs[k].Type != diffmatchpatch.DiffEqual; k++ {
			n := len([]rune(diffs[k].Text))
			if diffs[k].Type == diffmatchpatch.DiffDelete {
				i += n
			} else {
				j += n
			}
		}
		h.a1, h.b1 = i, j
		out = append(out, h)
	}
	return out
}

// counts returns the lines added and removed from before to after.
func counts(before, after []byte) (added, removed int) {
	for _, h := range lineHunks(splitLines(before), splitLines(after)) {
		added += h.b1 - h.b0
		removed += h.a1 - h.a0
	}
	return added, removed
}

// contextLines is the context a unified diff shows around each change.
const contextLines = 3

// unified is the unified diff of before and after, as diff -u prints it
// (with "\ No newline at end of file" where a last line has none).
func unified(oldName, newName string, before, after []byte) string {
	a, b := splitLines(before), splitLines(after)
	hs := lineHunks(a, b)
	if len(hs) == 0 {
		return ""
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", oldName, newName)
	for i := 0; i < len(hs); {
		// Join hunks whose contexts touch.
		j := i
		for j+1 < len(hs) && hs[j+1].a0-hs[j].a1 <= 2*contextLines {
			j++
		}
		a0 := max(hs[i].a0-contextLines, 0)
		a1 := min(hs[j].a1+contextLines, len(a))
		b0 := hs[i].b0 - (hs[i].a0 - a0)
		b1 := hs[j].b1 + (a1 - hs[j].a1)
		fmt.Fprintf(&sb, "@@ -%s +%s @@\n", rangeText(a0, a1-a0), rangeText(b0, b1-b0))
		pos := a0
		for k := i; k <= j; k++ {
			h := hs[k]
			for ; pos < h.a0; pos++ {
				line(&sb, ' ', a[pos])
			}
			for _, l := range a[h.a0:h.a1] {
				line(&sb, '-', l)
			}
			for _, l := range b[h.b0:h.b1] {
				line(&sb, '+', l)
			}
			pos = h.a1
		}
		for ; pos < a1; pos++ {
			line(&sb, ' ', a[pos])
		}
		i = j + 1
	}
	return sb.String()
}

func rangeText(start, n int) string {
	if n == 1 {
		return fmt.Sprint(start + 1)
	}
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

func line(sb *strings.Builder, mark byte, l string) {
	sb.WriteByte(mark)
	sb.WriteString(l)
	if !strings.HasSuffix(l, "\n") {
		sb.WriteString("\n\\ No newline at end of file\n")
	}
}

// isBinary says whether content is not text: a NUL byte in its first
// 8 KiB, as git and grep decide.
func isBinary(b []byte) bool {
	return bytes.IndexByte(b[:min(len(b), 8<<10)], 0) >= 0
}

// Diff is the unified diff of a file's change ("" for binary files and
// contents not kept).
func (j *Journal) Diff(f File) string {
	if f.Binary || f.NotKept != "" {
		return ""
	}
	b, err := j.Content(f.Before)
	if err != nil {
		return ""
	}
	a, err := j.Content(f.After)
	if err != nil {
		return ""
	}
	from, to := "a/"+f.Path, "b/"+f.Path
	switch {
	case f.From != "":
		from = "a/" + f.From
	case f.Before == "":
		from = "/dev/null"
	}
	if f.After == "" {
		to = "/dev/null"
	}
	return unified(from, to, b, a)
}
