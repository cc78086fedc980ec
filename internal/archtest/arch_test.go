// Package archtest keeps the layers of docs/architecture.md pointing down:
// each rule names a package and what it may not depend on, directly or
// through another package, as `go list -deps` reports it.
package archtest

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

const mod = "github.com/agent-lsp/agent-lsp/"

// rules: package (module-relative) → dependency prefixes it must not have
// (module-relative when they start without a dot, else full paths).
var rules = []struct {
	pkg    string
	banned []string
}{
	// The loop knows the provider contract and the tools, nothing else.
	{"agent", []string{"permission", "sandbox", "config", "harness", "lsp", "acp", "mcp", "provider/openai", "go.lsp.dev/", "github.com/sashabaranov/go-openai"}},
	// Tools know nothing of editors, loops, providers or configuration.
	{"tools", []string{"agent", "provider", "harness", "lsp", "acp", "mcp", "config", "permission", "sandbox", "go.lsp.dev/", "github.com/sashabaranov/go-openai"}},
	// The change journal sits beside the tools: it knows files, not loops,
	// editors or providers.
	{"changes", []string{"agent", "provider", "harness", "lsp", "acp", "mcp", "config", "permission", "sandbox", "go.lsp.dev/", "github.com/sashabaranov/go-openai"}},
	// The provider contract and its adapter know nothing of the loop.
	{"provider", []string{"agent", "harness", "lsp", "acp", "config", "permission", "sandbox", "provider/openai"}},
	{"provider/openai", []string{"agent", "harness", "lsp", "acp", "config", "permission", "sandbox"}},
	// The permission engine and the sandbox are leaves below the assembler.
	{"permission", []string{"agent", "tools", "provider", "harness", "lsp", "acp", "sandbox"}},
	{"sandbox", []string{"agent", "tools", "provider", "harness", "lsp", "acp", "permission", "config"}},
	{"config", []string{"agent", "tools", "provider", "harness", "lsp", "acp", "sandbox"}},
	// The MCP client is a source of tools: below the assembler, beside tools.
	{"mcp", []string{"agent", "provider", "harness", "lsp", "acp", "go.lsp.dev/"}},
	// The assembler knows no front-end.
	{"harness", []string{"lsp", "acp", "go.lsp.dev/"}},
	// Front-ends do not know each other.
	{"lsp", []string{"acp"}},
	{"acp", []string{"lsp", "go.lsp.dev/"}},
}

// direct: package → packages it may not import itself (it gets them
// through the assembler only).
var direct = []struct {
	pkg    string
	banned []string
}{
	{"lsp", []string{"config", "permission", "sandbox", "provider/openai"}},
	{"acp", []string{"config", "permission", "sandbox", "provider/openai"}},
}

// owners: a third-party module only these packages import.
var owners = map[string][]string{
	"github.com/sashabaranov/go-openai":      {"provider/openai", "bench/startup/deps"},
	"github.com/modelcontextprotocol/go-sdk": {"mcp", "bench/startup/mcpsdk", "bench/startup/deps"}, // the bench/startup programs link them only to time start-up
	"go.lsp.dev/":                            {"lsp", "bench/startup/deps"},
}

type pkgInfo struct {
	ImportPath string
	Imports    []string
	Deps       []string
}

func list(t *testing.T) map[string]pkgInfo {
	t.Helper()
	out, err := exec.Command("go", "list", "-json", mod+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	pkgs := map[string]pkgInfo{}
	for dec.More() {
		var p pkgInfo
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkgs[strings.TrimPrefix(p.ImportPath, mod)] = p
	}
	return pkgs
}

func full(prefix string) string {
	if strings.Contains(strings.SplitN(prefix, "/", 2)[0], ".") {
		return prefix
	}
	return mod + prefix
}

// matches reports whether dep is the package prefix names or below it.
func matches(dep, prefix string) bool {
	p := full(prefix)
	if strings.HasSuffix(p, "/") {
		return strings.HasPrefix(dep, p)
	}
	return dep == p || strings.HasPrefix(dep, p+"/")
}

func TestLayers(t *testing.T) {
	pkgs := list(t)
	for _, r := range rules {
		for name, p := range pkgs {
			if name != r.pkg && !strings.HasPrefix(name, r.pkg+"/") || strings.HasSuffix(name, "test") {
				continue
			}
			for _, d := range p.Deps {
				for _, b := range r.banned {
					if matches(d, b) && !matches(d, r.pkg) {
						t.Errorf("%s depends on %s (the rule for %s bans %s)", name, d, r.pkg, b)
					}
				}
			}
		}
	}
	for _, r := range direct {
		p, ok := pkgs[r.pkg]
		if !ok {
			continue
		}
		for _, d := range p.Imports {
			for _, b := range r.banned {
				if matches(d, b) {
					t.Errorf("%s imports %s itself; it should come through harness", r.pkg, d)
				}
			}
		}
	}
	for dep, allowed := range owners {
		for name, p := range pkgs {
			for _, d := range p.Imports {
				if !matches(d, dep) {
					continue
				}
				ok := false
				for _, a := range allowed {
					ok = ok || name == a || strings.HasPrefix(name, a+"/")
				}
				if !ok {
					t.Errorf("%s imports %s, which only %v may import", name, d, allowed)
				}
			}
		}
	}
}

// The rules must see the packages they name: a renamed package would
// otherwise pass unchecked.
func TestRulesNameRealPackages(t *testing.T) {
	pkgs := list(t)
	for _, r := range rules {
		if _, ok := pkgs[r.pkg]; !ok {
			t.Errorf("rule for %s: no such package", r.pkg)
		}
	}
}
