package sandbox

import (
	"fmt"
	"strings"
)

// Backend names the mechanism that confines commands.
type Backend string

// The backends, strongest first. BackendAuto (the zero value) picks the
// strongest one the probe found working.
const (
	BackendAuto     Backend = ""
	BackendLandlock Backend = "landlock" // re-exec helper: Landlock + namespaces + no_new_privs + capability drop
	BackendBwrap    Backend = "bwrap"    // bubblewrap: read-only bind of /, namespaces, capability drop
	BackendNone     Backend = "none"     // no confinement: every command must be approved
)

// Status says what confinement is available (from Probe) or applied (from
// Sandbox.Status). Backend "none" means commands run unconfined.
type Status struct {
	// Backend is the chosen backend; BackendNone when nothing works.
	Backend Backend `json:"backend"`
	// Landlock is the kernel's Landlock ABI version, 0 when absent.
	Landlock int `json:"landlock"`
	// LandlockOK is true when the re-exec helper applied Landlock in a probe.
	LandlockOK bool `json:"landlockOk"`
	// NetNS and PIDNS are true when new network and PID namespaces can be
	// created for a command; UserNS when that needs a user namespace.
	NetNS  bool `json:"netns"`
	PIDNS  bool `json:"pidns"`
	UserNS bool `json:"userns"`
	// MountNS is true when a private mount namespace can be made with every
	// mount read-only except the workspace and the private directory.
	MountNS bool `json:"mountns"`
	// Bwrap is true when bubblewrap is installed and ran a probe command.
	Bwrap     bool   `json:"bwrap"`
	BwrapPath string `json:"bwrapPath,omitempty"`
	// Layers lists the protections applied to each command, in order.
	Layers []string `json:"layers"`
	// Network is true when commands may use the network (by configuration).
	Network bool `json:"network"`
	// Warning explains anything weaker than the full design, in words.
	Warning string `json:"warning,omitempty"`
	// Errors keeps why each probe failed, for `agent-lsp doctor`.
	Errors []string `json:"errors,omitempty"`
}

// Confined reports whether commands run inside an OS sandbox at all.
func (s Status) Confined() bool { return s.Backend != BackendNone && s.Backend != "" }

// String renders the status for logs and `agent-lsp doctor`.
func (s Status) String() string {
	var b strings.Builder
	if !s.Confined() {
		b.WriteString("sandbox: NONE - commands run unconfined; every command needs approval\n")
	} else {
		fmt.Fprintf(&b, "sandbox: %s (%s)\n", s.Backend, strings.Join(s.Layers, ", "))
	}
	ll := "unavailable"
	if s.Landlock > 0 {
		ll = fmt.Sprintf("ABI %d", s.Landlock)
		if !s.LandlockOK {
			ll += " (helper failed)"
		}
	}
	fmt.Fprintf(&b, "  landlock: %s\n", ll)
	fmt.Fprintf(&b, "  namespaces: net=%s pid=%s mount=%s user=%s\n", yesNo(s.NetNS), yesNo(s.PIDNS), yesNo(s.MountNS), yesNo(s.UserNS))
	bw := "not installed"
	if s.BwrapPath != "" {
		bw = s.BwrapPath + " (failed)"
		if s.Bwrap {
			bw = s.BwrapPath + " (works)"
		}
	}
	fmt.Fprintf(&b, "  bubblewrap: %s\n", bw)
	net := "off"
	if s.Network {
		net = "on"
	}
	fmt.Fprintf(&b, "  network: %s\n", net)
	if s.Warning != "" {
		fmt.Fprintf(&b, "  WARNING: %s\n", s.Warning)
	}
	for _, e := range s.Errors {
		fmt.Fprintf(&b, "  probe error: %s\n", e)
	}
	return strings.TrimRight(b.String(), "\n")
}

func yesNo(v bool) string {
	if v {
		return "yes"
	}
	return "no"
}
