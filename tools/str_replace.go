package tools

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
)

//go:embed str_replace.md
var strReplaceDescription string

// StrReplaceParams are the arguments of str_replace.
type StrReplaceParams struct {
	Path       string `json:"path" jsonschema:"File to edit, relative to the workspace root"`
	OldStr     string `json:"old_str" jsonschema:"Exact text to replace, copied from the file without read_file's line numbers; must occur exactly once unless replace_all is set"`
	NewStr     string `json:"new_str" jsonschema:"Text to put in its place (may be empty to delete old_str)"`
	ReplaceAll bool   `json:"replace_all,omitempty" jsonschema:"Replace every occurrence of old_str instead of requiring exactly one (default false)"`
	Reason     string `json:"reason,omitempty" jsonschema:"Optional: one short sentence on why, shown to the user when they review the edit"`
}

// Access tells the Guard which path the call writes.
func (p *StrReplaceParams) Access() Access {
	return Access{Kind: AccessWrite, Paths: []string{p.Path}}
}

// Validate refuses edits that cannot do anything, before any approval.
func (p *StrReplaceParams) Validate() error {
	switch {
	case p.OldStr == "":
		return errors.New("str_replace: old_str is empty. To create a file or replace all of it, use write_file; to insert text, put the neighbouring line in old_str and that line plus the new text in new_str")
	case p.OldStr == p.NewStr:
		return errors.New("str_replace: old_str and new_str are identical, so nothing would change; put the new text in new_str")
	}
	return nil
}

// NewStrReplace returns the str_replace tool over ed. reads is the
// session's record (nil: a fresh one, so nothing counts as read).
func NewStrReplace(ed Editor, reads *Reads) *Tool {
	if reads == nil {
		reads = NewReads()
	}
	return Define("str_replace", strReplaceDescription, false, func(ctx context.Context, p *StrReplaceParams) (Result, error) {
		return strReplace(ctx, ed, reads, p)
	})
}

func strReplace(ctx context.Context, ed Editor, reads *Reads, p *StrReplaceParams) (Result, error) {
	if err := p.Validate(); err != nil {
		return Errorf("%v", err), nil
	}
	rel, err := resolveIn(ed, p.Path)
	if err != nil {
		return Errorf("str_replace: %v", err), nil
	}
	if rel == "." {
		return Errorf("str_replace: %q names a directory; give the path of a file", p.Path), nil
	}
	unlock, err := reads.lock(ctx, rel)
	if err != nil {
		return Result{}, err
	}
	defer unlock()
	cur, exists, res, err := current(ctx, ed, "str_replace", rel)
	if res != nil || err != nil {
		return deref(res), err
	}
	if !exists {
		return Errorf("str_replace: %s does not exist; check the path with glob, or create the file with write_file", rel), nil
	}
	// The staleness check hashes the file while plan searches it and the
	// new content is built; its answer still comes first.
	stale, oldSum := reads.staleAsync("str_replace", rel, cur)
	pl, fail := plan(cur, p.OldStr, p.NewStr, p.ReplaceAll)
	var next []byte
	if fail == "" {
		next = applyReplacements(cur, pl.reps)
	}
	if msg := stale(); msg != "" {
		return Errorf("%s", msg), nil
	}
	if isBinary(cur, false) {
		return Errorf("str_replace: %s is not UTF-8 text (it holds NUL bytes or invalid UTF-8); str_replace edits text files only", rel), nil
	}
	if fail != "" {
		return Errorf("str_replace: %s", strings.ReplaceAll(fail, "{file}", rel)), nil
	}
	c := Change{Path: rel, Old: cur, New: next, Replacements: pl.reps, Label: "agent-lsp: str_replace " + rel, Reason: p.Reason}
	// The new fingerprint hashes only the blocks the edit touches, while
	// the editor applies the edit.
	touched := pl.reps[len(pl.reps)-1].End - pl.reps[0].Start + len(c.New) - len(cur)
	newSum := async(touched+2*fpBlock, func() fingerprint { return oldSum().edited(c.New, pl.reps) })
	res, diags, err := commit(ctx, ed, reads, "str_replace", c, newSum, true) // applyReplacements allocated c.New
	if res != nil || err != nil {
		return deref(res), err
	}
	return Result{Text: report(rel, c, pl) + diags}, nil
}

// editPlan is what a str_replace call will do.
type editPlan struct {
	reps     []Replacement
	tolerant bool // matched ignoring indentation and trailing whitespace
}

// plan finds where old occurs in content and what replaces it, or says
// why it cannot: the text of the failure names the file as {file}.
func plan(content []byte, old, new string, all bool) (editPlan, string) {
	for _, v := range eolVariants(old) {
		spans, n := findAll(content, []byte(v), all)
		if n == 0 {
			continue
		}
		if n > 1 && !all {
			return editPlan{}, fmt.Sprintf("old_str matches %d times in {file} (at lines %s); add surrounding lines to old_str to make it unique, or set replace_all to replace every occurrence", n, lineList(content, spans, n))
		}
		reps := make([]Replacement, len(spans))
		// The file's line ending matters only for new text with lines;
		// counting it reads the whole file.
		fileEOL := "\n"
		if strings.Contains(new, "\n") {
			fileEOL = eolOf(content)
		}
		for i, s := range spans {
			reps[i] = Replacement{Start: s, End: s + len(v), Text: withEOL(new, regionEOL(content[s:s+len(v)], fileEOL))}
			keepFinalNewline(content, &reps[i])
		}
		// old_str copied with the byte-order mark: keep the mark.
		if r := &reps[0]; r.Start == 0 && r.End >= len(bom) && bytes.HasPrefix(content, bom) && !strings.HasPrefix(r.Text, string(bom)) {
			r.Text = string(bom) + r.Text
		}
		return editPlan{reps: reps}, ""
	}
	windows, k := tolerantMatches(content, old)
	switch {
	case len(windows) == 1:
		r := tolerantReplacement(content, windows[0], k, old, new)
		keepFinalNewline(content, &r)
		return editPlan{reps: []Replacement{r}, tolerant: true}, ""
	case len(windows) > 1:
		starts := make([]int, len(windows))
		for i, w := range windows {
			starts[i] = w.start
		}
		return editPlan{}, fmt.Sprintf("old_str is not in {file} exactly; ignoring indentation and trailing whitespace it matches %d places (lines %s), so it was not used. Copy the exact text from read_file output, with enough surrounding lines to be unique", len(windows), lineList(content, starts, len(starts)))
	}
	return editPlan{}, diagnose(content, old)
}

// eolVariants returns old as given, then with LF and with CRLF line
// endings, without repeats.
func eolVariants(old string) []string {
	out := []string{old}
	if !strings.Contains(old, "\n") {
		return out
	}
	lf := strings.ReplaceAll(old, "\r\n", "\n")
	crlf := strings.ReplaceAll(lf, "\n", "\r\n")
	for _, v := range []string{lf, crlf} {
		if v != out[0] && (len(out) == 1 || v != out[1]) {
			out = append(out, v)
		}
	}
	return out
}

// findAll finds v in content. With disjoint set (replace_all) it returns
// the start of every occurrence, left to right without overlaps. Otherwise
// it counts overlapping occurrences too (for uniqueness) and returns the
// first eleven starts only; on a large content it then searches its parts
// on all cores, since uniqueness reads the whole file, however early the
// match (the direct edit it stands for stops there).
func findAll(content, v []byte, disjoint bool) (starts []int, n int) {
	parts := min(runtime.GOMAXPROCS(0), len(content)/findPart)
	if disjoint || parts < 2 {
		return findIn(content, v, disjoint, 0, len(content))
	}
	return findParts(content, v, parts)
}

// findPart is the least content findAll gives a core of its own.
const findPart = 256 << 10

// findParts is findAll's count of overlapping occurrences, with content
// cut into parts searched at once.
func findParts(content, v []byte, parts int) (starts []int, n int) {
	type found struct {
		starts []int
		n      int
	}
	res := make([]found, parts)
	var wg sync.WaitGroup
	for k := range parts {
		wg.Go(func() {
			from, to := k*len(content)/parts, (k+1)*len(content)/parts
			res[k].starts, res[k].n = findIn(content, v, false, from, to)
		})
	}
	wg.Wait()
	for _, r := range res {
		n += r.n
		starts = append(starts, r.starts[:min(len(r.starts), 11-len(starts))]...)
	}
	return starts, n
}

// findIn is findAll over the occurrences that start in [from, to). v is
// not empty (Validate).
func findIn(content, v []byte, disjoint bool, from, to int) (starts []int, n int) {
	window := content[:min(len(content), to+len(v)-1)]
	f := newRareFinder(v)
	for pos := from; pos < to; {
		i := f.index(window[pos:])
		if i < 0 || pos+i >= to {
			break
		}
		if n++; disjoint || len(starts) <= 10 {
			starts = append(starts, pos+i)
		}
		if disjoint {
			pos += i + len(v)
		} else {
			pos += i + 1
		}
	}
	return starts, n
}

// regionEOL is the line ending new text should use in place of region:
// the one inside it, else the file's.
func regionEOL(region []byte, fileEOL string) string {
	switch {
	case bytes.Contains(region, []byte("\r\n")):
		return "\r\n"
	case bytes.Contains(region, nl):
		return "\n"
	}
	return fileEOL
}

// withEOL gives s the line ending eol.
func withEOL(s, eol string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	if eol == "\r\n" {
		s = strings.ReplaceAll(s, "\n", "\r\n")
	}
	return s
}

// keepFinalNewline keeps the file's final newline, or its absence, when a
// replacement reaches the end of the file: old_str ending with the last
// newline and new_str without one, or the reverse, is taken as the usual
// slip, not as a wish to change the file's last byte. An empty
// replacement deletes as asked.
func keepFinalNewline(content []byte, r *Replacement) {
	if r.End != len(content) || r.Text == "" {
		return
	}
	had := len(content) > 0 && content[len(content)-1] == '\n'
	has := strings.HasSuffix(r.Text, "\n")
	switch {
	case had && r.End > r.Start && !has:
		r.Text += eolOf(content)
	case !had && has:
		r.Text = strings.TrimSuffix(strings.TrimSuffix(r.Text, "\n"), "\r")
	}
}

// applyReplacements returns content with the sorted, disjoint reps applied.
func applyReplacements(content []byte, reps []Replacement) []byte {
	// bytes.Join does not zero its result first, as make would: on a large
	// file that is a pass of its own.
	pieces := make([][]byte, 0, 2*len(reps)+1)
	last := 0
	for _, r := range reps {
		pieces = append(pieces, content[last:r.Start], []byte(r.Text))
		last = r.End
	}
	return bytes.Join(append(pieces, content[last:]), nil)
}

// lineAt returns the 1-based line of byte offset i.
func lineAt(content []byte, i int) int { return bytes.Count(content[:i], nl) + 1 }

// lineList lists the lines of sorted offsets, at most ten of them, of n
// in all.
func lineList(content []byte, offsets []int, n int) string {
	var parts []string
	line, last := 1, 0
	for i, off := range offsets {
		if i == 10 {
			break
		}
		line += bytes.Count(content[last:off], nl)
		last = off
		parts = append(parts, fmt.Sprint(line))
	}
	if n > len(parts) {
		parts = append(parts, fmt.Sprintf("and %d more", n-len(parts)))
	}
	return strings.Join(parts, ", ")
}
