package tools

import (
	"hash/maphash"
	"slices"
	"sync"
)

// fingerprint identifies a file's content: its length and the hashes of
// consecutive blocks of it, each with its own length, under a seed chosen
// at random in each process. A change goes unnoticed with chance 2^-64,
// and no text can be made to collide without knowing the seed; a
// cryptographic hash (the first version used SHA-256) costs several times
// as much, twice per edit, on files of megabytes.
//
// A content read afresh is cut into blocks of fpBlock bytes. An edit
// hashes again only the blocks it touches: the blocks before it and after
// it hold the same bytes as before (after it, at other offsets when the
// length changed), so they keep their hashes, and the fingerprint of an
// edited file costs about the size of the edit wherever it falls in the
// file. The blocks' lengths are thus part of a fingerprint, and a content
// is compared with one by hashing it under that fingerprint's blocks
// (over, matches).
type fingerprint struct {
	n      int
	blocks []block
}

// block is one hashed span of a fingerprinted content.
type block struct {
	n int
	h uint64
}

const fpBlock = 64 << 10

var fingerprintSeed = maphash.MakeSeed()

// fingerprintOf hashes b in blocks of fpBlock bytes.
func fingerprintOf(b []byte) fingerprint {
	return fingerprint{n: len(b), blocks: appendBlocks(make([]block, 0, len(b)/fpBlock+1), b)}
}

// appendBlocks appends the hashes of b cut into blocks of fpBlock bytes.
func appendBlocks(dst []block, b []byte) []block {
	for off := 0; off < len(b); off += fpBlock {
		p := b[off:min(off+fpBlock, len(b))]
		dst = append(dst, block{len(p), maphash.Bytes(fingerprintSeed, p)})
	}
	return dst
}

// over is the fingerprint of b cut into f's blocks, so that it is equal
// to f exactly when b is the content f was taken of. When b's length is
// not f's (b cannot be that content), or f is the zero fingerprint of
// nothing recorded, b is cut afresh.
func (f fingerprint) over(b []byte) fingerprint {
	if len(b) != f.n || len(f.blocks) == 0 {
		return fingerprintOf(b)
	}
	out := fingerprint{n: len(b), blocks: make([]block, len(f.blocks))}
	off := 0
	for i, x := range f.blocks {
		out.blocks[i] = block{x.n, maphash.Bytes(fingerprintSeed, b[off:off+x.n])}
		off += x.n
	}
	return out
}

// equal reports whether f and g are the fingerprints of one content
// under the same blocks.
func (f fingerprint) equal(g fingerprint) bool {
	return f.n == g.n && slices.Equal(f.blocks, g.blocks)
}

// matches reports whether b is the content f was taken of.
func (f fingerprint) matches(b []byte) bool { return f.equal(f.over(b)) }

// edited is the fingerprint of next, which is the content f was taken of
// with the sorted, disjoint reps applied. Only the blocks the
// replacements touch are hashed again, cut afresh into blocks of fpBlock
// bytes; no block is ever empty.
func (f fingerprint) edited(next []byte, reps []Replacement) fingerprint {
	if len(reps) == 0 || len(f.blocks) == 0 {
		return fingerprintOf(next)
	}
	first, last := reps[0].Start, reps[len(reps)-1].End
	// Blocks [0, i) end at or before first and blocks [j, len) start at
	// or after last, in f's content; from and to are where the blocks
	// between begin and end.
	i, from := 0, 0
	for i < len(f.blocks) && from+f.blocks[i].n <= first {
		from += f.blocks[i].n
		i++
	}
	j, to := len(f.blocks), f.n
	for j > i && to-f.blocks[j-1].n >= last {
		to -= f.blocks[j-1].n
		j--
	}
	delta := len(next) - f.n
	out := fingerprint{n: len(next), blocks: make([]block, 0, len(f.blocks)+(to-from+delta)/fpBlock+1)}
	out.blocks = append(out.blocks, f.blocks[:i]...)
	out.blocks = appendBlocks(out.blocks, next[from:to+delta])
	out.blocks = append(out.blocks, f.blocks[j:]...)
	return out
}

// asyncMin is the size from which a fingerprint is worth a goroutine.
const asyncMin = 256 << 10

// fingerprintAsync starts fingerprinting b, on another core when b is
// large, and returns the function that waits for the result. The write
// tools hash the file they edit while they do something else with it
// (search it, hand the edit to the editor) instead of before or after.
func fingerprintAsync(b []byte) func() fingerprint {
	return async(len(b), func() fingerprint { return fingerprintOf(b) })
}

// async runs f on another goroutine when size is large enough to be
// worth it, and returns the function that waits for its result.
func async[T any](size int, f func() T) func() T {
	if size < asyncMin {
		v := f()
		return func() T { return v }
	}
	ch := make(chan T, 1)
	go func() { ch <- f() }()
	return sync.OnceValue(func() T { return <-ch })
}
