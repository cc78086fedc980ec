-- Mirror of the agent/… method table in lsp/ext.go (see docs/protocol.md).
-- Keep the names in sync with that table; nothing else lives here.
local M = {}

--- client→server request: run the agent on a prompt.
--- params {prompt, sessionId?, textDocument?{uri}, range?}
--- result {sessionId, reason, turns, toolCalls, usage, text, error?}
M.PROMPT = 'agent/prompt'
--- client→server notification: abort a session's run. params {sessionId}
M.CANCEL = 'agent/cancel'
--- server→client notification: one event of a run.
--- params {sessionId, type = text|reasoning|tool_start|tool_result|warning|usage|todos|compaction|changes|end, ...}
M.EVENT = 'agent/event'
--- client→server notification: the editor's diagnostics for one document.
--- params {uri, diagnostics}
M.DIAGNOSTICS = 'agent/diagnostics'
--- server→client request, sent to clients declaring
--- capabilities.experimental.agentLsp.saveRequest: save these documents.
--- params {uris}, result {saved?} or null
M.SAVE_DOCUMENTS = 'agent/saveDocuments'
--- client→server request: a session's turns and the files each changed.
--- params {sessionId, contents?}; result {sessionId, turns = {{turn, prompt,
--- time, undone, files = {{uri, fromUri?, path, kind, tool, added, removed,
--- diff, binary?, notKept?, before?, after?}}, ignored?, conflicts?}}}
M.CHANGES = 'agent/changes'
--- client→server request: take back turns of a session.
--- params {sessionId, turns? (N or 'all'), turn?}; result {turns, reverted, conflicts = {{uri, reason}}}
M.UNDO = 'agent/undo'

--- Endings of a run (agent/prompt's reason, the end event's reason).
M.reasons = {
  'end_turn', 'max_turns', 'max_tool_calls', 'repeated_failure',
  'empty_response', 'max_tokens', 'refusal', 'aborted', 'error',
}

--- Actions of the permission prompts (window/showMessageRequest).
M.actions = { ALLOW = 'Allow', SESSION = 'Allow for this session', DENY = 'Deny' }

return M
