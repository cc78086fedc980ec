package sandbox

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

func TestProbeReport(t *testing.T) {
	st := Probe()
	t.Logf("probe:\n%s", st)
	if st.Landlock == 0 {
		t.Skipf("kernel has no Landlock (LANDLOCK_CREATE_RULESET_VERSION failed): %v", st.Errors)
	}
	if !st.LandlockOK {
		t.Fatalf("kernel reports Landlock ABI %d but the helper failed: %v", st.Landlock, st.Errors)
	}
	if os.Getuid() != 0 && !st.UserNS {
		t.Errorf("unprivileged probe did not use a user namespace: %+v", st)
	}
	if st.Backend != BackendLandlock || !st.Confined() {
		t.Fatalf("default backend = %q, want landlock", st.Backend)
	}
	for _, want := range []string{"landlock-fs(abi", "no_new_privs", "caps-dropped"} {
		if !strings.Contains(st.String(), want) {
			t.Errorf("String() lacks %q:\n%s", want, st)
		}
	}
	if Probe().Landlock != st.Landlock {
		t.Error("Probe is not cached")
	}
}

func TestNoLayerAvailable(t *testing.T) {
	t.Parallel()
	// Nothing works on this imaginary machine: auto must say "none".
	s, err := newWithProbe(Options{Workspace: t.TempDir(), StateDir: t.TempDir()}, Status{})
	if err != nil {
		t.Fatal(err)
	}
	st := s.Status()
	if st.Confined() || st.Backend != BackendNone || len(st.Layers) != 0 || st.Warning == "" {
		t.Fatalf("status with no layer = %+v", st)
	}
	if !strings.Contains(st.String(), "NONE") {
		t.Errorf("String() does not say NONE loudly:\n%s", st)
	}
	// Asking for a layer that is not there is an error, not a silent "none".
	for _, b := range []Backend{BackendLandlock, BackendBwrap} {
		_, err := newWithProbe(Options{Workspace: t.TempDir(), Backend: b}, Status{})
		if !errors.Is(err, ErrUnavailable) {
			t.Errorf("New(%s) on a machine without it: err = %v, want ErrUnavailable", b, err)
		}
	}
}

func TestDisabledRunsUnconfined(t *testing.T) {
	t.Parallel()
	s, err := New(Options{Workspace: t.TempDir(), Backend: BackendNone})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if st := s.Status(); st.Confined() || !strings.Contains(st.Warning, "disabled") {
		t.Fatalf("disabled status = %+v", st)
	}
	cmd, err := s.Command(context.Background(), "grep NoNewPrivs /proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), cmd, RunOptions{Timeout: 10 * time.Second})
	if err != nil || res.ExitCode != 0 || !strings.Contains(string(res.Output), "0") {
		t.Fatalf("unconfined command: %v %+v %q", err, res, res.Output)
	}
}

func TestHelperFailsClosed(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, BackendLandlock, Options{})
	// A helper asked for a Landlock ABI the kernel lacks must refuse.
	s.status.Landlock = 99
	marker := s.Workspace() + "/ran"
	cmd, err := s.Command(context.Background(), "touch "+marker)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), cmd, RunOptions{Timeout: time.Minute})
	if !errors.Is(err, ErrHelperFailed) || res.ExitCode != ExitHelperFailed {
		t.Fatalf("Run = %+v, %v; want ErrHelperFailed", res, err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the command ran although the helper could not confine it")
	}
	if _, err := New(Options{Workspace: "/"}); err == nil {
		t.Error("New accepted / as the workspace")
	}
}
