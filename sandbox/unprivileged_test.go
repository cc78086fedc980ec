package sandbox

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agent-lsp/agent-lsp/internal/tmpcheck"
)

// TestUnprivileged reruns the confinement tests as uid 65534, where the
// Landlock helper needs a user namespace (CLONE_NEWUSER) for its network,
// PID and mount namespaces. Run as root only (it needs to switch uid).
func TestUnprivileged(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("already unprivileged: the other tests cover this case")
	}
	if testing.Short() {
		t.Skip("-short: reruns the suite as another user")
	}
	// The test binary sits in a root-only build directory: copy it.
	// t.TempDir's parent is private to root.
	dir, err := os.MkdirTemp("", "agent-lsp-unpriv-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "sandbox.test")
	src, err := os.Open("/proc/self/exe")
	if err != nil {
		t.Fatal(err)
	}
	dst, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY, 0o755)
	if err == nil {
		_, err = io.Copy(dst, src)
		dst.Close()
	}
	src.Close()
	if err != nil {
		t.Fatal(err)
	}
	home, tmp := filepath.Join(dir, "home"), filepath.Join(dir, "tmp")
	for _, d := range []string{home, tmp} {
		os.Mkdir(d, 0o755)
		os.Chown(d, 65534, 65534)
	}
	cmd := exec.Command(bin, "-test.short", "-test.count=1", "-test.v",
		"-test.run=^(TestProbeReport|TestWritesOutsideWorkspaceFail|TestPlantedSymlinkDoesNotEscape|TestOtherProcessesUnreachable|TestNoPrivileges|TestWorkspaceUsable|TestNetworkBlocked|TestLoopbackOption|TestTimeoutKillsProcessGroup|TestPdeathsig|TestCommandEnvironment|TestProtectedPathsInWorkspace|TestHelperFailsClosed)$")
	cmd.Dir = home
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "TMPDIR=" + tmp}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("suite as uid 65534: %v\n%s", err, out)
	}
	if left := tmpcheck.Left(tmp); len(left) > 0 {
		t.Errorf("the tests as uid 65534 left temporary folders: %v", left)
	}
	// The probe must have found the full Landlock design through a user
	// namespace, not fallen back.
	for _, want := range []string{"--- PASS: TestProbeReport", "--- PASS: TestWritesOutsideWorkspaceFail/landlock", "--- PASS: TestNetworkBlocked/landlock", "namespaces: net=yes pid=yes mount=yes user=yes"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("want %q in:\n%s", want, out)
		}
	}
	if t.Failed() || testing.Verbose() {
		t.Logf("as uid 65534:\n%s", out)
	}
}
