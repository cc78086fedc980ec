package lsp

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// document is one open buffer as the editor last described it.
type document struct {
	uri     string
	path    string // absolute file path
	version int32
	text    string
	mapper  *Mapper // lazily built for text
	// want is what an edit this server sent gives this version: the
	// tool's result, for the next didChange to keep instead of building
	// the same text again (see splice). Any change clears it.
	want sentEdit
}

// mapperFor returns the line index of the current text.
func (d *document) mapperFor() *Mapper {
	if d.mapper == nil {
		d.mapper = NewMapper(d.text)
	}
	return d.mapper
}

// contentChange is one entry of didChange's contentChanges: a range
// replacement, or the whole text when Range is nil.
type contentChange struct {
	Range *Range `json:"range,omitempty"`
	Text  string `json:"text"`
}

// store holds the open documents, keyed by URI. The read loop writes it
// (in wire order); tools read it from run goroutines.
type store struct {
	mu   sync.Mutex
	docs map[string]*document // by URI
	path map[string]*document // by absolute path
	// changed is closed and replaced on every open or change.
	changed chan struct{}
}

func newStore() *store {
	return &store{docs: make(map[string]*document), path: make(map[string]*document), changed: make(chan struct{})}
}

// bump wakes the waiters; s.mu is held.
func (s *store) bump() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// waitPath waits until the open document at path satisfies ok, the
// context ends, or d passes. It reports whether ok was met.
func (s *store) waitPath(ctx context.Context, path string, d time.Duration, ok func(snapshot) bool) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		s.mu.Lock()
		doc, open := s.path[path]
		var snap snapshot
		if open {
			snap = snapshot{doc.uri, doc.version, doc.text}
		}
		ch := s.changed
		s.mu.Unlock()
		if open && ok(snap) {
			return true
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return false
		case <-t.C:
			return false
		}
	}
}

func (s *store) open(uri, path string, version int32, text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := &document{uri: uri, path: path, version: version, text: text}
	s.docs[uri] = d
	if path != "" {
		s.path[path] = d
	}
	s.bump()
}

func (s *store) change(enc Encoding, uri string, version int32, changes []contentChange) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.docs[uri]
	if !ok {
		return fmt.Errorf("didChange for %s, which is not open", uri)
	}
	want := d.want
	d.want = sentEdit{}
	d.apply(enc, changes, want)
	d.version = version
	s.bump()
	return nil
}

// expect notes that the next didChange of the document at path, from
// version from, should give want.text: an edit this server is sending.
func (s *store) expect(path string, from int32, want sentEdit) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if d, ok := s.path[path]; ok && d.version == from {
		d.want = want
	}
}

func (s *store) close(uri string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if d, ok := s.docs[uri]; ok {
		delete(s.docs, uri)
		if s.path[d.path] == d {
			delete(s.path, d.path)
		}
	}
}

// snapshot is a document's state at one moment.
type snapshot struct {
	uri     string
	version int32
	text    string
}

// byPath returns the open document for an absolute path.
func (s *store) byPath(path string) (snapshot, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.path[path]
	if !ok {
		return snapshot{}, false
	}
	return snapshot{d.uri, d.version, d.text}, true
}

// byURI returns the open document for a URI.
func (s *store) byURI(uri string) (snapshot, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.docs[uri]
	if !ok {
		return snapshot{}, false
	}
	return snapshot{d.uri, d.version, d.text}, true
}

// indexed is a document's text with its line index.
type indexed struct {
	uri     string
	version int32
	text    string
	mapper  *Mapper
}

// mapperByPath returns the open document at path with its line index,
// built once per version.
func (s *store) mapperByPath(path string) (indexed, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.path[path]
	if !ok {
		return indexed{}, false
	}
	return indexed{d.uri, d.version, d.text, d.mapperFor()}, true
}
