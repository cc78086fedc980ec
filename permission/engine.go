package permission

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
)

type rule struct {
	pat string
	src string // where the rule came from, for reasons
}

func (r rule) String() string { return fmt.Sprintf("`%s` (%s)", r.pat, r.src) }

// table is the merged rules of one tool.
type table struct {
	def              Verdict
	defSrc           string
	allow, ask, deny []rule
}

// Engine checks tool calls against the merged rules of its rule sets. It is
// safe for concurrent use.
type Engine struct {
	ws   string        // absolute, cleaned workspace root
	real func() string // ws with symlinks resolved, at the first path check

	// A tool's table is merged from sets at its first check: a run that
	// calls no tool merges none.
	sets   []RuleSet
	names  map[string]bool // the tools with a table
	tmu    sync.Mutex
	tables map[string]*table

	mu      sync.RWMutex
	session map[string][]rule

	// onCommand, when set (tests only), is called for every simple
	// command the checker decides: a test makes it panic to see that a
	// recovered crash is deny.
	onCommand func(text string)
}

// Limits on the work one check may do.
const (
	// SoftCommandLimit is the length above which a command is at least ask:
	// approval dialogs cannot show it whole. It is still parsed, so a visible
	// deny stays deny.
	SoftCommandLimit = 8 << 10
	// HardCommandLimit is the length above which a command is not parsed at
	// all and is denied: nothing in it could be seen, so nothing may run.
	HardCommandLimit = 64 << 10
	// MaxNesting bounds re-parsing of `bash -c`, eval, and similar strings.
	MaxNesting = 8
	// MaxPathLen is the longest path a file tool may name.
	MaxPathLen = 4096
)

// New builds an engine for the workspace root ws (an absolute path) from the
// built-in defaults and the given rule sets, in order: later user sets
// override earlier defaults; workspace sets can only tighten.
func New(ws string, sets ...RuleSet) (*Engine, error) {
	if !filepath.IsAbs(ws) {
		return nil, fmt.Errorf("permission: workspace root %q is not absolute", ws)
	}
	e := &Engine{ws: filepath.Clean(ws), tables: map[string]*table{}, session: map[string][]rule{}}
	e.real = sync.OnceValue(func() string {
		if r, err := filepath.EvalSymlinks(e.ws); err == nil {
			return r
		}
		return e.ws
	})
	names := map[string]bool{}
	for _, t := range KnownTools {
		names[t] = true
	}
	var errs []error
	for _, s := range sets {
		for t, tr := range s.Tools {
			if !known(t) {
				errs = append(errs, fmt.Errorf("%s: unknown tool %q", s.Source, t))
			}
			for _, p := range append(append(append([]string{}, tr.Allow...), tr.Ask...), tr.Deny...) {
				if msg := checkPattern(t, p); msg != "" {
					errs = append(errs, fmt.Errorf("%s: permissions.%s: %s", s.Source, t, msg))
				}
			}
			names[t] = true
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	e.sets, e.names = slices.Clone(sets), names
	return e, nil
}

func merge(tool string, sets []RuleSet) *table {
	builtin, builtinAllow := true, true
	for _, s := range sets {
		tr, ok := s.Tools[tool]
		if !ok || tr.Builtin == nil {
			continue
		}
		if s.Origin == FromUser {
			builtin = *tr.Builtin
		} else if !*tr.Builtin {
			builtinAllow = false // a workspace may drop built-in allows, nothing else
		}
	}
	b := builtinRules(tool)
	t := &table{def: b.Default, defSrc: "built-in default"}
	if builtin {
		if builtinAllow {
			t.allow = rules(b.Allow, "built-in")
		}
		t.ask = rules(b.Ask, "built-in")
		t.deny = rules(b.Deny, "built-in")
	}
	for _, s := range sets {
		tr, ok := s.Tools[tool]
		if !ok || s.Origin != FromUser {
			continue
		}
		if tr.Default != Undecided {
			t.def, t.defSrc = tr.Default, "default of "+s.Source
		}
		t.allow = append(t.allow, rules(tr.Allow, s.Source)...)
		t.ask = append(t.ask, rules(tr.Ask, s.Source)...)
		t.deny = append(t.deny, rules(tr.Deny, s.Source)...)
	}
	for _, s := range sets {
		tr, ok := s.Tools[tool]
		if !ok || s.Origin != FromWorkspace {
			continue
		}
		if tr.Default > t.def {
			t.def, t.defSrc = tr.Default, "default of "+s.Source
		}
		// Workspace allow rules are ignored: a cloned repository must not
		// grant itself anything.
		t.ask = append(t.ask, rules(tr.Ask, s.Source)...)
		t.deny = append(t.deny, rules(tr.Deny, s.Source)...)
	}
	return t
}

func rules(pats []string, src string) []rule {
	out := make([]rule, 0, len(pats))
	for _, p := range pats {
		out = append(out, rule{pat: p, src: src})
	}
	return out
}

func (e *Engine) table(tool string) *table {
	e.tmu.Lock()
	defer e.tmu.Unlock()
	if t, ok := e.tables[tool]; ok {
		return t
	}
	if !e.names[tool] {
		return &table{def: Ask, defSrc: "unknown tool"}
	}
	t := merge(tool, e.sets)
	e.tables[tool] = t
	return t
}

// Root returns the workspace root the engine checks against.
func (e *Engine) Root() string { return e.ws }

// Rules lists the effective rules of a tool, one per line, for display
// (`agent-lsp policy --rules`).
func (e *Engine) Rules(tool string) []string {
	t := e.table(tool)
	var out []string
	for _, r := range t.deny {
		out = append(out, "deny  "+r.String())
	}
	for _, r := range t.ask {
		out = append(out, "ask   "+r.String())
	}
	e.mu.RLock()
	for _, r := range e.session[tool] {
		out = append(out, "allow "+r.String())
	}
	e.mu.RUnlock()
	for _, r := range t.allow {
		out = append(out, "allow "+r.String())
	}
	out = append(out, fmt.Sprintf("default %s (%s)", t.def, t.defSrc))
	return out
}

// AllowForSession adds an allow rule for the rest of the engine's life. It
// can lift an ask that comes from the rule lists or the default, never a
// deny rule and never a structural ask. Patterns broad enough to allow
// everything, or anything an exec-wrapper runs, are refused.
func (e *Engine) AllowForSession(tool, pattern string) error {
	if msg := checkPattern(tool, pattern); msg != "" {
		return fmt.Errorf("permission: %s", msg)
	}
	if tool == MCPTable {
		if msg := mcpSessionTooBroad(pattern); msg != "" {
			return fmt.Errorf("permission: session rule %q refused: %s", pattern, msg)
		}
	} else if tool == "bash" {
		if msg := tooBroad(pattern); msg != "" {
			return fmt.Errorf("permission: session rule %q refused: %s", pattern, msg)
		}
	} else if strings.HasPrefix(pattern, "**") || strings.HasPrefix(pattern, "/") || strings.Contains(pattern, "..") {
		return fmt.Errorf("permission: session rule %q refused: too broad or outside the workspace", pattern)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, r := range e.session[tool] {
		if r.pat == pattern {
			return nil
		}
	}
	e.session[tool] = append(e.session[tool], rule{pat: pattern, src: "allowed for this session"})
	return nil
}

// SessionRules returns the session rules of a tool, sorted.
func (e *Engine) SessionRules(tool string) []string {
	e.mu.RLock()
	defer e.mu.RUnlock()
	var out []string
	for _, r := range e.session[tool] {
		out = append(out, r.pat)
	}
	sort.Strings(out)
	return out
}

func (e *Engine) sessionRules(tool string) []rule {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return append([]rule(nil), e.session[tool]...)
}

// listVerdict applies the rule lists of a tool: deny beats a session allow,
// which beats ask, which beats allow; the default decides when nothing
// matches. strict are texts deny and ask rules are tried on (for bash: with
// argv[0] reduced to its base name); loose are texts allow rules are tried on.
//
// noSession skips the session rules: for a command with a denied program
// inside it.
func (e *Engine) listVerdict(tool string, strict, loose []string, noSession bool, match func(r rule, text string, strict bool) bool) (Verdict, string, bool) {
	t := e.table(tool)
	for _, r := range t.deny {
		for _, s := range strict {
			if match(r, s, true) {
				return Deny, "deny rule " + r.String(), false
			}
		}
	}
	for _, r := range e.sessionRules(tool) {
		if noSession {
			break
		}
		for _, s := range loose {
			if match(r, s, false) {
				return Allow, "session rule " + r.String(), false
			}
		}
	}
	for _, r := range t.ask {
		for _, s := range strict {
			if match(r, s, true) {
				return Ask, "ask rule " + r.String(), true
			}
		}
	}
	for _, r := range t.allow {
		for _, s := range loose {
			if match(r, s, false) {
				return Allow, "allow rule " + r.String(), false
			}
		}
	}
	return t.def, "no rule matches; " + t.defSrc + " is " + t.def.String(), t.def == Ask
}

// pathMatch matches path rules; deny and ask rules fold case.
func pathMatch(r rule, rel string, strict bool) bool { return matchPath(r.pat, rel, strict) }

// exists reports whether p exists without following a final symlink.
func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}
