package permission

import (
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// within reports whether p (absolute, cleaned) is root or below it.
func within(root, p string) bool {
	if p == root {
		return true
	}
	if root == string(filepath.Separator) {
		return strings.HasPrefix(p, root)
	}
	return strings.HasPrefix(p, root+string(filepath.Separator))
}

// foldSegment normalises one path segment the way case-insensitive and
// Windows file systems compare names: lower case, trailing dots and spaces
// dropped.
func foldSegment(s string) string {
	return strings.TrimRight(strings.ToLower(s), ". ")
}

var shortName = &pattern{expr: `^[a-z0-9_-]{1,6}~[0-9]+$`}

// protectedDirs are directories whose files run code or hold the agent's own
// configuration; a file tool never writes inside them.
var protectedDirs = &lazy[map[string]string]{build: func() map[string]string {
	return map[string]string{
		".git":       "git metadata (hooks and config run commands)",
		".agent-lsp": "agent-lsp's own configuration",
		".vscode":    "editor settings and tasks (can run commands on open)",
		".idea":      "IDE run configurations",
	}
}}

// protectedWrite classifies a write to the workspace-relative, slash-separated
// path rel. It returns Deny for paths whose change runs code or rewrites the
// agent's own rules, Ask for paths that deserve a look, and Undecided for the
// rest.
func protectedWrite(rel string) (Verdict, string) {
	segs := strings.Split(rel, "/")
	for i, s := range segs {
		f := foldSegment(s)
		if why, ok := protectedDirs.get()[f]; ok && i < len(segs)-1 {
			return Deny, "protected path " + f + "/**: " + why
		}
		if why, ok := protectedDirs.get()[f]; ok {
			return Deny, "protected path " + f + ": " + why
		}
		if shortName.get().MatchString(f) {
			return Deny, "8.3 short name " + s + " may alias a protected directory"
		}
	}
	base := foldSegment(segs[len(segs)-1])
	switch {
	case base == ".envrc":
		return Deny, "protected path .envrc: direnv runs it on cd"
	case strings.HasPrefix(base, ".env"):
		return Ask, "protected path .env*: environment and secrets"
	case len(segs) >= 2 && foldSegment(segs[0]) == ".husky":
		// Husky points core.hooksPath here: git runs these on commit.
		return Ask, "protected path .husky/**: git hooks installed by husky"
	case len(segs) >= 3 && foldSegment(segs[0]) == ".github" && foldSegment(segs[1]) == "workflows":
		return Ask, "CI workflow: runs with repository secrets"
	case base == ".pre-commit-config.yaml" || base == "lefthook.yml" || base == ".lefthook.yml":
		// Hook managers: the installed .git/hooks script runs what they list.
		return Ask, "protected path " + base + ": git hooks run by a hook manager"
	case foldSegment(segs[0]) == ".devcontainer" || base == ".devcontainer.json":
		// initializeCommand runs on the host when the editor opens the container.
		return Ask, "dev container configuration: its initializeCommand runs on the host"
	case base == ".gitlab-ci.yml" && len(segs) == 1:
		return Ask, "CI workflow: runs with repository secrets"
	case base == ".mcp.json" || base == ".gitattributes" || base == ".gitmodules" || base == ".gitconfig":
		return Ask, "configuration that makes tools run commands: " + base
	}
	return Undecided, ""
}

// protectedForShell is protectedWrite for shell redirections and write
// options, where the corpus asks rather than denies.
func protectedForShell(rel string) (bool, string) {
	v, why := protectedWrite(rel)
	return v >= Ask, why
}

var idFile = &pattern{expr: `^id_[a-z0-9_-]+(\.pub)?$`}

// sensitiveName reports whether a file name (base name) usually holds
// secrets.
func sensitiveName(name string) bool {
	b := foldSegment(path.Base(filepath.ToSlash(name)))
	switch {
	case strings.HasPrefix(b, ".env"), b == ".netrc", b == ".git-credentials", b == ".pgpass",
		b == ".npmrc", b == ".pypirc":
		return true
	case strings.HasSuffix(b, ".pem"), strings.HasSuffix(b, ".key"), strings.HasSuffix(b, ".p12"),
		strings.HasSuffix(b, ".pfx"):
		return true
	}
	if idFile.get().MatchString(b) {
		return true
	}
	// Credential stores named by their directory: .aws/credentials,
	// .docker/config.json, .kube/config, .config/gh/hosts.yml,
	// .cargo/credentials.toml, .config/gcloud/..., .azure/...
	segs := strings.Split(foldSegment(filepath.ToSlash(name)), "/")
	for i, d := range segs[:len(segs)-1] {
		d = foldSegment(d)
		switch {
		case d == ".aws" && (b == "credentials" || b == "config"),
			d == ".docker" && b == "config.json",
			d == ".kube" && b == "config",
			d == "gh" && i > 0 && foldSegment(segs[i-1]) == ".config" && b == "hosts.yml",
			d == ".cargo" && strings.HasPrefix(b, "credentials"),
			d == "gcloud" || d == ".azure" || d == ".gnupg" || d == ".password-store" || d == ".ssh":
			return true
		}
	}
	return false
}

// hostileRune reports characters that can hide text from a reviewer or be
// parsed differently by different tools: control characters other than tab
// and newline, bidi controls, zero-width characters, unusual spaces, and the
// Unicode replacement character that stands for invalid UTF-8.
func hostileRune(r rune) bool {
	switch {
	case r < 0x20 && r != '\t' && r != '\n':
		return true
	case r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r == 0xa0, r == 0xad, r == 0x061c, r == 0x115f, r == 0x1160, r == 0x1680, r == 0x180e:
		return true
	case r >= 0x2000 && r <= 0x200f, r >= 0x2028 && r <= 0x202f, r >= 0x205f && r <= 0x206f:
		return true
	case r == 0x3000, r == 0x3164, r == 0xfeff, r == 0xffa0, r == utf8.RuneError:
		return true
	case r >= 0xfff9 && r <= 0xfffb, r >= 0xe0000 && r <= 0xe007f:
		return true
	}
	return false
}

// hostileText returns a reason when s contains a hostile character or is
// not valid UTF-8.
func hostileText(s string) string {
	if !utf8.ValidString(s) {
		return "invalid UTF-8"
	}
	for _, r := range s {
		if hostileRune(r) {
			switch {
			case r == 0:
				return "NUL byte"
			case r == '\r':
				return "carriage return"
			case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
				return "control character"
			case (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f || r == 0x061c:
				return "bidi control character"
			}
			return "invisible or unusual space character"
		}
	}
	return ""
}
