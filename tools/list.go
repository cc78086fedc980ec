package tools

import (
	"context"
	"os"
)

// ListOptions say what ListFiles reports.
type ListOptions struct {
	// File is called with the slash path (relative to the root) of each
	// regular file the walk sees, and its status.
	File func(rel string, st FileStat)
	// SkipDir, when set, skips the directories whose name it accepts, on
	// top of the ones .gitignore ignores.
	SkipDir func(name string) bool
	// Exclude, when set, leaves out the directories whose slash path it
	// accepts, silently (agent-lsp's own state, should it live in the
	// workspace).
	Exclude func(rel string) bool
	// Ignored, when set, is called with the slash path of each directory
	// skipped (ignored by .gitignore or by SkipDir); its content is not
	// listed.
	Ignored func(rel string)
}

// FileStat is what ListFiles tells of a file: enough to see that it
// changed (times in nanoseconds; ChangeTime and Inode are zero where the
// system does not say).
type FileStat struct {
	Size, ModTime, ChangeTime int64
	Inode                     uint64
}

// ListFiles walks the whole workspace under root the way glob and grep
// do (walk.go): .git skipped, .gitignore honoured, symbolic links never
// followed. The change journal uses it to see the files a command may
// have changed.
func ListFiles(ctx context.Context, root *os.Root, o ListOptions) error {
	w := &walker{ctx: ctx, skipDir: o.SkipDir, exclude: o.Exclude, ignored: o.Ignored, file: func(d *dirNode, name string, rel string) bool {
		st, ok := d.stat(name)
		d.release()
		if ok && o.File != nil {
			o.File(rel, st)
		}
		return true
	}}
	return w.walk(root, ".")
}
