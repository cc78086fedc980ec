package sandbox

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

func TestScrubEnv(t *testing.T) {
	t.Parallel()
	drop := []string{
		"OPENAI_API_KEY=x", "ANTHROPIC_API_KEY=x", "AGENT_LSP_API_KEY=x", "AGENT_LSP_MODEL=x",
		"GITHUB_TOKEN=x", "GH_TOKEN=x", "AWS_ACCESS_KEY_ID=x", "AWS_SECRET_ACCESS_KEY=x", "AWS_PROFILE=x",
		"MY_SERVICE_KEY=x", "DB_PASSWORD=x", "PGPASSWORD=x", "SOME_SECRET=x", "npm_token=x", "SLACK_TOKEN=x",
		"OPENROUTER_API_KEY=x", "HF_TOKEN=x", "GOOGLE_APPLICATION_CREDENTIALS=/k.json", "AZURE_CLIENT_SECRET=x",
		"SSH_AUTH_SOCK=/run/agent", "BASH_ENV=/tmp/evil", "ENV=/tmp/evil", "BASH_FUNC_ls%%=() { evil; }",
		"CI_JOB_TOKEN=x", "PRIVATE_KEY=x", "X_AUTH=x", "apikey=x", "XAUTHORITY=/x", "NOEQUALS", "=x",
	}
	keep := []string{
		"PATH=/usr/bin", "HOME=/root", "LANG=C.UTF-8", "TERM=dumb", "GOPATH=/go", "GOFLAGS=-mod=mod",
		"GIT_AUTHOR_NAME=A", "GIT_AUTHOR_EMAIL=a@b", "USER=root", "SHELL=/bin/bash", "KEYBOARD=us",
		"GOTOOLCHAIN=local", "EDITOR=vi", "PWD=/w", "TOKENIZERS_PARALLELISM=false_but_dropped_is_ok",
	}
	got := ScrubEnv(append(append([]string{}, drop...), keep...))
	for _, kv := range drop {
		if slices.Contains(got, kv) {
			t.Errorf("ScrubEnv kept %q", kv)
		}
	}
	for _, kv := range keep {
		if strings.HasPrefix(kv, "TOKENIZERS") {
			continue // contains TOKEN: dropping it is the safe side
		}
		if !slices.Contains(got, kv) {
			t.Errorf("ScrubEnv dropped %q", kv)
		}
	}
}

func TestCommandEnvironment(t *testing.T) {
	for _, b := range allBackends {
		t.Run(string(b), func(t *testing.T) {
			t.Parallel()
			env := []string{"PATH=/usr/local/go/bin:/usr/bin:/bin", "HOME=/root",
				"OPENAI_API_KEY=FAKE-CANARY-env", "AGENT_LSP_API_KEY=FAKE-CANARY-env", "GOPROXY=https://attacker.example"}
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
