// Package cmdrun holds the vocabulary of running one shell command with its
// output captured: the options, the result and the one error that means
// "not run". The sandbox runs commands in these terms and the bash tool
// asks for them, so neither imports the other.
package cmdrun

import (
	"errors"
	"io"
	"time"
)

// ErrHelperFailed is returned when the sandbox could not confine the
// command, so it did not run.
var ErrHelperFailed = errors.New("sandbox helper could not confine the command")

// Options bound one run.
type Options struct {
	// Timeout stops the command after this long; zero means none.
	Timeout time.Duration
	// Grace is the time between SIGTERM and SIGKILL; zero means 2s.
	Grace time.Duration
	// MaxOutput caps the captured output; the head and tail are kept.
	// Zero means 1 MiB.
	MaxOutput int
	// Tee, when set, also receives the output as it comes, for a live
	// view (the editor's tool row). Its errors are ignored and it must
	// not block for long: the command's output waits on it.
	Tee io.Writer
}

// Result is what a command did.
type Result struct {
	// Output is stdout and stderr interleaved, possibly cut in the middle.
	Output []byte
	// Omitted is the number of bytes cut from the middle of Output.
	Omitted int64
	// ExitCode is the shell-style status: 128+N when killed by signal N.
	ExitCode int
	// TimedOut is true when the timeout (not ctx) stopped the command.
	TimedOut bool
	// Cancelled is true when ctx stopped the command.
	Cancelled bool
	// Notes say what the sandbox dropped or removed when the command was
	// over (a planted .git/commondir, a new .vscode/tasks.json ...).
	Notes []string
}
