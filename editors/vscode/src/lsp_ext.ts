// Typed mirror of the agent/… extension methods in lsp/ext.go (see
// docs/protocol.md). Kept free of the vscode module so tests can load it.
import { NotificationType, RequestType } from 'vscode-languageclient';

export interface Position { line: number; character: number }
export interface Range { start: Position; end: Position }

/** agent/prompt params. */
export interface PromptParams {
  prompt: string;
  /** Continue this conversation; new when absent or unknown. */
  sessionId?: string;
  /** Context for the model: the document as the editor has it. */
  textDocument?: { uri: string };
  /** The selection, in the negotiated position encoding. */
  range?: Range;
}

export interface Usage { inputTokens: number; outputTokens: number; cachedInputTokens?: number }

export type Ending =
  | 'end_turn' | 'max_turns' | 'max_tool_calls' | 'repeated_failure' | 'empty_response'
  | 'max_tokens' | 'refusal' | 'aborted' | 'error';

/** agent/prompt result: how the run ended. */
export interface PromptResult {
  sessionId: string;
  reason: Ending | string;
  turns: number;
  toolCalls: number;
  usage: Usage;
  text: string;
  error?: string;
}

export interface CancelParams { sessionId: string }

export interface Todo { content: string; status: 'pending' | 'in_progress' | 'completed' | string }

/** agent/event params: one flat event of a run. */
export type AgentEvent = { sessionId: string } & (
  | { type: 'text' | 'reasoning' | 'warning'; text?: string }
  | { type: 'tool_start'; id: string; name: string; arguments: string }
  | { type: 'tool_result'; id: string; name: string; arguments: string; result: string; isError: boolean }
  | { type: 'usage'; usage: Usage }
  | { type: 'todos'; todos: Todo[] }
  | { type: 'compaction'; tokensBefore: number; tokensAfter: number; messages: number; summary: string; fallback?: boolean }
  | { type: 'pruned'; text?: string }
  | ({ type: 'end' } & Omit<PromptResult, 'sessionId'>)
);

export interface DiagnosticsParams { uri: string; diagnostics: unknown[] }
export interface SaveDocumentsParams { uris: string[] }
export interface SaveDocumentsResult { saved?: string[] }

export const MethodPrompt = 'agent/prompt';
export const MethodCancel = 'agent/cancel';
export const MethodEvent = 'agent/event';
export const MethodDiagnostics = 'agent/diagnostics';
export const MethodSaveDocuments = 'agent/saveDocuments';

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
