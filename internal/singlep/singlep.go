// Package singlep runs `agent-lsp run` on one P from its start until a tool
// runs, when Restore gives the scheduler every CPU back (before grep or
// str_replace split their work across CPUs).
//
// Until its first tool a run is one chain of steps (set up, send the
// request, read the reply) with a few goroutines beside it (the dial ahead,
// the transcript's file, net/http's loops). With a second P the runtime
// wakes a second thread for each of those, and on this project's reference
// machine (a 2-CPU VM) the cross-CPU wake-ups, and the TLB shootdowns the
// page faults of a starting process then need, made a one-turn run 5 to
// 10% slower (bench/rows.go, "one-turn"). The earlier the switch, the
// cheaper: dropping a P hands its cached spans back to the heap, a page of
// metadata for each size class the P had used. So this package imports
// nothing but the runtime, sync and syscall, and reads its command line
// from /proc/self/cmdline rather than wait for package os to set os.Args:
// the language initialises packages in import-path order once their
// imports are, so it runs before most packages' initialisation, os and
// the configuration's TOML package among them (check with
// GODEBUG=inittrace=1; reading os.Args from after os, it cost 0.05 ms
// more). A GOMAXPROCS the user set is left as it is.
package singlep

import (
	"runtime"
	"sync"
	"syscall"
)

// prev is the P count init replaced by one, or 0.
var prev = onOneP(commandLine(), func(k string) string { v, _ := syscall.Getenv(k); return v })

// onOneP puts the process on one P when args are `agent-lsp run ...` and
// the user set no GOMAXPROCS; it returns the P count it replaced, or 0.
func onOneP(args []string, getenv func(string) string) int {
	if len(args) < 2 || args[1] != "run" || getenv("GOMAXPROCS") != "" {
		return 0
	}
	return runtime.GOMAXPROCS(1)
}

// splitArgs returns the first n NUL-terminated arguments of a command
// line as /proc/PID/cmdline gives it (fewer when it holds fewer, or a
// longer argument was cut).
func splitArgs(b []byte, n int) []string {
	var args []string
	start := 0
	for i := 0; i < len(b) && len(args) < n; i++ {
		if b[i] == 0 {
			args = append(args, string(b[start:i]))
			start = i + 1
		}
	}
	return args
}

var once sync.Once

// Restore gives the scheduler back the Ps the process started with, once;
// it does nothing in a process init did not put on one P.
func Restore() {
	if prev > 1 {
		once.Do(func() { runtime.GOMAXPROCS(prev) })
	}
}
