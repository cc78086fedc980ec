//go:build unix

package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// execHook is called with the backend each time the sandbox is about to
// start a process (a command or a probe). Tests count the calls to prove
// that no work happens before it is needed.
var execHook = func(Backend) {}

// init picks the backend, once: without any probe for BackendNone, from
// the probe (cached) otherwise.
func (s *Sandbox) init() {
	s.once.Do(func() {
		if err := s.prepare(); err != nil {
			s.initErr = err
			s.status = applied(Status{}, BackendNone, s.opts)
			s.status.Warning = err.Error() + "; no command runs"
			return
		}
		if s.opts.Backend == BackendNone {
			s.status = applied(Status{}, BackendNone, s.opts)
			return
		}
		p := s.probe()
		b, err := choose(s.opts, p)
		if err != nil {
			s.initErr = err
			s.status = applied(p, BackendNone, s.opts)
			s.status.Warning = err.Error() + "; no command runs"
			return
		}
		s.status = applied(p, b, s.opts)
	})
}

// probeCacheFile is what cachedProbe keeps on disk.
type probeCacheFile struct {
	Key    string `json:"key"`
	Status Status `json:"status"`
}

// cachedProbe returns the probe stored in path when it was measured for
// this kernel, binary, bubblewrap and user; otherwise it probes (once per
// process) and stores the result. A stale or wrong cache can only make a
// command fail: the helper re-checks Landlock and refuses to run
// unconfined (ExitHelperFailed), and a broken bwrap fails to start.
func cachedProbe(path string) Status {
	if path == "" {
		return Probe()
	}
	key := probeKey()
	if b, err := os.ReadFile(path); err == nil {
		var c probeCacheFile
		if json.Unmarshal(b, &c) == nil && c.Key == key && key != "" {
			return c.Status
		}
	}
	st := Probe()
	if key != "" {
		if b, err := json.Marshal(probeCacheFile{Key: key, Status: st}); err == nil {
			tmp := path + ".tmp"
			if os.WriteFile(tmp, b, 0o600) == nil && os.Rename(tmp, path) != nil {
				_ = os.Remove(tmp)
			}
		}
	}
	return st
}

// probeKey identifies what the probe's result depends on: the kernel (its
// release and build), the helper binary and bubblewrap (path, size,
// modification time), the user, and the switches that allow unprivileged
// user namespaces. Empty when the binary cannot be identified (no cache).
func probeKey() string {
	var u unix.Utsname
	if unix.Uname(&u) != nil {
		return ""
	}
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	parts := []string{unix.ByteSliceToString(u.Release[:]), unix.ByteSliceToString(u.Version[:]),
		unix.ByteSliceToString(u.Machine[:]), fmt.Sprintf("uid=%d gid=%d", os.Getuid(), os.Getgid()), fileID(exe)}
	if bw, err := exec.LookPath("bwrap"); err == nil {
		parts = append(parts, fileID(bw))
	}
	for _, f := range []string{"/proc/sys/kernel/unprivileged_userns_clone", "/proc/sys/user/max_user_namespaces",
		"/proc/sys/kernel/apparmor_restrict_unprivileged_userns"} {
		if b, err := os.ReadFile(f); err == nil {
			parts = append(parts, filepath.Base(f)+"="+strings.TrimSpace(string(b)))
		}
	}
	return strings.Join(parts, "|")
}

func fileID(p string) string {
	fi, err := os.Stat(p)
	if err != nil {
		return p + ":missing"
	}
	return fmt.Sprintf("%s:%d:%d", p, fi.Size(), fi.ModTime().UnixNano())
}
