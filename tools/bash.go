package tools

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agent-lsp/agent-lsp/internal/cmdrun"
	"github.com/agent-lsp/agent-lsp/internal/text"
)

//go:embed bash.md
var bashDescription string

// Limits of the bash tool.
const (
	BashDefaultTimeout = 120 * time.Second
	BashMaxTimeout     = 600 * time.Second
	// BashMaxOutput is how much output the model sees (head and tail).
	BashMaxOutput = 30 << 10
	// BashMaxLines caps the lines the model sees.
	BashMaxLines = 1000
	// BashCaptureLimit is how much output is kept at all (head and tail),
	// for the spill file.
	BashCaptureLimit = 16 << 20
)

// BashParams are the arguments of bash.
type BashParams struct {
	Command string `json:"command" jsonschema:"The shell command to run in the workspace root (bash -c)"`
	Timeout int    `json:"timeout,omitempty" jsonschema:"Seconds before the command is killed (default 120, maximum 600)" minimum:"1" maximum:"600"`
}

// Access reports the command, for the permission check.
func (p *BashParams) Access() Access { return Access{Kind: AccessExec, Command: p.Command} }

// Validate rejects an empty command.
func (p *BashParams) Validate() error {
	if strings.TrimSpace(p.Command) == "" {
		return errors.New("command is empty; give the shell command to run")
	}
	return nil
}

// Shell runs one command line confined, with its output captured, and is
// done only when every process the command started is gone;
// *sandbox.Sandbox is one. A non-nil error means the command could not be
// run or cleaned up (cmdrun.ErrHelperFailed: it could not be confined),
// not that it failed.
type Shell interface {
	Run(ctx context.Context, command string, opts cmdrun.Options) (cmdrun.Result, error)
}

// BashOptions configure the bash tool.
type BashOptions struct {
	// Shell runs the commands confined; required (harness gives it the
	// sandbox).
	Shell Shell
	// Spill keeps full outputs that were cut; nil keeps none.
	Spill *Spill
	// DefaultTimeout and MaxTimeout default to BashDefaultTimeout and
	// BashMaxTimeout.
	DefaultTimeout, MaxTimeout time.Duration
	// MaxOutput is the bytes of output shown (default BashMaxOutput).
	MaxOutput int
	// Grace is the time between SIGTERM and SIGKILL (default 2s).
	Grace time.Duration
	// Sync, when set, is called before each command so that edits the
	// editor holds in its buffers are on disk when the command reads them.
	Sync Syncer
	// Redactor replaces secret values (the server's API key, tokens in
	// its environment) in any cheap encoding wherever a command's output
	// shows them, before it is cut or spilled: the environment is
	// filtered, but a command may still find a copy (a file, a process it
	// can read). The dispatcher's WithRedactor uses the same one.
	Redactor *Redactor
}

// NewBash returns the bash tool: commands run through the sandbox in the
// workspace, with a timeout, no stdin, a scrubbed environment and capped
// output. Every process of a command's group is gone when the call returns.
func NewBash(opts BashOptions) *Tool {
	if opts.DefaultTimeout <= 0 {
		opts.DefaultTimeout = BashDefaultTimeout
	}
	if opts.MaxTimeout <= 0 {
		opts.MaxTimeout = BashMaxTimeout
	}
	if opts.MaxOutput <= 0 {
		opts.MaxOutput = BashMaxOutput
	}
	return Define("bash", bashDescription, false, func(ctx context.Context, p *BashParams) (Result, error) {
		return runBash(ctx, opts, p)
	})
}

func runBash(ctx context.Context, opts BashOptions, p *BashParams) (Result, error) {
	if opts.Shell == nil {
		return Result{}, errors.New("bash: no sandbox configured")
	}
	timeout := opts.DefaultTimeout
	if p.Timeout > 0 {
		timeout = time.Duration(p.Timeout) * time.Second
	}
	if timeout > opts.MaxTimeout {
		return Errorf("timeout %d s is over the maximum of %d s; split the work into shorter commands", p.Timeout, int(opts.MaxTimeout/time.Second)), nil
	}
	if opts.Sync != nil {
		if err := opts.Sync.Sync(ctx); err != nil {
			if ctx.Err() != nil {
				return Result{}, ctx.Err()
			}
			return Errorf("not run: the files you edited could not be saved to disk first (%v), so the command would not see your edits; ask the user to save them", err), nil
		}
	}
	run := cmdrun.Options{Timeout: timeout, Grace: opts.Grace, MaxOutput: BashCaptureLimit}
	live := newLiveWriter(ctx, opts.Redactor)
	if live != nil {
		run.Tee = live
	}
	res, err := opts.Shell.Run(ctx, p.Command, run)
	live.flush()
	if errors.Is(err, cmdrun.ErrHelperFailed) {
		return Result{}, fmt.Errorf("the sandbox could not confine the command, so it did not run (%v); see `agent-lsp doctor`", err)
	}
	if err != nil && !res.TimedOut && !res.Cancelled {
		return Result{}, fmt.Errorf("bash: %w", err)
	}
	body, notes := bashOutput(res, opts)
	if res.Cancelled {
		return Result{Text: body, IsError: true}, ctx.Err()
	}
	var b strings.Builder
	switch {
	case res.TimedOut:
		fmt.Fprintf(&b, "timed out after %s: the command and every process it started were killed (exit status %d).\n", timeout, res.ExitCode)
		b.WriteString("Background jobs are not supported. Run a shorter command: narrow it (one package, one test with -run, fewer files) or raise timeout (maximum ")
		fmt.Fprintf(&b, "%d s).\n", int(opts.MaxTimeout/time.Second))
	case res.ExitCode == 0:
		b.WriteString("exit status 0\n")
	case res.ExitCode > 128:
		fmt.Fprintf(&b, "exit status %d (killed by signal %d)\n", res.ExitCode, res.ExitCode-128)
	default:
		fmt.Fprintf(&b, "exit status %d\n", res.ExitCode)
	}
	if err != nil {
		fmt.Fprintf(&b, "warning: %v\n", err)
	}
	if body == "" {
		b.WriteString("(no output)\n")
	} else {
		b.WriteString(body)
		if !strings.HasSuffix(body, "\n") {
			b.WriteByte('\n')
		}
	}
	for _, n := range append(notes, res.Notes...) {
		b.WriteString("[" + n + "]\n")
	}
	return Result{Text: strings.TrimSuffix(b.String(), "\n"), IsError: res.ExitCode != 0 || res.TimedOut}, nil
}

// bashOutput makes the captured output safe and short for the model: valid
// UTF-8 without NUL bytes, head and tail within the limits, and the full
// output spilled to a file whose path a note names.
func bashOutput(res cmdrun.Result, opts BashOptions) (string, []string) {
	var notes []string
	out := res.Output
	if red, n := opts.Redactor.Redact(string(out)); n > 0 {
		out = []byte(red)
		res.Output = out
		notes = append(notes, fmt.Sprintf("%d secret value(s) from agent-lsp's environment were replaced with [REDACTED]", n))
	}
	if !utf8.Valid(out) || bytes.IndexByte(out, 0) >= 0 {
		out = bytes.ReplaceAll(bytes.ToValidUTF8(out, []byte("\uFFFD")), []byte{0}, []byte("\uFFFD"))
		notes = append(notes, "binary output: invalid UTF-8 and NUL bytes were replaced with U+FFFD")
	}
	full := string(out)
	shown := Truncate(full, BashMaxLines, opts.MaxOutput)
	if shown == full && res.Omitted == 0 {
		return full, notes
	}
	total := int64(len(res.Output)) + res.Omitted
	note := fmt.Sprintf("output cut: %s in all, the head and tail are shown", text.Size(int64(min(total, 1<<40))))
	if res.Omitted > 0 {
		note += fmt.Sprintf("; %s in the middle were not kept at all", text.Size(int64(res.Omitted)))
	}
	if opts.Spill != nil {
		if path, err := opts.Spill.Save("bash", res.Output); err == nil {
			note += "; full output saved to " + path + " (read it with read_file, using offset and limit)"
		} else {
			note += "; the full output could not be saved (" + err.Error() + ")"
		}
	}
	return shown, append(notes, note)
}
