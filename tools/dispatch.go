package tools

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/agent-lsp/agent-lsp/internal/text"
)

// Defaults for a Dispatcher; each has an option.
const (
	DefaultTimeout      = 10 * time.Minute // per tool call (M46)
	DefaultGrace        = 5 * time.Second  // wait after the deadline for the tool to return
	DefaultGuardTimeout = 10 * time.Minute // an unanswered approval is a refusal (M50)
	DefaultMaxOutput    = 64 << 10         // bytes of result text sent to the model (M47)
)

// Dispatcher runs tool calls as the model wrote them. Dispatch never
// panics and always returns exactly one Result per call; every failure
// is an error Result whose text names the call, says what was wrong and
// how to fix it. A Dispatcher is immutable after NewDispatcher and safe
// for concurrent use.
//
// One call goes through these steps, and stops at the first failure:
//
//  1. name: trimmed, one "functions." prefix stripped, then an exact
//     match among the registered tools that the mode enables;
//  2. arguments: decoded strictly (see decodeArgs), checked against the
//     tool's schema, and decoded once into the tool's params *P, whose
//     optional Validate method then runs;
//  3. permission: the Access built from that same *P goes to the Guard;
//  4. execution: with a deadline, a recover and an output cap.
//
// Nothing runs unless every earlier step passed (invariant 4).
//
// Decisions, in model-case terms:
//   - M08: a string is coerced to an integer only where the schema wants
//     an integer and the string is plain base 10 ("10", "-3"; not "010",
//     "+1", " 1", "1.0"); the result says so. Integers must be integer
//     literals (1.0 and 1e2 are refused); numbers must be finite.
//   - M14: NUL is refused in every key and string. Other control
//     characters are refused in the paths and the command a params type
//     reports through Accessor (a command may hold tab, CR and LF), and
//     allowed elsewhere, e.g. in file content.
//   - M10, M11: unknown fields are dropped before anything else sees them
//     and listed in a "Note: ignored unknown field(s): ..." line.
//   - M46: a tool gets ctx with its deadline. If it has not returned by
//     deadline + grace, the dispatcher answers "timed out" and abandons
//     the goroutine, which ends when the tool returns; Go cannot stop it
//     sooner, so tools that start processes must kill them on ctx.Done.
//   - M50: a Guard gets ctx with the guard deadline; silence past
//     deadline + grace, a panic or an empty Decision is a refusal.
type Dispatcher struct {
	reg          *Registry
	guard        Guard
	mode         string
	enabled      func(*Tool) bool
	timeout      time.Duration
	timeouts     map[string]time.Duration
	grace        time.Duration
	guardTimeout time.Duration
	maxArgBytes  int
	maxOutput    int
	redactor     *Redactor
	log          *slog.Logger
}

// Option configures a Dispatcher.
type Option func(*Dispatcher)

// WithGuard sets the permission check run before every call.
func WithGuard(g Guard) Option { return func(d *Dispatcher) { d.guard = g } }

// WithReadOnly disables every tool that is not read-only (M21).
func WithReadOnly() Option { return WithMode("read-only", (*Tool).ReadOnly) }

// WithMode enables only the tools for which enabled returns true; calls
// to the others answer "X is not available in <name> mode".
func WithMode(name string, enabled func(*Tool) bool) Option {
	return func(d *Dispatcher) { d.mode, d.enabled = name, enabled }
}

// WithTimeout sets the deadline of every tool call (default 10 min).
func WithTimeout(t time.Duration) Option { return func(d *Dispatcher) { d.timeout = t } }

// WithToolTimeout sets the deadline of one tool's calls.
func WithToolTimeout(name string, t time.Duration) Option {
	return func(d *Dispatcher) { d.timeouts[name] = t }
}

// WithGrace sets how long the dispatcher still waits, after a deadline or
// a cancellation, for a tool or guard to return before it gives up on it.
func WithGrace(t time.Duration) Option { return func(d *Dispatcher) { d.grace = t } }

// WithGuardTimeout sets how long a Guard may take before its silence
// counts as a refusal.
func WithGuardTimeout(t time.Duration) Option { return func(d *Dispatcher) { d.guardTimeout = t } }

// WithMaxArgBytes sets the cap on a call's raw arguments (default 1 MiB).
func WithMaxArgBytes(n int) Option { return func(d *Dispatcher) { d.maxArgBytes = n } }

// WithMaxOutput sets the cap on result text (default 64 KiB).
func WithMaxOutput(n int) Option { return func(d *Dispatcher) { d.maxOutput = n } }

// WithLogger sets the logger (default slog.Default()). Panics are logged
// with their stack here, never shown to the model.
func WithLogger(l *slog.Logger) Option { return func(d *Dispatcher) { d.log = l } }

// NewDispatcher returns a dispatcher over the tools of reg.
func NewDispatcher(reg *Registry, opts ...Option) *Dispatcher {
	if reg == nil {
		reg = NewRegistry()
	}
	d := &Dispatcher{
		reg:          reg,
		timeout:      DefaultTimeout,
		timeouts:     map[string]time.Duration{},
		grace:        DefaultGrace,
		guardTimeout: DefaultGuardTimeout,
		maxArgBytes:  DefaultMaxArgBytes,
		maxOutput:    DefaultMaxOutput,
	}
	for _, o := range opts {
		o(d)
	}
	// Non-positive limits mean the defaults: a zero deadline would fail
	// every call, and no cap is not an option.
	if d.log == nil {
		d.log = slog.Default()
	}
	if d.timeout <= 0 {
		d.timeout = DefaultTimeout
	}
	if d.guardTimeout <= 0 {
		d.guardTimeout = DefaultGuardTimeout
	}
	if d.grace < 0 {
		d.grace = 0
	}
	if d.maxArgBytes <= 0 {
		d.maxArgBytes = DefaultMaxArgBytes
	}
	if d.maxOutput <= 0 {
		d.maxOutput = DefaultMaxOutput
	}
	return d
}

// Specs returns the specs of the tools enabled in this dispatcher's
// mode, sorted by name.
func (d *Dispatcher) Specs() []Spec {
	var specs []Spec
	for _, s := range d.reg.Specs() {
		if t, _ := d.reg.Get(s.Name); d.isEnabled(t) {
			specs = append(specs, s)
		}
	}
	return specs
}

func (d *Dispatcher) isEnabled(t *Tool) bool { return d.enabled == nil || d.enabled(t) }

func (d *Dispatcher) available() []string {
	var names []string
	for _, n := range d.reg.Names() {
		if t, _ := d.reg.Get(n); d.isEnabled(t) {
			names = append(names, n)
		}
	}
	return names
}

// Dispatch runs one call and returns its result. It never panics and
// never returns without a result; ctx cancellation gives a "cancelled by
// user" result (M48).
func (d *Dispatcher) Dispatch(ctx context.Context, call Call) (res Result) {
	if ctx == nil {
		ctx = context.Background()
	}
	defer func() {
		if v := recover(); v != nil {
			d.log.Error("Dispatcher panicked", "call", call.ID, "panic", v, "stack", string(debug.Stack()))
			res = d.fail(call, "the dispatcher crashed on this call (%s); this is a bug in agent-lsp, not your fault; try another way", text.Clip(fmt.Sprint(v), 200))
		}
		res = d.finish(res)
	}()
	t, res, ok := d.lookup(call)
	if !ok {
		return res
	}
	if ctx.Err() != nil {
		return d.fail(call, "%s was not run: cancelled by user", t.name)
	}
	obj, notes, err := decodeArgs(call.Arguments, d.maxArgBytes)
	if err != nil {
		return d.fail(call, "%s: %s", t.name, err.Error())
	}
	if len(notes) > 0 {
		d.log.Info("Decoded double-encoded arguments", "tool", t.name, "call", call.ID)
	}
	params, notes, err := bind(t, obj, notes)
	if err != nil {
		return withNotes(d.fail(call, "%s", err.Error()), notes)
	}
	a := accessOf(t, call.ID, params)
	if err := checkAccessText(a); err != nil {
		return withNotes(d.fail(call, "%s: %s", t.name, err.Error()), notes)
	}
	if r, ok := d.permit(ctx, call, a); !ok {
		return withNotes(r, notes)
	}
	return withNotes(d.execute(ctx, t, call, params), notes)
}

// lookup finds the tool a call names (M18–M21).
func (d *Dispatcher) lookup(call Call) (*Tool, Result, bool) {
	name := strings.TrimSpace(call.Name)
	name = strings.TrimPrefix(name, "functions.")
	avail := func() string { return strings.Join(d.available(), ", ") }
	if name == "" {
		return nil, d.fail(call, "tool call has an empty name. Available: %s. Call one of them by name", avail()), false
	}
	t, ok := d.reg.Get(name)
	if !ok {
		msg := fmt.Sprintf("unknown tool %s. Available: %s.", quote(name), avail())
		if s := closest(name, d.available()); s != "" {
			msg += " Did you mean " + s + "?"
		}
		return nil, d.fail(call, "%s", msg), false
	}
	if !d.isEnabled(t) {
		return nil, d.fail(call, "%s is not available in %s mode. Available: %s", t.name, d.mode, avail()), false
	}
	return t, Result{}, true
}

// permit asks the Guard about a, failing closed on silence or panic.
func (d *Dispatcher) permit(ctx context.Context, call Call, a Access) (Result, bool) {
	if d.guard == nil {
		return Result{}, true
	}
	gctx, cancel := context.WithTimeout(ctx, d.guardTimeout)
	defer cancel()
	ch := make(chan Decision, 1) // buffered: an abandoned guard can still finish
	go func() {
		defer func() {
			if v := recover(); v != nil {
				d.log.Error("Guard panicked", "tool", a.Tool, "call", call.ID, "panic", v, "stack", string(debug.Stack()))
				ch <- Decision{Reason: "the permission check failed"}
			}
		}()
		ch <- d.guard.Check(gctx, a)
	}()
	var dec Decision
	select {
	case dec = <-ch:
	case <-gctx.Done():
		timer := time.NewTimer(d.grace)
		defer timer.Stop()
		select {
		case dec = <-ch:
		case <-timer.C:
			d.log.Error("Guard did not return after its deadline; refusing the call", "tool", a.Tool, "call", call.ID)
		}
	}
	if ctx.Err() != nil {
		return d.fail(call, "%s was not run: cancelled by user", a.Tool), false
	}
	if dec.Allow {
		return Result{}, true
	}
	reason := strings.TrimRight(strings.TrimSpace(dec.Reason), ".")
	if reason == "" {
		reason = "refused by the permission policy"
		if gctx.Err() != nil {
			reason = "no approval within " + d.guardTimeout.String()
		}
	}
	return d.fail(call, "%s call denied: %s. Choose another way or ask the user.", a.Tool, reason), false
}

// fail builds an error result naming the call.
func (d *Dispatcher) fail(call Call, format string, a ...any) Result {
	prefix := "Error: "
	if id := displayID(call.ID); id != "" {
		prefix = "Error (" + id + "): "
	}
	return Result{Text: prefix + fmt.Sprintf(format, a...), IsError: true}
}

// displayID shows a call id safely: as is when short and printable,
// quoted and clipped otherwise.
func displayID(id string) string {
	if id == "" {
		return ""
	}
	if len(id) <= 64 && strings.IndexFunc(id, func(r rune) bool { return !unicode.IsPrint(r) || r == ' ' }) < 0 {
		return id
	}
	return quote(id)
}

// withNotes adds notes for the model: before the text of a success,
// after the text of an error (so that "Error" stays first).
func withNotes(r Result, notes []string) Result {
	if len(notes) == 0 {
		return r
	}
	var b strings.Builder
	for _, n := range notes {
		b.WriteString("Note: " + n + "\n")
	}
	if r.IsError {
		r.Text = r.Text + "\n" + strings.TrimSuffix(b.String(), "\n")
	} else {
		r.Text = b.String() + r.Text
	}
	return r
}

// finish makes the text safe to send: valid UTF-8 (M47), without secrets
// (WithRedactor) and capped.
func (d *Dispatcher) finish(r Result) Result {
	if red, n := d.redactor.Redact(r.Text); n > 0 {
		r.Text = red + "\n[" + strconv.Itoa(n) + " secret value(s) were replaced with " + RedactedMark + "]"
	}
	if !utf8.ValidString(r.Text) {
		r.Text = strings.ToValidUTF8(r.Text, "\uFFFD")
		r = withNotes(r, []string{"binary output; invalid UTF-8 bytes were replaced with U+FFFD"})
	}
	r.Text = Truncate(r.Text, 0, d.maxOutput)
	return r
}
