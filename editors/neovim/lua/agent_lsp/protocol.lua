-- Mirror of the agent/… method table in lsp/ext.go (see docs/protocol.md).
-- Keep the names in sync with that table; nothing else lives here.
local M = {}

--- client→server request: run the agent on a prompt.
--- params {prompt, sessionId?, textDocument?{uri}, range?, mode?, model?, context?{{uri, range?}}}
--- result {sessionId, reason, turns, toolCalls, usage, text, error?, changes?{{path, from?, kind, added, removed}}}
M.PROMPT = 'agent/prompt'
--- client→server notification: abort a session's run. params {sessionId}
M.CANCEL = 'agent/cancel'
--- server→client notification: one event of a run.
--- params {sessionId, type = run_start|text|reasoning|tool_start|tool_output|tool_result|
---   warning|usage|context|todos|compaction|changes|end, ...}
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
--- server→client request, sent to clients declaring
--- capabilities.experimental.agentLsp.approve: a risky tool call.
--- params {sessionId?, callId?, tool, subject, action, reasons, message, sessionRule?, choices{{id, title, rule?}}, timeoutSeconds}
--- result {choice = deny|allow|allow_session|allow_server} or null (deny)
M.APPROVE = 'agent/approve'
--- client→server request: the workspace's recorded sessions. params {limit?}
--- result {sessions{{id, title, workspace, model?, created, updated, ageSeconds, messages, running?}}}
M.SESSIONS = 'agent/sessions'
--- client→server request: one session for display. params {sessionId}
--- result {sessionId, title, usage, turns{{role, text?, ending?, toolCalls?}}}
M.SESSION_HISTORY = 'agent/sessionHistory'
--- client→server request: name a session. params {sessionId, title}, result null
M.RENAME_SESSION = 'agent/renameSession'
--- client→server request: delete a recorded session. params {sessionId}, result null
M.DELETE_SESSION = 'agent/deleteSession'
--- client→server request: the endpoint's models. params {}
--- result {current, models{{id, contextWindow?}}, error?}
M.MODELS = 'agent/models'

--- Endings of a run (agent/prompt's reason, the end event's reason).
M.reasons = {
  'end_turn', 'max_turns', 'max_tool_calls', 'repeated_failure',
  'empty_response', 'max_tokens', 'malformed_tool_call', 'context_too_small',
  'refusal', 'aborted', 'error',
}

--- Actions of the permission prompts (window/showMessageRequest), the
--- safe one first.
M.actions = { DENY = 'Deny', ALLOW = 'Allow once', SESSION = 'Allow for this session' }
--- Choices of agent/approve.
M.choices = { DENY = 'deny', ALLOW = 'allow', SESSION = 'allow_session', SERVER = 'allow_server' }

return M
