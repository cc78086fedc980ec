//go:build unix

package sandbox

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// A git directory inside the workspace is shown to a command through a
// shadow: a directory in the sandbox's state dir, mounted over it, that
// holds copies (hard links where possible) of git's state files, mount
// points for the real object, ref and log directories (writable), and
// read-only mounts of everything else (config, hooks, info, commondir,
// worktrees, ...). Whatever the command creates at the top of the git
// directory lands in the shadow; when the command is over, the state files
// git porcelain writes are brought back and everything else (a planted
// commondir, config.worktree, hooks directory) is dropped. No git run
// outside the sandbox, during or after the command, sees a control file the
// command wrote. sandbox/README.md lists the writable names and why each is
// harmless.

// gitStateFiles are the top-level files of a git directory a command may
// change: git writes each through NAME.lock and a rename.
var gitStateFiles = map[string]bool{
	"HEAD": true, "index": true, "ORIG_HEAD": true, "FETCH_HEAD": true, "packed-refs": true, "shallow": true,
	"MERGE_HEAD": true, "MERGE_MSG": true, "MERGE_MODE": true, "MERGE_RR": true, "MERGE_AUTOSTASH": true, "AUTO_MERGE": true,
	"CHERRY_PICK_HEAD": true, "REVERT_HEAD": true, "REBASE_HEAD": true, "COMMIT_EDITMSG": true, "TAG_EDITMSG": true,
	"SQUASH_MSG": true, "NOTES_MERGE_PARTIAL": true, "NOTES_MERGE_REF": true, "gc.pid": true, "gc.log": true,
	"BISECT_LOG": true, "BISECT_START": true, "BISECT_TERMS": true, "BISECT_NAMES": true, "BISECT_EXPECTED_REV": true,
	"BISECT_ANCESTORS_OK": true, "BISECT_HEAD": true, "BISECT_FIRST_PARENT": true,
}

func isGitStateFile(name string) bool {
	return gitStateFiles[name] || strings.HasPrefix(name, "sharedindex.")
}

// gitDataDirs hold git's data; mounted writable from the real directory
// (or, when new, copied back). Symbolic links and special files in them are
// removed after each command: git follows a link in logs/ when it appends
// to a reflog.
var gitDataDirs = map[string]bool{"objects": true, "refs": true, "logs": true, "lfs": true, "rr-cache": true}

// gitStateDirs are the small directories of an operation in progress;
// copied into the shadow and copied back whole.
var gitStateDirs = map[string]bool{"rebase-merge": true, "rebase-apply": true, "sequencer": true, "NOTES_MERGE_WORKTREE": true}

// gitView is the shadow of one git directory for one command.
type gitView struct {
	real, shadow string
	// mounted are the names that are mount points in the shadow.
	mounted map[string]bool
	// orig are the state files and dirs copied in, as they were then.
	orig map[string]copied
	ops  []mountOp
	subs []*gitView // submodules' git directories (modules/...)
}

// newGitView builds the shadow of the git directory real under shadow.
func newGitView(real, shadow string) (*gitView, error) {
	v := &gitView{real: real, shadow: shadow, mounted: map[string]bool{}, orig: map[string]copied{}}
	if err := os.MkdirAll(shadow, 0o700); err != nil {
		return nil, err
	}
	if fi, err := os.Stat(real); err == nil {
		_ = os.Chmod(shadow, fi.Mode().Perm())
	}
	entries, err := os.ReadDir(real)
	if err != nil {
		return nil, err
	}
	v.ops = []mountOp{{Kind: mountBind, Src: shadow, Dst: real}}
	var modules []string
	for _, e := range entries {
		name := e.Name()
		p, sp := filepath.Join(real, name), filepath.Join(shadow, name)
		fi, err := os.Lstat(p)
		if err != nil {
			continue
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			if t, err := os.Readlink(p); err == nil {
				_ = os.Symlink(t, sp)
			}
			v.mounted[name] = true // as it was: never brought back
		case fi.IsDir() && gitDataDirs[name]:
			err = v.mountPoint(name, true, false)
		case fi.IsDir() && gitStateDirs[name]:
			err = copyTree(p, sp)
			v.orig[name] = copied{}
		case fi.IsDir():
			err = v.mountPoint(name, true, true)
			if name == "modules" {
				modules = findGitDirs(p)
			}
		case fi.Mode().IsRegular() && isGitStateFile(name):
			linked := os.Link(p, sp) == nil
			if !linked {
				err = copyFile(p, sp, fi.Mode().Perm())
			}
			if c, e := os.Lstat(sp); e == nil {
				v.orig[name] = copied{ino: inode(c), size: c.Size(), mtime: c.ModTime().UnixNano(), linked: linked}
			}
		case fi.Mode().IsRegular():
			err = v.mountPoint(name, false, true)
		}
		if err != nil {
			return nil, fmt.Errorf("git view of %s: %w", p, err)
		}
	}
	for i, m := range modules {
		sub, err := newGitView(m, filepath.Join(shadow+".modules", fmt.Sprint(i)))
		if err != nil {
			return nil, err
		}
		v.subs = append(v.subs, sub)
		v.ops = append(v.ops, sub.ops...)
	}
	return v, nil
}

// mountPoint makes name a mount point in the shadow for the real entry.
func (v *gitView) mountPoint(name string, dir, ro bool) error {
	sp := filepath.Join(v.shadow, name)
	var err error
	if dir {
		err = os.Mkdir(sp, 0o700)
	} else {
		err = os.WriteFile(sp, nil, 0o600)
	}
	p := filepath.Join(v.real, name)
	v.mounted[name] = true
	v.ops = append(v.ops, mountOp{Kind: mountBind, Src: p, Dst: p, RO: ro})
	return err
}

// findGitDirs lists the git directories below a modules directory: a
// submodule named a/b lives in modules/a/b, and has modules of its own.
func findGitDirs(dir string) []string {
	var out []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if !e.IsDir() || e.Type()&fs.ModeSymlink != 0 {
			continue
		}
		if isGitDir(p) {
			out = append(out, p)
		} else {
			out = append(out, findGitDirs(p)...)
		}
	}
	return out
}

func isGitDir(p string) bool {
	h, err1 := os.Lstat(filepath.Join(p, "HEAD"))
	o, err2 := os.Lstat(filepath.Join(p, "objects"))
	return err1 == nil && err2 == nil && h.Mode().IsRegular() && o.IsDir()
}

// sync brings the command's changes of state files back into the real git
// directory, drops everything else it created there, and removes the
// shadow. It returns what was dropped, relative to the real directory.
func (v *gitView) sync() []string {
	var dropped []string
	entries, _ := os.ReadDir(v.shadow)
	seen := map[string]bool{}
	for _, e := range entries {
		name := e.Name()
		seen[name] = true
		sp, p := filepath.Join(v.shadow, name), filepath.Join(v.real, name)
		fi, err := os.Lstat(sp)
		if err != nil || v.mounted[name] {
			continue
		}
		o, had := v.orig[name]
		switch {
		case fi.Mode().IsRegular() && isGitStateFile(name):
			if had && inode(fi) == o.ino && (o.linked || fi.Size() == o.size && fi.ModTime().UnixNano() == o.mtime) {
				continue // untouched, or written in place through the link
			}
			if err := install(sp, p, fi.Mode().Perm()); err != nil {
				dropped = append(dropped, name+" (not brought back: "+err.Error()+")")
			}
		case fi.IsDir() && (gitStateDirs[name] || gitDataDirs[name] && !exists(p)):
			tmp := p + ".agent-lsp-new"
			_ = os.RemoveAll(tmp)
			if err := copyTree(sp, tmp); err != nil {
				_ = os.RemoveAll(tmp)
				dropped = append(dropped, name+"/ (not brought back: "+err.Error()+")")
				continue
			}
			_ = os.RemoveAll(p)
			if err := os.Rename(tmp, p); err != nil {
				_ = os.RemoveAll(tmp)
			}
		case strings.HasSuffix(name, ".lock"):
			// A leftover lock of a killed git: dropped silently.
		default:
			dropped = append(dropped, name) // commondir, config.worktree, hooks/ ...
		}
	}
	for name := range v.orig {
		if !seen[name] && name != "HEAD" {
			_ = os.RemoveAll(filepath.Join(v.real, name)) // MERGE_HEAD after a commit ...
		}
	}
	for name := range gitDataDirs {
		scrubSpecial(filepath.Join(v.real, name))
	}
	for _, s := range v.subs {
		rel, _ := filepath.Rel(v.real, s.real)
		for _, d := range s.sync() {
			dropped = append(dropped, filepath.Join(rel, d))
		}
	}
	_ = os.RemoveAll(v.shadow)
	_ = os.RemoveAll(v.shadow + ".modules")
	slices.Sort(dropped)
	return dropped
}

// scrubSpecial removes symbolic links, FIFOs, sockets and devices below
// dir: git never makes them there, and outside git would follow a link in
// logs/ when it appends to a reflog (to ~/.bashrc, say).
func scrubSpecial(dir string) {
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !d.Type().IsRegular() {
			_ = os.Remove(p)
		}
		return nil
	})
}

// install replaces dst with a copy of src (a hard link when possible),
// atomically.
func install(src, dst string, perm fs.FileMode) error {
	tmp := dst + ".agent-lsp-tmp"
	_ = os.Remove(tmp)
	if os.Link(src, tmp) != nil {
		if err := copyFile(src, tmp, perm); err != nil {
			_ = os.Remove(tmp)
			return err
		}
	}
	if err := os.Rename(tmp, dst); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	return nil
}

// copyFile copies the regular file src to the new file dst.
func copyFile(src, dst string, perm fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// copyTree copies the directories and regular files below src to dst;
// links and special files are left out.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		t := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(t, 0o755)
		case d.Type().IsRegular():
			fi, err := d.Info()
			if err != nil {
				return err
			}
			return copyFile(p, t, fi.Mode().Perm())
		}
		return nil
	})
}

// copied is a state file or directory as copied into the shadow.
type copied struct {
	ino, mtime int64
	size       int64
	linked     bool
}

func inode(fi fs.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int64(st.Ino)
	}
	return 0
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}
