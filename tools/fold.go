package tools

import "bytes"

// foldFinder finds an ASCII-lowercase literal in text ignoring ASCII case,
// without copying the text: it jumps with bytes.IndexByte between the two
// cases of the literal's rarest byte, then compares the rest.
type foldFinder struct {
	lit    []byte // lowercase
	rare   int    // index in lit of the byte searched for
	lo, up byte   // its two cases (equal if not a letter)
}

func newFoldFinder(lit []byte) foldFinder {
	f := foldFinder{lit: lit, rare: rarest(lit)}
	f.lo, f.up = lit[f.rare], lit[f.rare]
	if 'a' <= f.lo && f.lo <= 'z' {
		f.up = f.lo - 'a' + 'A'
	}
	return f
}

// index returns the first position at or after from where lit occurs in
// hay, ignoring ASCII case, or -1.
func (f *foldFinder) index(hay []byte, from int) int {
	nextLo, nextUp := -2, -2 // -2: not looked for yet; -1: none left
	for pos := from + f.rare; pos < len(hay); {
		if nextLo != -1 && nextLo < pos {
			if i := bytes.IndexByte(hay[pos:], f.lo); i >= 0 {
				nextLo = pos + i
			} else {
				nextLo = -1
			}
		}
		if f.up != f.lo && nextUp != -1 && nextUp < pos {
			if i := bytes.IndexByte(hay[pos:], f.up); i >= 0 {
				nextUp = pos + i
			} else {
				nextUp = -1
			}
		}
		c := nextLo
		if c < 0 || (f.up != f.lo && nextUp >= 0 && nextUp < c) {
			c = nextUp
		}
		if f.up == f.lo {
			c = nextLo
		}
		if c < 0 {
			return -1
		}
		start := c - f.rare
		if start+len(f.lit) <= len(hay) && equalFoldLower(hay[start:start+len(f.lit)], f.lit) {
			return start
		}
		pos = c + 1
	}
	return -1
}

// equalFoldLower reports whether s equals the lowercase lit ignoring ASCII
// case.
func equalFoldLower(s, lit []byte) bool {
	for i, c := range s {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lit[i] {
			return false
		}
	}
	return true
}

// rarest is the index of lit's rarest byte by byteRank, the first of
// equals.
func rarest(lit []byte) int {
	r := 0
	for i, c := range lit {
		if byteRank(c) < byteRank(lit[r]) {
			r = i
		}
	}
	return r
}

// byteRank is a rough frequency rank of a byte in source code (lower is
// rarer), to pick which byte of a literal to scan for.
func byteRank(c byte) int {
	switch {
	case c == ' ' || c == 'e' || c == 't':
		return 250
	case c == '\t' || c == 'a' || c == 'o' || c == 'i' || c == 'n' || c == 's' || c == 'r':
		return 220
	case c == 'l' || c == 'c' || c == 'd' || c == 'u' || c == 'h' || c == 'p' || c == 'm' || c == '.' || c == ',' || c == '(' || c == ')':
		return 180
	case c == 'f' || c == 'g' || c == 'b' || c == 'y' || c == 'w' || c == '"' || c == '_' || c == '=' || c == '/':
		return 140
	case c >= 'a' && c <= 'z':
		return 60 // v, k, x, j, q, z
	case c >= '0' && c <= '9', c == '{', c == '}', c == ':', c == '*', c == '-':
		return 100
	case c >= 0x80:
		return 40
	}
	return 80
}
