package tools

import (
	"context"
	"fmt"
	"path"
	"strings"
	"sync"
	"unsafe"
	"weak"
)

// Reads records, for one session, what the agent has seen of each file,
// and orders the calls that touch the same file. The write tools refuse
// to change an existing file the agent has not read in this session, or
// whose content is no longer what it read: an edit is computed from what
// the model believes the file holds, and a stale belief overwrites the
// user's work. After a successful edit the new content counts as read, so
// consecutive edits work without reading again.
//
// Paths are workspace-relative and slash-separated, as Resolve returns
// them. A Reads is safe for concurrent use; its zero value is not, use
// NewReads.
type Reads struct {
	mu    sync.Mutex
	seen  map[string]seenContent
	tails map[string]chan struct{} // per path: closed when the last queued holder is done
}

// seenContent is what the agent saw of a file: the content's
// fingerprint, and after its own edit of a large file the memory of the
// new content (Change.New), which a workspace that keeps it (an open
// document) hands back from ReadFile while the file stays as the edit left
// it. That memory never changes (Change's contract), so finding it again
// proves the content unchanged without hashing it; the pointer is weak, so
// that the record keeps no old content alive.
type seenContent struct {
	sum fingerprint
	mem weak.Pointer[byte]
}

// same reports whether current is the very memory of the edit recorded.
func (s seenContent) same(current []byte) bool {
	p := s.mem.Value()
	return p != nil && len(current) == s.sum.n && p == unsafe.SliceData(current)
}

// NewReads returns an empty record.
func NewReads() *Reads {
	return &Reads{seen: make(map[string]seenContent), tails: make(map[string]chan struct{})}
}

// MarkRead records that the agent has seen content as the whole content of
// path: read_file calls it after a successful read (whole or partial), the
// write tools after an edit, and the LSP server may call it for a document
// it passed with a prompt.
func (r *Reads) MarkRead(path string, content []byte) {
	if r == nil {
		return
	}
	r.markFingerprint(path, fingerprintOf(content))
}

func (r *Reads) markFingerprint(path string, f fingerprint) {
	r.mu.Lock()
	r.seen[key(path)] = seenContent{sum: f}
	r.mu.Unlock()
}

// markEdited records the content an edit of path wrote, new, and its
// fingerprint f. new is a heap allocation of the edit's own (weak.Make
// takes no other memory).
func (r *Reads) markEdited(path string, new []byte, f fingerprint) {
	s := seenContent{sum: f}
	if len(new) >= asyncMin { // worth finding again; never the zero-size base
		s.mem = weak.Make(unsafe.SliceData(new))
	}
	r.mu.Lock()
	r.seen[key(path)] = s
	r.mu.Unlock()
}

// Forget drops what was recorded for path.
func (r *Reads) Forget(path string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	delete(r.seen, key(path))
	r.mu.Unlock()
}

// Seen reports whether the agent has read path and its content is still
// current.
func (r *Reads) Seen(path string, current []byte) bool {
	if r == nil {
		return false
	}
	r.mu.Lock()
	s, ok := r.seen[key(path)]
	r.mu.Unlock()
	return ok && (s.same(current) || s.sum.matches(current))
}

// stale says why the agent may not change path whose content is current,
// or "" if it may. tool names the caller.
func (r *Reads) stale(tool, rel string, current []byte) string {
	msg, _ := r.staleAsync(tool, rel, current)
	return msg()
}

// staleAsync is stale computed while the caller goes on (see
// fingerprintAsync): the first function returned waits for the answer,
// the second for current's fingerprint, cut into the blocks of the one
// recorded so that an edit of current can keep those it leaves alone
// (fingerprint.edited).
func (r *Reads) staleAsync(tool, rel string, current []byte) (msg func() string, sum func() fingerprint) {
	r.mu.Lock()
	seen, ok := r.seen[key(rel)]
	r.mu.Unlock()
	if ok && seen.same(current) {
		return func() string { return "" }, func() fingerprint { return seen.sum }
	}
	if !ok {
		sum = sync.OnceValue(func() fingerprint { return fingerprintOf(current) })
		extra := ""
		if isBinary(current, false) {
			extra = " It is a binary file, which read_file cannot show: ask the user before replacing it."
		}
		m := fmt.Sprintf("%s: you have not read %s in this session; call read_file on it first, then retry, so that your change is based on its current content.%s", tool, rel, extra)
		return func() string { return m }, sum
	}
	sum = async(len(current), func() fingerprint { return seen.sum.over(current) })
	return func() string {
		if !sum().equal(seen.sum) {
			return fmt.Sprintf("%s: %s changed since you last read it (the user or another tool edited it); read it again with read_file, then retry with its current content.", tool, rel)
		}
		return ""
	}, sum
}

// lock waits, in order of arrival, until no earlier call holds path, and
// returns the function that releases it. It gives up when ctx is done.
// Calls started in order of appearance thus run in that order (M44).
func (r *Reads) lock(ctx context.Context, rel string) (unlock func(), err error) {
	k := key(rel)
	mine := make(chan struct{})
	r.mu.Lock()
	prev := r.tails[k]
	r.tails[k] = mine
	r.mu.Unlock()
	release := func() {
		r.mu.Lock()
		if r.tails[k] == mine {
			delete(r.tails, k)
		}
		r.mu.Unlock()
		close(mine)
	}
	if prev != nil {
		select {
		case <-prev:
		case <-ctx.Done():
			// Keep the queue: those behind us wait for prev through us.
			go func() { <-prev; release() }()
			return nil, ctx.Err()
		}
	}
	var once sync.Once
	return func() { once.Do(release) }, nil
}

// key normalises a workspace-relative path.
func key(p string) string {
	return strings.TrimPrefix(path.Clean("/"+strings.TrimPrefix(p, "./")), "/")
}
