// Package mcp is agent-lsp's Model Context Protocol client: it starts the
// MCP servers of the configuration and offers their tools to the agent as
// ordinary tools (tools.DefineRaw), behind the same dispatcher and
// permission guard as the built-in ones.
//
// Rules:
//  1. Servers come from the user's [mcp_servers.NAME] tables and from a
//     workspace's .mcp.json. A workspace server never starts unless the
//     user approved that exact definition (its SHA-256, remembered per
//     workspace in the state directory); with no one to ask it is not
//     started and a warning says why.
//  2. Servers start when a session first lists its tools, in parallel, each
//     bounded by its startup timeout. A server that fails costs one warning
//     naming it and the reason, never the run.
//  3. No server process outlives agent-lsp, even when agent-lsp is killed
//     with SIGKILL: an unsandboxed stdio server runs under a small
//     supervisor (this binary re-executed, see supervise_linux.go) that
//     dies with its parent (PR_SET_PDEATHSIG), is a child subreaper, and
//     kills the server's process group and every orphan on its way out. A
//     sandboxed one runs in the sandbox's PID namespace, which dies with
//     its init.
//  4. A stdio server's environment is a minimal base (PATH, HOME, LANG, ...)
//     plus its own env table: never agent-lsp's API key or provider headers.
//  5. Tools are named mcp__SERVER__TOOL in [A-Za-z0-9_-], at most 64
//     characters; a name that had to change, or that two tools would share,
//     gets a suffix made from a hash of the server and tool, so names are
//     the same from run to run.
//  6. Annotations (readOnlyHint, destructiveHint) only word the approval
//     prompt and choose what a subagent may see; they never loosen a
//     verdict.
//
// Traps of github.com/modelcontextprotocol/go-sdk v1.8.0 (the newest release
// `go mod tidy` accepts here), and what this package does about them:
//   - Its client asks for protocol 2026-07-28 by default, which first sends
//     the stateless server/discover request and, on success, needs a
//     subscriptions/listen stream for list_changed, and caches tools/list
//     with a TTL. Servers of the 2025 specs answer discover with an error,
//     a server that never answers burns the startup timeout on discover
//     before initialize. We pin ProtocolVersion 2025-11-25: one initialize
//     round trip, list_changed as a plain notification, no list cache.
//   - CommandTransport kills only the direct child (SIGTERM to its pid),
//     after waiting 5 s per stage, and calls cmd.Wait itself. npx starts
//     node as a grandchild, which would survive. We start the process
//     ourselves and use IOTransport over its pipes (MaxLineLength bounds a
//     frame), so the process group is ours to stop.
//   - A cancelled CallTool returns at once and sends notifications/cancelled
//     asynchronously (best effort, up to 5 s); the call's result, if it
//     still comes, is dropped.
//   - ListTools drops tools with a nil entry or invalid x-mcp-header
//     annotations and logs through the client's Logger, which must be set
//     or those lines are lost.
//   - Tool.InputSchema arrives as map[string]any (whatever the server
//     sent); it is not validated by the client.
//
// Not supported yet: resources and prompts as model context, sampling,
// elicitation (the client does not advertise them), OAuth for HTTP
// servers, the old HTTP+SSE transport, ${VAR} expansion in .mcp.json,
// images shown to the model (they become a note).
package mcp
