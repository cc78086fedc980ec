// Package acp is agent-lsp's Agent Client Protocol front-end (`agent-lsp
// acp`): ACP v1, newline-delimited JSON-RPC 2.0 on stdin/stdout, for Zed,
// the JetBrains IDEs and the Neovim and Emacs ACP plugins. It adapts a
// client to the sessions harness.Factory builds, as lsp does for language
// clients, and imports nothing of lsp. Rules:
//  1. stdout carries only protocol messages; logs go to the logger
//     (stderr);
//  2. hostile or malformed input gets a JSON-RPC error and the connection
//     goes on: bad JSON (-32700, id null), batches, a missing method or
//     jsonrpc, lines over MaxMessageBytes (-32600), unknown methods
//     (-32601), bad params (-32602), unknown sessions (-32002); a
//     response to no pending request is logged and dropped;
//  3. every call to the client has a deadline (fs/*: a minute; permission
//     requests: the approval timeout, then deny) and is withdrawn with
//     $/cancel_request when the run stops waiting;
//  4. shell commands run in agent-lsp's sandbox, never through the
//     client's terminal/* methods (which would run them outside it);
//  5. every tool_call gets a final tool_call_update, also when the run is
//     cancelled.
//
// # Codec: our own, not github.com/coder/acp-go-sdk
//
// acp-go-sdk v0.13.0 was checked against the schema of the pinned
// TypeScript SDK (@agentclientprotocol/sdk 2.4.0, schema/v1/schema.json)
// and its connection code. Its example agent passes the official client,
// but for this agent it is the wrong fit:
//   - its schema is older: no usage_update's Cost, no notice,
//     compaction_update or compaction_summary_chunk updates, no messageId
//     on chunks, no session/delete or additionalDirectories, no `name` on
//     tool calls; SetSessionConfigOption's value is optional where 2.4.0
//     requires it;
//   - a line that is not JSON is logged and dropped with no -32700 reply,
//     and so is a message with neither id nor method, so a client waiting
//     on that id hangs;
//   - a line over 10 MiB (a large embedded file) makes its bufio.Scanner
//     fail, which closes the whole connection;
//   - a second session/prompt on a session silently cancels the running
//     one instead of being refused;
//   - params are checked only for presence (Validate): cwd is not
//     checked to be absolute, and the generated union types
//     (ContentBlock, SessionUpdate, ToolCallContent) marshal through a
//     map round trip for every notification;
//   - the Agent interface makes every implementer stub the unstable
//     methods it dispatches (fork, providers, document/*, ...).
//
// The subset this agent needs is about twenty message types (types.go)
// and a 300-line codec (wire.go), tested against the official
// TypeScript client, which validates every message against the 2.4.0
// schema with zod.
//
// # What the schema has that this agent does not do
//
// terminal/* (commands run in our sandbox instead), image and audio
// prompts (not advertised), session/resume, session/close, session/delete,
// session/set_config_option and config options, available_commands_update,
// elicitation, authenticate beyond an empty answer (authMethods is empty:
// endpoint and key come from agent-lsp's configuration), and SSE MCP
// servers (session/new's stdio and http servers start with the session,
// without a trust prompt: they come from the user's editor settings).
// docs/acp.md has the full mapping.
package acp
