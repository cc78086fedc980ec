package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// helperSpec encodes what the re-exec helper must enforce for command.
func (s *Sandbox) helperSpec(command string, view *commandView) (string, error) {
	var ops []mountOp
	if view != nil {
		ops = view.ops
	}
	spec := helperSpec{
		Bash:      s.bash,
		Command:   command,
		ReadWrite: []string{s.opts.Workspace, s.dirs.Root},
		Devices:   deviceFiles,
		DenyTCP:   s.denyTCP(),
		LoUp:      s.netns(),
		ReadOnly:  s.status.MountNS,
		Ops:       ops,
		Init:      s.status.PIDNS,
		ABI:       s.status.Landlock,
	}
	b, err := json.Marshal(spec)
	return string(b), err
}

// bwrapArgs confines command with bubblewrap: / read-only, the workspace and
// state directory writable, fresh /dev and /proc, new PID/IPC (and network)
// namespaces, all capabilities dropped, /proc/sys read-only.
func (s *Sandbox) bwrapArgs(command string, view *commandView) []string {
	args := []string{
		"--die-with-parent",
		"--unshare-pid", "--unshare-ipc", "--unshare-uts",
		"--cap-drop", "ALL",
		"--ro-bind", "/", "/",
		"--dev", "/dev",
		"--proc", "/proc",
		// Root keeps write access to root-owned procfs files even without
		// capabilities (sysctls); bwrap 0.8 leaves /proc/sys writable.
		"--ro-bind", "/proc/sys", "/proc/sys",
		"--ro-bind-try", "/proc/sysrq-trigger", "/proc/sysrq-trigger",
		"--bind", s.opts.Workspace, s.opts.Workspace,
		"--bind", s.dirs.Root, s.dirs.Root,
		"--chdir", s.opts.Workspace,
	}
	if view != nil {
		args = append(args, bwrapMountArgs(view.ops)...)
	}
	if !s.opts.Network {
		args = append(args, "--unshare-net")
	}
	return append(args, "--", s.bash, "-c", command)
}

var (
	probeOnce   sync.Once
	probeResult Status
)

// Probe measures, once per process, which layers work here: the Landlock
// ABI, whether the re-exec helper confines a real command, which
// namespaces can be created, and whether bubblewrap runs. The Backend and
// Layers fields describe the default choice (no network).
func Probe() Status {
	probeOnce.Do(func() { probeResult = probe() })
	return probeResult
}

func probe() Status {
	var st Status
	if v, err := llsys.LandlockGetABIVersion(); err == nil {
		st.Landlock = v
	} else {
		st.Errors = append(st.Errors, fmt.Sprintf("landlock: %v", err))
	}
	dir, err := os.MkdirTemp("", "agent-lsp-probe-")
	if err != nil {
		st.Errors = append(st.Errors, fmt.Sprintf("probe dir: %v", err))
		return finishProbe(st)
	}
	defer os.RemoveAll(dir)
	// A real command through each layer: the helper must confine itself
	// and run bash, which proves main calls MaybeRunHelper too.
	try := func(b Backend, p Status, opts Options) error {
		opts.Workspace, opts.StateDir, opts.Backend = dir, dir, b
		opts.Env = []string{"PATH=/usr/bin:/bin"}
		s, err := newWithProbe(opts, p)
		if err == nil {
			s.opts.Protected = []string{} // no view: the probe dir is empty
		}
		if err != nil {
			return err
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		cmd, err := s.Command(ctx, "echo sandbox-ok")
		if err != nil {
			return err
		}
		out, err := cmd.CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != "sandbox-ok" {
			return fmt.Errorf("%v: %q", err, strings.TrimSpace(string(out)))
		}
		return nil
	}
	if st.Landlock > 0 {
		// Strongest first: network+PID namespaces, then each alone, each
		// directly (root) and then inside a user namespace.
		candidates := []Status{
			{NetNS: true, PIDNS: true, MountNS: true}, {NetNS: true, PIDNS: true, MountNS: true, UserNS: true},
			{NetNS: true, PIDNS: true}, {NetNS: true, PIDNS: true, UserNS: true},
			{NetNS: true}, {NetNS: true, UserNS: true},
			{PIDNS: true}, {PIDNS: true, UserNS: true},
			{},
		}
		for _, c := range candidates {
			p := c
			p.Landlock, p.LandlockOK = st.Landlock, true
			err := try(BackendLandlock, p, Options{})
			if err == nil {
				st.LandlockOK, st.NetNS, st.PIDNS, st.MountNS, st.UserNS = true, c.NetNS, c.PIDNS, c.MountNS, c.UserNS
				break
			}
			st.Errors = append(st.Errors, fmt.Sprintf("landlock netns=%v pidns=%v mountns=%v userns=%v: %v", c.NetNS, c.PIDNS, c.MountNS, c.UserNS, err))
		}
		if st.LandlockOK {
			st.Errors = nil // earlier, stronger candidates failing is expected on some machines
		}
	}
	if path, err := exec.LookPath("bwrap"); err == nil {
		st.BwrapPath = path
		p := Status{Bwrap: true, BwrapPath: path}
		if err := try(BackendBwrap, p, Options{}); err == nil {
			st.Bwrap = true
		} else {
			st.Errors = append(st.Errors, fmt.Sprintf("bwrap: %v", err))
		}
	}
	return finishProbe(st)
}

func finishProbe(st Status) Status {
	b, _ := choose(Options{}, st)
	return applied(st, b, Options{})
}

// netns reports whether commands get a private network namespace.
func (s *Sandbox) netns() bool {
	return s.status.Backend == BackendLandlock && !s.opts.Network && s.status.NetNS && !s.opts.noNetNS
}

// denyTCP reports whether Landlock must deny TCP bind and connect.
func (s *Sandbox) denyTCP() bool {
	return !s.opts.Network && !(s.opts.Loopback && s.netns())
}

// namespaces adds the namespaces the probe found working to attr.
func (s *Sandbox) namespaces(cmd *exec.Cmd) {
	attr := cmd.SysProcAttr
	p := s.status
	if s.netns() {
		attr.Cloneflags |= syscall.CLONE_NEWNET
	}
	if p.PIDNS {
		attr.Cloneflags |= syscall.CLONE_NEWPID | syscall.CLONE_NEWIPC | syscall.CLONE_NEWUTS
	}
	if p.MountNS {
		attr.Cloneflags |= syscall.CLONE_NEWNS
	}
	if p.UserNS && attr.Cloneflags != 0 {
		addUserNS(attr)
	}
}

// addUserNS maps the caller's own uid and gid, so files keep their owner
// and commands keep their identity. A non-root uid loses the namespace's
// capabilities at execve, so the helper gets the few it needs for setting
// up (mounts, loopback, bounding set) as ambient capabilities; it clears
// them before running bash.
func addUserNS(attr *syscall.SysProcAttr) {
	attr.Cloneflags |= syscall.CLONE_NEWUSER
	attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}}
	attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}}
	attr.GidMappingsEnableSetgroups = false
	attr.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_NET_ADMIN, unix.CAP_SETPCAP}
}

// pinned lists the directories between the workspace and each protected
// path, outermost first. They become (writable) mount points so that
// renaming them fails with EBUSY: `mv .git x && mkdir -p .git/hooks` would
// otherwise replace a protected directory with a fresh one.
func (s *Sandbox) pinned(protected []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range protected {
		var chain []string
		for d := filepath.Dir(p); d != s.opts.Workspace && len(d) > len(s.opts.Workspace); d = filepath.Dir(d) {
			chain = append([]string{d}, chain...)
		}
		for _, d := range chain {
			if !seen[d] {
				seen[d] = true
				out = append(out, d)
			}
		}
	}
	return out
}
