package tools

import (
	"context"
	"fmt"
	"strings"
)

// AccessKind is the broad class of effect a call has.
type AccessKind string

// The access kinds, from least to most dangerous.
const (
	AccessRead  AccessKind = "read"
	AccessWrite AccessKind = "write"
	AccessExec  AccessKind = "exec"
)

// Access is what a call would do, derived from its decoded params. It is
// what a Guard decides on, so it is built only from the one decoded
// params value that the tool will also receive (invariant 7), never from
// the raw arguments: fields the schema does not know, such as
// "requires_approval" or "sandbox", cannot reach it (invariant 6).
type Access struct {
	// Tool is the tool's registered name.
	Tool string
	// CallID is the id of the call, for logs and approval prompts.
	CallID string
	// Kind is the class of effect. A params type may set it; otherwise
	// it is AccessRead for read-only tools and AccessWrite for others.
	Kind AccessKind
	// Paths are the paths the call names, as decoded and not yet
	// resolved against the workspace.
	Paths []string
	// Command is the shell command, for tools that run one.
	Command string
	// Params is the decoded *P that the tool will run with. A Guard may
	// inspect it but must not change it.
	Params any
}

// Accessor is implemented by params types (on P or *P) that name the
// paths or command a call touches. The dispatcher fills in Tool, CallID
// and Params, and Kind when it is empty.
type Accessor interface {
	Access() Access
}

// Validator is implemented by params types (on P or *P) that check what
// a schema cannot express, for example that two fields agree. It runs
// after decoding and before the Guard; a non-nil error rejects the call
// with the error's text, which should say how to fix it.
type Validator interface {
	Validate() error
}

// Decision is a Guard's answer.
type Decision struct {
	Allow bool
	// Reason is shown to the model when the call is refused, and should
	// say what would be allowed instead.
	Reason string
}

// Guard decides whether a call may run. A nil Guard allows everything.
// Check may take a long time (it may ask a human), so it gets ctx: it
// should give up and refuse when ctx is done. The dispatcher also stops
// waiting at its guard deadline and treats silence as a refusal (M50).
type Guard interface {
	Check(ctx context.Context, a Access) Decision
}

// GuardFunc adapts a function to the Guard interface.
type GuardFunc func(ctx context.Context, a Access) Decision

// Check calls f.
func (f GuardFunc) Check(ctx context.Context, a Access) Decision { return f(ctx, a) }

// accessOf builds the Access for a call from its decoded params.
func accessOf(t *Tool, callID string, params any) Access {
	var a Access
	if ac, ok := params.(Accessor); ok {
		a = ac.Access()
	}
	a.Tool, a.CallID, a.Params = t.name, callID, params
	if a.Kind == "" {
		a.Kind = AccessWrite
		if t.readOnly {
			a.Kind = AccessRead
		}
	}
	return a
}

// checkAccessText rejects control characters in the strings a Guard
// decides on (M14). Paths may hold none at all; commands may hold tab,
// newline and carriage return (multi-line scripts), nothing else below
// U+0020 and no DEL. NUL is already refused anywhere in arguments.
func checkAccessText(a Access) error {
	for _, p := range a.Paths {
		if i := strings.IndexFunc(p, func(r rune) bool { return r < 0x20 || r == 0x7f }); i >= 0 {
			return fmt.Errorf("control character %q in path %s; paths may not contain control characters", p[i], quote(p))
		}
	}
	if i := strings.IndexFunc(a.Command, func(r rune) bool {
		return (r < 0x20 && r != '\t' && r != '\n' && r != '\r') || r == 0x7f
	}); i >= 0 {
		return fmt.Errorf("control character %q in command; remove it (use printf or $'..' inside the command if you need one)", a.Command[i])
	}
	return nil
}
