// Typed mirror of the agent/… extension methods in lsp/ext.go (see
// docs/protocol.md). Kept free of the vscode module so tests can load it.
import { NotificationType, RequestType } from 'vscode-languageclient';

export interface Position { line: number; character: number }
export interface Range { start: Position; end: Position }

/** One mentioned file or folder (or a range of a file). */
export interface ContextItem { uri: string; range?: Range }

/** agent/prompt params. */
export interface PromptParams {
  prompt: string;
  /** Continue this conversation; new when absent or unknown. */
  sessionId?: string;
  /** Context for the model: the document as the editor has it. */
  textDocument?: { uri: string };
  /** The selection, in the negotiated position encoding. */
  range?: Range;
  mode?: 'default' | 'read-only';
  /** Talk to this model from now on in this session. */
  model?: string;
  /** @-mentions: files (their text or the range's lines), folders (a listing). */
  context?: ContextItem[];
}

export interface Usage { inputTokens: number; outputTokens: number; cachedInputTokens?: number }

export type Ending =
  | 'end_turn' | 'max_turns' | 'max_tool_calls' | 'repeated_failure' | 'empty_response'
  | 'max_tokens' | 'malformed_tool_call' | 'context_too_small' | 'refusal' | 'aborted' | 'error';

/** agent/prompt result: how the run ended. */
export interface PromptResult {
  sessionId: string;
  reason: Ending | string;
  turns: number;
  toolCalls: number;
  usage: Usage;
  text: string;
  error?: string;
  /** The files the run changed (when the session keeps a change journal). */
  changes?: FileChange[];
}

export interface CancelParams { sessionId: string }

export interface Todo { content: string; status: 'pending' | 'in_progress' | 'completed' | string }

export type RunOrigin = 'prompt' | 'fix' | 'rewrite' | 'edit';

/** agent/event params: one flat event of a run. */
export type AgentEvent = { sessionId: string } & (
  | { type: 'run_start'; origin: RunOrigin | string; title: string; prompt: string; context?: string; model?: string }
  | { type: 'text' | 'reasoning' | 'warning'; text?: string }
  | { type: 'tool_start'; id: string; name: string; arguments: string }
  | { type: 'tool_output'; id: string; name: string; text: string }
  | { type: 'tool_result'; id: string; name: string; arguments: string; result: string; isError: boolean }
  | { type: 'usage'; usage: Usage }
  | { type: 'context'; tokens: number; window?: number }
  | { type: 'todos'; todos: Todo[] }
  | { type: 'compaction'; tokensBefore: number; tokensAfter: number; messages: number; summary: string; fallback?: boolean }
  | { type: 'pruned'; text?: string }
  | { type: 'changes'; changes: FileChange[] }
  | ({ type: 'end' } & Omit<PromptResult, 'sessionId'>)
);

export interface DiagnosticsParams { uri: string; diagnostics: unknown[] }
export interface SaveDocumentsParams { uris: string[] }
export interface SaveDocumentsResult { saved?: string[] }

export type ChoiceId = 'deny' | 'allow' | 'allow_session' | 'allow_server';
export interface ApproveChoice { id: ChoiceId | string; title: string; rule?: string }
/** agent/approve params: a risky tool call, the choices with Deny first. */
export interface ApproveParams {
  sessionId?: string;
  callId?: string;
  tool: string;
  subject: string;
  action: string;
  reasons: string[];
  detail?: string;
  message: string;
  sessionRule?: string;
  serverRule?: string;
  choices: ApproveChoice[];
  timeoutSeconds: number;
}
export interface ApproveResult { choice: ChoiceId | string }

export interface SessionSummary {
  id: string; title: string; workspace: string; model?: string;
  created: string; updated: string; ageSeconds: number; messages: number; running?: boolean;
}
export interface SessionsResult { sessions: SessionSummary[] }
export interface HistoryCall { id: string; name: string; arguments: string; result?: string; isError?: boolean }
export interface HistoryTurn { role: 'user' | 'assistant'; text?: string; ending?: string; toolCalls?: HistoryCall[] }
export interface SessionHistory { sessionId: string; title: string; usage: Usage; turns: HistoryTurn[] }
export interface ModelInfo { id: string; contextWindow?: number }
export interface ModelsResult { current: string; models: ModelInfo[]; error?: string }

// ---- review and undo: the change journal (agent/changes, agent/undo) ----

export type ChangeKind = 'created' | 'modified' | 'deleted' | 'renamed';

/** One file a run changed: the `changes` event and the end's result. */
export interface FileChange { path: string; from?: string; kind: ChangeKind | string; added: number; removed: number }

/** agent/changes params; contents adds each text file's before/after. */
export interface ChangesParams { sessionId: string; contents?: boolean }

/** One file of a journaled turn. */
export interface ChangedFile {
  uri: string;
  /** A renamed file's old name. */
  fromUri?: string;
  /** Relative to the workspace root. */
  path: string;
  kind: ChangeKind | string;
  /** The tools that changed it: "str_replace", "write_file, bash", … */
  tool: string;
  added: number;
  removed: number;
  /** Unified diff; "" for binary files and contents not kept. */
  diff: string;
  binary?: boolean;
  /** Why the content was not journaled (too large): such a change cannot be undone. */
  notKept?: string;
  /** With contents: true, text files only. */
  before?: string;
  after?: string;
}

export interface UndoConflict { uri: string; reason: string }

/** One prompt of a session and the files it changed. */
export interface ChangeTurn {
  turn: number;
  prompt: string;
  time: string;
  undone: boolean;
  files: ChangedFile[];
  /** Summaries of changes in ignored directories (node_modules/ …). */
  ignored?: string[];
  /** What its undo left as the user had it. */
  conflicts?: UndoConflict[];
}

/** agent/changes result: the session's turns, oldest first. */
export interface ChangesResult { sessionId: string; turns: ChangeTurn[] }

/** agent/undo params: the last `turns` turns not yet undone (default 1), "all", or `turn` alone. */
export interface UndoParams { sessionId: string; turns?: number | 'all'; turn?: number }

/** agent/undo result. */
export interface UndoResult {
  /** The turns undone; [] when nothing was left. */
  turns: number[];
  /** URIs wholly taken back. */
  reverted: string[];
  /** Files left (wholly or partly) as the user has them. */
  conflicts: UndoConflict[];
}

export const MethodPrompt = 'agent/prompt';
export const MethodCancel = 'agent/cancel';
export const MethodEvent = 'agent/event';
export const MethodDiagnostics = 'agent/diagnostics';
export const MethodSaveDocuments = 'agent/saveDocuments';
export const MethodChanges = 'agent/changes';
export const MethodUndo = 'agent/undo';
export const MethodApprove = 'agent/approve';
export const MethodSessions = 'agent/sessions';
export const MethodSessionHistory = 'agent/sessionHistory';
export const MethodRenameSession = 'agent/renameSession';
export const MethodDeleteSession = 'agent/deleteSession';
export const MethodModels = 'agent/models';

/** Client → server request: runs the agent. */
export const PromptRequest = new RequestType<PromptParams, PromptResult, void>(MethodPrompt);
/** Client → server notification: aborts a session's run. */
export const CancelNotification = new NotificationType<CancelParams>(MethodCancel);
/** Server → client notification: one event of a run. */
export const EventNotification = new NotificationType<AgentEvent>(MethodEvent);
/** Client → server notification: the editor's diagnostics for one document. */
export const DiagnosticsNotification = new NotificationType<DiagnosticsParams>(MethodDiagnostics);
/** Server → client request, sent to clients declaring experimental.agentLsp.saveRequest. */
export const SaveDocumentsRequest = new RequestType<SaveDocumentsParams, SaveDocumentsResult | null, void>(MethodSaveDocuments);
/** Client → server request: a session's turns and the files each changed. */
export const ChangesRequest = new RequestType<ChangesParams, ChangesResult, void>(MethodChanges);
/** Client → server request: takes back turns of a session through workspace/applyEdit. */
export const UndoRequest = new RequestType<UndoParams, UndoResult, void>(MethodUndo);
/** Server → client request, sent to clients declaring experimental.agentLsp.approve. */
export const ApproveRequest = new RequestType<ApproveParams, ApproveResult | null, void>(MethodApprove);
/** Client → server request: the workspace's recorded sessions. */
export const SessionsRequest = new RequestType<{ limit?: number }, SessionsResult, void>(MethodSessions);
/** Client → server request: one session, for display. */
export const SessionHistoryRequest = new RequestType<{ sessionId: string }, SessionHistory, void>(MethodSessionHistory);
/** Client → server request: name a session. */
export const RenameSessionRequest = new RequestType<{ sessionId: string; title: string }, null, void>(MethodRenameSession);
/** Client → server request: delete a recorded session. */
export const DeleteSessionRequest = new RequestType<{ sessionId: string }, null, void>(MethodDeleteSession);
/** Client → server request: the endpoint's models. */
export const ModelsRequest = new RequestType<Record<string, never>, ModelsResult, void>(MethodModels);
