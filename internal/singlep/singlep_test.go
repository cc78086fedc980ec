package singlep

import (
	"runtime"
	"slices"
	"testing"
)

func TestOnOneP(t *testing.T) {
	before := runtime.GOMAXPROCS(2)
	defer runtime.GOMAXPROCS(before)
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	for _, c := range []struct {
		args []string
		env  map[string]string
	}{
		{[]string{"agent-lsp"}, nil},
		{[]string{"agent-lsp", "serve"}, nil},
		{[]string{"agent-lsp", "acp"}, nil},
		{[]string{"agent-lsp", "run", "hi"}, map[string]string{"GOMAXPROCS": "4"}},
	} {
		if p := onOneP(c.args, env(c.env)); p != 0 || runtime.GOMAXPROCS(0) != 2 {
			t.Errorf("%q %v: replaced %d, now %d Ps; want 2 left alone", c.args, c.env, p, runtime.GOMAXPROCS(0))
		}
	}
	if prev != 0 {
		t.Fatalf("the test binary's own start replaced %d Ps", prev)
	}
	prev = onOneP([]string{"agent-lsp", "run", "hi"}, env(nil))
	if prev != 2 || runtime.GOMAXPROCS(0) != 1 {
		t.Fatalf("run: replaced %d, now %d Ps; want 2 replaced by 1", prev, runtime.GOMAXPROCS(0))
	}
	Restore()
	Restore() // once
	if n := runtime.GOMAXPROCS(0); n != 2 {
		t.Errorf("after Restore: %d Ps, want 2", n)
	}
}

func TestSplitArgs(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"/usr/bin/agent-lsp\x00run\x00say hello\x00", []string{"/usr/bin/agent-lsp", "run"}},
		{"agent-lsp\x00", []string{"agent-lsp"}},
		{"agent-lsp\x00ru", []string{"agent-lsp"}}, // cut: no second argument
		{"/a/very/long/pa", nil},
	} {
		if got := splitArgs([]byte(c.in), 2); !slices.Equal(got, c.want) {
			t.Errorf("splitArgs(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := commandLine(); runtime.GOOS == "linux" && (len(got) == 0 || got[0] == "") {
		t.Errorf("the test binary's command line: %q", got)
	}
}
