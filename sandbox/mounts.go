//go:build unix

package sandbox

// mountKind is what one mountOp does.
type mountKind string

const (
	mountBind  mountKind = "bind"  // Src (as seen before any op) on Dst
	mountTmpfs mountKind = "tmpfs" // an empty tmpfs on Dst (hides a directory)
	mountNull  mountKind = "null"  // /dev/null on Dst, read-only (hides a file)
	mountRO    mountKind = "ro"    // make the mount on Dst read-only (not its submounts)
)

// mountOp is one step of the view a command gets on top of the read-only
// root: git views, protected paths, hidden secrets. Both backends apply
// the same list in order; every Src is resolved in the host's view (as
// bwrap does), never through an earlier op.
type mountOp struct {
	Kind mountKind `json:"kind"`
	Src  string    `json:"src,omitempty"`
	Dst  string    `json:"dst"`
	RO   bool      `json:"ro,omitempty"`
}

// bwrapMountArgs renders ops as bubblewrap arguments.
func bwrapMountArgs(ops []mountOp) []string {
	var args []string
	for _, op := range ops {
		switch op.Kind {
		case mountBind:
			flag := "--bind"
			if op.RO {
				flag = "--ro-bind"
			}
			args = append(args, flag, op.Src, op.Dst)
		case mountTmpfs:
			args = append(args, "--perms", "0755", "--tmpfs", op.Dst)
		case mountNull:
			args = append(args, "--ro-bind", "/dev/null", op.Dst)
		case mountRO:
			args = append(args, "--remount-ro", op.Dst)
		}
	}
	return args
}
