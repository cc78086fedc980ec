package mcp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agent-lsp/agent-lsp/tools"
)

func TestExposedNames(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 80)
	keys := []toolKey{
		{"fs", "read_file"}, {"fs", "get-sum"}, {"fs", "a.b"}, {"fs", "a_b"},
		{"a", "b__c"}, {"a_b", "c"}, // distinct servers never hold "__", so no clash here
		{"fs", long}, {"fs", long + "y"}, {"fs", ""},
	}
	names := exposedNames(keys)
	seen := map[string]bool{}
	for _, k := range keys {
		n := names[k]
		if len(n) > MaxToolName || strings.Trim(n, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != "" {
			t.Errorf("%v -> %q", k, n)
		}
		if seen[n] {
			t.Errorf("%v -> %q twice", k, n)
		}
		seen[n] = true
	}
	for k, want := range map[toolKey]string{{"fs", "read_file"}: "mcp__fs__read_file", {"fs", "get-sum"}: "mcp__fs__get-sum", {"fs", "a_b"}: "mcp__fs__a_b"} {
		if names[k] != want {
			t.Errorf("%v -> %q, want %q", k, names[k], want)
		}
	}
	if !strings.HasPrefix(names[toolKey{"fs", "a.b"}], "mcp__fs__a_b_") {
		t.Errorf("a.b -> %q", names[toolKey{"fs", "a.b"}])
	}
	// The same set in another order gives the same names.
	rev := append([]toolKey(nil), keys...)
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	for k, n := range exposedNames(rev) {
		if names[k] != n {
			t.Errorf("order changed %v: %q vs %q", k, names[k], n)
		}
	}
}

func TestSanitizeServerName(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"github": "github", "my.server": "my_server", "a__b": "a_b", "___": "server", "ünï": "n", strings.Repeat("s", 40): strings.Repeat("s", 32)} {
		if got := SanitizeServerName(in); got != want {
			t.Errorf("SanitizeServerName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSchemaSimplified(t *testing.T) {
	t.Parallel()
	noop := func(context.Context, json.RawMessage) (tools.Result, error) { return tools.Result{Text: "ok"}, nil }
	for _, c := range []struct {
		name, schema string
		note         string // "" means offered as is
		valid, bad   string // arguments the result accepts and refuses
	}{
		{"plain", `{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`, "", `{"n":1}`, `{}`},
		{"draft7", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"p":{"$ref":"#/definitions/P"}},"definitions":{"P":{"type":"string"}},"additionalProperties":false}`, "", `{"p":"x"}`, `{"p":1}`},
		{"no type", `{"properties":{"a":{"type":"string"}}}`, "", `{"a":"x"}`, `{"a":1}`},
		{"anyOf", `{"anyOf":[{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]},{"type":"object","properties":{"b":{"type":"number"}}}]}`, "anyOf merged", `{"b":2}`, `{"a":3}`},
		{"remote ref", `{"type":"object","properties":{"x":{"$ref":"https://example.com/s.json"}}}`, "remote $ref", `{"x":[1]}`, `[]`},
		{"bad ref", `{"type":"object","properties":{"x":{"$ref":"#/nowhere"}},"required":["x"]}`, "top-level properties", `{"x":1}`, `{}`},
		{"string", `{"type":"string"}`, "not object", `{"q":1}`, `"s"`},
		{"garbage", `[1,2]`, "not a JSON object", `{}`, `1`},
		{"empty", `{}`, "no type", `{"any":true}`, `[]`},
	} {
		var schema any
		if err := json.Unmarshal([]byte(c.schema), &schema); err != nil {
			t.Fatal(err)
		}
		tool, note := defineTool("mcp__s__t", "d", schema, false, noop)
		if (c.note == "") != (note == "") || !strings.Contains(note, c.note) {
			t.Errorf("%s: note %q, want %q", c.name, note, c.note)
		}
		var top map[string]any
		if err := json.Unmarshal(tool.Spec().Parameters, &top); err != nil || top["type"] != "object" || top["anyOf"] != nil {
			t.Errorf("%s: offered schema %s", c.name, tool.Spec().Parameters)
		}
		d := tools.NewDispatcher(tools.NewRegistry(tool))
		if r := d.Dispatch(context.Background(), tools.Call{Name: "mcp__s__t", Arguments: c.valid}); r.IsError {
			t.Errorf("%s: %s refused: %s", c.name, c.valid, r.Text)
		}
		if r := d.Dispatch(context.Background(), tools.Call{Name: "mcp__s__t", Arguments: c.bad}); !r.IsError {
			t.Errorf("%s: %s accepted", c.name, c.bad)
		}
	}
	long := strings.Repeat("é", 3000)
	if d := capDescription(long); len(d) > MaxDescription || !strings.HasSuffix(d, "…") {
		t.Errorf("description of %d bytes", len(d))
	}
}

func TestWorkspaceServersAndTrust(t *testing.T) {
	t.Parallel()
	root := tempRoot(t)
	os.WriteFile(filepath.Join(root, ".mcp.json"), []byte(`{"mcpServers":{
		"fs": {"command":"npx","args":["-y","x"],"env":{"A":"b"}},
		"web.api": {"type":"http","url":"http://127.0.0.1:1/mcp","headers":{"Authorization":"env:SECRET"}},
		"mine": {"command":"evil"},
		"old": {"type":"sse","url":"http://127.0.0.1:1/sse"},
		"broken": {"type":"http","url":"ftp://x"}
	}}`), 0o644)
	servers, warnings, err := WorkspaceServers(root, []string{"mine"})
	if err != nil {
		t.Fatal(err)
	}
	if len(servers) != 2 || servers[0].Name != "fs" || servers[1].Name != "web_api" || !servers[0].Workspace || servers[1].URL == "" {
		t.Fatalf("servers: %+v", servers)
	}
	if len(warnings) != 3 || !strings.Contains(strings.Join(warnings, "\n"), `"mine" left out: your configuration already has`) {
		t.Errorf("warnings: %q", warnings)
	}
	// An env: header of a workspace server is not read from the user's environment.
	h, _ := resolveHeaders(servers[1], func(string) string { return "user-secret" })
	if h["Authorization"] != "env:SECRET" {
		t.Errorf("workspace header resolved: %v", h)
	}
	store := &TrustStore{Path: TrustFile(t.TempDir())}
	if store.Trusted(root, servers[0].Hash) {
		t.Fatal("trusted before approval")
	}
	if err := store.Approve(root, servers[0].Hash); err != nil {
		t.Fatal(err)
	}
	if !store.Trusted(root, servers[0].Hash) || store.Trusted(root+"x", servers[0].Hash) || store.Trusted(root, servers[1].Hash) {
		t.Error("trust is per workspace and per definition")
	}
	// A changed definition has another hash.
	os.WriteFile(filepath.Join(root, ".mcp.json"), []byte(`{"mcpServers":{"fs":{"command":"npx","args":["-y","y"]}}}`), 0o644)
	again, _, _ := WorkspaceServers(root, nil)
	if store.Trusted(root, again[0].Hash) {
		t.Error("a changed definition is still trusted")
	}
	if fi, err := os.Stat(store.Path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("store file: %v %v", fi, err)
	}
	os.WriteFile(filepath.Join(root, ".mcp.json"), []byte(`{"mcpServers": [`), 0o644)
	if _, _, err := WorkspaceServers(root, nil); err == nil || !strings.Contains(err.Error(), ".mcp.json") {
		t.Errorf("malformed file: %v", err)
	}
}

func TestWorkspaceServerNeedsApproval(t *testing.T) {
	t.Parallel()
	root := tempRoot(t)
	s := testServer(t, "ws")
	s.Workspace, s.Hash, s.Source = true, "h1", ".mcp.json"
	// No one to ask: not started, one warning.
	m := startManager(t, Options{Servers: []Server{s}, Root: root})
	if w := m.TakeWarnings(); len(w) != 1 || !strings.Contains(w[0], "needs your approval") {
		t.Errorf("warnings: %q", w)
	}
	if ts, _ := m.Tools(); len(ts) != 0 || m.Status()[0].State != StateNotApproved {
		t.Errorf("tools %d, status %+v", len(ts), m.Status())
	}
	// Approved for good: remembered, not asked again.
	store := &TrustStore{Path: TrustFile(t.TempDir())}
	asked := 0
	trust := func(_ context.Context, got Server) (Trust, error) {
		asked++
		if !strings.Contains(got.Describe(), "sha256: h1") {
			t.Errorf("prompt: %s", got.Describe())
		}
		return TrustAlways, nil
	}
	for range 2 {
		m := startManager(t, Options{Servers: []Server{s}, Root: root, Trust: trust, Store: store})
		if ts, _ := m.Tools(); len(ts) == 0 {
			t.Errorf("approved server has no tools: %v", m.TakeWarnings())
		}
	}
	if asked != 1 {
		t.Errorf("asked %d times", asked)
	}
	// Refused: not started.
	m = startManager(t, Options{Servers: []Server{s}, Root: root, Trust: func(context.Context, Server) (Trust, error) { return TrustDenied, nil }})
	if ts, _ := m.Tools(); len(ts) != 0 {
		t.Error("refused server started")
	}
}

// TestRenderSizes: binary content is named with its size in the format
// every other message uses (internal/text.Size), as docs/mcp.md shows it.
func TestRenderSizes(t *testing.T) {
	t.Parallel()
	res := &sdk.CallToolResult{Content: []sdk.Content{
		&sdk.ImageContent{MIMEType: "image/png", Data: make([]byte, 12<<10)},
		&sdk.AudioContent{MIMEType: "audio/wav", Data: make([]byte, 3<<20)},
		&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "mem://blob", MIMEType: "application/octet-stream", Blob: make([]byte, 512)}},
	}}
	got := render(res).Text
	for _, want := range []string{"[image: image/png, 12 KiB; not shown", "[audio: audio/wav, 3 MiB; not played", "[resource mem://blob: application/octet-stream, 512 bytes of binary data, not shown]"} {
		if !strings.Contains(got, want) {
			t.Errorf("render = %q, want %q in it", got, want)
		}
	}
}
