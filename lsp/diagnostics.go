package lsp

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agent-lsp/agent-lsp/tools"
)

// Diagnostic is an LSP Diagnostic (the fields the agent uses).
type Diagnostic struct {
	Range    Range  `json:"range"`
	Severity int    `json:"severity,omitempty"`
	Code     any    `json:"code,omitempty"`
	Source   string `json:"source,omitempty"`
	Message  string `json:"message"`
}

// diagStore keeps the editor's latest diagnostics per file.
type diagStore struct {
	mu      sync.Mutex
	byPath  map[string][]Diagnostic
	stamp   map[string]int64 // generation of the last publication
	gen     int64
	changed chan struct{}
}

func newDiagStore() *diagStore {
	return &diagStore{byPath: make(map[string][]Diagnostic), stamp: make(map[string]int64), changed: make(chan struct{})}
}

func (d *diagStore) set(path string, diags []Diagnostic) {
	if path == "" {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.gen++
	d.byPath[path] = diags
	d.stamp[path] = d.gen
	close(d.changed)
	d.changed = make(chan struct{})
}

func (d *diagStore) get(path string) ([]Diagnostic, int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.byPath[path], d.stamp[path]
}

func (d *diagStore) generation() int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.gen
}

// waitNewer waits up to wait for a publication for path after generation
// since, and reports whether one came. It does not wait when the client
// has never sent agent/diagnostics (a plain LSP client): none will come.
func (d *diagStore) waitNewer(ctx context.Context, path string, since int64, wait time.Duration) ([]Diagnostic, bool) {
	t := time.NewTimer(wait)
	defer t.Stop()
	for {
		d.mu.Lock()
		diags, stamp, ch, gen := d.byPath[path], d.stamp[path], d.changed, d.gen
		d.mu.Unlock()
		if stamp > since {
			return diags, true
		}
		if gen == 0 {
			return nil, false
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, false
		case <-t.C:
			return nil, false
		}
	}
}

// DiagnosticsAfterEdit waits up to wait for the editor's new diagnostics
// of path (published after generation since) and formats them for a tool
// result; "" when none arrived. Write tools reach it through the
// tools.Diagnoser interface.
func (w *Workspace) DiagnosticsAfterEdit(ctx context.Context, path string, since int64, wait time.Duration) string {
	_, abs, err := w.abs(path)
	if err != nil {
		return ""
	}
	diags, ok := w.diags.waitNewer(ctx, abs, since, wait)
	if !ok {
		return ""
	}
	return formatDiagnostics(path, diags)
}

// DiagnosticsGeneration is the generation to pass to DiagnosticsAfterEdit,
// taken before the edit.
func (w *Workspace) DiagnosticsGeneration() int64 { return w.diags.generation() }

var severities = map[int]string{1: "error", 2: "warning", 3: "info", 4: "hint"}

func formatDiagnostics(rel string, diags []Diagnostic) string {
	if len(diags) == 0 {
		return "No diagnostics for " + rel + "."
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d diagnostics for %s:\n", len(diags), rel)
	for _, d := range diags {
		sev := severities[d.Severity]
		if sev == "" {
			sev = "error"
		}
		src := ""
		if d.Source != "" {
			src = " [" + d.Source + "]"
		}
		fmt.Fprintf(&b, "%s:%d:%d: %s%s: %s\n", rel, d.Range.Start.Line+1, d.Range.Start.Character+1, sev, src, d.Message)
	}
	return b.String()
}

// DiagnosticsParamsTool is the diagnostics tool's params.
type DiagnosticsToolParams struct {
	Path string `json:"path,omitempty" jsonschema:"File to report on, relative to the workspace root; empty lists every file with diagnostics"`
}

// diagnosticsTool reports the editor's diagnostics (compiler errors,
// linter warnings) as the client sent them with agent/diagnostics.
func diagnosticsTool(w *Workspace) *tools.Tool {
	return tools.Define("diagnostics", "Show the editor's current diagnostics (errors and warnings from its language servers) for a file, or for every file that has some.", true,
		func(ctx context.Context, p *DiagnosticsToolParams) (tools.Result, error) {
			if p.Path != "" {
				_, abs, err := w.abs(p.Path)
				if err != nil {
					return tools.Errorf("%v", err), nil
				}
				diags, _ := w.diags.get(abs)
				return tools.Result{Text: formatDiagnostics(p.Path, diags)}, nil
			}
			w.diags.mu.Lock()
			defer w.diags.mu.Unlock()
			var b strings.Builder
			for abs, diags := range w.diags.byPath {
				if len(diags) == 0 {
					continue
				}
				rel, err := filepath.Rel(w.Root(), abs)
				if err != nil {
					rel = abs
				}
				b.WriteString(formatDiagnostics(filepath.ToSlash(rel), diags))
			}
			if b.Len() == 0 {
				return tools.Result{Text: "The editor reports no diagnostics."}, nil
			}
			return tools.Result{Text: b.String()}, nil
		})
}
