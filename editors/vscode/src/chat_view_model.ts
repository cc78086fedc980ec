// view turns the chat state into what the webview draws: markdown becomes
// safe HTML here, long results are cut, and the usage and the context
// gauge get their labels.
import type { ApproveParams, Todo } from './lsp_ext';
import { add, ChatState, waiting } from './chat_state';
import { renderMarkdown } from './markdown';
import { ChangesView, changesViews } from './changes_state';

export interface ToolView {
  id: string;
  name: string;
  summary: string;
  arguments: string;
  result?: string;
  /** Output so far of a running call (its last lines). */
  output?: string;
  isError?: boolean;
  running: boolean;
}
export interface ApprovalView { key: string; params: ApproveParams; answer?: string; answerLabel?: string }
export type BlockView =
  | { kind: 'html'; html: string }
  | { kind: 'reasoning'; text: string }
  | { kind: 'warning'; text: string }
  | { kind: 'note'; text: string }
  | ({ kind: 'tool' } & ToolView)
  | ({ kind: 'approval' } & ApprovalView);
export interface TurnView {
  role: 'user' | 'assistant';
  text?: string;
  context?: string;
  /** A code action's or inline edit's run: "fix", "rewrite", "edit". */
  origin?: string;
  sessionId?: string;
  blocks: BlockView[];
  ending?: { reason: string; label: string; error?: string };
  /** The files the turn changed, with Undo turn / Undo all (media/changes.js draws it in the turn's changes slot). */
  changes?: ChangesView;
}
export interface GaugeView { tokens: number; window?: number; percent?: number; label: string }
export interface ViewModel {
  running: boolean;
  /** A permission prompt waits for the user. */
  waiting: boolean;
  sessionId?: string;
  turns: TurnView[];
  todos: Todo[];
  usage: string;
  gauge?: GaugeView;
}

const endingLabels: Record<string, string> = {
  end_turn: '',
  aborted: 'Stopped.',
  max_turns: 'Stopped: the turn limit was reached.',
  max_tool_calls: 'Stopped: the tool-call limit was reached.',
  repeated_failure: 'Stopped: the same tool call kept failing.',
  empty_response: 'The model gave an empty answer.',
  max_tokens: 'The answer was cut at the token limit.',
  malformed_tool_call: 'Stopped: the model kept writing tool calls that could not be read.',
  context_too_small: "Stopped: the model's context window is too small for this conversation.",
  refusal: 'The model refused.',
  error: 'The run failed.',
};

export function endingLabel(reason: string): string {
  return reason in endingLabels ? endingLabels[reason] : `Ended: ${reason}.`;
}

const answerLabels: Record<string, string> = {
  deny: 'Denied', allow: 'Allowed once', allow_session: 'Allowed for this session', allow_server: 'Server allowed for this session',
  timeout: 'No answer in time: denied',
};

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

/** gauge is the context gauge: how much of the model's window the last request filled. */
export function gauge(tokens: number, window?: number): GaugeView {
  if (!window || window <= 0) return { tokens, label: `${formatTokens(tokens)} tokens in context` };
  const percent = Math.min(100, Math.round((tokens / window) * 100));
  return { tokens, window, percent, label: `${percent}% of ${formatTokens(window)} context` };
}

const maxResult = 20000;
const maxOutput = 4000;
const clip = (s: string, n: number) => (s.length > n ? s.slice(0, n) + `\n… (${s.length - n} more characters)` : s);

export function view(s: ChatState): ViewModel {
  const changes = changesViews(s.turns, s.running);
  const turns = s.turns.map((t, i): TurnView => ({
    changes: changes[i],
    role: t.role,
    text: t.text,
    context: t.context,
    origin: t.origin,
    sessionId: t.sessionId,
    ending: t.ending && { ...t.ending, label: endingLabel(t.ending.reason) },
    blocks: t.blocks.map((b): BlockView => {
      switch (b.kind) {
        case 'text':
          return { kind: 'html', html: renderMarkdown(b.text) };
        case 'tool':
          return {
            kind: 'tool', id: b.id, name: b.name, summary: toolSummary(b.name, b.arguments),
            arguments: prettyArgs(b.arguments), running: b.running, isError: b.isError,
            output: b.running && b.output ? (b.output.length > maxOutput ? '…' + b.output.slice(-maxOutput) : b.output) : undefined,
            result: b.result === undefined ? undefined : clip(b.result, maxResult),
          };
        case 'approval':
          return { kind: 'approval', key: b.key, params: b.params, answer: b.answer, answerLabel: b.answer ? answerLabels[b.answer] ?? b.answer : undefined };
        default:
          return b;
      }
    }),
  }));
  // While running, the run's running total comes on top of the finished runs'.
  const total = s.running ? add(s.usage, s.runUsage) : s.usage;
  const usage = total.inputTokens || total.outputTokens
    ? `${formatTokens(total.inputTokens)} in · ${formatTokens(total.outputTokens)} out` : '';
  return {
    running: s.running, waiting: waiting(s), sessionId: s.sessionId, turns, todos: s.todos, usage,
    gauge: s.context ? gauge(s.context.tokens, s.context.window) : undefined,
  };
}
