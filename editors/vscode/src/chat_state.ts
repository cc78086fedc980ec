// The chat's state and the reducer that folds agent/event notifications
// into it. Pure: the chat view renders what view() (chat_view_model.ts)
// returns.
import type { AgentEvent, ApproveParams, HistoryTurn, PromptResult, Range, Todo, Usage } from './lsp_ext';
import { fromEvent, TurnChanges } from './changes_state';

export interface ToolBlock {
  kind: 'tool';
  id: string;
  name: string;
  arguments: string;
  result?: string;
  isError?: boolean;
  running: boolean;
  /** Output streamed while it runs (tool_output), until the result. */
  output?: string;
}
/** A permission prompt shown in the conversation (agent/approve). */
export interface ApprovalBlock {
  kind: 'approval';
  /** The chat view's key for the pending request. */
  key: string;
  params: ApproveParams;
  /** The choice made (by the card, the toast or the timeout); undefined while pending. */
  answer?: string;
}
export type Block =
  | { kind: 'text'; text: string }
  | { kind: 'reasoning'; text: string }
  | { kind: 'warning'; text: string }
  | { kind: 'note'; text: string }
  | ToolBlock
  | ApprovalBlock;

export interface Turn {
  role: 'user' | 'assistant';
  /** The user's prompt, and what went with it (e.g. "main.go:3-7"). */
  text?: string;
  context?: string;
  blocks: Block[];
  ending?: { reason: string; error?: string };
  /** Runs the chat did not start (code actions, inline edits): their origin and session. */
  origin?: string;
  sessionId?: string;
  /** The files the run changed (changes_state.ts). */
  changes?: TurnChanges;
}

export interface ChatState {
  sessionId?: string;
  running: boolean;
  turns: Turn[];
  todos: Todo[];
  /** Tokens of the finished runs of the conversation, and of the run going on (the server's running total). */
  usage: Usage;
  runUsage: Usage;
  /** How full the model's window is: the last request's prompt tokens and the window. */
  context?: { tokens: number; window?: number };
  /** Session id → index of its assistant turn, for runs the chat did not start. */
  side: Record<string, number>;
}

export function emptyState(): ChatState {
  return { running: false, turns: [], todos: [], usage: zero(), runUsage: zero(), side: {} };
}

export const zero = (): Usage => ({ inputTokens: 0, outputTokens: 0 });
export const add = (a: Usage, b?: Partial<Usage>): Usage => ({
  inputTokens: a.inputTokens + (b?.inputTokens ?? 0),
  outputTokens: a.outputTokens + (b?.outputTokens ?? 0),
});

/**
 * newSessionId names a new chat's session on the client's side, so the
 * chat can follow and cancel its first run before the server's result
 * names it (the server adopts an unknown id; letters, digits, '-', at most 64).
 */
export function newSessionId(rand: () => number = Math.random): string {
  let id = 'vscode-';
  for (let i = 0; i < 16; i++) id += Math.floor(rand() * 16).toString(16);
  return id;
}

/** contextLabel is what the chat shows of a prompt's context: "main.go", "main.go:5" or "main.go:5-7" (1-based; a selection ending at a line's start ends on the line before). */
export function contextLabel(path: string, sel?: Range): string {
  if (!sel) return path;
  const a = sel.start.line + 1;
  const b = sel.end.character === 0 && sel.end.line > sel.start.line ? sel.end.line : sel.end.line + 1;
  return a === b ? `${path}:${a}` : `${path}:${a}-${b}`;
}

/** startRun records the user's prompt and opens the assistant's turn; a new chat gets its session id here. */
export function startRun(s: ChatState, prompt: string, context?: string, sessionId?: string): ChatState {
  return {
    ...s,
    sessionId: s.sessionId ?? sessionId,
    running: true,
    runUsage: zero(),
    turns: [...s.turns, { role: 'user', text: prompt, context, blocks: [] }, { role: 'assistant', blocks: [] }],
  };
}

/** accepts says whether an event belongs to this chat. */
export function accepts(s: ChatState, ev: AgentEvent): boolean {
  if (ev.sessionId in s.side) return true;
  if (ev.type === 'run_start' && ev.origin !== 'prompt') return true; // a code action's run: shown as a turn of its own
  if (s.sessionId) return ev.sessionId === s.sessionId;
  // The first run of a new chat adopts the first session it hears from.
  return s.running;
}

/** turnFor copies the turns and the assistant turn the session's events go to. */
function turnFor(s: ChatState, sessionId?: string): { turns: Turn[]; turn: Turn; index: number } {
  const turns = s.turns.slice();
  let i = sessionId !== undefined && sessionId in s.side ? s.side[sessionId] : turns.length - 1;
  if (i < 0 || turns[i].role !== 'assistant' || (turns[i].sessionId && turns[i].sessionId !== sessionId)) {
    // The chat's own run: its last assistant turn that is not a side run's.
    i = turns.length - 1;
    while (i >= 0 && (turns[i].role !== 'assistant' || turns[i].sessionId)) i--;
    if (i < 0) {
      turns.push({ role: 'assistant', blocks: [] });
      i = turns.length - 1;
    }
  }
  const turn = { ...turns[i], blocks: turns[i].blocks.slice() };
  turns[i] = turn;
  return { turns, turn, index: i };
}

/** reduce folds one agent/event into the state. */
export function reduce(s: ChatState, ev: AgentEvent): ChatState {
  if (!accepts(s, ev)) return s;
  const sideRun = ev.sessionId in s.side;
  if (ev.type === 'run_start') {
    if (ev.origin === 'prompt' || sideRun || ev.sessionId === s.sessionId) return s;
    const turns = [...s.turns,
      { role: 'user' as const, text: ev.title, context: ev.context, blocks: [], origin: ev.origin },
      { role: 'assistant' as const, blocks: [], origin: ev.origin, sessionId: ev.sessionId }];
    return { ...s, turns, side: { ...s.side, [ev.sessionId]: turns.length - 1 } };
  }
  const sessionId = sideRun ? s.sessionId : s.sessionId ?? ev.sessionId;
  const { turns, turn } = turnFor(s, sideRun ? ev.sessionId : undefined);
  const b = turn.blocks;
  const last = b[b.length - 1];
  switch (ev.type) {
    case 'text':
    case 'reasoning':
      if (!ev.text) return { ...s, sessionId };
      if (last && last.kind === ev.type) b[b.length - 1] = { ...last, text: last.text + ev.text };
      else b.push({ kind: ev.type, text: ev.text });
      break;
    case 'warning':
      b.push({ kind: 'warning', text: ev.text ?? '' });
      break;
    case 'tool_start':
      b.push({ kind: 'tool', id: ev.id, name: ev.name, arguments: ev.arguments, running: true });
      break;
    case 'tool_output': {
      const i = b.findIndex((x) => x.kind === 'tool' && x.id === ev.id);
      if (i < 0) return s;
      const t = b[i] as ToolBlock;
      b[i] = { ...t, output: (t.output ?? '') + ev.text };
      break;
    }
    case 'tool_result': {
      const i = b.findIndex((x) => x.kind === 'tool' && x.id === ev.id);
      const done: ToolBlock = {
        kind: 'tool', id: ev.id, name: ev.name, arguments: ev.arguments,
        result: ev.result, isError: ev.isError, running: false,
      };
      if (i >= 0) b[i] = done;
      else b.push(done);
      break;
    }
    case 'usage':
      // The server sends the run's running total: it replaces, never adds.
      if (sideRun) return s;
      return { ...s, sessionId, runUsage: { inputTokens: ev.usage.inputTokens, outputTokens: ev.usage.outputTokens } };
    case 'context':
      if (sideRun) return s;
      return { ...s, sessionId, context: { tokens: ev.tokens, window: ev.window || s.context?.window } };
    case 'todos':
      if (sideRun) return s;
      return { ...s, sessionId, todos: ev.todos ?? [] };
    case 'compaction':
      b.push({ kind: 'note', text: `Conversation summarised: ${ev.tokensBefore} → ${ev.tokensAfter} tokens (${ev.messages} messages).` });
      break;
    case 'changes':
      turn.changes = fromEvent(ev.changes);
      break;
    case 'end':
      if (sideRun) {
        turn.ending = { reason: ev.reason, error: ev.error };
        if (!turn.blocks.some((x) => x.kind === 'text') && ev.text) turn.blocks.push({ kind: 'text', text: ev.text });
        turn.changes ??= fromEvent(ev.changes);
        for (let j = 0; j < turn.blocks.length; j++) {
          const x = turn.blocks[j];
          if (x.kind === 'tool' && x.running) turn.blocks[j] = { ...x, running: false };
        }
        return { ...s, turns };
      }
      return finishRun({ ...s, sessionId, turns }, { ...ev, sessionId: ev.sessionId });
    default:
      return { ...s, sessionId };
  }
  return { ...s, sessionId, turns };
}

/**
 * finishRun closes the run with the prompt's result (or the end event).
 * It is idempotent: the end event and the request's result both call it.
 */
export function finishRun(s: ChatState, r: PromptResult): ChatState {
  const { turns, turn } = turnFor(s);
  if (turn.ending) return { ...s, running: false, sessionId: r.sessionId || s.sessionId, turns };
  const hasText = turn.blocks.some((x) => x.kind === 'text');
  if (!hasText && r.text) turn.blocks.push({ kind: 'text', text: r.text });
  turn.ending = { reason: r.reason, error: r.error };
  turn.changes ??= fromEvent(r.changes);
  const runUsage = r.usage && (r.usage.inputTokens || r.usage.outputTokens) ? { ...r.usage } : s.runUsage;
  for (let j = 0; j < turn.blocks.length; j++) {
    const x = turn.blocks[j];
    if (x.kind === 'tool' && x.running) turn.blocks[j] = { ...x, running: false };
    if (x.kind === 'approval' && x.answer === undefined) turn.blocks[j] = { ...x, answer: 'deny' };
  }
  return { ...s, running: false, sessionId: r.sessionId || s.sessionId, turns, runUsage: zero(), usage: add(s.usage, runUsage) };
}

/** failRun closes the run after the request itself failed (server gone, protocol error). */
export function failRun(s: ChatState, message: string): ChatState {
  const { turns, turn } = turnFor(s);
  if (!turn.ending) turn.ending = { reason: 'error', error: message };
  return { ...s, running: false, turns };
}

/** addApproval shows a pending permission prompt in the turn of its session (or the chat's own). */
export function addApproval(s: ChatState, key: string, params: ApproveParams): ChatState {
  const side = params.sessionId !== undefined && params.sessionId in s.side ? params.sessionId : undefined;
  const { turns, turn } = turnFor(s, side);
  turn.blocks.push({ kind: 'approval', key, params });
  return { ...s, turns };
}

/** answerApproval records the choice of a prompt (first answer wins: a later one changes nothing). */
export function answerApproval(s: ChatState, key: string, answer: string): ChatState {
  let changed = false;
  const turns = s.turns.map((t) => {
    const i = t.blocks.findIndex((b) => b.kind === 'approval' && b.key === key && b.answer === undefined);
    if (i < 0) return t;
    changed = true;
    const blocks = t.blocks.slice();
    blocks[i] = { ...(blocks[i] as ApprovalBlock), answer };
    return { ...t, blocks };
  });
  return changed ? { ...s, turns } : s;
}

/** waiting says whether a permission prompt waits for the user. */
export function waiting(s: ChatState): boolean {
  return s.turns.some((t) => t.blocks.some((b) => b.kind === 'approval' && b.answer === undefined));
}

/** fromHistory rebuilds a chat from agent/sessionHistory (after a reload, or opened from the history). */
export function fromHistory(sessionId: string, turns: HistoryTurn[], usage?: Usage): ChatState {
  const s = emptyState();
  s.sessionId = sessionId;
  if (usage) s.usage = { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens };
  for (const h of turns) {
    if (h.role === 'user') {
      s.turns.push({ role: 'user', text: h.text ?? '', blocks: [] });
      continue;
    }
    let t = s.turns[s.turns.length - 1];
    if (!t || t.role !== 'assistant') {
      t = { role: 'assistant', blocks: [] };
      s.turns.push(t);
    }
    if (h.text) t.blocks.push({ kind: 'text', text: h.text });
    for (const c of h.toolCalls ?? []) {
      t.blocks.push({ kind: 'tool', id: c.id, name: c.name, arguments: c.arguments, result: c.result, isError: c.isError, running: false });
    }
    if (h.ending) t.ending = { reason: h.ending };
  }
  return s;
}
