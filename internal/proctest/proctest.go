// Package proctest finds processes for tests that prove no child of a run
// outlives it.
package proctest

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Live lists the processes, zombies excepted, whose command line contains
// marker, as "pid: command line".
func Live(marker string) []string {
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, d := range ents {
		pid := d.Name()
		if pid[0] < '0' || pid[0] > '9' {
			continue
		}
		cmd, err := os.ReadFile("/proc/" + pid + "/cmdline")
		if err != nil || !strings.Contains(string(cmd), marker) {
			continue
		}
		st, _ := os.ReadFile("/proc/" + pid + "/stat")
		if i := strings.LastIndexByte(string(st), ')'); i > 0 && i+2 < len(st) && st[i+2] == 'Z' {
			continue
		}
		out = append(out, pid+": "+strings.ReplaceAll(string(cmd), "\x00", " "))
	}
	return out
}

// KillAll sends SIGKILL to every process Live(marker) lists, so a failed
// test does not leave its orphans running.
func KillAll(marker string) {
	for _, p := range Live(marker) {
		pid, _, _ := strings.Cut(p, ":")
		if n, err := strconv.Atoi(pid); err == nil && n != os.Getpid() {
			_ = syscall.Kill(n, syscall.SIGKILL)
		}
	}
}
