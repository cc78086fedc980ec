//go:build unix

// Package sandbox runs the agent's shell commands confined by the OS: writes
// only inside the workspace and a private temporary/cache directory, no
// network unless configured, and no way to gain privileges.
//
// Rules:
//  1. Probe what works, at the first command or Status call (never for a
//     run that does not use the sandbox, cached per kernel and binary),
//     and apply the strongest backend:
//     landlock (re-exec helper with Landlock, network/PID/IPC/UTS
//     namespaces, a mount namespace with every mount read-only except the
//     workspace and private directory, no_new_privs, capabilities dropped)
//     → bwrap → none.
//  2. A missing sandbox never looks like an allowed one: Status says
//     "none" and Confined() is false, and the caller asks for every command.
//  3. The helper fails closed: if it cannot confine itself it exits with
//     ExitHelperFailed and never runs the command.
//  4. Every command runs in its own session and process group, dies with
//     the server (Pdeathsig), reads /dev/null and gets a scrubbed
//     environment (FilterEnv: an allow-list); Run kills the whole group when it returns.
package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// Options configure a Sandbox.
type Options struct {
	// Workspace is the directory commands may write to and start in.
	Workspace string
	// StateDir holds the private tmp, cache and config directories. Empty
	// means a fresh temporary directory, removed by Close.
	StateDir string
	// Network lets commands use the network (no network namespace, no
	// Landlock TCP rules).
	Network bool
	// Env is the base environment before scrubbing; nil means os.Environ().
	Env []string
	// EnvSet are NAME=value settings put in Env's place for their names
	// (the harness's non-interactive defaults).
	EnvSet []string
	// Loopback lets commands use TCP on the loopback of their private
	// network namespace (test servers such as httptest), still with no
	// route out. It turns off the Landlock TCP layer and only applies while
	// the network-namespace layer is active. bwrap always allows it.
	Loopback bool
	// Protected lists what commands may not change although it is inside
	// the workspace (editor and agent settings, git's control files:
	// injection scenarios I02, I07-I10). A name without a slash matches an
	// entry of that name in the workspace root and three levels below it;
	// ".git" means the git views of git.go; other entries are paths
	// relative to the root. Existing entries are mounted read-only, and
	// ones a command creates are removed when it ends. nil means
	// DefaultProtected; an empty non-nil slice protects nothing. Needs a
	// mount namespace (landlock backend) or bwrap.
	Protected []string
	// Backend forces a backend; BackendAuto picks the strongest working one.
	// BackendNone disables confinement (Status then says so).
	Backend Backend
	// Grace is how long a cancelled command gets between SIGTERM and
	// SIGKILL; zero means 2s.
	Grace time.Duration
	// Hide are absolute paths (globs allowed) commands cannot read: an
	// empty directory or file is mounted over each. nil means
	// DefaultHidden(Env). Needs a mount namespace (or bwrap).
	Hide []string
	// HideAlso are hidden besides Hide (the user's [sandbox] hide).
	HideAlso []string
	// EnvAllow are names of variables passed to commands besides
	// AllowedEnv (the user's [sandbox] env).
	EnvAllow []string
	// ProbeCache is the file caching the probe per kernel, binary and user
	// (see lazy.go); empty means probe.json in StateDir, or no cache when
	// StateDir is empty (doctor probes afresh).
	ProbeCache string

	// noNetNS keeps the host network namespace (tests of the Landlock TCP
	// layer on its own).
	noNetNS bool
}

// DefaultProtected are the workspace paths kept read-only by default.
var DefaultProtected = []string{
	".git", ".gitmodules", ".vscode", ".idea", ".zed", ".nvim.lua", ".exrc", ".envrc",
	".agent-lsp", ".mcp.json",
}

// Sandbox runs confined commands for one workspace.
type Sandbox struct {
	opts    Options
	dirs    privateDirs
	ownDir  bool
	bash    string
	selfExe string

	// The paths are resolved and the state directory made at first need
	// (prepare).
	prepOnce sync.Once
	prepErr  error
	// The backend is chosen lazily (see lazy.go): init runs probe once.
	once sync.Once
	// dirsMade creates the private directories at the first command.
	dirsMade func() error
	probe    func() Status
	status   Status
	initErr  error

	// mu serialises preparing and bringing back the git views (git.go).
	mu sync.Mutex
}

// ErrUnavailable is returned by New when an explicitly requested backend
// does not work on this machine.
var ErrUnavailable = errors.New("sandbox backend unavailable")

// New prepares a sandbox for opts.Workspace. It starts no process: the
// machine is probed (or the cached probe read) at the first Command, Run,
// Status or Err call, and the backend picked then.
func New(opts Options) (*Sandbox, error) {
	s, err := build(opts)
	if err != nil {
		return nil, err
	}
	s.probe = func() Status { return cachedProbe(s.opts.ProbeCache) }
	return s, nil
}

// newWithProbe is New with a known probe result (tests, and the probe
// itself), chosen at once.
func newWithProbe(opts Options, probe Status) (*Sandbox, error) {
	s, err := build(opts)
	if err != nil {
		return nil, err
	}
	s.probe = func() Status { return probe }
	if s.init(); s.initErr != nil {
		s.Close() // a temporary state dir of its own must not outlive it
		return nil, s.initErr
	}
	return s, nil
}

// build checks what decides whether commands can run at all (a workspace
// that is not /, a bash in PATH) and leaves the rest of the set-up to prepare,
// at the first command or call that needs it: a session that never runs a
// command does not resolve paths or touch the state directory for it.
func build(opts Options) (*Sandbox, error) {
	if opts.Workspace == "" {
		return nil, errors.New("sandbox: no workspace")
	}
	ws, err := filepath.Abs(opts.Workspace)
	if err != nil {
		return nil, err
	}
	if ws == "/" {
		return nil, errWorkspaceRoot
	}
	opts.Workspace = ws
	if opts.Protected == nil {
		opts.Protected = DefaultProtected
	}
	if opts.Grace <= 0 {
		opts.Grace = 2 * time.Second
	}
	if !hasBash(os.Getenv("PATH")) {
		if _, err := exec.LookPath("bash"); err != nil {
			return nil, fmt.Errorf("sandbox: %w", err)
		}
	}
	return &Sandbox{opts: opts, selfExe: "/proc/self/exe"}, nil
}

// hasBash reports whether a directory of path holds an executable bash:
// exec.LookPath("bash")'s answer (found or not) for an absolute PATH, in
// one or two system calls where LookPath stats every entry in front of
// /usr/bin. Which bash runs is LookPath's to say, at the first command.
func hasBash(path string) bool {
	usual := func(d string) bool { return d == "/usr/bin" || d == "/bin" }
	has := func(d string) bool {
		if !filepath.IsAbs(d) {
			return false // LookPath refuses it too (exec.ErrDot)
		}
		_, err := exec.LookPath(filepath.Join(d, "bash"))
		return err == nil
	}
	// The usual directories first, then the others, in PATH's order.
	for _, wantUsual := range []bool{true, false} {
		for rest := path; rest != ""; {
			var d string
			d, rest, _ = strings.Cut(rest, string(filepath.ListSeparator))
			if usual(d) == wantUsual && has(d) {
				return true
			}
		}
	}
	return false
}

var errWorkspaceRoot = errors.New("sandbox: the workspace cannot be /")

// errClosed is prepare's error once Close ran first.
var errClosed = errors.New("sandbox: closed")

// prepare resolves the workspace and makes the state directory, once;
// every use of s.opts.Workspace or s.dirs comes after it.
func (s *Sandbox) prepare() error {
	s.prepOnce.Do(func() { s.prepErr = s.prepareOnce() })
	return s.prepErr
}

func (s *Sandbox) prepareOnce() error {
	if s.opts.Env == nil {
		s.opts.Env = os.Environ()
	}
	s.opts.Env = overrideEnv(s.opts.Env, s.opts.EnvSet)
	if s.opts.Hide == nil {
		s.opts.Hide = DefaultHidden(s.opts.Env)
	}
	s.opts.Hide = append(slices.Clip(s.opts.Hide), s.opts.HideAlso...)
	bash, err := exec.LookPath("bash")
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	s.bash = bash
	ws, err := filepath.EvalSymlinks(s.opts.Workspace)
	if err != nil {
		return fmt.Errorf("sandbox: workspace: %w", err)
	}
	if ws == "/" {
		return errWorkspaceRoot
	}
	s.opts.Workspace = ws
	state := s.opts.StateDir
	if state == "" {
		if state, err = os.MkdirTemp("", "agent-lsp-sandbox-"); err != nil {
			return fmt.Errorf("sandbox: state dir: %w", err)
		}
		s.ownDir = true
	}
	if abs, err := filepath.Abs(state); err == nil {
		state = abs
	}
	err = os.MkdirAll(state, 0o700)
	real := state
	if err == nil {
		real, err = filepath.EvalSymlinks(state)
	}
	if err != nil {
		if s.ownDir {
			_ = os.RemoveAll(state)
			s.ownDir = false
		}
		return fmt.Errorf("sandbox: state dir: %w", err)
	}
	s.dirs = newPrivateDirs(real)
	s.dirsMade = sync.OnceValue(s.dirs.make)
	if s.opts.ProbeCache == "" && !s.ownDir {
		s.opts.ProbeCache = filepath.Join(state, "probe.json")
	}
	return nil
}

// choose picks the backend for opts given what the probe found.
func choose(opts Options, p Status) (Backend, error) {
	switch opts.Backend {
	case BackendNone:
		return BackendNone, nil
	case BackendLandlock:
		if !p.LandlockOK {
			return "", fmt.Errorf("%w: landlock (kernel ABI %d): %v", ErrUnavailable, p.Landlock, p.Errors)
		}
		return BackendLandlock, nil
	case BackendBwrap:
		if !p.Bwrap {
			return "", fmt.Errorf("%w: bwrap: %v", ErrUnavailable, p.Errors)
		}
		return BackendBwrap, nil
	case BackendAuto:
		switch {
		case p.LandlockOK && (p.NetNS || opts.Network):
			return BackendLandlock, nil
		case p.Bwrap:
			return BackendBwrap, nil
		case p.LandlockOK:
			return BackendLandlock, nil // no netns: Landlock still denies TCP
		}
		return BackendNone, nil
	}
	return "", fmt.Errorf("sandbox: unknown backend %q", opts.Backend)
}

// applied describes the protections a command gets with backend b.
func applied(p Status, b Backend, opts Options) Status {
	st := p
	st.Backend = b
	st.Network = opts.Network
	st.Warning = ""
	switch b {
	case BackendLandlock:
		st.Layers = []string{fmt.Sprintf("landlock-fs(abi %d)", p.Landlock)}
		netns := !opts.Network && p.NetNS && !opts.noNetNS
		if !opts.Network && p.Landlock >= 4 && !(opts.Loopback && netns) {
			st.Layers = append(st.Layers, "landlock-tcp-deny")
		}
		if p.Landlock >= 6 {
			st.Layers = append(st.Layers, "landlock-scope(signals,abstract-unix)")
		}
		if netns {
			st.Layers = append(st.Layers, "netns")
		}
		if p.PIDNS {
			st.Layers = append(st.Layers, "pidns")
		}
		if p.MountNS {
			st.Layers = append(st.Layers, "ro-mounts", "protected-paths")
		}
		st.Layers = append(st.Layers, "no_new_privs", "caps-dropped")
		switch {
		case !opts.Network && !p.NetNS && p.Landlock < 4:
			st.Warning = "network is NOT blocked: no network namespace and Landlock ABI < 4"
		case !opts.Network && (!p.NetNS || opts.noNetNS):
			st.Warning = "no network namespace: only TCP is blocked (Landlock); UDP and DNS still leave the machine"
		}
		if !p.MountNS {
			st.Warning = strings.TrimPrefix(st.Warning+"; no mount namespace: protected paths in the workspace and chmod/chown/utime outside it are not enforced", "; ")
		}
	case BackendBwrap:
		st.Layers = []string{"bwrap-ro-root", "protected-paths", "pidns", "ipcns", "utsns"}
		if !opts.Network {
			st.Layers = append(st.Layers, "netns")
		}
		st.Layers = append(st.Layers, "no_new_privs", "caps-dropped")
	default:
		st.Layers = nil
		st.Warning = "no sandbox layer is active: commands run with the server's full rights; ask the user for every command"
		if opts.Backend == BackendNone {
			st.Warning = "sandbox disabled by configuration: commands run with the server's full rights; ask the user for every command"
		}
	}
	return st
}

// Status reports the backend and layers applied to this sandbox's commands.
// The first call probes the machine (or reads the cached probe).
func (s *Sandbox) Status() Status {
	s.init()
	return s.status
}

// Err reports why the configured backend cannot be used (ErrUnavailable),
// probing like Status; nil with BackendAuto, which falls back to none.
func (s *Sandbox) Err() error {
	s.init()
	return s.initErr
}

// Workspace returns the resolved workspace directory.
func (s *Sandbox) Workspace() string {
	_ = s.prepare() // on an error, the absolute path given
	return s.opts.Workspace
}

// StateDir returns the private directory holding tmp, cache and config
// ("" if it could not be made: commands then fail with the reason).
func (s *Sandbox) StateDir() string {
	_ = s.prepare()
	return s.dirs.Root
}

// Close removes the private state directory if New created it; a sandbox
// closed before its first use is never set up.
func (s *Sandbox) Close() error {
	s.prepOnce.Do(func() { s.prepErr = errClosed })
	if s.ownDir {
		return os.RemoveAll(s.dirs.Root)
	}
	return nil
}

// Command returns `bash -c command` confined by the sandbox, started in the
// workspace in a new session and process group, with stdin on /dev/null,
// Pdeathsig and a scrubbed environment. Cancelling ctx sends SIGTERM to the
// whole group and, after the grace period, SIGKILL to the leader (which
// takes a PID namespace down with it). Use Run to also get a timeout,
// capped output and the guarantee that no process of the group survives.
//
// Command alone leaves the git views of the command in the state dir; use
// Run, which brings the git state back when the command is over.
func (s *Sandbox) Command(ctx context.Context, command string) (*exec.Cmd, error) {
	cmd, _, err := s.command(ctx, command)
	return cmd, err
}

func (s *Sandbox) command(ctx context.Context, command string) (*exec.Cmd, *commandView, error) {
	if s.init(); s.initErr != nil {
		return nil, nil, s.initErr
	}
	if err := s.dirsMade(); err != nil {
		return nil, nil, err
	}
	var view *commandView
	if s.status.Backend == BackendBwrap || s.status.Backend == BackendLandlock && s.status.MountNS {
		v, err := s.prepareView()
		if err != nil {
			return nil, nil, fmt.Errorf("sandbox: %w", err)
		}
		view = v
	}
	execHook(s.status.Backend)
	env := commandEnv(s.opts.Env, s.opts.EnvAllow, s.opts.Workspace, s.dirs, s.opts.Network)
	var cmd *exec.Cmd
	switch s.status.Backend {
	case BackendLandlock:
		spec, err := s.helperSpec(command, view)
		if err != nil {
			return nil, nil, err
		}
		cmd = exec.CommandContext(ctx, s.selfExe, HelperArg, spec)
	case BackendBwrap:
		cmd = exec.CommandContext(ctx, s.status.BwrapPath, s.bwrapArgs(command, view)...)
	case BackendNone:
		cmd = exec.CommandContext(ctx, s.bash, "-c", command)
		cmd.Args[0] = "bash"
	default:
		return nil, nil, fmt.Errorf("sandbox: unknown backend %q", s.status.Backend)
	}
	cmd.Dir = s.opts.Workspace
	cmd.Env = env
	Prepare(cmd, s.opts.Grace)
	if s.status.Backend == BackendLandlock {
		s.namespaces(cmd)
	}
	return cmd, view, nil
}
