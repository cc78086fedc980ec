package harness_test

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/harness"
	"github.com/agent-lsp/agent-lsp/permission"
	"github.com/agent-lsp/agent-lsp/sandbox"
	"github.com/agent-lsp/agent-lsp/tools"
)

// approvalRecorder is an Approver that records requests and answers from a script.
type approvalRecorder struct {
	mu     sync.Mutex
	reqs   []harness.ApprovalRequest
	answer harness.Approval
	err    error
	block  chan struct{} // when set, Approve waits for it or ctx
	active atomic.Int32
	most   atomic.Int32
}

func (r *approvalRecorder) Approve(ctx context.Context, req harness.ApprovalRequest) (harness.Approval, error) {
	n := r.active.Add(1)
	defer r.active.Add(-1)
	for {
		m := r.most.Load()
		if n <= m || r.most.CompareAndSwap(m, n) {
			break
		}
	}
	r.mu.Lock()
	r.reqs = append(r.reqs, req)
	r.mu.Unlock()
	if r.block != nil {
		select {
		case <-r.block:
		case <-ctx.Done():
			return harness.Deny, ctx.Err()
		}
	}
	return r.answer, r.err
}

func (r *approvalRecorder) requests() []harness.ApprovalRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]harness.ApprovalRequest(nil), r.reqs...)
}

var quiet = slog.New(slog.DiscardHandler)

var confined = func() sandbox.Status {
	return sandbox.Status{Backend: sandbox.BackendLandlock, Layers: []string{"landlock-fs(abi 7)"}}
}

func corpusEngine(t *testing.T) *permission.Engine {
	t.Helper()
	off := false
	e, err := permission.New(t.TempDir(), permission.RuleSet{Source: "test", Tools: permission.Permissions{"bash": {
		Builtin: &off,
		Default: permission.Ask,
		Allow:   []string{"ls*", "cat *", "git status*"},
		Deny:    []string{"rm *", "sudo *"},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func bash(cmd string) tools.Access {
	return tools.Access{Tool: "bash", Kind: tools.AccessExec, Command: cmd}
}

func TestGuardVerdicts(t *testing.T) {
	t.Parallel()
	e := corpusEngine(t)
	rec := &approvalRecorder{answer: harness.Allow}
	g := harness.NewGuard(harness.GuardOptions{Log: quiet, Engine: e, Approver: rec, Sandbox: confined})
	ctx := context.Background()

	if d := g.Check(ctx, bash("ls -la")); !d.Allow {
		t.Errorf("allow rule: %+v", d)
	}
	d := g.Check(ctx, bash("rm -rf x"))
	if d.Allow || !strings.Contains(d.Reason, "rm -rf x") || !strings.Contains(d.Reason, "rm *") {
		t.Errorf("deny rule: %+v", d)
	}
	if len(rec.requests()) != 0 {
		t.Errorf("allow and deny asked: %+v", rec.requests())
	}
	if d := g.Check(ctx, bash("make build")); !d.Allow {
		t.Errorf("ask answered allow: %+v", d)
	}
	reqs := rec.requests()
	if len(reqs) != 1 || reqs[0].Tool != "bash" || reqs[0].Subject != "make build" || reqs[0].SessionRule != "make build *" || !strings.Contains(reqs[0].Reason, "default") {
		t.Errorf("request = %+v", reqs)
	}
	g.Check(ctx, bash("ls -la && make build"))
	if r := rec.requests(); !strings.Contains(r[1].Reason, "allow ls -la") || !strings.Contains(r[1].Reason, "ask   make build") {
		t.Errorf("the request should list every part:\n%s", r[1].Reason)
	}
	// Allow once does not stick.
	g.Check(ctx, bash("make build"))
	if n := len(rec.requests()); n != 3 {
		t.Errorf("allow once asked %d times, want 3", n)
	}
}

func TestGuardAllowForSession(t *testing.T) {
	t.Parallel()
	e := corpusEngine(t)
	rec := &approvalRecorder{answer: harness.AllowForSession}
	g := harness.NewGuard(harness.GuardOptions{Log: quiet, Engine: e, Approver: rec, Sandbox: confined})
	ctx := context.Background()
	if d := g.Check(ctx, bash("go test ./pkg/a")); !d.Allow {
		t.Fatalf("%+v", d)
	}
	if r := rec.requests(); len(r) != 1 || r[0].SessionRule != "go test *" {
		t.Fatalf("requests = %+v", r)
	}
	if got := e.SessionRules("bash"); len(got) != 1 || got[0] != "go test *" {
		t.Errorf("session rules = %q", got)
	}
	if d := g.Check(ctx, bash("go test -run X ./pkg/b")); !d.Allow {
		t.Errorf("similar command after session approval: %+v", d)
	}
	if n := len(rec.requests()); n != 1 {
		t.Errorf("similar command asked again (%d requests)", n)
	}
	// A deny rule still wins, and other commands still ask.
	if d := g.Check(ctx, bash("go test ./... && rm -rf /tmp/x")); d.Allow {
		t.Errorf("deny after session rule: %+v", d)
	}
	g.Check(ctx, bash("make"))
	if n := len(rec.requests()); n != 2 {
		t.Errorf("an unrelated command was not asked (%d requests)", n)
	}
}

func TestGuardRefusals(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tests := []struct {
		name string
		rec  *approvalRecorder
		ctx  func() (context.Context, context.CancelFunc)
		want string
	}{
		{"deny", &approvalRecorder{answer: harness.Deny}, nil, "the user refused it"},
		{"error", &approvalRecorder{answer: harness.Allow, err: errors.New("editor went away")}, nil, "editor went away"},
		{"timeout", &approvalRecorder{answer: harness.Allow, block: make(chan struct{})}, func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(ctx, 50*time.Millisecond)
		}, "needs approval"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := corpusEngine(t)
			g := harness.NewGuard(harness.GuardOptions{Log: quiet, Engine: e, Approver: tt.rec, Sandbox: confined})
			c := ctx
			if tt.ctx != nil {
				var cancel context.CancelFunc
				c, cancel = tt.ctx()
				defer cancel()
			}
			d := g.Check(c, bash("make build"))
			if d.Allow || !strings.Contains(d.Reason, tt.want) || !strings.Contains(d.Reason, "make build") {
				t.Errorf("decision = %+v, want a refusal with %q", d, tt.want)
			}
			if len(e.SessionRules("bash")) != 0 {
				t.Error("a refusal added a session rule")
			}
		})
	}
}

func TestGuardNoApprover(t *testing.T) {
	t.Parallel()
	g := harness.NewGuard(harness.GuardOptions{Log: quiet, Engine: corpusEngine(t), Sandbox: confined})
	d := g.Check(context.Background(), bash("make build"))
	if d.Allow || !strings.Contains(d.Reason, "--ask=allow") || !strings.Contains(d.Reason, "allow rule") {
		t.Errorf("no approver: %+v", d)
	}
	if d := g.Check(context.Background(), bash("ls")); !d.Allow {
		t.Errorf("allowed command without approver: %+v", d)
	}
}

func TestGuardNoSandboxAsksEveryCommand(t *testing.T) {
	t.Parallel()
	e := corpusEngine(t)
	rec := &approvalRecorder{answer: harness.AllowForSession}
	none := func() sandbox.Status { return sandbox.Status{Backend: sandbox.BackendNone} }
	g := harness.NewGuard(harness.GuardOptions{Log: quiet, Engine: e, Approver: rec, Sandbox: none})
	ctx := context.Background()
	if d := g.Check(ctx, bash("ls -la")); !d.Allow {
		t.Fatalf("%+v", d)
	}
	r := rec.requests()
	if len(r) != 1 || !strings.Contains(r[0].Reason, "no OS sandbox") || r[0].SessionRule != "" {
		t.Fatalf("requests = %+v", r)
	}
	g.Check(ctx, bash("ls -la"))
	if len(rec.requests()) != 2 || len(e.SessionRules("bash")) != 0 {
		t.Errorf("without a sandbox a session approval must not stick: %d requests, rules %q", len(rec.requests()), e.SessionRules("bash"))
	}
	if d := g.Check(ctx, bash("rm -rf x")); d.Allow {
		t.Errorf("deny without sandbox: %+v", d)
	}
	g.Check(ctx, bash("make build"))
	if r := rec.requests(); len(r) != 3 || r[2].SessionRule != "" || !strings.Contains(r[2].Reason, "no OS sandbox") {
		t.Errorf("a rule ask without a sandbox: %+v", r)
	}
	g2 := harness.NewGuard(harness.GuardOptions{Log: quiet, Engine: e, Sandbox: none})
	if d := g2.Check(ctx, bash("ls")); d.Allow || !strings.Contains(d.Reason, "no OS sandbox") {
		t.Errorf("no sandbox, no approver: %+v", d)
	}
	// The zero Status is not a sandbox either.
	g3 := harness.NewGuard(harness.GuardOptions{Log: quiet, Engine: e})
	if d := g3.Check(ctx, bash("ls")); d.Allow {
		t.Errorf("zero sandbox status allowed a command: %+v", d)
	}
}

func TestGuardSerialisesAsks(t *testing.T) {
	t.Parallel()
	e := corpusEngine(t)
	rec := &approvalRecorder{answer: harness.Allow, block: make(chan struct{})}
	g := harness.NewGuard(harness.GuardOptions{Log: quiet, Engine: e, Approver: rec, Sandbox: confined})
	var wg sync.WaitGroup
	var allowed atomic.Int32
	for i := 0; i < 5; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if g.Check(context.Background(), bash("make target")).Allow {
				allowed.Add(1)
			}
		}()
	}
	for i := 0; i < 5; i++ {
		time.Sleep(20 * time.Millisecond)
		rec.block <- struct{}{}
	}
	wg.Wait()
	if rec.most.Load() != 1 || allowed.Load() != 5 || len(rec.requests()) != 5 {
		t.Errorf("at most %d approvals in flight (want 1), %d allowed, %d requests", rec.most.Load(), allowed.Load(), len(rec.requests()))
	}
}

func TestGuardWaitingCallSeesSessionRule(t *testing.T) {
	t.Parallel()
	e := corpusEngine(t)
	rec := &approvalRecorder{answer: harness.AllowForSession, block: make(chan struct{})}
	g := harness.NewGuard(harness.GuardOptions{Log: quiet, Engine: e, Approver: rec, Sandbox: confined})
	var wg sync.WaitGroup
	for _, c := range []string{"go test ./a", "go test ./b", "go test ./c"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if d := g.Check(context.Background(), bash(c)); !d.Allow {
				t.Errorf("%s: %+v", c, d)
			}
		}()
	}
	time.Sleep(50 * time.Millisecond)
	close(rec.block)
	wg.Wait()
	if n := len(rec.requests()); n != 1 {
		t.Errorf("%d requests; calls waiting behind an allow-for-session should not ask", n)
	}
}

func TestGuardFilePaths(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	e, err := permission.New(ws, permission.RuleSet{Source: "test", Tools: permission.Permissions{
		"write_file": {Ask: []string{"docs/**"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	spill := tools.NewSpill(filepath.Join(t.TempDir(), "spill"))
	full, err := spill.Save("bash", []byte("x"))
	if err != nil {
		t.Fatal(err)
	}
	rec := &approvalRecorder{answer: harness.AllowForSession}
	g := harness.NewGuard(harness.GuardOptions{Log: quiet, Engine: e, Approver: rec, Sandbox: confined, Spill: spill})
	ctx := context.Background()
	access := func(tool string, kind tools.AccessKind, paths ...string) tools.Access {
		return tools.Access{Tool: tool, Kind: kind, Paths: paths}
	}
	for _, c := range []struct {
		a     tools.Access
		allow bool
	}{
		{access("read_file", tools.AccessRead, "a.go"), true},
		{access("read_file", tools.AccessRead, "/etc/passwd"), false},
		{access("read_file", tools.AccessRead, full), true},
		{access("write_file", tools.AccessWrite, full), false},
		{access("grep", tools.AccessRead), true},
		{access("glob", tools.AccessRead, "../x"), false},
		{access("write_file", tools.AccessWrite, "src/a.go"), true},
		{access("str_replace", tools.AccessWrite, "../outside.go"), false},
		{access("write_file", tools.AccessWrite, ".git/hooks/pre-commit"), false},
	} {
		if d := g.Check(ctx, c.a); d.Allow != c.allow {
			t.Errorf("%s %v: %+v, want allow=%v", c.a.Tool, c.a.Paths, d, c.allow)
		}
	}
	if len(rec.requests()) != 0 {
		t.Errorf("asked: %+v", rec.requests())
	}
	if d := g.Check(ctx, access("write_file", tools.AccessWrite, "docs/guide/a.md")); !d.Allow {
		t.Errorf("%+v", d)
	}
	r := rec.requests()
	if len(r) != 1 || r[0].Subject != "docs/guide/a.md" || r[0].SessionRule != "docs/guide/**" {
		t.Errorf("requests = %+v", r)
	}
	g.Check(ctx, access("write_file", tools.AccessWrite, "docs/guide/b.md"))
	if len(rec.requests()) != 1 {
		t.Error("session rule for docs/guide/** did not stick")
	}
}

// TestGuardInDispatcher runs the guard as the dispatcher's seam: a refusal is
// an error result naming the call and the reason, and the tool never runs.
func TestGuardInDispatcher(t *testing.T) {
	t.Parallel()
	type params struct {
		Command string `json:"command"`
	}
	ran := 0
	tool := tools.DefineInferred("bash", "run", false, func(ctx context.Context, p *params) (tools.Result, error) {
		ran++
		return tools.Result{Text: "ran " + p.Command}, nil
	})
	g := harness.NewGuard(harness.GuardOptions{Log: quiet, Engine: corpusEngine(t), Sandbox: confined})
	d := tools.NewDispatcher(tools.NewRegistry(tool), tools.WithGuard(tools.GuardFunc(func(ctx context.Context, a tools.Access) tools.Decision {
		a.Kind, a.Command = tools.AccessExec, a.Params.(*params).Command
		return g.Check(ctx, a)
	})))
	r := d.Dispatch(context.Background(), tools.Call{ID: "c1", Name: "bash", Arguments: `{"command":"rm -rf x"}`})
	if !r.IsError || !strings.Contains(r.Text, "c1") || !strings.Contains(r.Text, "rm *") || ran != 0 {
		t.Errorf("refusal: %+v (ran %d)", r, ran)
	}
	r = d.Dispatch(context.Background(), tools.Call{ID: "c2", Name: "bash", Arguments: `{"command":"ls"}`})
	if r.IsError || r.Text != "ran ls" {
		t.Errorf("allowed: %+v", r)
	}
}
