package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// secretSubstrings mark a variable as a secret wherever they appear in its
// (upper-cased) name.
var secretSubstrings = []string{
	"API_KEY", "APIKEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD",
	"CREDENTIAL", "PRIVATE_KEY", "ACCESS_KEY", "COOKIE",
}

// secretPrefixes mark whole families of provider and cloud variables.
var secretPrefixes = []string{
	"AWS_", "OPENAI_", "ANTHROPIC_", "AZURE_", "GOOGLE_", "GEMINI_", "GCP_",
	"OPENROUTER_", "MISTRAL_", "GROQ_", "HF_", "HUGGING", "AGENT_LSP_",
	"GITHUB_", "GH_", "GITLAB_", "NPM_", "DOCKER_", "VAULT_",
	// Exported shell functions change what later commands do (injection I12).
	"BASH_FUNC_",
}

// secretNames are dropped by exact name: agent sockets hand out keys, and
// BASH_ENV/ENV make every `bash -c` source a file first.
var secretNames = map[string]bool{
	"SSH_AUTH_SOCK": true, "SSH_AGENT_PID": true, "GPG_AGENT_INFO": true,
	"BASH_ENV": true, "ENV": true, "PROMPT_COMMAND": true,
	"KUBECONFIG": true, "NETRC": true, "PGPASS": true, "XAUTHORITY": true,
}

// IsSecretName reports whether an environment variable name looks like it
// holds a credential or changes how bash starts, and so must not reach a
// command the agent runs.
func IsSecretName(name string) bool {
	n := strings.ToUpper(name)
	for _, p := range secretPrefixes {
		if strings.HasPrefix(n, p) {
			return true
		}
	}
	return secretLooking(n)
}

// secretLooking is IsSecretName without the provider families, for names
// already on the allow-list (NPM_CONFIG_CACHE is fine, NPM_CONFIG__AUTH is
// not).
func secretLooking(name string) bool {
	n := strings.ToUpper(name)
	if secretNames[n] {
		return true
	}
	if strings.HasSuffix(n, "_KEY") || strings.HasSuffix(n, "_SECRET") || strings.HasSuffix(n, "_TOKEN") || strings.HasSuffix(n, "_PAT") || strings.HasSuffix(n, "_AUTH") {
		return true
	}
	for _, s := range secretSubstrings {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}

// AllowedEnv are the variables a command gets from the server's
// environment: what a shell and the usual toolchains need to find
// themselves and behave (README.md says why each). Everything else, and
// any name IsSecretName flags, is left out; users add names with
// [sandbox] env.
var AllowedEnv = []string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TERM", "TZ", "TMPDIR",
	"NO_COLOR", "PAGER", "GIT_PAGER", "GIT_TERMINAL_PROMPT", "GIT_EDITOR", "EDITOR", "VISUAL", "DEBIAN_FRONTEND", "CI",
	"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL",
	"GOPATH", "GOROOT", "GOBIN", "GOFLAGS", "GOPROXY", "GOPRIVATE", "GONOPROXY", "GONOSUMDB", "GOSUMDB", "GOINSECURE",
	"GOTOOLCHAIN", "GOMODCACHE", "GOWORK", "GOEXPERIMENT", "GOOS", "GOARCH", "GOAMD64", "GOARM64", "CGO_ENABLED",
	"CC", "CXX", "CGO_CFLAGS", "CGO_CPPFLAGS", "CGO_CXXFLAGS", "CGO_LDFLAGS", "PKG_CONFIG_PATH",
	"CARGO_HOME", "RUSTUP_HOME", "RUSTUP_TOOLCHAIN", "RUSTFLAGS", "CARGO_TARGET_DIR",
	"NODE_PATH", "NVM_DIR", "NVM_BIN", "COREPACK_HOME", "PNPM_HOME",
	"PYTHONPATH", "VIRTUAL_ENV", "PYENV_ROOT", "CONDA_PREFIX", "JAVA_HOME", "GRADLE_USER_HOME",
	"SSL_CERT_FILE", "SSL_CERT_DIR",
}

// allowedEnvPrefixes are families passed whole (still minus secret-looking
// names such as NPM_CONFIG__AUTH or CARGO_REGISTRY_TOKEN).
var allowedEnvPrefixes = []string{"LC_", "NPM_CONFIG_", "npm_config_"}

// FilterEnv returns the entries of env whose names are in AllowedEnv or
// extra, or start with an allowed prefix, minus secrets (IsSecretName, for
// the built-in names; a name in extra is the user's explicit choice) and
// malformed entries. The input is not modified.
func FilterEnv(env []string, extra []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			continue
		}
		allowed := slices.Contains(AllowedEnv, name) || slices.ContainsFunc(allowedEnvPrefixes, func(p string) bool { return strings.HasPrefix(name, p) })
		if slices.Contains(extra, name) || allowed && !secretLooking(name) {
			out = append(out, kv)
		}
	}
	return out
}

// setEnv replaces or appends name=value in env.
func setEnv(env []string, name, value string) []string {
	prefix := name + "="
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, prefix) {
			out = append(out, kv)
		}
	}
	return append(out, prefix+value)
}

// overrideEnv is env with set's NAME=value settings in place of env's for
// those names.
func overrideEnv(env, set []string) []string {
	if len(set) == 0 {
		return env
	}
	out := make([]string, 0, len(env)+len(set))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.ContainsFunc(set, func(s string) bool { return strings.HasPrefix(s, name+"=") }) {
			out = append(out, kv)
		}
	}
	return append(out, set...)
}

// privateDirs are the writable directories a command gets besides the
// workspace, all inside the sandbox's state directory.
type privateDirs struct {
	Root, Tmp, Cache, GoCache, Config string
	// Git holds the shadows of git directories (git.go); not in the
	// command's environment.
	Git string
}

func newPrivateDirs(state string) privateDirs {
	return privateDirs{
		Root:    state,
		Tmp:     filepath.Join(state, "tmp"),
		Cache:   filepath.Join(state, "cache"),
		GoCache: filepath.Join(state, "cache", "go-build"),
		Config:  filepath.Join(state, "config"),
		Git:     filepath.Join(state, "git"),
	}
}

// make creates the directories inside Root, before the first command: a
// session that runs none never creates them.
func (d privateDirs) make() error {
	for _, p := range []string{d.Tmp, d.GoCache, filepath.Join(d.Config, "go"), d.Git} {
		if err := os.MkdirAll(p, 0o700); err != nil {
			return fmt.Errorf("sandbox: state dir: %w", err)
		}
	}
	// `go env -w` settings of the user (GOPRIVATE, GOPROXY ...) keep working,
	// but the sandbox writes only to its copy: ~/.config/go/env is read by
	// every unsandboxed go command later.
	if home, err := os.UserConfigDir(); err == nil {
		if b, err := os.ReadFile(filepath.Join(home, "go", "env")); err == nil {
			_ = os.WriteFile(filepath.Join(d.Config, "go", "env"), b, 0o600)
		}
	}
	return nil
}

// commandEnv builds the environment of a confined command: the allowed
// part of base plus private temporary, cache and config directories.
func commandEnv(base, extra []string, ws string, d privateDirs, network bool) []string {
	env := FilterEnv(base, extra)
	for _, kv := range [][2]string{
		{"PWD", ws},
		{"TMPDIR", d.Tmp},
		{"GOTMPDIR", d.Tmp},
		{"GOCACHE", d.GoCache},
		{"XDG_CACHE_HOME", d.Cache},
		{"XDG_CONFIG_HOME", d.Config},
		{"GOTELEMETRY", "off"},
	} {
		env = setEnv(env, kv[0], kv[1])
	}
	if !network {
		// A clear error ("module lookup disabled by GOPROXY=off") instead of
		// a DNS timeout, and no module path ever leaves the machine (I18).
		env = setEnv(env, "GOPROXY", "off")
	}
	return env
}
