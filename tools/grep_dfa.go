package tools

import (
	"bytes"
	"regexp"
	"regexp/syntax"
	"slices"
	"unicode/utf8"
)

// lineDFA answers "does this line match?" for the program regexp itself
// compiles from the pattern, with a DFA built lazily as the text asks for
// states. Go's regexp runs a backtracker or an NFA per line, at several
// nanoseconds a byte and more; a cached DFA step is a table load, which is
// what brings patterns with no literal to prefilter near ripgrep. It
// decides the same thing regexp.Match does on the line (the same
// instructions, runes, folds and empty-width rules) but reports no
// position, which grep never needs.
//
// A lineDFA is used by one goroutine at a time. Its states are bounded:
// past dfaMaxStates the cache is dropped and rebuilt, and after
// dfaMaxResets such drops it gives every later line to regexp (patterns
// whose DFA explodes, such as (a|b)*a(a|b){20}).
type lineDFA struct {
	prog   *syntax.Prog
	re     *regexp.Regexp // the fallback, same pattern
	states map[string]*dfaState
	begin  *dfaState // at the start of a line
	wide   int       // non-ASCII transitions cached
	resets int
	failed bool

	// Scratch space for building a state.
	closure, next sparseSet
	stack         []uint32
	key           []byte
}

const (
	dfaMaxStates = 2000
	dfaMaxWide   = 1 << 16
	dfaMaxResets = 8
)

// dfaState is a set of threads (program counters waiting to consume the
// next rune, before their empty-width instructions are followed) and the
// class of the rune before, which \b, ^ and \A depend on.
type dfaState struct {
	pcs   []uint32
	prev  rune // -1 at line start, else a representative: 'a' (word) or ' '
	kind  uint8
	ascii [utf8.RuneSelf]*dfaState // next state per ASCII byte; '\n' ends the line
	wide  map[rune]*dfaState       // next state per other rune
}

const (
	dfaLive  uint8 = iota
	dfaMatch       // the line matches: stop reading it
	dfaDead        // the line cannot match any more: skip to its end
)

// dfaMatched is the shared target of every transition that finds a match.
var dfaMatched = &dfaState{kind: dfaMatch}

func newLineDFA(prog *syntax.Prog, re *regexp.Regexp) *lineDFA {
	n := len(prog.Inst)
	d := &lineDFA{prog: prog, re: re, closure: newSparseSet(n), next: newSparseSet(n)}
	d.reset()
	return d
}

func (d *lineDFA) reset() {
	d.states = make(map[string]*dfaState)
	d.wide = 0
	d.begin = d.state(nil, -1)
}

// drop empties the cache, full; after dfaMaxResets drops the DFA gives
// up for good.
func (d *lineDFA) drop() {
	d.resets++
	d.failed = d.resets > dfaMaxResets
	d.reset()
}

// scan calls emit for every matching line of buf (bounds of the line
// without its newline) until emit returns false. Line starts are found
// only when needed (a match, a dropped cache), so that the loop over the
// bytes does nothing but follow the table.
func (d *lineDFA) scan(buf []byte, emit func(ls, le int) bool) {
	if d.failed {
		d.scanRegexp(buf, 0, emit)
		return
	}
	s := d.begin
	i := 0
	for i < len(buf) {
		c := buf[i]
		var ns *dfaState
		w := 1
		if c < utf8.RuneSelf {
			if ns = s.ascii[c]; ns == nil {
				ns = d.step(s, rune(c))
			}
		} else {
			var r rune
			r, w = utf8.DecodeRune(buf[i:])
			if ns = s.wide[r]; ns == nil {
				ns = d.step(s, r)
			}
		}
		if ns != nil && ns.kind == dfaLive {
			s = ns
			i += w
			continue
		}
		ls := bytes.LastIndexByte(buf[:i], '\n') + 1
		if ns == nil { // the cache was dropped: read this line again
			if d.failed {
				d.scanRegexp(buf[ls:], ls, emit)
				return
			}
			i, s = ls, d.begin
			continue
		}
		le := len(buf)
		if k := bytes.IndexByte(buf[i:], '\n'); k >= 0 {
			le = i + k
		}
		if ns.kind == dfaMatch && !emit(ls, le) {
			return
		}
		s, i = d.begin, le+1
	}
	// The last line, when buf does not end with a newline.
	if i != len(buf) || len(buf) == 0 || buf[len(buf)-1] == '\n' {
		return
	}
	ls := bytes.LastIndexByte(buf, '\n') + 1
	switch d.step(s, '\n') {
	case dfaMatched:
		emit(ls, len(buf))
	case nil:
		d.scanRegexp(buf[ls:], ls, emit)
	}
}

// match reports whether one line (without its newline) matches.
func (d *lineDFA) match(line []byte) bool {
	if len(line) == 0 { // scan sees no line in an empty buffer
		ns := d.begin.ascii['\n']
		if ns == nil {
			ns = d.step(d.begin, '\n')
		}
		return ns == dfaMatched || (ns == nil && d.re.Match(line))
	}
	found := false
	d.scan(line, func(int, int) bool { found = true; return false })
	return found
}

func (d *lineDFA) scanRegexp(buf []byte, off int, emit func(ls, le int) bool) {
	ls := 0
	for line := range bytes.Lines(buf) {
		le := ls + len(line)
		line = bytes.TrimSuffix(line, nl)
		if d.re.Match(line) && !emit(off+ls, off+ls+len(line)) {
			return
		}
		ls = le
	}
}

// step computes (and caches) the state after s reads r; r == '\n' stands
// for the end of the line, after which the next line begins. It returns
// nil when the cache was full and has been dropped.
func (d *lineDFA) step(s *dfaState, r rune) *dfaState {
	after := r
	if r == '\n' {
		after = -1
	}
	ctx := syntax.EmptyOpContext(s.prev, after)
	matched := d.follow(s.pcs, ctx)
	var ns *dfaState
	switch {
	case matched:
		ns = dfaMatched
	case r == '\n':
		ns = d.begin
	default:
		d.next.clear()
		for _, pc := range d.closure.dense {
			i := &d.prog.Inst[pc]
			var ok bool
			switch i.Op {
			case syntax.InstRune:
				ok = i.MatchRune(r)
			case syntax.InstRune1:
				ok = r == i.Rune[0]
			case syntax.InstRuneAny:
				ok = true
			case syntax.InstRuneAnyNotNL:
				ok = r != '\n'
			}
			if ok {
				d.next.add(i.Out)
			}
		}
		prev := ' '
		if syntax.IsWordChar(r) {
			prev = 'a'
		}
		if ns = d.state(d.next.dense, prev); ns == nil {
			return nil
		}
	}
	if r < utf8.RuneSelf {
		s.ascii[r] = ns
		return ns
	}
	// Non-ASCII transitions count against the bound too: text with
	// thousands of distinct runes would otherwise grow every state's map.
	if d.wide++; d.wide > dfaMaxWide {
		d.drop()
		return nil
	}
	if s.wide == nil {
		s.wide = make(map[rune]*dfaState)
	}
	s.wide[r] = ns
	return ns
}

// follow fills d.closure with the threads reachable from pcs and from a
// new thread at the program's start, through instructions that consume
// nothing, at a position whose context is ctx. It reports whether a match
// instruction is reached.
func (d *lineDFA) follow(pcs []uint32, ctx syntax.EmptyOp) bool {
	d.closure.clear()
	d.stack = append(d.stack[:0], uint32(d.prog.Start))
	for i := len(pcs) - 1; i >= 0; i-- {
		d.stack = append(d.stack, pcs[i])
	}
	matched := false
	for len(d.stack) > 0 {
		pc := d.stack[len(d.stack)-1]
		d.stack = d.stack[:len(d.stack)-1]
		if !d.closure.add(pc) {
			continue
		}
		i := &d.prog.Inst[pc]
		switch i.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			d.stack = append(d.stack, i.Arg, i.Out)
		case syntax.InstCapture, syntax.InstNop:
			d.stack = append(d.stack, i.Out)
		case syntax.InstEmptyWidth:
			if syntax.EmptyOp(i.Arg)&^ctx == 0 {
				d.stack = append(d.stack, i.Out)
			}
		case syntax.InstMatch:
			matched = true
		}
	}
	return matched
}

// state returns the state for the set pcs after a rune like prev, making
// it if new; nil if that would pass the bound (the cache is then dropped).
func (d *lineDFA) state(pcs []uint32, prev rune) *dfaState {
	sorted := slices.Clone(pcs)
	slices.Sort(sorted)
	d.key = append(d.key[:0], byte(prev+1))
	for _, pc := range sorted {
		d.key = append(d.key, byte(pc), byte(pc>>8), byte(pc>>16), byte(pc>>24))
	}
	if s, ok := d.states[string(d.key)]; ok {
		return s
	}
	if len(d.states) >= dfaMaxStates {
		d.drop()
		return nil
	}
	s := &dfaState{pcs: sorted, prev: prev}
	// No thread left and a program that must start at the beginning of a
	// line: nothing later on this line can match.
	if len(sorted) == 0 && prev != -1 && d.prog.StartCond()&(syntax.EmptyBeginLine|syntax.EmptyBeginText) != 0 {
		s.kind = dfaDead
	}
	d.states[string(d.key)] = s
	return s
}

// sparseSet is a set of program counters with insertion order, cleared in
// constant time.
type sparseSet struct {
	sparse []uint32
	dense  []uint32
}

func newSparseSet(n int) sparseSet {
	return sparseSet{sparse: make([]uint32, n), dense: make([]uint32, 0, n)}
}

func (s *sparseSet) clear() { s.dense = s.dense[:0] }

// add inserts pc and reports whether it was new.
func (s *sparseSet) add(pc uint32) bool {
	if i := s.sparse[pc]; int(i) < len(s.dense) && s.dense[i] == pc {
		return false
	}
	s.sparse[pc] = uint32(len(s.dense))
	s.dense = append(s.dense, pc)
	return true
}
