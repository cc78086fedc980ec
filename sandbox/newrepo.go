//go:build unix

package sandbox

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
)

// A repository a command creates (git init, git clone of a local one) has
// no original to revert to, and a git run outside in it (the editor's git
// integration, a shell prompt) would obey whatever the command put in its
// config or hooks. When the command is over, neutralise keeps what git
// init and git clone write and removes the rest.

// safeGitKeys are the config keys kept in a new repository (section.key,
// lower case; a subsection may sit between them). None runs a program.
var safeGitKeys = map[string]bool{
	"core.repositoryformatversion": true, "core.filemode": true, "core.bare": true, "core.logallrefupdates": true,
	"core.ignorecase": true, "core.precomposeunicode": true, "core.symlinks": true,
	"extensions.objectformat": true, "init.defaultbranch": true, "user.name": true, "user.email": true,
	"remote.url": true, "remote.fetch": true, "branch.remote": true, "branch.merge": true,
}

// minimalGitConfig replaces a config that holds anything else.
const minimalGitConfig = "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n"

// neutralise makes the new git directory dir harmless for a git run
// outside: hooks (but the samples), commondir, config.worktree and gitdir
// removed, config reduced to git init's when it says anything else.
func neutralise(dir, rel string) []string {
	var notes []string
	note := func(what string) { notes = append(notes, "new repository "+rel+": "+what+": git reads or runs it") }
	hooks := filepath.Join(dir, "hooks")
	if entries, err := os.ReadDir(hooks); err == nil {
		for _, e := range entries {
			if !strings.HasSuffix(e.Name(), ".sample") && os.RemoveAll(filepath.Join(hooks, e.Name())) == nil {
				note("removed hooks/" + e.Name())
			}
		}
	} else if exists(hooks) && os.RemoveAll(hooks) == nil {
		note("removed hooks")
	}
	for _, name := range []string{"commondir", "config.worktree", "gitdir"} {
		if p := filepath.Join(dir, name); exists(p) && os.RemoveAll(p) == nil {
			note("removed " + name)
		}
	}
	cfg := filepath.Join(dir, "config")
	fi, err := os.Lstat(cfg)
	if err != nil {
		return notes
	}
	if fi.Mode().IsRegular() {
		if b, err := os.ReadFile(cfg); err == nil && safeGitConfig(string(b)) {
			return notes
		}
	}
	if os.RemoveAll(cfg) == nil && os.WriteFile(cfg, []byte(minimalGitConfig), 0o644) == nil {
		note("config reset to git init's")
	}
	return notes
}

// safeGitConfig reports whether every line of a git config file is blank,
// a comment, a plain section header or a safe key with a plain value.
// Anything it does not fully understand (continuation lines, includes,
// odd quoting) makes it unsafe.
func safeGitConfig(text string) bool {
	section := ""
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || line[0] == '#' || line[0] == ';':
			continue
		case line[0] == '[':
			name, ok := parseSection(line)
			if !ok {
				return false
			}
			section = name
			continue
		}
		if section == "" || strings.HasSuffix(line, "\\") {
			return false
		}
		key, val, _ := strings.Cut(line, "=")
		key, val = strings.ToLower(strings.TrimSpace(key)), strings.TrimSpace(val)
		if !safeGitKeys[section+"."+key] || strings.ContainsAny(val, "\\`$;|&") {
			return false
		}
		if key == "url" && (strings.Contains(val, "::") || strings.HasPrefix(val, "-")) {
			return false // ext::sh -c ..., a remote helper
		}
	}
	return sc.Err() == nil
}

// parseSection reads `[name]` or `[name "sub"]` and returns name.
func parseSection(line string) (string, bool) {
	inner, ok := strings.CutSuffix(line[1:], "]")
	if !ok {
		return "", false
	}
	name, sub, hasSub := strings.Cut(inner, " ")
	name = strings.ToLower(name)
	if name == "" || strings.ContainsAny(name, ".\"") {
		return "", false
	}
	if hasSub && (len(sub) < 2 || sub[0] != '"' || sub[len(sub)-1] != '"' || strings.ContainsAny(sub[1:len(sub)-1], "\"\\")) {
		return "", false
	}
	return name, true
}
