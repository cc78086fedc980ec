package permission

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Reads the rule lists would otherwise let through: values glued to their
// option, files read out of git's history, git's own configuration, and
// symlinks inside the workspace that lead out of it, reached by a glob or a
// recursive reader that follows links.

// Bounds on the file-system work one check does.
const (
	maxGlobMatches = 2000
	maxWalkEntries = 20000
)

// attachedValue returns the path-like value glued to a short option
// (`-f/etc/passwd`, `-f.env`, `-xzf/tmp/a.tar`), or "".
func attachedValue(opt string, patterns bool) string {
	if len(opt) < 3 || opt[0] != '-' || opt[1] == '-' {
		return ""
	}
	if patterns && opt[1] == 'e' {
		return "" // grep -e/foo/, sed -es/a/b/: a pattern
	}
	v := opt[2:]
	if strings.ContainsAny(v, "/~") || strings.HasPrefix(v, ".") {
		if pathWorthy(v) {
			return v
		}
	}
	if patterns {
		return "" // -e/foo/ is a pattern
	}
	// Bundled flags: the value starts at the first slash or tilde.
	if k := strings.IndexAny(opt, "/~"); k > 2 && pathWorthy(opt[k:]) {
		return opt[k:]
	}
	return ""
}

// attachedValues returns every value a bundle of short options may carry
// glued to its last letters: -bf/etc/passwd is -b -f /etc/passwd, -Ff.env
// is -F -f .env. Which letter takes a value differs per program, so each
// suffix after the second character that looks like a path is a
// candidate; a candidate inside the workspace reads as allowed, so only
// the ones that lead out or name a secret change a verdict. For programs
// whose first operand is a pattern, a bundle with -e before the value is a
// pattern (grep -he/x/).
func attachedValues(opt string, patterns bool) []string {
	var out []string
	if v := attachedValue(opt, patterns); v != "" {
		out = append(out, v)
	}
	if len(opt) < 4 || opt[0] != '-' || opt[1] == '-' || strings.ContainsAny(opt, "= ") {
		return out
	}
	for j := 2; j < len(opt); j++ {
		if patterns && opt[j-1] == 'e' {
			break
		}
		if l := opt[j-1]; !(l >= 'a' && l <= 'z' || l >= 'A' && l <= 'Z') {
			continue // a value starts after an option letter (not inside ./x)
		}
		v := opt[j:]
		if !(strings.HasPrefix(v, "/") || strings.HasPrefix(v, "~") || strings.HasPrefix(v, ".")) || !pathWorthy(v) {
			continue
		}
		if len(out) == 0 || out[len(out)-1] != v {
			out = append(out, v)
		}
	}
	return out
}

// pathWorthy skips values such as `/` or `,` that are delimiters rather
// than paths (cut -d/), but keeps anything naming a file or climbing.
func pathWorthy(v string) bool {
	if strings.Contains(v, "..") || strings.HasPrefix(v, "~") {
		return true
	}
	for _, r := range v {
		if r != '/' && r != '.' {
			return true
		}
	}
	return false
}

// gitObjectPath returns PATH of a git object name REV:PATH (or :PATH,
// :N:PATH), or "".
func gitObjectPath(arg string) string {
	if strings.HasPrefix(arg, "-") || urlLike.get().MatchString(arg) {
		return ""
	}
	_, p, ok := strings.Cut(arg, ":")
	if !ok || strings.HasPrefix(p, "/") {
		return "" // :/message searches commit messages
	}
	if len(p) > 1 && p[0] >= '0' && p[0] <= '3' && p[1] == ':' {
		p = p[2:]
	}
	return p
}

// gitConfigPath reports git's configuration files and directories, which
// may hold credentials (a token in a remote URL, a credential helper's
// store): .git/config, config.worktree, modules' config, and .git itself.
func gitConfigPath(rel string) bool {
	segs := strings.Split(rel, "/")
	for i, s := range segs {
		if foldSegment(s) != ".git" {
			continue
		}
		if i == len(segs)-1 {
			return true
		}
		switch foldSegment(segs[len(segs)-1]) {
		case "config", "config.worktree", "credentials", "fetch_head":
			return true
		}
	}
	return false
}

// globMatches expands a shell glob against the real tree the way bash does
// by default (no dot-files unless the pattern's segment starts with a dot;
// [!x] is negation). ok is false when it cannot say: a bad pattern, or more
// than maxGlobMatches matches.
func globMatches(cwd, pattern string) ([]string, bool) {
	if cwd == "" {
		return nil, false
	}
	start := cwd
	if strings.HasPrefix(pattern, "/") {
		start, pattern = "/", strings.TrimPrefix(pattern, "/")
	}
	paths := []string{start}
	for _, seg := range strings.Split(pattern, "/") {
		if seg == "" {
			continue
		}
		var next []string
		if !strings.ContainsAny(seg, "*?[") {
			for _, p := range paths {
				if q := filepath.Join(p, seg); exists(q) {
					next = append(next, q)
				}
			}
			paths = next
			continue
		}
		pat := strings.ReplaceAll(seg, "[!", "[^")
		if _, err := path.Match(pat, ""); err != nil {
			return nil, false
		}
		for _, p := range paths {
			ents, err := os.ReadDir(p)
			if err != nil {
				continue
			}
			for _, e := range ents {
				n := e.Name()
				if strings.HasPrefix(n, ".") && !strings.HasPrefix(seg, ".") {
					continue
				}
				if ok, _ := path.Match(pat, n); ok {
					next = append(next, filepath.Join(p, n))
					if len(next) > maxGlobMatches {
						return nil, false
					}
				}
			}
		}
		paths = next
	}
	return paths, true
}

// readGlob checks every file a glob operand expands to.
func (c *checker) readGlob(text string, pl *plan) {
	if globMaySecret(text) {
		pl.ask(text, "glob may match a sensitive file: "+text)
	}
	// The literal directory the glob starts from is read like any path
	// (~/.ssh/*, /etc/*, ../*), matches or not.
	if v, why := c.readPath(globBase(text)); v == Deny {
		pl.deny(text, why)
		return
	} else if v == Ask {
		pl.ask(text, why)
	}
	ms, ok := globMatches(c.cwd, text)
	if !ok {
		pl.ask(text, "glob cannot be expanded here to check what it reads")
		return
	}
	for _, m := range ms {
		if v, why := c.readPath(m); v == Deny {
			pl.deny(text, "glob "+text+" matches "+c.e.rel(m)+": "+why)
			return
		} else if v == Ask {
			pl.ask(text, "glob "+text+" matches "+c.e.rel(m)+": "+why)
		}
	}
}

// followsLinks reports readers that descend into directories following
// every symlink: grep -R, rg -L, ag -f, zip -r without -y, cp/tar/rsync
// dereferencing.
func followsLinks(base string, args []word) bool {
	// Unique prefixes too: grep --der is --dereference-recursive.
	switch base {
	case "grep", "egrep", "fgrep":
		args = longPrefixes(args, "--dereference-recursive")
	case "rg", "ag":
		args = longPrefixes(args, "--follow")
	case "zip":
		args = longPrefixes(args, "--recurse-paths")
	default:
		args = longPrefixes(args, "--dereference", "--copy-links")
	}
	for _, a := range args {
		t := a.text
		short := strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "--")
		switch base {
		case "grep", "egrep", "fgrep":
			if t == "--dereference-recursive" || short && strings.Contains(t, "R") {
				return true
			}
		case "find":
			if t == "-L" || t == "-follow" {
				return true
			}
		case "rg", "ag":
			if t == "--follow" || t == "-L" || base == "ag" && t == "-f" {
				return true
			}
		case "zip":
			if short && strings.Contains(t, "r") || t == "--recurse-paths" {
				return !hasFlag(args, "y", "--symlinks") // zip stores a link's target
			}
		case "cp", "rsync", "tar", "du", "ls", "tree", "chmod", "chown":
			if t == "--dereference" || t == "--copy-links" || short && strings.ContainsAny(t, "L") || base == "tar" && short && strings.Contains(t, "h") {
				return true
			}
		}
	}
	return false
}

func hasFlag(args []word, letters, long string) bool {
	for _, a := range args {
		if a.text == long || strings.HasPrefix(a.text, "-") && !strings.HasPrefix(a.text, "--") && strings.ContainsAny(a.text, letters) {
			return true
		}
	}
	return false
}

// linksOut walks dir (bounded) for a symlink that leads out of the
// workspace; it returns the first, or why it could not tell.
func (c *checker) linksOut(dir string) (link string, unsure bool) {
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if n++; n > maxWalkEntries {
			unsure = true
			return filepath.SkipAll
		}
		if d.Type()&fs.ModeSymlink != 0 {
			if _, why := c.e.resolve(p); why != "" {
				link = p
				return filepath.SkipAll
			}
		}
		return nil
	})
	if err != nil {
		unsure = true
	}
	return link, unsure
}

// followChecks refuses a link-following recursive read over a directory
// that holds a symlink leading out of the workspace.
func (c *checker) followChecks(base string, args []word, pl *plan) {
	if !followsLinks(base, args) {
		return
	}
	ops := operands(args)
	if patternFirst.get()[base] && len(ops) > 0 && !hasFlag(args, "ef", "--regexp") {
		ops = ops[1:] // the pattern
	}
	dirs := []string{}
	for _, a := range ops {
		if a.static && !a.glob {
			dirs = append(dirs, a.text)
		}
	}
	if len(dirs) == 0 {
		dirs = append(dirs, ".") // recursive readers default to the working directory
	}
	for _, d := range dirs {
		abs, ok := c.abs(d)
		if !ok {
			pl.ask(d, base+" follows symlinks under a directory that cannot be resolved")
			continue
		}
		if fi, err := os.Stat(abs); err != nil || !fi.IsDir() || !within(c.e.ws, abs) && !within(c.e.real(), abs) {
			continue // not a directory, or outside (asked as a read already)
		}
		link, unsure := c.linksOut(abs)
		switch {
		case link != "":
			pl.deny(d, base+" follows symlinks, and "+c.e.rel(link)+" leads out of the workspace")
			return
		case unsure:
			pl.ask(d, base+" follows symlinks under a directory too large to check for links leading out")
		}
	}
}
