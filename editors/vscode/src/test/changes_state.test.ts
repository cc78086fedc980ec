import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { bindJournal, changesViews, fromEvent, undoReport, WithChanges } from '../changes_state';
import { ChatState, emptyState, finishRun, reduce, startRun } from '../chat_state';
import { view } from '../chat_view_model';
import type { ChangeTurn, ChangesResult, FileChange } from '../lsp_ext';

const fc = (path: string, kind = 'modified', added = 1, removed = 0, from?: string): FileChange =>
  ({ path, kind, added, removed, ...(from ? { from } : {}) });
const jt = (turn: number, paths: string[], over: Partial<ChangeTurn> = {}): ChangeTurn => ({
  turn, prompt: `p${turn}`, time: '2025-01-01T00:00:00Z', undone: false,
  files: paths.map((p) => ({ uri: `file:///ws/${p}`, path: p, kind: 'modified', tool: 'str_replace', added: 1, removed: 0, diff: '' })),
  ...over,
});
const res = (...turns: ChangeTurn[]): ChangesResult => ({ sessionId: 's1', turns });
const asst = (files?: FileChange[], journalTurn?: number): WithChanges =>
  ({ role: 'assistant', changes: files ? { files, ...(journalTurn ? { journalTurn } : {}) } : undefined });

test('the changes event lands on the run\'s turn; an empty list draws nothing', () => {
  let s: ChatState = startRun(emptyState(), 'edit', undefined, 's1');
  s = reduce(s, { sessionId: 's1', type: 'changes', changes: [fc('a.go', 'modified', 2, 1), fc('new.txt', 'created', 3, 0)] });
  s = finishRun(s, { sessionId: 's1', reason: 'end_turn', turns: 1, toolCalls: 2, usage: { inputTokens: 1, outputTokens: 1 }, text: 'ok' });
  const v = view(s).turns[1].changes!;
  assert.equal(v.summary, '2 files changed +5 −1');
  assert.deepEqual(v.files.map((f) => [f.path, f.note]), [['a.go', ''], ['new.txt', 'created']]);
  // Not bound to a journal turn yet: nothing to click.
  assert.equal(v.turn, undefined);
  assert.equal(v.canUndo, false);
  assert.equal(fromEvent([]), undefined);
  let e: ChatState = startRun(emptyState(), 'look', undefined, 's2');
  e = reduce(e, { sessionId: 's2', type: 'changes', changes: [] });
  assert.equal(view(e).turns[1].changes, undefined);
});

test('the end result\'s changes count when the event was missed', () => {
  let s: ChatState = startRun(emptyState(), 'edit', undefined, 's1');
  s = finishRun(s, { sessionId: 's1', reason: 'end_turn', turns: 1, toolCalls: 1, usage: { inputTokens: 1, outputTokens: 1 }, text: 'ok', changes: [fc('a.go')] });
  assert.deepEqual(s.turns[1].changes, { files: [fc('a.go')] });
});

test('bindJournal pairs turns newest first, skipping journal turns the chat does not show', () => {
  const turns: WithChanges[] = [{ role: 'user' }, asst([fc('a.go')]), { role: 'user' }, asst(), { role: 'user' }, asst([fc('b.go'), fc('c.go')])];
  // Journal: 1 a.go, 2 nothing (a question), 3 x.go (a run from elsewhere, e.g. a code action of the session), 4 b.go+c.go.
  const r = res(jt(1, ['a.go']), jt(2, []), jt(3, ['x.go']), jt(4, ['c.go', 'b.go']));
  const out = bindJournal(turns, r);
  assert.equal(out[1].changes!.journalTurn, 1);
  assert.equal(out[5].changes!.journalTurn, 4);
  assert.equal(out[3].changes, undefined);
  // Bound again: nothing changes, the same array comes back.
  assert.equal(bindJournal(out, r), out);
});

test('a code action\'s run shown in the chat keeps its changes and is never bound to the chat\'s journal', () => {
  let s: ChatState = startRun(emptyState(), 'edit', undefined, 's1');
  s = reduce(s, { sessionId: 's1', type: 'changes', changes: [fc('a.go')] });
  s = finishRun(s, { sessionId: 's1', reason: 'end_turn', turns: 1, toolCalls: 1, usage: { inputTokens: 1, outputTokens: 1 }, text: 'ok' });
  s = reduce(s, { sessionId: 'fix-1', type: 'run_start', origin: 'fix', title: 'Fix with agent', prompt: 'fix it' });
  s = reduce(s, { sessionId: 'fix-1', type: 'end', reason: 'end_turn', turns: 1, toolCalls: 1, usage: { inputTokens: 1, outputTokens: 1 }, text: 'fixed', changes: [fc('a.go')] });
  assert.deepEqual(s.turns[3].changes, { files: [fc('a.go')] });
  // The chat's journal (session s1) has one turn that changed a.go: it is the chat's own turn's, not the code action's.
  const out = bindJournal(s.turns, res(jt(1, ['a.go'])));
  assert.equal(out[1].changes!.journalTurn, 1);
  assert.equal(out[3].changes!.journalTurn, undefined);
  assert.equal(view({ ...s, turns: out }).turns[3].changes!.canUndo, false);
});

test('bindJournal never pairs an older chat turn with a newer journal turn', () => {
  // The newest chat turn matches journal turn 1 only: the older chat turn
  // (same file) must not take turn 2, which is newer.
  const turns = [asst([fc('a.go')]), asst([fc('a.go')])];
  const out = bindJournal(turns, res(jt(1, ['a.go']), jt(2, ['b.go'])));
  assert.equal(out[1].changes!.journalTurn, 1);
  assert.equal(out[0].changes!.journalTurn, undefined);
});

test('bindJournal refreshes undone and conflicts, with paths relative to the workspace', () => {
  const turns = [asst([fc('a.go')], 1), asst([fc('b.go')], 2)];
  const out = bindJournal(turns, res(
    jt(1, ['a.go']),
    jt(2, ['b.go'], { undone: true, conflicts: [{ uri: 'file:///ws/b.go', reason: 'you edited lines 3-4' }], ignored: ['node_modules/ changed'] }),
  ));
  assert.equal(out[0], turns[0]);
  assert.deepEqual(out[1].changes, {
    files: [fc('b.go')], journalTurn: 2, undone: true,
    conflicts: [{ path: 'b.go', reason: 'you edited lines 3-4' }], ignored: ['node_modules/ changed'],
  });
  const v = changesViews(out, false);
  assert.equal(v[1]!.undone, true);
  assert.equal(v[1]!.canUndo, false);
  assert.match(v[1]!.summary, /\(undone\)$/);
  // Undo all sits on the newest turn that can still be undone.
  assert.equal(v[0]!.canUndoAll, true);
  assert.equal(v[1]!.canUndoAll, false);
});

test('no undo while a run goes on', () => {
  const v = changesViews([asst([fc('a.go')], 1)], true);
  assert.equal(v[0]!.canUndo, false);
  assert.equal(v[0]!.canUndoAll, false);
});

test('a renamed file names its old path', () => {
  const v = changesViews([asst([fc('new.go', 'renamed', 0, 0, 'old.go')], 1)], false);
  assert.equal(v[0]!.files[0].note, 'renamed from old.go');
});

test('undoReport names each file left as the user edited it', () => {
  const files = [{ uri: 'file:///ws/sub/a.go', path: 'sub/a.go' }];
  const ok = undoReport('Undo turn 2', { turns: [2], reverted: ['file:///ws/sub/a.go', 'file:///ws/b'], conflicts: [] }, files);
  assert.deepEqual(ok, { warn: false, text: 'agent-lsp: Undo turn 2 (turn 2): 2 files reverted.' });
  const bad = undoReport('Undo all', { turns: [1, 2], reverted: [], conflicts: [{ uri: 'file:///ws/sub/a.go', reason: 'edited since' }, { uri: 'file:///ws/c%20d.go', reason: 'gone' }] }, files);
  assert.equal(bad.warn, true);
  assert.equal(bad.text, 'agent-lsp: Undo all (turns 1, 2): 0 files reverted; left as you edited them: sub/a.go: edited since; /ws/c d.go: gone');
  assert.equal(undoReport('Undo all', { turns: [], reverted: [], conflicts: [] }, []).warn, false);
});
