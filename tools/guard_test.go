package tools

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestGuardSeesWhatToolGets checks invariants 6 and 7: the Guard gets the
// very *P the tool runs with, built from the decoded arguments, and
// fields the schema does not know never reach it.
func TestGuardSeesWhatToolGets(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		tool      string
		args      string
		guardSaw  bool   // the guard was asked
		wantPath  string // the path the guard saw
		wantKind  AccessKind
		wantCmd   string
		toolRan   bool
		wantInRes string
	}{
		{name: "plain read", tool: "read_file", args: `{"path":"a.go"}`,
			guardSaw: true, wantPath: "a.go", wantKind: AccessRead, toolRan: true},
		{name: "M12 duplicate never reaches the guard", tool: "read_file", args: `{"path":"a.go","path":"/etc/passwd"}`,
			wantInRes: "duplicate key"},
		{name: "M12 duplicate in double-encoded arguments", tool: "read_file", args: `"{\"path\":\"a.go\",\"path\":\"/etc/passwd\"}"`,
			wantInRes: "duplicate key"},
		{name: "M13 decoded escapes", tool: "read_file", args: `{"path":"\u002e\u002e/etc/passwd"}`,
			guardSaw: true, wantPath: "../etc/passwd", wantKind: AccessRead, wantInRes: "outside the workspace"},
		{name: "M13 escaped key", tool: "read_file", args: `{"p\u0061th":"\u002fetc/passwd"}`,
			guardSaw: true, wantPath: "/etc/passwd", wantKind: AccessRead, wantInRes: "outside the workspace"},
		{name: "write kind", tool: "write_file", args: `{"path":"b.go","content":"x"}`,
			guardSaw: true, wantPath: "b.go", wantKind: AccessWrite, toolRan: true},
		{name: "M11 exec kind, policy fields invisible", tool: "bash",
			args:     `{"command":"rm -rf x","requires_approval":false,"sandbox":false,"dangerouslyDisableSandbox":true}`,
			guardSaw: true, wantKind: AccessExec, wantCmd: "rm -rf x", wantInRes: `denied by rule "rm *"`},
		{name: "no Accessor: kind from readOnly", tool: "glob", args: `{"pattern":"*.go"}`,
			guardSaw: true, wantKind: AccessRead, toolRan: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sp := &spy{}
			g := &denyRules{}
			d := NewDispatcher(testTools(sp), WithGuard(g), WithLogger(quietLogger()))
			r := d.Dispatch(context.Background(), Call{ID: "c", Name: tc.tool, Arguments: tc.args})
			checkInvariants(t, r, DefaultMaxOutput)
			if tc.wantInRes != "" && !strings.Contains(r.Text, tc.wantInRes) {
				t.Errorf("result lacks %q: %s", tc.wantInRes, r.Text)
			}
			if (sp.count() == 1) != tc.toolRan {
				t.Fatalf("tool ran %d times, want ran=%v; result: %s", sp.count(), tc.toolRan, r.Text)
			}
			if !tc.guardSaw {
				if len(g.seen) != 0 {
					t.Fatalf("guard was asked about %+v", g.seen)
				}
				return
			}
			if len(g.seen) != 1 {
				t.Fatalf("guard was asked %d times", len(g.seen))
			}
			a := g.seen[0]
			if a.Tool != strings.TrimSpace(tc.tool) || a.CallID != "c" || a.Kind != tc.wantKind || a.Command != tc.wantCmd {
				t.Errorf("access = %+v", a)
			}
			if tc.wantPath != "" && (len(a.Paths) != 1 || a.Paths[0] != tc.wantPath) {
				t.Errorf("guard saw paths %q, want %q", a.Paths, tc.wantPath)
			}
			if tc.toolRan {
				// Invariant 7: one decoded value, pointer-equal.
				got := sp.last(a.Tool)
				if got != a.Params {
					t.Errorf("tool got params %p, guard saw %p", got, a.Params)
				}
				if rp, ok := got.(*readParams); ok && rp.Path != a.Paths[0] {
					t.Errorf("tool path %q != guard path %q", rp.Path, a.Paths[0])
				}
			}
			// Invariant 6: nothing in the params carries the policy fields.
			if s := strings.ToLower(strings.TrimSpace(strings.ReplaceAll(
				strings.Join([]string{a.Command, strings.Join(a.Paths, ",")}, "|"), " ", ""))); strings.Contains(s, "sandbox") {
				t.Errorf("policy field leaked into access: %q", s)
			}
		})
	}
}

func TestGuardFailsClosed(t *testing.T) {
	t.Parallel()
	never := make(chan struct{}) // never closed: a guard that ignores ctx
	t.Cleanup(func() { close(never) })
	cases := []struct {
		name  string
		guard Guard
		ctx   func() (context.Context, context.CancelFunc)
		want  string
	}{
		{name: "M50 guard honours ctx but never answers",
			guard: GuardFunc(func(ctx context.Context, a Access) Decision { <-ctx.Done(); return Decision{} }),
			want:  "read_file call denied: no approval within 20ms. Choose another way or ask the user."},
		{name: "M50 guard ignores ctx",
			guard: GuardFunc(func(ctx context.Context, a Access) Decision { <-never; return Decision{Allow: true} }),
			want:  "read_file call denied: no approval within 20ms"},
		{name: "guard panics",
			guard: GuardFunc(func(ctx context.Context, a Access) Decision { panic("editor gone") }),
			want:  "read_file call denied: the permission check failed"},
		{name: "guard refuses without reason",
			guard: GuardFunc(func(ctx context.Context, a Access) Decision { return Decision{} }),
			want:  "read_file call denied: refused by the permission policy"},
		{name: "M48 user cancels while the guard asks",
			guard: GuardFunc(func(ctx context.Context, a Access) Decision { <-ctx.Done(); return Decision{Allow: true} }),
			ctx: func() (context.Context, context.CancelFunc) {
				return context.WithTimeout(context.Background(), 10*time.Millisecond)
			},
			want: "read_file was not run: cancelled by user"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sp := &spy{}
			d := NewDispatcher(testTools(sp), WithGuard(tc.guard), WithLogger(quietLogger()),
				WithGuardTimeout(20*time.Millisecond), WithGrace(20*time.Millisecond))
			ctx, cancel := context.Background(), func() {}
			if tc.ctx != nil {
				ctx, cancel = tc.ctx()
			}
			defer cancel()
			r := d.Dispatch(ctx, Call{ID: "c", Name: "read_file", Arguments: `{"path":"a"}`})
			checkInvariants(t, r, DefaultMaxOutput)
			if !r.IsError || !strings.Contains(r.Text, tc.want) {
				t.Errorf("result = %+v, want error containing %q", r, tc.want)
			}
			if sp.count() != 0 {
				t.Errorf("tool ran")
			}
		})
	}
}

// TestCancelPending is M48: three calls are running when the user
// cancels; each gets its own "cancelled by user" result.
func TestCancelPending(t *testing.T) {
	t.Parallel()
	sp := &spy{}
	d := NewDispatcher(testTools(sp), WithLogger(quietLogger()))
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	results := make([]Result, 3)
	for i := range results {
		wg.Go(func() {
			results[i] = d.Dispatch(ctx, Call{ID: "c", Name: "polite", Arguments: `{}`})
		})
	}
	for sp.count() < 3 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	wg.Wait()
	for i, r := range results {
		checkInvariants(t, r, DefaultMaxOutput)
		if !r.IsError || !strings.Contains(r.Text, "polite cancelled by user (partial output follows)\npartial line 1") {
			t.Errorf("result %d = %+v", i, r)
		}
	}
}

func TestSpecsFollowMode(t *testing.T) {
	t.Parallel()
	d := NewDispatcher(testTools(&spy{}), WithReadOnly())
	for _, s := range d.Specs() {
		if s.Name == "write_file" || s.Name == "bash" || s.Name == "edit" {
			t.Errorf("read-only dispatcher offers %s", s.Name)
		}
	}
	if len(d.Specs()) == 0 {
		t.Error("no specs")
	}
}
