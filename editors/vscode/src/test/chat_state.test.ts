import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { addApproval, answerApproval, ChatState, contextLabel, emptyState, failRun, finishRun, fromHistory, newSessionId, reduce, startRun, waiting } from '../chat_state';
import { formatTokens, gauge, toolSummary, view } from '../chat_view_model';
import type { AgentEvent, PromptResult } from '../lsp_ext';

const run = (s: ChatState, evs: AgentEvent[]) => evs.reduce(reduce, s);
const result = (over: Partial<PromptResult> = {}): PromptResult => ({
  sessionId: 's1', reason: 'end_turn', turns: 2, toolCalls: 1,
  usage: { inputTokens: 100, outputTokens: 20 }, text: 'Done.', ...over,
});

test('streams text, tool calls and todos into the last assistant turn', () => {
  let s = startRun(emptyState(), 'fix it', 'main.go:3-5');
  s = run(s, [
    { sessionId: 's1', type: 'text', text: 'Let me ' },
    { sessionId: 's1', type: 'text', text: 'look.' },
    { sessionId: 's1', type: 'tool_start', id: 'c1', name: 'read_file', arguments: '{"path":"main.go"}' },
    { sessionId: 's1', type: 'todos', todos: [{ content: 'fix', status: 'in_progress' }] },
    { sessionId: 's1', type: 'tool_result', id: 'c1', name: 'read_file', arguments: '{"path":"main.go"}', result: 'package main', isError: false },
    { sessionId: 's1', type: 'usage', usage: { inputTokens: 50, outputTokens: 5 } },
    { sessionId: 's1', type: 'text', text: 'Fixed.' },
  ]);
  assert.equal(s.sessionId, 's1');
  assert.equal(s.running, true);
  assert.equal(s.turns.length, 2);
  assert.deepEqual(s.turns[0], { role: 'user', text: 'fix it', context: 'main.go:3-5', blocks: [] });
  const b = s.turns[1].blocks;
  assert.deepEqual(b.map((x) => x.kind), ['text', 'tool', 'text']);
  assert.equal((b[0] as { text: string }).text, 'Let me look.');
  assert.deepEqual(b[1], { kind: 'tool', id: 'c1', name: 'read_file', arguments: '{"path":"main.go"}', result: 'package main', isError: false, running: false });
  assert.deepEqual(s.todos, [{ content: 'fix', status: 'in_progress' }]);
  assert.equal(view(s).usage, '50 in · 5 out');
});

test('the end event and the request result both close the run, once', () => {
  let s = startRun(emptyState(), 'q');
  s = reduce(s, { sessionId: 's1', type: 'text', text: 'A' });
  s = reduce(s, { ...result(), type: 'end' } as AgentEvent);
  s = finishRun(s, result());
  assert.equal(s.running, false);
  assert.deepEqual(s.usage, { inputTokens: 100, outputTokens: 20 });
  assert.deepEqual(s.turns[1].ending, { reason: 'end_turn', error: undefined });
  // The answer text was streamed: it is not added a second time.
  assert.equal(s.turns[1].blocks.length, 1);
});

test('a follow-up keeps the session and adds up usage', () => {
  let s = finishRun(startRun(emptyState(), 'one'), result());
  s = startRun(s, 'two');
  assert.equal(s.sessionId, 's1');
  s = finishRun(s, result({ usage: { inputTokens: 1000, outputTokens: 1 } }));
  assert.deepEqual(s.usage, { inputTokens: 1100, outputTokens: 21 });
  assert.equal(s.turns.length, 4);
});

test('events of other sessions are ignored', () => {
  let s = finishRun(startRun(emptyState(), 'one'), result());
  s = startRun(s, 'two');
  const before = s;
  s = reduce(s, { sessionId: 'other', type: 'text', text: 'noise' });
  assert.equal(s, before);
  // An idle new chat adopts no session.
  const idle = emptyState();
  assert.equal(reduce(idle, { sessionId: 'x', type: 'text', text: 'a' }), idle);
});

test('a final text without streamed text is shown; aborted and errors are labelled', () => {
  let s = finishRun(startRun(emptyState(), 'q'), result({ text: 'Only at the end' }));
  assert.deepEqual(s.turns[1].blocks, [{ kind: 'text', text: 'Only at the end' }]);
  s = startRun(s, 'x');
  s = reduce(s, { sessionId: 's1', type: 'tool_start', id: 'c', name: 'bash', arguments: '{"command":"sleep 9"}' });
  s = finishRun(s, result({ reason: 'aborted', text: '' }));
  const v = view(s);
  assert.equal(v.turns[3].ending?.label, 'Stopped.');
  assert.equal((v.turns[3].blocks[0] as { running: boolean }).running, false);
  s = failRun(startRun(s, 'y'), 'connection closed');
  assert.deepEqual(s.turns[5].ending, { reason: 'error', error: 'connection closed' });
  assert.equal(s.running, false);
});

test('view renders markdown and summarises tools', () => {
  let s = startRun(emptyState(), 'q');
  s = run(s, [
    { sessionId: 's', type: 'text', text: '**hi** <b>' },
    { sessionId: 's', type: 'tool_start', id: 'c', name: 'bash', arguments: '{"command":"go   test ./..."}' },
  ]);
  const v = view(s);
  assert.deepEqual(v.turns[1].blocks[0], { kind: 'html', html: '<p><strong>hi</strong> &lt;b&gt;</p>\n' });
  const t = v.turns[1].blocks[1] as { summary: string; arguments: string; running: boolean };
  assert.equal(t.summary, 'bash go test ./...');
  assert.equal(t.arguments, '{\n  "command": "go   test ./..."\n}');
  assert.equal(t.running, true);
});

test('toolSummary and formatTokens', () => {
  assert.equal(toolSummary('read_file', 'not json'), 'read_file');
  assert.equal(toolSummary('str_replace', '{"path":"a.go","old_str":"x"}'), 'str_replace a.go');
  assert.equal(toolSummary('bash', JSON.stringify({ command: 'x'.repeat(100) })).length, 'bash '.length + 60);
  assert.equal(formatTokens(999), '999');
  assert.equal(formatTokens(1234), '1.2k');
  assert.equal(formatTokens(45678), '46k');
  assert.equal(formatTokens(2500000), '2.5M');
});

test('compaction and warnings show as notes', () => {
  let s = startRun(emptyState(), 'q');
  s = run(s, [
    { sessionId: 's', type: 'warning', text: 'careful' },
    { sessionId: 's', type: 'compaction', tokensBefore: 30000, tokensAfter: 6000, messages: 40, summary: '…' },
  ]);
  assert.deepEqual(s.turns[1].blocks.map((b) => b.kind), ['warning', 'note']);
});

test('a new chat names its session; a follow-up keeps it', () => {
  const id = newSessionId();
  assert.match(id, /^vscode-[0-9a-f]{16}$/);
  let s = startRun(emptyState(), 'one', undefined, id);
  assert.equal(s.sessionId, id);
  // Events of another session (e.g. a code action's run) are not ours.
  assert.equal(reduce(s, { sessionId: 'other', type: 'text', text: 'x' }), s);
  s = finishRun(s, result({ sessionId: id }));
  s = startRun(s, 'two', undefined, newSessionId());
  assert.equal(s.sessionId, id);
});

test('contextLabel', () => {
  const r = (a: number, b: number, c: number, d: number) => ({ start: { line: a, character: b }, end: { line: c, character: d } });
  assert.equal(contextLabel('main.go'), 'main.go');
  assert.equal(contextLabel('main.go', r(4, 0, 7, 0)), 'main.go:5-7');
  assert.equal(contextLabel('main.go', r(4, 2, 4, 9)), 'main.go:5');
  assert.equal(contextLabel('main.go', r(4, 2, 6, 1)), 'main.go:5-7');
});

test('usage events are running totals: the count is the last one, not their sum (40/20, not 60/30)', () => {
  let s = finishRun(startRun(emptyState(), 'one'), result({ usage: { inputTokens: 100, outputTokens: 10 } }));
  s = startRun(s, 'two');
  s = run(s, [
    { sessionId: 's1', type: 'usage', usage: { inputTokens: 20, outputTokens: 10 } },
    { sessionId: 's1', type: 'usage', usage: { inputTokens: 40, outputTokens: 20 } },
  ]);
  assert.equal(view(s).usage, '140 in · 30 out');
  s = finishRun(s, result({ usage: { inputTokens: 40, outputTokens: 20 } }));
  assert.equal(view(s).usage, '140 in · 30 out');
});

test('the context gauge shows the share of the window', () => {
  let s = startRun(emptyState(), 'q', undefined, 's1');
  s = reduce(s, { sessionId: 's1', type: 'context', tokens: 8192, window: 32768 });
  assert.deepEqual(view(s).gauge, { tokens: 8192, window: 32768, percent: 25, label: '25% of 33k context' });
  assert.equal(gauge(1500).label, '1.5k tokens in context');
});

test('tool output streams into the running tool row until the result', () => {
  let s = startRun(emptyState(), 'q', undefined, 's1');
  s = run(s, [
    { sessionId: 's1', type: 'tool_start', id: 'b', name: 'bash', arguments: '{"command":"make"}' },
    { sessionId: 's1', type: 'tool_output', id: 'b', name: 'bash', text: 'step 1\n' },
    { sessionId: 's1', type: 'tool_output', id: 'b', name: 'bash', text: 'step 2\n' },
  ]);
  assert.equal((view(s).turns[1].blocks[0] as { output?: string }).output, 'step 1\nstep 2\n');
  s = reduce(s, { sessionId: 's1', type: 'tool_result', id: 'b', name: 'bash', arguments: '{}', result: 'done', isError: false });
  assert.equal((view(s).turns[1].blocks[0] as { output?: string }).output, undefined);
});

test('a code action run shows as its own short turn, the chat keeps its session', () => {
  let s = finishRun(startRun(emptyState(), 'one', undefined, 's1'), result());
  s = run(s, [
    { sessionId: 'fix-1', type: 'run_start', origin: 'fix', title: 'Fix with agent', prompt: 'Fix it', context: 'main.go:3' },
    { sessionId: 'fix-1', type: 'text', text: 'Fixed the typo.' },
    { sessionId: 'fix-1', type: 'usage', usage: { inputTokens: 5, outputTokens: 5 } },
    { sessionId: 'fix-1', type: 'end', reason: 'end_turn', turns: 1, toolCalls: 0, usage: { inputTokens: 5, outputTokens: 5 }, text: 'Fixed the typo.' },
  ]);
  assert.equal(s.sessionId, 's1');
  assert.equal(s.running, false);
  assert.equal(s.turns.length, 4);
  assert.deepEqual([s.turns[2].text, s.turns[2].context, s.turns[2].origin], ['Fix with agent', 'main.go:3', 'fix']);
  assert.deepEqual(s.turns[3].ending, { reason: 'end_turn', error: undefined });
  assert.equal(view(s).usage, '100 in · 20 out');
  // The chat's next prompt goes to its own turn, not the fix's.
  s = reduce(startRun(s, 'two'), { sessionId: 's1', type: 'text', text: 'mine' });
  assert.equal(s.turns[5].blocks.length, 1);
  assert.equal(s.turns[3].blocks.length, 1);
});

test('approval cards: pending, first answer wins, a finished run denies what is left', () => {
  let s = startRun(emptyState(), 'q', undefined, 's1');
  const p = { sessionId: 's1', callId: 'c', tool: 'bash', subject: 'node --test', action: 'run', reasons: ['`node --test` is not in your allow list'],
    message: 'm', sessionRule: 'node --test *', choices: [{ id: 'deny', title: 'Deny' }], timeoutSeconds: 300 };
  s = addApproval(s, 'k1', p);
  assert.equal(waiting(s), true);
  assert.equal(view(s).waiting, true);
  s = answerApproval(s, 'k1', 'allow');
  const again = answerApproval(s, 'k1', 'deny');
  assert.equal(again, s);
  assert.equal(waiting(s), false);
  assert.equal((view(s).turns[1].blocks[0] as { answerLabel?: string }).answerLabel, 'Allowed once');
  s = finishRun(addApproval(s, 'k2', p), result());
  assert.equal((s.turns[1].blocks[1] as { answer?: string }).answer, 'deny');
});

test('fromHistory rebuilds the chat', () => {
  const s = fromHistory('s9', [
    { role: 'user', text: 'hi' },
    { role: 'assistant', toolCalls: [{ id: 'c', name: 'read_file', arguments: '{"path":"a"}', result: 'x' }] },
    { role: 'assistant', text: 'done', ending: 'end_turn' },
  ], { inputTokens: 10, outputTokens: 2 });
  assert.equal(s.sessionId, 's9');
  assert.deepEqual(s.turns.map((t) => [t.role, t.blocks.map((b) => b.kind).join(',')]), [['user', ''], ['assistant', 'tool,text']]);
  assert.deepEqual(s.turns[1].ending, { reason: 'end_turn' });
  assert.equal(view(s).usage, '10 in · 2 out');
});
