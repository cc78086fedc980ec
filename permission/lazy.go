package permission

import (
	"regexp"
	"sync"
)

// The package's lookup tables and patterns are made on first use, not at
// start-up: the language server's initialize latency and a one-turn
// `agent-lsp run` are measured, and most of them serve only some tool
// calls (a run answering in text checks no command at all). Each is a
// package-level literal of one of the types below (&set{...},
// &pattern{...}, &lazy[T]{...}): static data the linker lays out, which
// costs nothing until used. sync.OnceValue, a call, would run at package
// initialisation and allocate its closures there.

// lazy is a value made by build on first use.
type lazy[T any] struct {
	once  sync.Once
	build func() T
	v     T
}

func (l *lazy[T]) get() T {
	l.once.Do(func() { l.v = l.build() })
	return l.v
}

// set is the set of items, made on first use.
type set struct {
	once  sync.Once
	items []string
	m     map[string]bool
}

func (s *set) get() map[string]bool {
	s.once.Do(func() {
		s.m = make(map[string]bool, len(s.items))
		for _, it := range s.items {
			s.m[it] = true
		}
	})
	return s.m
}

// pattern is expr, compiled on first use.
type pattern struct {
	once sync.Once
	expr string
	re   *regexp.Regexp
}

func (p *pattern) get() *regexp.Regexp {
	p.once.Do(func() { p.re = regexp.MustCompile(p.expr) })
	return p.re
}
