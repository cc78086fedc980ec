package tools

import "bytes"

// rareFinder finds a literal in text by jumping with bytes.IndexByte
// between the positions of its rarest byte (byteRank) and comparing the
// rest there. bytes.Index jumps between its first byte, which in source
// code is often one of the commonest (a tab, a space, a letter of a
// keyword): str_replace's uniqueness search over a large file, which
// reads the whole of it, took half the time led by a rarer one
// (BenchmarkStrReplace100k/line_12).
type rareFinder struct {
	lit  []byte
	rare int // index in lit of the byte searched for
}

func newRareFinder(lit []byte) rareFinder { return rareFinder{lit: lit, rare: rarest(lit)} }

// index returns the first position of lit in hay, or -1. When the rare
// byte turns out common in hay (more than one false candidate in 16
// bytes), it leaves the rest to bytes.Index, whose vector compare is then
// faster than jumping.
func (f rareFinder) index(hay []byte) int {
	if f.rare == 0 || len(hay) < 64 {
		return bytes.Index(hay, f.lit)
	}
	c := f.lit[f.rare]
	// Candidates for the rare byte lie in [f.rare, last].
	last := len(hay) - len(f.lit) + f.rare
	fails := 0
	for pos := f.rare; pos <= last; {
		i := bytes.IndexByte(hay[pos:last+1], c)
		if i < 0 {
			return -1
		}
		start := pos + i - f.rare
		if bytes.Equal(hay[start:start+len(f.lit)], f.lit) {
			return start
		}
		pos += i + 1
		if fails++; fails > 4+(pos>>4) {
			if j := bytes.Index(hay[start+1:], f.lit); j >= 0 {
				return start + 1 + j
			}
			return -1
		}
	}
	return -1
}
