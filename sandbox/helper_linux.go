package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// helperSpec is what the parent tells the helper, as JSON in argv[2].
type helperSpec struct {
	Bash      string    `json:"bash"`
	Command   string    `json:"command"`
	ReadWrite []string  `json:"rw"`      // directories: read, write, create, remove, rename
	Devices   []string  `json:"devices"` // device files opened for writing (/dev/null ...)
	DenyTCP   bool      `json:"denyTcp"` // Landlock denies TCP bind and connect
	LoUp      bool      `json:"loUp"`    // bring up lo of the command's fresh network namespace
	ReadOnly  bool      `json:"ro"`      // in a fresh mount namespace: remount everything read-only but ReadWrite
	Ops       []mountOp `json:"ops"`     // with ReadOnly: git views, protected paths, hidden secrets (mounts.go)
	Init      bool      `json:"init"`    // the helper is pid 1 of a new PID namespace: run the command under initScript
	ABI       int       `json:"abi"`     // Landlock ABI the parent measured; the helper refuses a lower one
}

// initScript runs as pid 1 of the command's PID namespace. The kernel drops
// signals without a handler sent to pid 1, so a command running as pid 1
// would ignore the SIGTERM of a cancel; as a child it gets it with the rest
// of the process group, and this shell exits with its status (143). Pid 1
// also reaps orphans, and its exit takes down the whole namespace.
//
// The trap closes a race: a SIGTERM that reaches pid 1 before the command
// is started (a cancel right after the start, on a loaded machine) would
// be dropped, and the command would run until the grace period's SIGKILL;
// with the trap pid 1 remembers it and passes it on, once (Run sends it
// again until pid 1 exits, in case it came before the trap). wait returns early
// when the trap runs, so it waits again until the command is gone. The
// command keeps this shell's stdin (0<&0): bash gives a background job
// /dev/null otherwise, and a command that talks on stdin (an MCP server
// with sandbox = true) would read an empty input and exit.
const initScript = `t=; c=; trap '[ -z "$t" ] && t=1 && [ -n "$c" ] && kill -TERM "$c" 2>/dev/null' TERM
bash -c "$1" 0<&0 & c=$!
[ -n "$t" ] && kill -TERM "$c" 2>/dev/null
while :; do wait "$c"; s=$?; kill -0 "$c" 2>/dev/null || exit $s; done`

// deviceFiles are the devices a command may open for writing.
var deviceFiles = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty"}

// runHelper confines the current thread and execs bash; it returns only on
// failure.
func runHelper(args []string) error {
	if len(args) != 1 {
		return errors.New("helper wants exactly one spec argument")
	}
	var spec helperSpec
	if err := json.Unmarshal([]byte(args[0]), &spec); err != nil {
		return fmt.Errorf("bad spec: %w", err)
	}
	// Every restriction below is per thread; execve keeps the calling
	// thread's. Never unlock: this thread must not run other goroutines.
	runtime.LockOSThread()
	if err := confine(spec); err != nil {
		return err
	}
	argv := []string{"bash", "-c", spec.Command}
	if spec.Init {
		argv = []string{"bash", "-c", initScript, "bash", spec.Command}
	}
	return fmt.Errorf("exec %s: %w", spec.Bash, syscall.Exec(spec.Bash, argv, os.Environ()))
}

// confine remounts the filesystem read-only (when asked), applies
// no_new_privs, drops the capability bounding set, enforces Landlock and
// clears all capabilities, on the calling thread.
func confine(spec helperSpec) error {
	abi, err := llsys.LandlockGetABIVersion()
	if err != nil || abi < 1 {
		return fmt.Errorf("landlock unavailable: %v", err)
	}
	if abi < spec.ABI {
		return fmt.Errorf("landlock ABI %d, parent expected %d", abi, spec.ABI)
	}
	if spec.ReadOnly {
		if err := readOnlyMounts(spec.ReadWrite, spec.Ops); err != nil {
			return err
		}
	}
	cfg, rules := landlockRules(abi, spec)
	fd, flags, err := cfg.NewRulesetFD(rules...)
	if err != nil {
		return fmt.Errorf("landlock ruleset: %w", err)
	}
	if fd < 0 {
		return errors.New("landlock ruleset is empty (kernel support missing)")
	}
	defer unix.Close(fd)
	if spec.LoUp {
		if err := loopbackUp(); err != nil {
			return err
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	if err := dropBoundingSet(); err != nil {
		return err
	}
	if err := llsys.LandlockRestrictSelf(fd, flags); err != nil {
		return fmt.Errorf("landlock_restrict_self: %w", err)
	}
	return clearCapabilities()
}

// landlockRules builds the policy: read and execute everywhere; write only
// in spec.ReadWrite and to a few devices; TCP denied when asked. The access
// rights handled are exactly those of the measured ABI (never BestEffort,
// which silently enforces nothing when a rule does not fit).
func landlockRules(abi int, spec helperSpec) (landlock.Config, []landlock.Rule) {
	configs := []landlock.Config{{}, landlock.V1, landlock.V2, landlock.V3, landlock.V4, landlock.V5,
		landlock.V6, landlock.V7, landlock.V8, landlock.V9, landlock.V10, landlock.V11}
	cfg := configs[min(abi, len(configs)-1)]
	if !spec.DenyTCP {
		cfg.HandledAccessNet = 0
	}
	rw := landlock.RWDirs(spec.ReadWrite...)
	if abi >= 2 {
		rw = rw.WithRefer() // mv and ln between directories of the workspace
	}
	dev := landlock.RWFiles(spec.Devices...).IgnoreIfMissing()
	if abi >= 5 {
		dev = dev.WithIoctlDev()
	}
	// No rule grants network ports: with TCP handled, every bind and
	// connect is denied.
	return cfg, []landlock.Rule{landlock.RODirs("/"), rw, dev}
}

func lastCap() int {
	b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap")
	if err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			return n
		}
	}
	return 40
}

// dropBoundingSet empties the capability bounding set, so that no exec
// (as root, of a setuid binary or of a file with capabilities) gains any.
// Without CAP_SETPCAP there is nothing to drop from: the process holds no
// capabilities and no_new_privs stops it from gaining some.
func dropBoundingSet() error {
	if !hasCap(unix.CAP_SETPCAP) {
		return nil
	}
	for c := 0; c <= lastCap(); c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
			return fmt.Errorf("drop capability %d from bounding set: %w", c, err)
		}
	}
	return nil
}

// clearCapabilities empties the ambient, effective, permitted and
// inheritable sets of the calling thread.
func clearCapabilities() error {
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("clear ambient capabilities: %w", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("clear capabilities: %w", err)
	}
	return nil
}

func hasCap(c int) bool {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return false
	}
	return data[c/32].Effective&(1<<(uint(c)%32)) != 0
}

// loopbackUp brings up lo in the helper's (private) network namespace, as
// bwrap does, so that test servers on 127.0.0.1 can work. Needs
// CAP_NET_ADMIN over the namespace, so it runs before the capability drop.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("loopback: %w", err)
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return fmt.Errorf("loopback: %w", err)
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("loopback flags: %w", err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("loopback up: %w", err)
	}
	return nil
}

// readOnlyMounts makes every mount of the helper's private mount namespace
// read-only except the rw directories. This covers what Landlock cannot
// restrict: chmod, chown, utime and xattrs on files outside the workspace
// (as root, and on the user's own files), and root's write access to
// procfs and sysfs files.
func readOnlyMounts(rw []string, ops []mountOp) error {
	// Nothing below may propagate back to the host's mount namespace.
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make mounts private: %w", err)
	}
	for _, p := range rw {
		if err := unix.Mount(p, p, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("bind %s: %w", p, err)
		}
	}
	ro := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}
	if err := unix.MountSetattr(unix.AT_FDCWD, "/", unix.AT_RECURSIVE, &ro); err != nil {
		return fmt.Errorf("remount / read-only: %w", err)
	}
	for _, p := range rw {
		w := unix.MountAttr{Attr_clr: unix.MOUNT_ATTR_RDONLY}
		if err := unix.MountSetattr(unix.AT_FDCWD, p, unix.AT_RECURSIVE, &w); err != nil {
			return fmt.Errorf("remount %s read-write: %w", p, err)
		}
	}
	if err := applyOps(ops); err != nil {
		return err
	}
	// The working directory still points below the old, now read-only,
	// mount: enter the bind mount.
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	return unix.Chdir(wd)
}

// applyOps mounts ops in order. Every source is cloned (open_tree) before
// the first op, so it is the path as the host shows it, never through an
// earlier op: the real .git/objects although the shadow hides .git.
func applyOps(ops []mountOp) error {
	ro := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}
	fds := make([]int, len(ops))
	defer func() {
		for _, fd := range fds {
			if fd > 0 {
				unix.Close(fd)
			}
		}
	}()
	for i, op := range ops {
		src := op.Src
		switch op.Kind {
		case mountNull:
			src = "/dev/null"
		case mountBind:
		default:
			continue
		}
		fd, err := unix.OpenTree(unix.AT_FDCWD, src, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE|unix.AT_SYMLINK_NOFOLLOW)
		if err != nil {
			return fmt.Errorf("clone %s: %w", src, err)
		}
		fds[i] = fd
		if op.RO || op.Kind == mountNull {
			if err := unix.MountSetattr(fd, "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, &ro); err != nil {
				return fmt.Errorf("read-only %s: %w", src, err)
			}
		}
	}
	var tmpfs []string
	for i, op := range ops {
		switch op.Kind {
		case mountBind, mountNull:
			// Inside a tmpfs of ours the mount point may be missing; never
			// create one on a real file system.
			if _, err := os.Lstat(op.Dst); err != nil && slices.ContainsFunc(tmpfs, func(t string) bool { return within(t, op.Dst) }) {
				if err := os.MkdirAll(op.Dst, 0o755); err != nil {
					return fmt.Errorf("mount point %s: %w", op.Dst, err)
				}
			}
			if err := unix.MoveMount(fds[i], "", unix.AT_FDCWD, op.Dst, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
				return fmt.Errorf("mount %s on %s: %w", op.Src, op.Dst, err)
			}
		case mountTmpfs:
			if err := unix.Mount("tmpfs", op.Dst, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=0755,size=64k"); err != nil {
				return fmt.Errorf("hide %s: %w", op.Dst, err)
			}
			tmpfs = append(tmpfs, op.Dst)
		case mountRO:
			if err := unix.MountSetattr(unix.AT_FDCWD, op.Dst, 0, &ro); err != nil {
				return fmt.Errorf("read-only %s: %w", op.Dst, err)
			}
		}
	}
	return nil
}
