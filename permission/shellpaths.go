package permission

import (
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// writeTarget checks a redirection or option that writes to a file.
func (c *checker) writeTarget(w *syntax.Word) (Part, bool) {
	if w == nil {
		return Part{}, false
	}
	ws := fields(w)
	if len(ws) != 1 || !ws[0].static || ws[0].glob {
		return Part{Text: "> " + source(w), Verdict: Ask, Structural: true, Reason: "write target is not a literal path"}, true
	}
	return c.writePath(ws[0].text)
}

// writePath checks a literal path a command writes.
func (c *checker) writePath(p string) (Part, bool) {
	if harmlessDevice(p) {
		return Part{}, false
	}
	abs, ok := c.abs(p)
	text := "> " + p
	if !ok {
		return Part{Text: text, Verdict: Ask, Structural: true, Reason: "writes where the path cannot be resolved: " + p}, true
	}
	if !within(c.e.ws, abs) && !within(c.e.real(), abs) {
		return Part{Text: text, Verdict: Ask, Structural: true, Reason: "writes outside the workspace: " + p}, true
	}
	if bad, why := protectedForShell(c.e.rel(abs)); bad {
		return Part{Text: text, Verdict: Ask, Structural: true, Reason: "writes to a " + why}, true
	}
	real, why := c.e.resolve(abs)
	if why != "" {
		return Part{Text: text, Verdict: Ask, Structural: true, Reason: "writes " + p + ", which " + why}, true
	}
	if bad, why := protectedForShell(c.e.rel(real)); bad {
		return Part{Text: text, Verdict: Ask, Structural: true, Reason: "writes through a symlink to a " + why}, true
	}
	return Part{}, false
}

// readTarget checks an input redirection.
func (c *checker) readTarget(w *syntax.Word) (Part, bool) {
	ws := fields(w)
	if len(ws) != 1 || !ws[0].static {
		return Part{Text: "< " + source(w), Verdict: Ask, Structural: true, Reason: "input file is not a literal path"}, true
	}
	if v, why := c.readPath(ws[0].text); v >= Ask {
		return Part{Text: "< " + ws[0].text, Verdict: v, Structural: true, Reason: why}, true
	}
	return Part{}, false
}

// readPath classifies a literal path a command reads: outside the workspace
// or sensitive is ask.
func (c *checker) readPath(p string) (Verdict, string) {
	if harmlessDevice(p) {
		return Allow, ""
	}
	if sensitiveName(p) {
		// A sensitive name behind a symlink leading out is still the
		// symlink read (deny), not only a sensitive file (ask).
		if abs, ok := c.abs(p); ok && (within(c.e.ws, abs) || within(c.e.real(), abs)) {
			if _, why := c.e.resolve(abs); strings.Contains(why, "outside") {
				return Deny, "reads " + p + ", which " + why
			}
		}
		return Ask, "names a sensitive file: " + p
	}
	abs, ok := c.abs(p)
	if !ok {
		return Ask, "reads a path that cannot be resolved: " + p
	}
	if !within(c.e.ws, abs) && !within(c.e.real(), abs) {
		return Ask, "reads outside the workspace: " + p
	}
	real, why := c.e.resolve(abs)
	if why != "" {
		if strings.Contains(why, "outside") {
			// A link in the workspace leading out is what a hostile
			// repository plants: refused, as the file tools refuse it.
			return Deny, "reads " + p + ", which " + why
		}
		return Ask, "reads " + p + ", which " + why
	}
	if gitConfigPath(c.e.rel(abs)) || gitConfigPath(c.e.rel(real)) {
		return Ask, "reads git's configuration, which may hold credentials: " + p
	}
	return Allow, ""
}

// abs resolves p against the working directory; false when it cannot be
// known (~, unknown working directory).
func (c *checker) abs(p string) (string, bool) {
	if strings.HasPrefix(p, "~") {
		return "", false
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p), true
	}
	if c.cwd == "" {
		return "", false
	}
	return filepath.Join(c.cwd, p), true
}

func harmlessDevice(p string) bool {
	switch p {
	case "/dev/null", "/dev/stdin", "/dev/stdout", "/dev/stderr":
		return true
	}
	return false
}

// parseOK parses a command the way CheckCommand does (used by tests).
func parseOK(cmd string) (*syntax.File, error) {
	return syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmd), "")
}
