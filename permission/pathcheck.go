package permission

import (
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
)

var (
	drivePath = &pattern{expr: `^[A-Za-z]:`}
	uriScheme = &pattern{expr: `^[A-Za-z][A-Za-z0-9+.-]*://`}
)

// CheckPath decides whether tool may touch p (relative to the workspace root
// or absolute), for writing when write is set. Paths outside the workspace,
// ambiguous spellings (NUL, control characters, backslashes, `~`, `$VAR`,
// drive letters, URIs other than file://) and symlinks leading out are
// denied; writes into protected paths are denied or asked; sensitive files
// are asked; then the tool's rule table decides.
func (e *Engine) CheckPath(tool, p string, write bool) Decision {
	var d Decision
	text := p
	deny := func(why string) Decision {
		d.add(Part{Text: text, Verdict: Deny, Reason: why, Structural: true})
		return d
	}
	switch {
	case p == "":
		return deny("empty path")
	case len(p) > MaxPathLen:
		return deny("path longer than 4096 bytes")
	case strings.ContainsAny(p, "\n\t"):
		return deny("path contains a control character")
	case hostileText(p) != "":
		return deny("path contains a " + hostileText(p))
	case strings.HasPrefix(strings.ToLower(p), "file:"):
		u, err := url.Parse(p)
		if err != nil || (u.Host != "" && u.Host != "localhost") || u.Path == "" {
			return deny("unusable file URI")
		}
		p = u.Path // percent-decoded exactly once
		if hostileText(p) != "" || strings.Contains(p, "%") {
			return deny("file URI decodes to an ambiguous path")
		}
	case uriScheme.get().MatchString(p) && !drivePath.get().MatchString(p):
		return deny("not a file path")
	}
	switch {
	case strings.Contains(p, `\`):
		return deny("backslash in path (ambiguous across platforms)")
	case drivePath.get().MatchString(p):
		return deny("drive-letter path")
	case strings.HasPrefix(p, "~"):
		return deny("file tools do not expand ~")
	case strings.Contains(p, "$"):
		return deny("file tools do not expand $VARIABLES")
	}
	if tool == "glob" {
		// The pattern's literal directory must stay inside; the glob
		// walker keeps itself from following links out.
		if strings.Contains("/"+p+"/", "/../") {
			return deny("glob pattern climbs out of the workspace")
		}
		p = globBase(p)
	}
	abs := p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(e.ws, abs)
	}
	abs = filepath.Clean(abs)
	if !within(e.ws, abs) && !within(e.real(), abs) {
		return deny("outside the workspace")
	}
	real, why := e.resolve(abs)
	if why != "" {
		return deny(why)
	}
	rel := e.rel(real)
	lexRel := e.rel(abs)
	text = lexRel
	var floor Part
	raise := func(v Verdict, why string) {
		if v > floor.Verdict {
			floor = Part{Verdict: v, Reason: why, Structural: true}
		}
	}
	if write {
		for _, r := range []string{lexRel, rel} {
			if v, why := protectedWrite(r); v != Undecided {
				raise(v, why)
			}
		}
	}
	if tool != "glob" && (sensitiveName(lexRel) || sensitiveName(rel)) {
		raise(Ask, "sensitive file (secrets): "+path.Base(rel))
	}
	if !write && tool != "glob" && (gitConfigPath(lexRel) || gitConfigPath(rel)) {
		raise(Ask, "git's configuration may hold credentials: "+lexRel)
	}
	if n := linkCount(real); n > 1 {
		raise(Ask, "hard link: the same file has another name, perhaps outside the workspace")
	}
	if floor.Verdict == Deny {
		floor.Text = text
		d.add(floor)
		return d
	}
	v, why, _ := e.listVerdict(tool, []string{lexRel, rel}, []string{lexRel}, false, pathMatch)
	part := Part{Text: text, Verdict: v, Reason: why}
	if v == Ask && floor.Verdict < Ask {
		part.Suggest = GeneralisePath(lexRel)
	}
	if floor.Verdict > v || (floor.Verdict == v && v == Ask && floor.Reason != "") {
		floor.Text = text
		part = floor
	}
	d.add(part)
	return d
}

// rel returns the workspace-relative slash path of abs (inside the root).
func (e *Engine) rel(abs string) string {
	root := e.ws
	if !within(e.ws, abs) {
		root = e.real()
	}
	r, err := filepath.Rel(root, abs)
	if err != nil {
		return filepath.ToSlash(abs)
	}
	return filepath.ToSlash(r)
}

// resolve follows symlinks in abs as far as the path exists and returns the
// real path, or a reason to deny: a link that leads out of the workspace, or
// a dangling link (which a write would follow to create a file elsewhere).
func (e *Engine) resolve(abs string) (string, string) {
	existing, rest := abs, ""
	for !exists(existing) {
		parent := filepath.Dir(existing)
		if parent == existing {
			break
		}
		rest = filepath.Join(filepath.Base(existing), rest)
		existing = parent
	}
	real, err := filepath.EvalSymlinks(existing)
	if err != nil {
		if fi, lerr := os.Lstat(existing); lerr == nil && fi.Mode()&os.ModeSymlink != 0 {
			return "", "dangling or looping symlink"
		}
		real = existing
	}
	real = filepath.Join(real, rest)
	if !within(e.real(), real) && !within(e.ws, real) {
		return "", "resolves outside the workspace through a symlink"
	}
	return real, ""
}

// globBase returns the literal directory prefix of a glob pattern.
func globBase(p string) string {
	i := strings.IndexAny(p, "*?[{")
	if i < 0 {
		return p
	}
	dir := path.Dir(p[:i] + "x")
	if dir == "." || dir == "" {
		return "."
	}
	return dir
}

// GeneralisePath suggests the session rule a user approving a write to rel
// would expect: the file's directory and everything below it, or the file
// itself at the workspace root.
func GeneralisePath(rel string) string {
	esc := strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`, `{`, `\{`)
	dir := path.Dir(rel)
	if dir == "." || dir == "/" || dir == "" {
		return esc.Replace(rel)
	}
	return esc.Replace(dir) + "/**"
}
