package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/config"
	"github.com/agent-lsp/agent-lsp/harness"
	"github.com/agent-lsp/agent-lsp/mcp"
	"github.com/agent-lsp/agent-lsp/provider/openai"
	"github.com/agent-lsp/agent-lsp/sandbox"
)

// doctorCmd reports what agent-lsp would use and whether it works: the
// configuration files, the endpoint and whether it answers, the model and
// whether the server lists it, the workspace root, and the sandbox.
func doctorCmd(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("doctor", stderr)
	var common commonFlags
	common.register(fs)
	describe(fs, "doctor", stderr)
	if _, code, ok := parseArgs(fs, args); !ok {
		return code
	}
	ws, cfg, warnings, err := common.load()
	if err != nil {
		fmt.Fprintf(stderr, "agent-lsp: %v\n", err)
		return exitUsage
	}
	ok := true
	fmt.Fprintf(stdout, "agent-lsp %s\n", version())
	fmt.Fprintf(stdout, "workspace: %s\n", ws)
	if len(cfg.Files) == 0 {
		fmt.Fprintln(stdout, "config:    no configuration file (defaults and environment)")
	}
	for _, f := range cfg.Files {
		fmt.Fprintf(stdout, "config:    %s\n", f)
	}
	for _, w := range warnings {
		fmt.Fprintf(stdout, "warning:   %s\n", w)
	}
	fmt.Fprintf(stdout, "endpoint:  %s\n", cfg.BaseURL)
	fmt.Fprintf(stdout, "model:     %s\n", cfg.Model)
	if cfg.APIKey != "" {
		fmt.Fprintln(stdout, "api key:   set")
	} else {
		fmt.Fprintln(stdout, "api key:   not set (fine for local servers; set AGENT_LSP_API_KEY for hosted ones)")
	}

	sandboxReport(stdout, ws, cfg)
	// MCP servers are started as a session would, but a workspace's are
	// not asked about here (doctor reports; `agent-lsp mcp list` asks).
	if st, warns := mcpStatus(ws, cfg, nil, slog.New(slog.NewTextHandler(io.Discard, nil))); len(st) > 0 || len(warns) > 0 {
		fmt.Fprint(stdout, "mcp:       ")
		printMCP(stdout, st, "           ")
		for _, w := range warns {
			if !strings.Contains(w, "did not start") && !strings.Contains(w, "was not started") {
				fmt.Fprintf(stdout, "warning:   %s\n", w)
			}
		}
		for _, s := range st {
			if s.State == mcp.StateFailed {
				ok = false
			}
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	auth := openai.Auth{APIKey: cfg.APIKey, Headers: cfg.Headers}
	models, err := openai.ListModels(ctx, &http.Client{Timeout: 10 * time.Second}, cfg.BaseURL, auth)
	switch {
	case err != nil:
		ok = false
		fmt.Fprintf(stdout, "server:    FAIL: %v\n", err)
		fmt.Fprintf(stdout, "           Start a server there (e.g. `ollama serve`) or point agent-lsp elsewhere with --base-url or AGENT_LSP_BASE_URL.\n")
	case slices.Contains(models, cfg.Model):
		fmt.Fprintf(stdout, "server:    ok, serves %d models including %s\n", len(models), cfg.Model)
	default:
		ok = false
		fmt.Fprintf(stdout, "server:    answers, but does not list model %q; it serves: %s\n", cfg.Model, strings.Join(first(models, 10), ", "))
		fmt.Fprintf(stdout, "           Choose one with --model or AGENT_LSP_MODEL (for Ollama: `ollama pull %s`).\n", cfg.Model)
	}
	if err == nil {
		endpointReport(ctx, stdout, cfg, auth)
	}
	if ok {
		return exitOK
	}
	return exitFail
}

// endpointReport prints what the probe learns about the server and the
// model: the server kind, the context window and whether the model
// declares tool support (local models, issue 11). It probes afresh: the
// cache the runs use may be a day old.
func endpointReport(ctx context.Context, w io.Writer, cfg config.Config, auth openai.Auth) {
	ep, err := openai.Probe(ctx, &http.Client{Timeout: 10 * time.Second}, cfg.BaseURL, cfg.Model, auth)
	kind := string(ep.Server)
	if kind == "" {
		kind = "unknown (an OpenAI-compatible server that is not Ollama, llama.cpp, vLLM or LM Studio)"
	}
	fmt.Fprintf(w, "kind:      %s\n", kind)
	switch {
	case cfg.ContextWindow > 0:
		fmt.Fprintf(w, "window:    %d tokens (context_window in the configuration; the server reports %d)\n", cfg.ContextWindow, ep.Window)
	case err != nil:
		fmt.Fprintf(w, "window:    unknown: %v (agent-lsp assumes %d)\n", err, agent.DefaultWindow)
	default:
		fmt.Fprintf(w, "window:    %d tokens (%s)\n", ep.Window, ep.WindowSource)
	}
	if ep.NativeWindow > 0 && ep.NativeWindow != ep.Window {
		fmt.Fprintf(w, "           the model itself supports %d tokens\n", ep.NativeWindow)
	}
	n := max(cfg.ContextWindow, ep.Window)
	if numCtx := harness.OllamaNumCtx(cfg, ep); numCtx > 0 {
		n = numCtx
		fmt.Fprintf(w, "           runs set num_ctx %d through Ollama's native /api/chat (ollama_native = false keeps /v1, which cannot set it)\n", numCtx)
	}
	if n > 0 && n < agent.SmallWindow {
		fmt.Fprintf(w, "           small: tool descriptions are shortened and results capped; to raise it, %s\n", openai.WindowSetting(ep.Server))
	}
	switch ep.Tools {
	case openai.SupportYes:
		fmt.Fprintln(w, "tools:     the model declares tool support")
	case openai.SupportNo:
		fmt.Fprintln(w, "tools:     the model does NOT declare tool support: its tool calls may arrive as text (recovered when possible) or not at all")
	default:
		fmt.Fprintln(w, "tools:     unknown (the server does not say whether the model supports tools)")
	}
	if cfg.RecoverTextToolCalls() {
		fmt.Fprintln(w, "           tool calls written as text are recovered (text_tool_calls = false turns it off)")
	} else {
		fmt.Fprintln(w, "           tool calls written as text are not recovered (text_tool_calls = false)")
	}
}

// sandboxReport prints how the bash tool's commands would be confined, and
// says loudly when they would not be at all. A missing sandbox does not fail
// doctor (the agent still works, asking for every command), but it is
// never presented as fine.
func sandboxReport(w io.Writer, ws string, cfg config.Config) {
	sb, err := sandbox.New(harness.SandboxOptions(ws, "", cfg.Sandbox))
	if err == nil {
		if err = sb.Err(); err != nil { // probes afresh: no state dir, no cache
			sb.Close()
		}
	}
	if err != nil {
		fmt.Fprintf(w, "sandbox:   FAIL: %v\n", err)
		if cfg.Sandbox.Backend == "" || cfg.Sandbox.Backend == "auto" {
			fmt.Fprintln(w, "           !!! No sandbox can be made: the bash tool will not be offered.")
		} else {
			fmt.Fprintf(w, "           The configured backend (%q) does not work here; agent-lsp refuses to start. Set [sandbox] backend = \"auto\".\n", cfg.Sandbox.Backend)
		}
		fmt.Fprintf(w, "           Probe:\n%s\n", indent(sandbox.Probe().String(), "           "))
		return
	}
	defer sb.Close()
	st := sb.Status()
	// Status.String() starts "sandbox: " and indents its details by two.
	fmt.Fprintf(w, "sandbox:   %s\n", indent(strings.TrimPrefix(st.String(), "sandbox: "), "         ")[len("         "):])
	if !st.Confined() {
		fmt.Fprintln(w, "           !!! NO SANDBOX LAYER IS AVAILABLE: commands would run with your full rights.")
		fmt.Fprintln(w, "           !!! Every bash command will need your approval (headless runs refuse them unless --ask=allow).")
		if cfg.Sandbox.Backend == "none" {
			fmt.Fprintln(w, "           [sandbox] backend = \"none\" in your configuration turned it off.")
		} else {
			fmt.Fprintln(w, "           Install bubblewrap or use a kernel with Landlock (5.13+) and unprivileged user namespaces.")
		}
	}
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}

func first(s []string, n int) []string {
	if len(s) > n {
		return append(s[:n:n], "…")
	}
	return s
}
