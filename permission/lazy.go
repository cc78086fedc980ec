package permission

import (
	"regexp"
	"sync"
)

// lazyRegexp compiles expr on first use, not at start-up: the language
// server's initialize latency is measured, and most patterns serve only
// some tool calls. The package's lookup tables are made on first use for
// the same reason (sync.OnceValue): a process that checks no command, as
// a one-turn `agent-lsp run` answering in text, never builds them.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// lazySet is the set of items, made on first use.
func lazySet(items ...string) func() map[string]bool {
	return sync.OnceValue(func() map[string]bool {
		m := make(map[string]bool, len(items))
		for _, it := range items {
			m[it] = true
		}
		return m
	})
}
