package tools

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/agent-lsp/agent-lsp/internal/text"
)

// lineSpan is one line of a file: content [start, end), the next line at
// next (end plus the length of the line ending).
type lineSpan struct{ start, end, next int }

// splitLines splits content into lines, leaving a byte-order mark out of
// the first one.
func splitLines(content []byte) []lineSpan {
	var out []lineSpan
	pos := 0
	if bytes.HasPrefix(content, bom) {
		pos = len(bom)
	}
	for pos < len(content) {
		i := bytes.IndexByte(content[pos:], '\n')
		if i < 0 {
			out = append(out, lineSpan{pos, len(content), len(content)})
			break
		}
		end := pos + i
		if end > pos && content[end-1] == '\r' {
			end--
		}
		out = append(out, lineSpan{pos, end, pos + i + 1})
		pos += i + 1
	}
	return out
}

// oldLines splits old into lines without line endings and says whether
// it ended with a line ending.
func oldLines(old string) ([]string, bool) {
	old = strings.ReplaceAll(old, "\r\n", "\n")
	endsNL := strings.HasSuffix(old, "\n")
	return strings.Split(strings.TrimSuffix(old, "\n"), "\n"), endsNL
}

// tolerantMatches returns the lines at which old's lines match whole lines
// of content when leading and trailing whitespace is ignored, and old's
// number of lines. old must have a line with something else than blanks.
func tolerantMatches(content []byte, old string) ([]lineSpan, int) {
	want, _ := oldLines(old)
	if strings.TrimSpace(strings.Join(want, "")) == "" {
		return nil, 0
	}
	trimmed := make([][]byte, len(want))
	for i := range want {
		trimmed[i] = []byte(strings.TrimSpace(want[i]))
	}
	lines := splitLines(content)
	var out []lineSpan
	for i := 0; i+len(want) <= len(lines); i++ {
		ok := true
		for j, w := range trimmed {
			l := lines[i+j]
			if !bytes.Equal(bytes.TrimSpace(content[l.start:l.end]), w) {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, lines[i])
		}
	}
	return out, len(want)
}

// tolerantReplacement replaces the k whole lines starting at first (and
// the last one's line ending if old had one) with new, re-indented: an
// indentation that old used is replaced by the file's indentation of the
// same line (the longest such prefix of the new line's indentation).
func tolerantReplacement(content []byte, first lineSpan, k int, old, new string) Replacement {
	lines := splitLines(content)
	i := sort.Search(len(lines), func(n int) bool { return lines[n].start >= first.start })
	window := lines[i : i+k]
	want, endsNL := oldLines(old)
	last := window[len(window)-1]
	r := Replacement{Start: window[0].start, End: last.end}
	if endsNL && last.next > last.end {
		r.End = last.next
	}
	eol := eolOf(content)
	if window[0].next-window[0].end == 2 {
		eol = "\r\n"
	} else if window[0].next-window[0].end == 1 {
		eol = "\n"
	}
	// Map each indentation of old's lines to the file's for the same line.
	indent := map[string]string{}
	same := true
	for j, w := range want {
		if strings.TrimSpace(w) == "" {
			continue
		}
		l := window[j]
		o, f := leadingSpace(w), leadingSpace(string(content[l.start:l.end]))
		if _, ok := indent[o]; !ok {
			indent[o] = f
			same = same && o == f
		}
	}
	newLines, newEndsNL := oldLines(new)
	for j, l := range newLines {
		if same || strings.TrimSpace(l) == "" {
			continue
		}
		// The longest mapped indentation that starts this line's.
		ind, best := leadingSpace(l), -1
		for o := range indent {
			if len(o) > best && strings.HasPrefix(ind, o) {
				best = len(o)
			}
		}
		if best >= 0 {
			newLines[j] = indent[ind[:best]] + l[best:]
		}
	}
	r.Text = strings.Join(newLines, eol)
	if newEndsNL {
		r.Text += eol
	}
	return r
}

func leadingSpace(s string) string {
	return s[:len(s)-len(strings.TrimLeft(s, " \t"))]
}

// diagnose explains why old is not in content: only line endings differ,
// only whitespace differs, or which lines come closest.
func diagnose(content []byte, old string) string {
	noCR := bytes.ReplaceAll(content, []byte("\r"), nil)
	if i := bytes.Index(noCR, []byte(strings.ReplaceAll(old, "\r", ""))); i >= 0 {
		n := lineAt(noCR, i)
		return fmt.Sprintf("old_str is not in {file} exactly, but it matches at line %d if line endings are ignored: "+
			"the file mixes CRLF and LF line endings there, and old_str does not follow them. "+
			"Write old_str with the file's line endings (\\r\\n where the line ends in CRLF), or replace the region with fewer, single lines", n)
	}
	if len(content) <= 4<<20 {
		if from, to, ok := matchIgnoringSpace(content, old); ok {
			a, b := lineAt(content, from), lineAt(content, to)
			where := fmt.Sprintf("lines %d-%d", a, b)
			if a == b {
				where = fmt.Sprintf("line %d", a)
			}
			return fmt.Sprintf("old_str is not in {file} exactly; it differs from %s only in whitespace (spaces, tabs or line breaks). "+
				"Copy the text exactly as read_file shows it (after the line number and tab) and retry. The file has:\n%s", where, numberedLines(content, a, min(b, a+19)))
		}
	}
	var b strings.Builder
	b.WriteString("old_str was not found in {file}.")
	want, _ := oldLines(old)
	if len(want) > 1 {
		if k, at := longestPrefix(noCR, want); k > 0 {
			fileLine := ""
			if ls := splitLines(noCR); at-1+k < len(ls) {
				l := ls[at-1+k]
				fileLine = string(noCR[l.start:l.end])
			}
			fmt.Fprintf(&b, " Its first %d line(s) match at line %d, but its line %d differs: the file's line %d is %q, old_str has %q.",
				k, at, k+1, at+k, text.Clip(fileLine, 200), text.Clip(want[k], 200))
		}
	}
	if cands := closestLines(content, want); cands != "" {
		b.WriteString(" The lines most like it are:\n" + cands)
	} else {
		b.WriteString(" ")
	}
	b.WriteString("The file may have changed since you read it: read it again with read_file and copy old_str exactly.")
	return b.String()
}

// matchIgnoringSpace finds old in content with all whitespace removed
// from both, and returns the matching byte range of content.
func matchIgnoringSpace(content []byte, old string) (from, to int, ok bool) {
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' }
	var o []byte
	for i := 0; i < len(old); i++ {
		if !isSpace(old[i]) {
			o = append(o, old[i])
		}
	}
	if len(o) == 0 {
		return 0, 0, false
	}
	squeezed := make([]byte, 0, len(content))
	index := make([]int32, 0, len(content))
	for i, c := range content {
		if !isSpace(c) {
			squeezed = append(squeezed, c)
			index = append(index, int32(i))
		}
	}
	i := bytes.Index(squeezed, o)
	if i < 0 {
		return 0, 0, false
	}
	return int(index[i]), int(index[i+len(o)-1]), true
}

// longestPrefix returns how many leading lines of want, fewer than all,
// occur together as whole lines in content (0 if not even the first), and
// the line where they start. If n lines occur so do n-1, so a binary
// search over n needs only a few scans.
func longestPrefix(content []byte, want []string) (k, line int) {
	find := func(n int) int {
		prefix := []byte(strings.Join(want[:n], "\n") + "\n")
		for pos := 0; pos < len(content); {
			i := bytes.Index(content[pos:], prefix)
			if i < 0 {
				return -1
			}
			if at := pos + i; at == 0 || content[at-1] == '\n' {
				return at
			}
			pos += i + 1
		}
		return -1
	}
	lo, hi := 0, len(want)-1 // lo lines are known to occur
	at := 0
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if i := find(mid); i >= 0 {
			lo, at = mid, i
		} else {
			hi = mid - 1
		}
	}
	if lo == 0 {
		return 0, 0
	}
	return lo, lineAt(content, at)
}

// closestLines shows up to three lines of content most like the longest
// line of want, numbered, best first.
func closestLines(content []byte, want []string) string {
	target := ""
	for _, w := range want {
		if w = strings.TrimSpace(w); len(w) > len(target) {
			target = w
		}
	}
	if len(target) < 2 {
		return ""
	}
	tb := bigrams(target)
	total := 0
	for _, n := range tb {
		total += n
	}
	seen := make(map[uint16]int, 64)
	type cand struct {
		line  int
		score float64
	}
	var cands []cand
	for n, l := range splitLines(content) {
		if n >= 200000 {
			break
		}
		s := strings.TrimSpace(string(content[l.start:l.end]))
		if len(s) < 2 {
			continue
		}
		if sc := dice(tb, total, seen, s); sc >= 0.4 {
			cands = append(cands, cand{n + 1, sc})
		}
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].score > cands[j].score })
	var b strings.Builder
	for i, c := range cands {
		if i == 3 {
			break
		}
		b.WriteString(numberedLines(content, c.line, c.line))
	}
	return b.String()
}

func bigrams(s string) map[uint16]int {
	m := make(map[uint16]int, len(s))
	for i := 0; i+1 < len(s); i++ {
		m[uint16(s[i])<<8|uint16(s[i+1])]++
	}
	return m
}

// dice is the Sørensen–Dice coefficient of the byte bigrams of s and of
// the string whose bigrams are tb (total of them); seen is scratch space.
func dice(tb map[uint16]int, total int, seen map[uint16]int, s string) float64 {
	clear(seen)
	common := 0
	for i := 0; i+1 < len(s); i++ {
		k := uint16(s[i])<<8 | uint16(s[i+1])
		if seen[k] < tb[k] {
			common++
		}
		seen[k]++
	}
	return 2 * float64(common) / float64(total+len(s)-1)
}

// numberedLines shows lines a..b of content like read_file.
func numberedLines(content []byte, a, b int) string { return numberedLinesAt(content, 0, 1, a, b) }

// numberedLinesAt is numberedLines for a caller who knows that byte off
// is on line n: it walks from there to the lines shown, so showing a few
// lines of a long file does not split all of it. Lines end at \n (a \r
// before it is not shown); a byte-order mark shows on line 1, and a file
// holding nothing else has no lines, as read_file sees them.
func numberedLinesAt(content []byte, off, n, a, b int) string {
	if bytes.Equal(content, bom) {
		return ""
	}
	pos := bytes.LastIndexByte(content[:off], '\n') + 1
	for ; n > a && pos > 0; n-- {
		pos = bytes.LastIndexByte(content[:pos-1], '\n') + 1
	}
	for ; n < a && pos < len(content); n++ {
		pos = lineEnd(content, pos)
	}
	var sb strings.Builder
	for ; n <= b && pos < len(content); n++ {
		next := lineEnd(content, pos)
		end := next
		if end > pos && content[end-1] == '\n' {
			end--
			if end > pos && content[end-1] == '\r' {
				end--
			}
		}
		fmt.Fprintf(&sb, "%6d\t%s\n", n, bytes.ToValidUTF8(cutLine(content[pos:end], ReadMaxLineBytes), []byte("\uFFFD")))
		pos = next
	}
	return sb.String()
}

// lineEnd returns the offset after the line that starts at pos.
func lineEnd(content []byte, pos int) int {
	if i := bytes.IndexByte(content[pos:], '\n'); i >= 0 {
		return pos + i + 1
	}
	return len(content)
}

// report describes a successful edit: what was replaced where, a note
// when the match was whitespace-tolerant, and the edited region of the
// new content with line numbers.
func report(rel string, c Change, pl editPlan) string {
	var b strings.Builder
	// Where each replacement ends up in the new content.
	shift := 0
	type region struct{ from, to int }
	regions := make([]region, len(pl.reps))
	for i, r := range pl.reps {
		from := r.Start + shift
		regions[i] = region{from, from + len(r.Text)}
		shift += len(r.Text) - (r.End - r.Start)
	}
	first := pl.reps[0]
	if pl.tolerant {
		fmt.Fprintf(&b, "Note: old_str did not match exactly; it matched lines %d-%d of %s when indentation and trailing whitespace are ignored (the only such place), and new_str was re-indented to the file's indentation. Check the result below.\n",
			lineAt(c.Old, first.Start), lineAt(c.Old, max(first.Start, first.End-1)), rel)
	}
	// The text before the first replacement is the same in old and new,
	// so its line is counted once.
	a := lineAt(c.Old, first.Start)
	if len(pl.reps) == 1 {
		fmt.Fprintf(&b, "Edited %s: replaced 1 occurrence at line %d.", rel, a)
	} else {
		starts := make([]int, len(pl.reps))
		for i, r := range pl.reps {
			starts[i] = r.Start
		}
		fmt.Fprintf(&b, "Edited %s: replaced %d occurrences (old lines %s).", rel, len(pl.reps), lineList(c.Old, starts, len(starts)))
	}
	rg := regions[0]
	last := max(rg.from, rg.to-1)
	z := a + bytes.Count(c.New[rg.from:last], nl)
	from, to := max(1, a-3), z+3
	if len(pl.reps) > 1 {
		b.WriteString(" The first edited region now reads:\n")
	} else {
		b.WriteString(" The edited region now reads:\n")
	}
	if to-from > 40 {
		b.WriteString(numberedLinesAt(c.New, rg.from, a, from, from+19))
		fmt.Fprintf(&b, "   ...\t[%d lines not shown]\n", to-from-39)
		b.WriteString(numberedLinesAt(c.New, last, z, to-19, to))
	} else {
		b.WriteString(numberedLinesAt(c.New, rg.from, a, from, to))
	}
	return b.String()
}
