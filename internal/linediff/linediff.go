// Package linediff diffs two texts by lines, fast on large files with
// few changes: lines are compared by hash (and then by bytes, so a
// collision costs an anchor, never a wrong result), anchored on the lines
// that occur once in each text (patience diff), and the small gaps
// between anchors are diffed with Myers' algorithm.
//
// A whole-file rewrite by a model usually changes a few lines of a long
// file; go-diff's line mode re-encodes every line as a rune first and
// allocates many times the file, where this reads each line once.
package linediff

import (
	"bytes"
	"hash/maphash"
	"math"
)

// Hunk replaces the bytes a[A0:A1] (whole lines) with b[B0:B1].
type Hunk struct{ A0, A1, B0, B1 int }

// maxMyersD bounds the edit distance Myers looks for in one gap; a gap
// that differs more (and has no unique line to anchor on) is replaced
// whole. It bounds the memory of the trace (maxMyersD² cells).
const maxMyersD = 512

// smallGap is the size (lines of both sides) under which a gap goes
// straight to Myers, without looking for anchors.
const smallGap = 32

var seed = maphash.MakeSeed()

// hashMask keeps all of a line's hash; a test narrows it to make
// distinct lines collide.
var hashMask = ^uint32(0)

// lines indexes one text: the start of each line, and a hash of it. The
// hashes are 32 bits, 8 bytes a line with its start, since a file of
// short lines has many: two equal hashes are compared by bytes, so a
// collision costs at most an anchor.
type lines struct {
	text  []byte
	start []int32 // len(hash)+1 entries; the last is len(text)
	hash  []uint32
}

func split(text []byte) lines {
	n := bytes.Count(text, nl) + 1
	l := lines{text: text, start: make([]int32, 0, n+1), hash: make([]uint32, 0, n)}
	for pos := 0; pos < len(text); {
		end := len(text)
		if i := bytes.IndexByte(text[pos:], '\n'); i >= 0 {
			end = pos + i + 1
		}
		l.start = append(l.start, int32(pos))
		h := maphash.Bytes(seed, text[pos:end])
		l.hash = append(l.hash, uint32(h^h>>32)&hashMask)
		pos = end
	}
	l.start = append(l.start, int32(len(text)))
	return l
}

var nl = []byte{'\n'}

func (l *lines) line(i int) []byte { return l.text[l.start[i]:l.start[i+1]] }

type differ struct {
	a, b  lines
	hunks []lineHunk
	// table is uniqueAnchors' hash table, made for the first (largest)
	// gap and reused by the gaps inside it.
	table []slot
	// work counts the lines the anchor searches have read; past budget
	// the gaps left are replaced whole, so that no input (say, one built
	// so that every level finds a single anchor) costs quadratic time.
	work, budget int
}

// lineHunk is a Hunk in line numbers.
type lineHunk struct{ a0, a1, b0, b1 int }

// Diff returns, in order, the hunks that turn a into b; none when they
// are equal.
func Diff(a, b []byte) []Hunk {
	if bytes.Equal(a, b) {
		return nil
	}
	if len(a) > math.MaxInt32 || len(b) > math.MaxInt32 {
		return []Hunk{{0, len(a), 0, len(b)}}
	}
	d := &differ{a: split(a), b: split(b)}
	d.budget = 16*(len(d.a.hash)+len(d.b.hash)) + 1<<20
	d.diff(0, len(d.a.hash), 0, len(d.b.hash))
	d.compact()
	out := make([]Hunk, len(d.hunks))
	for i, h := range d.hunks {
		out[i] = Hunk{int(d.a.start[h.a0]), int(d.a.start[h.a1]), int(d.b.start[h.b0]), int(d.b.start[h.b1])}
	}
	return out
}

func (d *differ) eq(i, j int) bool {
	return d.a.hash[i] == d.b.hash[j] && bytes.Equal(d.a.line(i), d.b.line(j))
}

// emit adds the hunk of lines a[a0:a1] → b[b0:b1], merged with the
// previous one when they touch.
func (d *differ) emit(a0, a1, b0, b1 int) {
	if n := len(d.hunks); n > 0 && d.hunks[n-1].a1 == a0 && d.hunks[n-1].b1 == b0 {
		d.hunks[n-1].a1, d.hunks[n-1].b1 = a1, b1
		return
	}
	d.hunks = append(d.hunks, lineHunk{a0, a1, b0, b1})
}

// diff diffs lines a[a0:a1] with b[b0:b1].
func (d *differ) diff(a0, a1, b0, b1 int) {
	for a0 < a1 && b0 < b1 && d.eq(a0, b0) {
		a0, b0 = a0+1, b0+1
	}
	for a0 < a1 && b0 < b1 && d.eq(a1-1, b1-1) {
		a1, b1 = a1-1, b1-1
	}
	if a0 == a1 || b0 == b1 {
		if a0 < a1 || b0 < b1 {
			d.emit(a0, a1, b0, b1)
		}
		return
	}
	var anchors []anchor
	if size := (a1 - a0) + (b1 - b0); size > smallGap {
		if d.work += size; d.work > d.budget {
			d.emit(a0, a1, b0, b1)
			return
		}
		anchors = d.uniqueAnchors(a0, a1, b0, b1)
	}
	if len(anchors) == 0 {
		d.myers(a0, a1, b0, b1)
		return
	}
	for _, an := range anchors {
		d.diff(a0, int(an.a), b0, int(an.b))
		a0, b0 = int(an.a)+1, int(an.b)+1
	}
	d.diff(a0, a1, b0, b1)
}

// anchor is a line a[a] equal to b[b].
type anchor struct{ a, b int32 }

// slot is an entry of uniqueAnchors' hash table: a line hash of a (0:
// empty), where it last occurs, and its counts in a and b (saturating).
type slot struct {
	key    uint32
	ia     int32
	ca, cb uint16
}

// uniqueAnchors returns the longest increasing run of lines that occur
// exactly once in a[a0:a1] and once in b[b0:b1], in order. The lines'
// hashes are already good, so the table is open addressing on them,
// without a map's rehashing and overhead.
func (d *differ) uniqueAnchors(a0, a1, b0, b1 int) []anchor {
	size := 1
	for size < (a1-a0)*4/3+1 {
		size <<= 1
	}
	if cap(d.table) < size {
		d.table = make([]slot, size)
	}
	table := d.table[:size]
	clear(table)
	mask := uint32(size - 1)
	// find returns the slot of h, or the empty slot where it goes (nil
	// when !insert). 0 marks an empty slot, so hashes are made odd; a
	// collision only costs an anchor.
	find := func(h uint32, insert bool) *slot {
		h |= 1
		for i := h & mask; ; i = (i + 1) & mask {
			s := &table[i]
			if s.key == h {
				return s
			}
			if s.key == 0 {
				if !insert {
					return nil
				}
				s.key = h
				return s
			}
		}
	}
	for i := a0; i < a1; i++ {
		s := find(d.a.hash[i], true)
		s.ia = int32(i)
		s.ca = min(s.ca+1, 2)
	}
	for j := b0; j < b1; j++ {
		if s := find(d.b.hash[j], false); s != nil {
			s.cb = min(s.cb+1, 2)
		}
	}
	// Candidates in b's order; patience sorting finds the longest run
	// increasing in a.
	cands := make([]anchor, 0, min(a1-a0, b1-b0))
	for j := b0; j < b1; j++ {
		if s := find(d.b.hash[j], false); s != nil && s.ca == 1 && s.cb == 1 && d.eq(int(s.ia), j) {
			cands = append(cands, anchor{s.ia, int32(j)})
		}
	}
	return longestIncreasing(cands)
}

// longestIncreasing returns the longest subsequence of cands (increasing
// in b) that increases in a.
func longestIncreasing(cands []anchor) []anchor {
	if len(cands) == 0 {
		return nil
	}
	var tails []int32                 // per length-1: index of the smallest tail
	prev := make([]int32, len(cands)) // back-pointers
	for i, c := range cands {
		lo, hi := 0, len(tails)
		for lo < hi {
			m := (lo + hi) / 2
			if cands[tails[m]].a < c.a {
				lo = m + 1
			} else {
				hi = m
			}
		}
		prev[i] = -1
		if lo > 0 {
			prev[i] = tails[lo-1]
		}
		if lo == len(tails) {
			tails = append(tails, int32(i))
		} else {
			tails[lo] = int32(i)
		}
	}
	// The chain, from its end, goes into tails; then the run is copied
	// over cands' head in ascending order: the i-th element comes from
	// index tails[i] >= i, never from a place already overwritten.
	n := len(tails)
	for i, k := n-1, tails[n-1]; i >= 0; i, k = i-1, prev[k] {
		tails[i] = k
	}
	for i, k := range tails {
		cands[i] = cands[k]
	}
	return cands[:n]
}

// compact slides each pure insertion or deletion over equal lines until
// it touches a neighbouring hunk, and merges them: a shortest edit script
// can place an edit of repeated lines on either side of a copy of them,
// and one hunk reads better than two.
func (d *differ) compact() {
	out := d.hunks[:0]
	for i := 0; i < len(d.hunks); i++ {
		h := d.hunks[i]
		if n := len(out); n > 0 {
			if p := out[n-1]; d.slidesUp(p, h) {
				out[n-1] = lineHunk{p.a0, h.a1 - (h.a0 - p.a1), p.b0, h.b1 - (h.b0 - p.b1)}
				continue
			}
		}
		if i+1 < len(d.hunks) && d.slidesDown(h, d.hunks[i+1]) {
			nx := d.hunks[i+1]
			d.hunks[i+1] = lineHunk{h.a0 + (nx.a0 - h.a1), nx.a1, h.b0 + (nx.b0 - h.b1), nx.b1}
			continue
		}
		out = append(out, h)
	}
	d.hunks = out
}

// slidesUp reports whether h, a pure insertion or deletion, can move up
// over the equal lines between p and h until it touches p.
func (d *differ) slidesUp(p, h lineHunk) bool {
	gap := h.a0 - p.a1 // equal lines between them (the same in b)
	switch {
	case h.b0 == h.b1: // deletion: a[h.a0-k] must equal a[h.a1-k]
		for k := 1; k <= gap; k++ {
			if !bytes.Equal(d.a.line(h.a0-k), d.a.line(h.a1-k)) {
				return false
			}
		}
		return true
	case h.a0 == h.a1:
		for k := 1; k <= gap; k++ {
			if !bytes.Equal(d.b.line(h.b0-k), d.b.line(h.b1-k)) {
				return false
			}
		}
		return true
	}
	return false
}

// slidesDown reports whether h, a pure insertion or deletion, can move
// down over the equal lines between h and n until it touches n.
func (d *differ) slidesDown(h, n lineHunk) bool {
	gap := n.a0 - h.a1
	switch {
	case h.b0 == h.b1:
		for k := 0; k < gap; k++ {
			if !bytes.Equal(d.a.line(h.a0+k), d.a.line(h.a1+k)) {
				return false
			}
		}
		return true
	case h.a0 == h.a1:
		for k := 0; k < gap; k++ {
			if !bytes.Equal(d.b.line(h.b0+k), d.b.line(h.b1+k)) {
				return false
			}
		}
		return true
	}
	return false
}

// myers diffs a[a0:a1] with b[b0:b1], both non-empty and differing at
// both ends, by Myers' greedy algorithm (the shortest edit script), and
// emits the hunks. Past maxMyersD edits it replaces the gap whole.
func (d *differ) myers(a0, a1, b0, b1 int) {
	n, m := a1-a0, b1-b0
	dmax := min(n+m, maxMyersD)
	// v[off+k] is the furthest x on diagonal k (y = x-k).
	off := dmax + 1
	v := make([]int, 2*dmax+3)
	// trace[e] holds v[k] for k in [-e-1, e+1] before step e.
	var trace [][]int
	for e := 0; e <= dmax; e++ {
		trace = append(trace, append([]int(nil), v[off-e-1:off+e+2]...))
		for k := -e; k <= e; k += 2 {
			var x int
			if k == -e || (k != e && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1] // down: insert b's line
			} else {
				x = v[off+k-1] + 1 // right: delete a's line
			}
			y := x - k
			for x < n && y < m && d.eq(a0+x, b0+y) {
				x, y = x+1, y+1
			}
			v[off+k] = x
			if x >= n && y >= m {
				d.backtrack(trace, a0, b0, n, m)
				return
			}
		}
	}
	d.emit(a0, a1, b0, b1)
}

// backtrack walks the trace from the end (x, y) back to the start and
// emits the edits in order; emit merges neighbouring ones into hunks.
func (d *differ) backtrack(trace [][]int, a0, b0, x, y int) {
	type step struct{ x0, y0, x1, y1 int }
	var steps []step
	for e := len(trace) - 1; e > 0; e-- {
		v := trace[e] // v_k is v[e+1+k]
		k := x - y
		pk := k - 1 // came right (a line of a deleted)
		if k == -e || (k != e && v[e+k] < v[e+k+2]) {
			pk = k + 1 // came down (a line of b inserted)
		}
		px := v[e+1+pk]
		py := px - pk
		mx, my := px+1, py
		if pk == k+1 {
			mx, my = px, py+1
		}
		steps = append(steps, step{px, py, mx, my})
		x, y = px, py
	}
	for i := len(steps) - 1; i >= 0; i-- {
		s := steps[i]
		d.emit(a0+s.x0, a0+s.x1, b0+s.y0, b0+s.y1)
	}
}
