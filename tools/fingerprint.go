package tools

import (
	"hash/maphash"
	"sync"
)

// fingerprint identifies a file's content: its length and a 64-bit hash
// with a seed chosen at random in each process. A change goes unnoticed
// with chance 2^-64, and no text can be made to collide without knowing
// the seed; a cryptographic hash (the first version used SHA-256) costs
// several times as much, twice per edit, on files of megabytes.
//
// The hash is taken over blocks of fpBlock bytes, so that the fingerprint
// of an edited file can reuse the blocks before the first change.
type fingerprint struct {
	n int
	h uint64
}

const fpBlock = 64 << 10

var fingerprintSeed = maphash.MakeSeed()

// blockSums are the hashes of content's blocks.
type blockSums struct {
	n      int
	blocks []uint64
}

// sumBlocks hashes the blocks of b, taking the first len(reuse) from
// reuse (the caller knows them to be unchanged).
func sumBlocks(b []byte, reuse []uint64) blockSums {
	s := blockSums{n: len(b), blocks: make([]uint64, 0, len(b)/fpBlock+1)}
	s.blocks = append(s.blocks, reuse...)
	for off := len(reuse) * fpBlock; off < len(b); off += fpBlock {
		s.blocks = append(s.blocks, maphash.Bytes(fingerprintSeed, b[off:min(off+fpBlock, len(b))]))
	}
	return s
}

// fingerprint combines the block hashes (random 64-bit values) in order.
func (s blockSums) fingerprint() fingerprint {
	h := uint64(s.n)
	for _, x := range s.blocks {
		h = (h ^ x) * 0x100000001b3
		h ^= h >> 29
	}
	return fingerprint{s.n, h}
}

// fullBlocksBefore returns the hashes of the blocks that end at or
// before off: an edit starting at off leaves them as they are.
func (s blockSums) fullBlocksBefore(off int) []uint64 {
	return s.blocks[:min(off/fpBlock, len(s.blocks))]
}

func fingerprintOf(b []byte) fingerprint { return sumBlocks(b, nil).fingerprint() }

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
