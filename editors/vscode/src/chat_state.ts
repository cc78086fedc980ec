// The chat's state and the reducer that folds agent/event notifications
// into it. Pure: the chat view renders what view() returns.
import type { AgentEvent, PromptResult, Range, Todo, Usage } from './lsp_ext';
import { escapeHtml, renderMarkdown } from './markdown';
import { ChangesView, changesViews, fromEvent, TurnChanges } from './changes_state';

export interface ToolBlock {
  kind: 'tool';
  id: string;
  name: string;
  arguments: string;
  result?: string;
  isError?: boolean;
  running: boolean;
}
export type Block =
  | { kind: 'text'; text: string }
  | { kind: 'reasoning'; text: string }
  | { kind: 'warning'; text: string }
  | { kind: 'note'; text: string }
  | ToolBlock;

export interface Turn {
  role: 'user' | 'assistant';
  /** The user's prompt, and what went with it (e.g. "main.go:3-7"). */
  text?: string;
  context?: string;
  blocks: Block[];
  ending?: { reason: string; error?: string };
  /** The files the run changed (changes_state.ts). */
  changes?: TurnChanges;
}

export interface ChatState {
  sessionId?: string;
  running: boolean;
  turns: Turn[];
  todos: Todo[];
  /** Tokens of the whole conversation, and of the run going on. */
  usage: Usage;
  runUsage: Usage;
}

export function emptyState(): ChatState {
  return { running: false, turns: [], todos: [], usage: zero(), runUsage: zero() };
}

const zero = (): Usage => ({ inputTokens: 0, outputTokens: 0 });
const add = (a: Usage, b?: Partial<Usage>): Usage => ({
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
  if (s.sessionId) return ev.sessionId === s.sessionId;
  // The first run of a new chat adopts the first session it hears from.
  return s.running;
}

function lastAssistant(s: ChatState): { turns: Turn[]; turn: Turn } {
  const turns = s.turns.slice();
  let i = turns.length - 1;
  if (i < 0 || turns[i].role !== 'assistant') {
    turns.push({ role: 'assistant', blocks: [] });
    i = turns.length - 1;
  }
  const turn = { ...turns[i], blocks: turns[i].blocks.slice() };
  turns[i] = turn;
  return { turns, turn };
}

/** reduce folds one agent/event into the state. */
export function reduce(s: ChatState, ev: AgentEvent): ChatState {
  if (!accepts(s, ev)) return s;
  const sessionId = s.sessionId ?? ev.sessionId;
  const { turns, turn } = lastAssistant(s);
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
      return { ...s, sessionId, turns: s.turns, runUsage: add(s.runUsage, ev.usage) };
    case 'todos':
      return { ...s, sessionId, todos: ev.todos ?? [] };
    case 'compaction':
      b.push({ kind: 'note', text: `Conversation summarised: ${ev.tokensBefore} → ${ev.tokensAfter} tokens (${ev.messages} messages).` });
      break;
    case 'changes':
      turn.changes = fromEvent(ev.changes);
      break;
    case 'end':
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
  const { turns, turn } = lastAssistant(s);
  if (turn.ending) return { ...s, running: false, sessionId: r.sessionId || s.sessionId, turns };
  const hasText = turn.blocks.some((x) => x.kind === 'text');
  if (!hasText && r.text) turn.blocks.push({ kind: 'text', text: r.text });
  turn.ending = { reason: r.reason, error: r.error };
  turn.changes ??= fromEvent(r.changes);
  const runUsage = r.usage && (r.usage.inputTokens || r.usage.outputTokens) ? { ...r.usage } : s.runUsage;
  for (const x of turn.blocks) if (x.kind === 'tool' && x.running) x.running = false;
  return { ...s, running: false, sessionId: r.sessionId || s.sessionId, turns, runUsage, usage: add(s.usage, runUsage) };
}

/** failRun closes the run after the request itself failed (server gone, protocol error). */
export function failRun(s: ChatState, message: string): ChatState {
  const { turns, turn } = lastAssistant(s);
  if (!turn.ending) turn.ending = { reason: 'error', error: message };
  return { ...s, running: false, turns };
}

// ---- the view model sent to the webview ----

export interface ToolView {
  id: string;
  name: string;
  summary: string;
  arguments: string;
  result?: string;
  isError?: boolean;
  running: boolean;
}
export type BlockView =
  | { kind: 'html'; html: string }
  | { kind: 'reasoning'; text: string }
  | { kind: 'warning'; text: string }
  | { kind: 'note'; text: string }
  | ({ kind: 'tool' } & ToolView);
export interface TurnView {
  role: 'user' | 'assistant';
  text?: string;
  context?: string;
  blocks: BlockView[];
  ending?: { reason: string; label: string; error?: string };
  changes?: ChangesView;
}
export interface ViewModel {
  running: boolean;
  sessionId?: string;
  turns: TurnView[];
  todos: Todo[];
  usage: string;
}

const endingLabels: Record<string, string> = {
  end_turn: '',
  aborted: 'Stopped.',
  max_turns: 'Stopped: the turn limit was reached.',
  max_tool_calls: 'Stopped: the tool-call limit was reached.',
  repeated_failure: 'Stopped: the same tool call kept failing.',
  empty_response: 'The model gave an empty answer.',
  max_tokens: 'The answer was cut at the token limit.',
  refusal: 'The model refused.',
  error: 'The run failed.',
};

export function endingLabel(reason: string): string {
  return reason in endingLabels ? endingLabels[reason] : `Ended: ${reason}.`;
}

/** toolSummary is the one-line label of a tool call: its name and main argument. */
export function toolSummary(name: string, args: string): string {
  let detail = '';
  try {
    const a = JSON.parse(args) as Record<string, unknown>;
    for (const k of ['command', 'path', 'file', 'pattern', 'query', 'url', 'description']) {
      if (typeof a[k] === 'string' && a[k]) {
        detail = a[k] as string;
        break;
      }
    }
  } catch {
    detail = '';
  }
  detail = detail.replace(/\s+/g, ' ').trim();
  if (detail.length > 60) detail = detail.slice(0, 59) + '…';
  return detail ? `${name} ${detail}` : name;
}

function prettyArgs(args: string): string {
  try {
    return JSON.stringify(JSON.parse(args), null, 2);
  } catch {
    return args;
  }
}

/** formatTokens shows 12345 as "12.3k". */
export function formatTokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1e6) return (n / 1000).toFixed(n < 10000 ? 1 : 0) + 'k';
  return (n / 1e6).toFixed(1) + 'M';
}

const maxResult = 20000;

/** view turns the state into what the webview draws; markdown becomes safe HTML here. */
export function view(s: ChatState): ViewModel {
  const changes = changesViews(s.turns, s.running);
  const turns = s.turns.map((t, i): TurnView => ({
    changes: changes[i],
    role: t.role,
    text: t.text,
    context: t.context,
    ending: t.ending && { ...t.ending, label: endingLabel(t.ending.reason) },
    blocks: t.blocks.map((b): BlockView => {
      switch (b.kind) {
        case 'text':
          return { kind: 'html', html: renderMarkdown(b.text) };
        case 'tool':
          return {
            kind: 'tool', id: b.id, name: b.name, summary: toolSummary(b.name, b.arguments),
            arguments: prettyArgs(b.arguments), running: b.running, isError: b.isError,
            result: b.result === undefined ? undefined
              : b.result.length > maxResult ? b.result.slice(0, maxResult) + `\n… (${b.result.length - maxResult} more characters)` : b.result,
          };
        default:
          return b;
      }
    }),
  }));
  const total = s.running ? add(s.usage, s.runUsage) : s.usage;
  const usage = total.inputTokens || total.outputTokens
    ? `${formatTokens(total.inputTokens)} in · ${formatTokens(total.outputTokens)} out` : '';
  return { running: s.running, sessionId: s.sessionId, turns, todos: s.todos, usage };
}

export { escapeHtml };
