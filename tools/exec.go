package tools

import (
	"context"
	"fmt"
	"runtime/debug"
	"strings"
	"time"

	"github.com/agent-lsp/agent-lsp/internal/text"
)

type outcome struct {
	res      Result
	err      error
	panicked bool
	pval     any
}

// execute runs the tool with a deadline and a recover (M45, M46, M48).
// A tool must honour ctx; one that does not is abandoned after the
// deadline plus the grace period: its goroutine lives on until the tool
// returns (Go cannot kill it) but the dispatcher holds nothing for it
// except a one-slot channel, so it ends on its own when the tool does.
func (d *Dispatcher) execute(ctx context.Context, t *Tool, call Call, params any) Result {
	limit := d.timeout
	if l, ok := d.timeouts[t.name]; ok {
		limit = l
	}
	if limit <= 0 {
		limit = DefaultTimeout
	}
	if ctx.Err() != nil {
		return d.fail(call, "%s was not run: cancelled by user", t.name)
	}
	tctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	done := make(chan outcome, 1)
	go func() {
		var o outcome
		returned := false
		defer func() {
			if v := recover(); v != nil {
				d.log.Error("Tool panicked", "tool", t.name, "call", call.ID, "panic", v, "stack", string(debug.Stack()))
				o = outcome{panicked: true, pval: v}
			} else if !returned { // runtime.Goexit
				d.log.Error("Tool exited its goroutine", "tool", t.name, "call", call.ID)
				o = outcome{panicked: true, pval: "the tool exited without returning"}
			}
			done <- o
		}()
		o.res, o.err = t.run(tctx, params)
		returned = true
	}()
	var o outcome
	select {
	case o = <-done:
	case <-tctx.Done():
		timer := time.NewTimer(d.grace)
		defer timer.Stop()
		select {
		case o = <-done:
		case <-timer.C:
			d.log.Error("Tool ignored cancellation; abandoned it", "tool", t.name, "call", call.ID, "deadline", limit)
			return d.stopped(ctx, call, t, limit, "")
		}
	}
	if o.panicked {
		return d.fail(call, "%s crashed: %s; this is a bug in agent-lsp, not your fault; try another way", t.name, text.Clip(fmt.Sprint(o.pval), 200))
	}
	if tctx.Err() != nil && (o.err != nil || o.res.IsError) {
		return d.stopped(ctx, call, t, limit, o.res.Text)
	}
	if o.err != nil {
		msg := errText(o.err)
		if o.res.Text != "" {
			msg += "\n" + o.res.Text
		}
		return d.fail(call, "%s failed: %s", t.name, msg)
	}
	if o.res.IsError && !strings.HasPrefix(o.res.Text, "Error") {
		// Name the call in the tool's own error text too (invariant 5),
		// unless the tool already starts with its name.
		text := strings.TrimPrefix(o.res.Text, t.name+": ")
		o.res = d.fail(call, "%s: %s", t.name, text)
	}
	return o.res
}

// stopped is the result of a call cut short by cancellation or deadline.
func (d *Dispatcher) stopped(ctx context.Context, call Call, t *Tool, limit time.Duration, partial string) Result {
	var r Result
	if ctx.Err() != nil {
		r = d.fail(call, "%s cancelled by user", t.name)
	} else {
		r = d.fail(call, "%s timed out after %s; make the call do less (narrow it, add a limit) or run it in the background", t.name, limit)
	}
	if partial != "" {
		r.Text += " (partial output follows)\n" + partial
	}
	return r
}

// errText is err.Error(), surviving errors that panic (a typed nil
// pointer, M45).
func errText(err error) (s string) {
	defer func() {
		if v := recover(); v != nil {
			s = fmt.Sprintf("error of type %T with no message", err)
		}
	}()
	return err.Error()
}
