//go:build unix

package sandbox

import (
	"fmt"
	"os"
)

// HelperArg is the hidden first argument that makes the agent-lsp binary
// act as the sandbox helper (see MaybeRunHelper).
const HelperArg = "__sandbox-exec"

// ExitHelperFailed is the exit status of a helper that could not confine
// itself; its stderr then starts with HelperFailedPrefix. It never runs the
// command in that case (fail closed).
const ExitHelperFailed = 121

// HelperFailedPrefix starts the helper's message when it refuses to run.
const HelperFailedPrefix = "agent-lsp sandbox: refusing to run the command: "

// MaybeRunHelper runs the sandbox helper and never returns when the process
// was started as one (os.Args[1] == HelperArg); otherwise it returns at once.
// Call it first thing in main:
//
//	func main() { sandbox.MaybeRunHelper(); ... }
func MaybeRunHelper() {
	if len(os.Args) < 2 || os.Args[1] != HelperArg {
		return
	}
	err := runHelper(os.Args[2:])
	fmt.Fprintf(os.Stderr, "%s%v\n", HelperFailedPrefix, err)
	os.Exit(ExitHelperFailed)
}
