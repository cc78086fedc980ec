//go:build unix

package sandbox

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
)

// scanDepth bounds the search for nested repositories and protected names:
// the workspace root and three levels below it. A full walk costs tens of
// milliseconds per command on a large tree; deeper ones are listed as not
// covered in README.md.
const scanDepth = 3

// commandView is what one command is shown on top of the read-only root,
// and what is checked when it is over.
type commandView struct {
	ops   []mountOp
	views []*gitView
	// before are the protected entries (and .git entries) that existed.
	before map[string]bool
}

// found is one scan of the workspace.
type found struct {
	gitDirs   []string        // real paths of git directories in the workspace
	gitFiles  []string        // ".git" files (gitdir: pointers)
	protected []string        // existing protected entries (no symlinks)
	all       map[string]bool // every .git and protected entry, symlinks too
}

// scan finds, down to scanDepth, the .git entries and the entries named
// like a protected path, plus the root-relative protected paths.
func (s *Sandbox) scan() found {
	ws := s.opts.Workspace
	f := found{all: map[string]bool{}}
	names := map[string]bool{}
	gitOn := false
	for _, p := range s.opts.Protected {
		p = filepath.Clean("/" + p)[1:]
		switch {
		case p == ".git":
			gitOn = true
		case p != "" && !strings.Contains(p, "/"):
			names[p] = true
		case p != "":
			abs := filepath.Join(ws, p)
			if fi, err := os.Lstat(abs); err == nil {
				f.all[abs] = true
				if fi.Mode()&fs.ModeSymlink == 0 {
					f.protected = append(f.protected, abs)
				}
			}
		}
	}
	level := []string{ws}
	for depth := 0; depth <= scanDepth && len(level) > 0; depth++ {
		var next []string
		for _, dir := range level {
			entries, err := os.ReadDir(dir)
			if err != nil {
				continue
			}
			for _, e := range entries {
				p := filepath.Join(dir, e.Name())
				link := e.Type()&fs.ModeSymlink != 0
				switch {
				case e.Name() == ".git" && gitOn:
					f.all[p] = true
					f.addGit(ws, p, e, link)
				case names[e.Name()]:
					f.all[p] = true
					if !link {
						f.protected = append(f.protected, p)
					}
				case e.IsDir() && !link:
					next = append(next, p)
				}
			}
		}
		level = next
	}
	return f
}

// addGit records a .git entry: a directory, or a file or link naming one.
func (f *found) addGit(ws, p string, e fs.DirEntry, link bool) {
	real := p
	switch {
	case link:
		r, err := filepath.EvalSymlinks(p)
		if err != nil {
			return
		}
		real = r
	case !e.IsDir():
		f.gitFiles = append(f.gitFiles, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return
		}
		dir, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
		if !ok {
			return
		}
		dir = strings.TrimSpace(dir)
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(filepath.Dir(p), dir)
		}
		if real, _ = filepath.EvalSymlinks(dir); real == "" {
			return
		}
	}
	// Outside the workspace everything is read-only already.
	if within(ws, real) && real != ws && isGitDir(real) && !slices.Contains(f.gitDirs, real) {
		f.gitDirs = append(f.gitDirs, real)
	}
}

func within(root, p string) bool {
	return p == root || strings.HasPrefix(p, root+string(filepath.Separator))
}

var viewSeq atomic.Int64

// prepareView scans the workspace and builds the mounts of one command:
// the ancestors of protected entries pinned, protected entries and .git
// files read-only, a shadow for each git directory, the secrets hidden.
func (s *Sandbox) prepareView() (*commandView, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	pruneShadows(s.dirs.Git)
	f := s.scan()
	v := &commandView{before: f.all}
	ro := append(append([]string{}, f.protected...), f.gitFiles...)
	var roots []string
	for _, g := range f.gitDirs {
		// A submodule's git dir in .git/modules gets its view through its
		// superproject's.
		if !slices.ContainsFunc(f.gitDirs, func(o string) bool { return o != g && within(filepath.Join(o, "modules"), g) }) {
			roots = append(roots, g)
		}
	}
	for _, d := range s.pinned(append(append([]string{}, ro...), roots...)) {
		v.ops = append(v.ops, mountOp{Kind: mountBind, Src: d, Dst: d})
	}
	for _, p := range ro {
		v.ops = append(v.ops, mountOp{Kind: mountBind, Src: p, Dst: p, RO: true})
	}
	for _, g := range roots {
		shadow := filepath.Join(s.dirs.Git, fmt.Sprintf("%d-%d", os.Getpid(), viewSeq.Add(1)))
		gv, err := newGitView(g, shadow)
		if err != nil {
			for _, w := range v.views {
				w.sync()
			}
			return nil, err
		}
		v.views = append(v.views, gv)
		v.ops = append(v.ops, gv.ops...)
	}
	v.ops = append(v.ops, s.hideOps()...)
	return v, nil
}

// finish brings the git state back and removes the protected entries the
// command created (and neutralises new repositories). It returns one line
// per change it made, for the command's result.
func (s *Sandbox) finishView(v *commandView) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var notes []string
	for _, g := range v.views {
		rel, _ := filepath.Rel(s.opts.Workspace, g.real)
		for _, d := range g.sync() {
			notes = append(notes, "dropped "+filepath.Join(rel, d)+": git reads or runs it")
		}
	}
	after := s.scan()
	for p := range after.all {
		if v.before[p] {
			continue
		}
		rel, _ := filepath.Rel(s.opts.Workspace, p)
		if filepath.Base(p) == ".git" {
			if fi, err := os.Lstat(p); err == nil && fi.IsDir() {
				notes = append(notes, neutralise(p, rel)...)
				continue
			}
		}
		if err := os.RemoveAll(p); err == nil {
			notes = append(notes, "removed "+rel+": a command may not create it (other programs run what it says)")
		}
	}
	slices.Sort(notes)
	return notes
}

// Run runs command like Command and the package's Run, inside the view of
// the workspace: git's control files, protected paths and secrets as
// described in README.md. When it returns, the git state the command
// changed is back in the real git directories and Result.Notes says what
// the sandbox dropped or removed.
func (s *Sandbox) Run(ctx context.Context, command string, opts RunOptions) (Result, error) {
	cmd, view, err := s.command(ctx, command)
	if err != nil {
		return Result{ExitCode: -1}, err
	}
	res, err := Run(ctx, cmd, opts)
	if view != nil {
		res.Notes = s.finishView(view)
	}
	return res, err
}

// pruneShadows removes the shadows of processes that died during a
// command (named PID-SEQ); a live process's, another window's, are kept.
func pruneShadows(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		pid, _, _ := strings.Cut(e.Name(), "-")
		var n int
		if _, err := fmt.Sscan(pid, &n); err == nil && n > 0 && n != os.Getpid() && syscall.Kill(n, 0) == syscall.ESRCH {
			_ = os.RemoveAll(filepath.Join(dir, e.Name()))
		}
	}
}
