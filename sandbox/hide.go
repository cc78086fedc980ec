//go:build unix

package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// defaultHidden are the credential stores hidden from commands, relative
// to the home directory; a trailing * is a glob.
var defaultHidden = []string{
	".ssh", ".aws", ".config/gcloud", ".azure", ".kube", ".docker/config.json", ".netrc",
	".git-credentials", ".config/gh", ".npmrc", ".pypirc", ".cargo/credentials*", ".gnupg",
	".password-store", ".pgpass", ".config/hub", ".terraform.d/credentials.tfrc.json",
}

// DefaultHidden lists what commands cannot read by default, for the
// environment env (HOME, XDG_CONFIG_HOME, XDG_STATE_HOME): the credential
// stores above and agent-lsp's own configuration and state directories
// (the API key, the transcripts). Globs stay unexpanded; extra paths from
// the configuration are added by the caller.
func DefaultHidden(env []string) []string {
	get := func(name string) string {
		for i := len(env) - 1; i >= 0; i-- {
			if v, ok := strings.CutPrefix(env[i], name+"="); ok {
				return v
			}
		}
		return ""
	}
	home := get("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	var out []string
	if home != "" && filepath.IsAbs(home) {
		for _, p := range defaultHidden {
			out = append(out, filepath.Join(home, p))
		}
	}
	config, state := get("XDG_CONFIG_HOME"), get("XDG_STATE_HOME")
	if !filepath.IsAbs(config) && home != "" {
		config = filepath.Join(home, ".config")
	}
	if !filepath.IsAbs(state) && home != "" {
		state = filepath.Join(home, ".local", "state")
	}
	for _, d := range []string{config, state} {
		if filepath.IsAbs(d) {
			out = append(out, filepath.Join(d, "agent-lsp"))
		}
	}
	return out
}

// hideOps hides each existing hidden path: an empty read-only tmpfs over a
// directory, /dev/null over a file. A hidden directory that holds the
// workspace or the sandbox's own state directory (agent-lsp's state dir
// does) keeps those visible inside it.
func (s *Sandbox) hideOps() []mountOp {
	var paths []string
	for _, pat := range s.opts.Hide {
		matches := []string{pat}
		if strings.ContainsAny(pat, "*?[") {
			matches, _ = filepath.Glob(pat)
		}
		for _, p := range matches {
			if real, err := filepath.EvalSymlinks(p); err == nil && real != "/" && !slices.Contains(paths, real) {
				paths = append(paths, real)
			}
		}
	}
	// Outer directories first; what lies inside one is hidden with it.
	slices.SortFunc(paths, func(a, b string) int { return len(a) - len(b) })
	var ops []mountOp
	var hidden []string
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil || within(s.opts.Workspace, p) || slices.ContainsFunc(hidden, func(h string) bool { return within(h, p) }) {
			continue // the workspace's own files are the agent's to read
		}
		hidden = append(hidden, p)
		if !fi.IsDir() {
			ops = append(ops, mountOp{Kind: mountNull, Dst: p})
			continue
		}
		ops = append(ops, mountOp{Kind: mountTmpfs, Dst: p})
		for _, keep := range []string{s.opts.Workspace, s.dirs.Root} {
			if within(p, keep) {
				ops = append(ops, mountOp{Kind: mountBind, Src: keep, Dst: keep})
			}
		}
		ops = append(ops, mountOp{Kind: mountRO, Dst: p})
	}
	return ops
}
