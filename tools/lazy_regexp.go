package tools

import (
	"regexp"
	"sync"
)

// lazyRegexp compiles expr on first use, not at start-up: the language
// server's initialize latency is measured, and most patterns serve only
// some tool calls.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
