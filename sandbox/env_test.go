package sandbox

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

func TestFilterEnv(t *testing.T) {
	t.Parallel()
	drop := []string{
		"OPENAI_API_KEY=x", "ANTHROPIC_API_KEY=x", "AGENT_LSP_API_KEY=x", "AGENT_LSP_MODEL=x",
		"GITHUB_TOKEN=x", "GH_TOKEN=x", "AWS_ACCESS_KEY_ID=x", "AWS_SECRET_ACCESS_KEY=x", "AWS_PROFILE=x",
		"MY_SERVICE_KEY=x", "DB_PASSWORD=x", "PGPASSWORD=x", "SOME_SECRET=x", "npm_token=x", "SLACK_TOKEN=x",
		"OPENROUTER_API_KEY=x", "HF_TOKEN=x", "GOOGLE_APPLICATION_CREDENTIALS=/k.json", "AZURE_CLIENT_SECRET=x",
		"SSH_AUTH_SOCK=/run/agent", "BASH_ENV=/tmp/evil", "ENV=/tmp/evil", "BASH_FUNC_ls%%=() { evil; }",
		"CI_JOB_TOKEN=x", "PRIVATE_KEY=x", "X_AUTH=x", "apikey=x", "XAUTHORITY=/x", "NOEQUALS", "=x",
		// Issue 10: credentials whose names no deny-list guesses.
		"DATABASE_URL=postgres://u:FAKE-CANARY@db/x", "MY_SERVICE_CREDS=FAKE-CANARY", "SLACK_WEBHOOK_URL=https://hooks.example/FAKE",
		"KEYBOARD=us", "GIT_SSH_COMMAND=evil", "GIT_CONFIG_COUNT=1", "LD_PRELOAD=/evil.so", "XDG_RUNTIME_DIR=/run/user/0",
		"DBUS_SESSION_BUS_ADDRESS=unix:path=/x", "NPM_CONFIG__AUTH=x", "npm_config_//registry.npmjs.org/:_authToken=x",
		"CARGO_REGISTRY_TOKEN=x", "HTTPS_PROXY=http://u:p@proxy",
	}
	keep := []string{
		"PATH=/usr/bin", "HOME=/root", "LANG=C.UTF-8", "TERM=dumb", "GOPATH=/go", "GOFLAGS=-mod=mod",
		"GIT_AUTHOR_NAME=A", "GIT_AUTHOR_EMAIL=a@b", "USER=root", "SHELL=/bin/bash", "LC_ALL=C",
		"GOTOOLCHAIN=local", "EDITOR=vi", "NPM_CONFIG_CACHE=/c", "CARGO_HOME=/c", "MY_TOOL_VAR=added-by-user",
		"MY_OWN_TOKEN=user-chose-it",
	}
	got := FilterEnv(append(append([]string{}, drop...), keep...), []string{"MY_TOOL_VAR", "MY_OWN_TOKEN"})
	for _, kv := range drop {
		if slices.Contains(got, kv) {
			t.Errorf("FilterEnv kept %q", kv)
		}
	}
	for _, kv := range keep {
		if !slices.Contains(got, kv) {
			t.Errorf("FilterEnv dropped %q", kv)
		}
	}
}

func TestCommandEnvironment(t *testing.T) {
	for _, b := range allBackends {
		t.Run(string(b), func(t *testing.T) {
			t.Parallel()
			env := []string{"PATH=/usr/local/go/bin:/usr/bin:/bin", "HOME=/root",
				"OPENAI_API_KEY=FAKE-CANARY-env", "AGENT_LSP_API_KEY=FAKE-CANARY-env", "GOPROXY=https://attacker.example",
				"DATABASE_URL=postgres://app:FAKE-CANARY-db@db/x", "MY_SERVICE_CREDS=FAKE-CANARY-creds",
				"DEPLOY_WEBHOOK=https://hooks.example.com/services/FAKE-CANARY-hook"}
			s := newSandbox(t, b, Options{Env: env})
			out := mustSucceed(t, s, "env; cat /proc/self/environ")
			if strings.Contains(out, "FAKE-CANARY") {
				t.Errorf("secret reached the command:\n%s", out)
			}
			for _, want := range []string{"TMPDIR=" + s.StateDir(), "GOCACHE=" + s.StateDir(), "XDG_CONFIG_HOME=" + s.StateDir(), "GOTELEMETRY=off", "GOPROXY=off\n", "PWD=" + s.Workspace()} {
				if !strings.Contains(out, want) {
					t.Errorf("want %q in:\n%s", want, out)
				}
			}
		})
	}
}

func TestHeadTail(t *testing.T) {
	t.Parallel()
	h := newHeadTail(10)
	h.Write([]byte("0123"))
	h.Write([]byte("456789abcdefghij"))
	out, omitted := h.Bytes()
	if omitted != 10 || !bytes.HasPrefix(out, []byte("01234")) || !bytes.HasSuffix(out, []byte("fghij")) || !bytes.Contains(out, []byte("10 bytes omitted")) {
		t.Errorf("Bytes() = %q, %d", out, omitted)
	}
	small := newHeadTail(100)
	small.Write([]byte("hello"))
	if out, n := small.Bytes(); string(out) != "hello" || n != 0 {
		t.Errorf("small = %q, %d", out, n)
	}
}

func TestStatusString(t *testing.T) {
	t.Parallel()
	st := applied(Status{Landlock: 7, LandlockOK: true, NetNS: true, PIDNS: true, BwrapPath: "/usr/bin/bwrap", Bwrap: true}, BackendLandlock, Options{})
	s := st.String()
	for _, want := range []string{"sandbox: landlock", "landlock-fs(abi 7)", "landlock-tcp-deny", "netns", "pidns", "ABI 7", "/usr/bin/bwrap (works)", "network: off"} {
		if !strings.Contains(s, want) {
			t.Errorf("want %q in:\n%s", want, s)
		}
	}
	weak := applied(Status{Landlock: 3, LandlockOK: true}, BackendLandlock, Options{})
	if !strings.Contains(weak.Warning, "NOT blocked") {
		t.Errorf("Landlock ABI 3 without netns must warn that the network is open: %+v", weak)
	}
	if on := applied(Status{Landlock: 7, LandlockOK: true, NetNS: true, MountNS: true}, BackendLandlock, Options{Network: true}); slices.Contains(on.Layers, "netns") || on.Warning != "" {
		t.Errorf("network on: %+v", on)
	}
}
