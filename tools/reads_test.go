package tools

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestReadFileMarksReads(t *testing.T) {
	t.Parallel()
	ws, dir := newWS(t, map[string]string{"a.txt": "one\ntwo\nthree\n", "bin": "a\x00b"})
	reads := NewReads()
	tool := NewReadFile(ws, WithReads(reads))
	if res := runTool(t, tool, ReadFileParams{Path: "./a.txt", Offset: 2, Limit: 1}); res.IsError {
		t.Fatal(res.Text)
	}
	if !reads.Seen("a.txt", []byte("one\ntwo\nthree\n")) {
		t.Fatal("a partial read did not mark the file read")
	}
	if res := runTool(t, tool, ReadFileParams{Path: "a.txt", Offset: 9}); !res.IsError {
		t.Fatal(res.Text)
	}
	for _, p := range []string{"missing.txt", "bin"} {
		runTool(t, tool, ReadFileParams{Path: p})
		if reads.Seen(p, nil) || reads.Seen(p, []byte("a\x00b")) {
			t.Errorf("%s: a failed read marked the file read", p)
		}
	}
	mustWrite(t, filepath.Join(dir, "a.txt"), "changed\n")
	if reads.Seen("a.txt", []byte("changed\n")) {
		t.Fatal("changed content counts as seen")
	}
	reads.MarkRead("/a.txt", []byte("changed\n")) // any spelling of the same relative path
	if !reads.Seen("a.txt", []byte("changed\n")) {
		t.Fatal("MarkRead not seen")
	}
	reads.Forget("a.txt")
	if reads.Seen("a.txt", []byte("changed\n")) {
		t.Fatal("Forget did not forget")
	}
}

func TestReadFileSpill(t *testing.T) {
	t.Parallel()
	ws, dir := newWS(t, map[string]string{"a.txt": "a\n"})
	base := filepath.Dir(dir)
	s := NewSpill(filepath.Join(base, "spill"))
	p, err := s.Save("bash", []byte("line 1\nline 2\nline 3\n"))
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(base, "spill", "not-ours.txt")
	mustWrite(t, other, canary)
	tool := NewReadFile(ws, WithSpill(s))
	if res := runTool(t, tool, ReadFileParams{Path: p, Offset: 2}); res.IsError || !strings.Contains(res.Text, "     2\tline 2\n") {
		t.Fatalf("spill read: %+v", res)
	}
	if res := runTool(t, tool, ReadFileParams{Path: other}); !res.IsError || strings.Contains(res.Text, canary) {
		t.Fatalf("read a file the spill did not write: %+v", res)
	}
	if res := runTool(t, NewReadFile(ws), ReadFileParams{Path: p}); !res.IsError {
		t.Fatalf("read a spill file without WithSpill: %+v", res)
	}
	// A spill file swapped for a link is refused.
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(other, p); err != nil {
		t.Fatal(err)
	}
	if res := runTool(t, tool, ReadFileParams{Path: p}); !res.IsError || strings.Contains(res.Text, canary) {
		t.Fatalf("read through a link: %+v", res)
	}
	// A hard link is refused too.
	os.Remove(p)
	if err := os.Link(other, p); err != nil {
		t.Fatal(err)
	}
	if res := runTool(t, tool, ReadFileParams{Path: p}); !res.IsError || strings.Contains(res.Text, canary) {
		t.Fatalf("read a hard link: %+v", res)
	}
}

// TestReadsLockOrder checks that calls queued on one path run one at a
// time in order of arrival, and that a cancelled waiter keeps the queue.
func TestReadsLockOrder(t *testing.T) {
	t.Parallel()
	r := NewReads()
	ctx := context.Background()
	tail := func() chan struct{} {
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.tails["a.txt"]
	}
	unlock, err := r.lock(ctx, "a.txt")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var order []int
	var wg sync.WaitGroup
	cctx, cancel := context.WithCancel(ctx)
	for i := range 5 {
		c := ctx
		if i == 2 {
			c = cctx
		}
		before := tail()
		wg.Go(func() {
			u, err := r.lock(c, "./a.txt")
			if err != nil {
				return
			}
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
			u()
		})
		// Wait until this goroutine is queued, so arrival order is known.
		for deadline := time.Now().Add(5 * time.Second); tail() == before; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("waiter not queued")
			}
		}
	}
	cancel()
	other, err := r.lock(ctx, "b.txt") // other paths are not blocked
	if err != nil {
		t.Fatal(err)
	}
	other()
	unlock()
	wg.Wait()
	if fmt.Sprint(order) != "[0 1 3 4]" {
		t.Fatalf("order %v, want [0 1 3 4]", order)
	}
	if tail() != nil {
		t.Fatal("queue not emptied")
	}
}

// TestFingerprintEdited checks that the fingerprint of an edited content,
// which hashes again only the blocks the edit touches, is one the content
// matches and no other content of its length does, for contents of under
// a block to several blocks and edits anywhere (insertions at block edges
// included), and over a chain of edits, each from the last one's blocks.
func TestFingerprintEdited(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	for _, size := range []int{0, 1, 100, fpBlock, fpBlock + 1, 3*fpBlock + 7} {
		content := make([]byte, size)
		for i := range content {
			content[i] = byte('a' + r.IntN(26))
		}
		f := fingerprintOf(content)
		for step := range 40 {
			var reps []Replacement
			for pos := 0; pos <= len(content) && len(reps) < 4; {
				start := pos + r.IntN(len(content)-pos+1)
				end := start + r.IntN(len(content)-start+1)/2
				if step%3 == 0 {
					// A byte or two at a block's edge (the first blocks
					// are fpBlock long).
					start = fpBlock*r.IntN(len(content)/fpBlock+1) + r.IntN(3) - 1
					end = start + r.IntN(3)
					if start < pos || end > len(content) {
						break
					}
				}
				reps = append(reps, Replacement{Start: start, End: end, Text: strings.Repeat("x", r.IntN(3*fpBlock/2+1)*(step%2))})
				pos = end + 1
			}
			next := applyReplacements(content, reps)
			g := f.edited(next, reps)
			total := 0
			for _, b := range g.blocks {
				if b.n <= 0 {
					t.Fatalf("size %d step %d: empty block in %v", size, step, g.blocks)
				}
				total += b.n
			}
			if total != len(next) || g.n != len(next) || !g.matches(next) {
				t.Fatalf("size %d step %d reps %v: the edited fingerprint does not match the content", size, step, reps)
			}
			if len(next) > 0 {
				other := bytes.Clone(next)
				other[r.IntN(len(other))] ^= 1
				if g.matches(other) {
					t.Fatalf("size %d step %d: a changed byte goes unnoticed", size, step)
				}
			}
			if !fingerprintOf(next).matches(next) || (len(g.blocks) > 0 && !g.over(next).equal(g)) {
				t.Fatalf("size %d step %d: over does not reproduce the fingerprint", size, step)
			}
			content, f = next, g // the next edit starts from these blocks
		}
	}
	if fingerprintOf([]byte("a")).equal(fingerprintOf([]byte("b"))) || fingerprintOf(nil).equal(fingerprintOf([]byte{0})) {
		t.Fatal("one fingerprint for two contents")
	}
}

// TestReadsEditedMemory checks the record of an edit's own content: the
// same memory handed back proves it unchanged, a copy of it is checked by
// its hash and passes, and another content of its length is stale, as is
// the edit's memory once the record is replaced by a read of other
// content.
func TestReadsEditedMemory(t *testing.T) {
	t.Parallel()
	r := NewReads()
	content := bytes.Repeat([]byte("line of text\n"), asyncMin/13+1)
	r.markEdited("a.go", content, fingerprintOf(content))
	if !r.seen[key("a.go")].same(content) {
		t.Fatal("the edit's own memory is not recognised")
	}
	if msg := r.stale("str_replace", "a.go", content); msg != "" {
		t.Fatalf("own memory: %s", msg)
	}
	if msg := r.stale("str_replace", "a.go", bytes.Clone(content)); msg != "" {
		t.Fatalf("a copy: %s", msg)
	}
	other := bytes.Clone(content)
	other[len(other)/2] = 'X'
	if msg := r.stale("str_replace", "a.go", other); !strings.Contains(msg, "changed since you last read it") {
		t.Fatalf("other content of the same length: %q", msg)
	}
	r.MarkRead("a.go", other)
	if r.seen[key("a.go")].same(content) || r.stale("str_replace", "a.go", content) == "" {
		t.Fatal("the old edit's memory still counts after a read of other content")
	}
	small := []byte("small\n")
	r.markEdited("b.go", small, fingerprintOf(small))
	if r.seen[key("b.go")].same(small) {
		t.Fatal("a small content's memory is recorded")
	}
	if msg := r.stale("str_replace", "b.go", small); msg != "" {
		t.Fatalf("small content: %s", msg)
	}
}
