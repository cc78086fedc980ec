package sandbox

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

func setPdeathsig(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGKILL }

// LiveGroupMembers lists the pids of non-zombie processes in group pgid,
// read from /proc (nil where there is no /proc).
func LiveGroupMembers(pgid int) []int {
	live, _ := liveGroupMembers(pgid)
	return live
}

// liveGroupMembers also reports whether /proc could be read at all.
func liveGroupMembers(pgid int) ([]int, bool) {
	var live []int
	dirs, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil || len(dirs) == 0 {
		return nil, false
	}
	for _, d := range dirs {
		b, err := os.ReadFile(d)
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...; comm may hold spaces and ')'.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 3 || f[0] == "Z" || f[0] == "X" {
			continue
		}
		if g, err := strconv.Atoi(f[2]); err == nil && g == pgid {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(d)))
			live = append(live, pid)
		}
	}
	return live, true
}
