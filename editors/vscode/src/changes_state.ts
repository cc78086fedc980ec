// The chat's part of review and undo, pure (unit tested without VS Code):
// what a turn changed (the run's `changes` event), which journal turn it
// is (agent/changes), whether it was undone, and what the chat draws for
// it. changes.ts does the requests and opens the diffs.
import type { ChangeTurn, ChangesResult, FileChange, UndoResult } from './lsp_ext';

/** What one assistant turn of the chat changed. */
export interface TurnChanges {
  files: FileChange[];
  /**
   * The journal's number of the run's turn. The changes event does not
   * carry it: it is learnt from agent/changes right after the run.
   */
  journalTurn?: number;
  undone?: boolean;
  /** What the undo left as the user had it (paths relative to the workspace). */
  conflicts?: { path: string; reason: string }[];
  /** Summaries of changes in ignored directories. */
  ignored?: string[];
}

/** The part of a chat turn this file reads and writes. */
export interface WithChanges {
  role: 'user' | 'assistant';
  /** Set on runs the chat did not start (code actions, inline edits): they journal in their own session. */
  sessionId?: string;
  changes?: TurnChanges;
}

/** fromEvent is a turn's changes from its `changes` event; none when it changed nothing. */
export function fromEvent(files: FileChange[] | undefined): TurnChanges | undefined {
  return files && files.length > 0 ? { files: files.slice() } : undefined;
}

const samePaths = (a: FileChange[], b: ChangeTurn['files']): boolean => {
  const x = a.map((f) => f.path).sort();
  const y = b.map((f) => f.path).sort();
  return x.length === y.length && x.every((p, i) => p === y[i]);
};

/**
 * bindJournal gives the chat's turns their journal numbers and refreshes
 * what agent/changes says of them (undone, conflicts). Turns not yet bound
 * are paired newest first with the newest journal turns not yet bound that
 * changed the same files: the run that just ended is the journal's newest
 * turn, and a run the chat does not show (one with no changes) is skipped.
 * It returns the same array when nothing changed.
 */
export function bindJournal<T extends WithChanges>(turns: T[], res: ChangesResult): T[] {
  const byNumber = new Map(res.turns.map((t) => [t.turn, t]));
  const bound = new Set(turns.map((t) => t.changes?.journalTurn).filter((n): n is number => n !== undefined));
  const free = res.turns.filter((t) => !bound.has(t.turn) && t.files.length > 0);
  let changed = false;
  const out = turns.slice();
  for (let i = out.length - 1; i >= 0; i--) {
    const c = out[i].changes;
    // Another session's run (a code action shown in the chat) is not in this journal.
    if (!c || (out[i].sessionId !== undefined && out[i].sessionId !== res.sessionId)) continue;
    let n = c.journalTurn;
    if (n === undefined) {
      let k = free.length - 1;
      while (k >= 0 && !samePaths(c.files, free[k].files)) k--;
      if (k < 0) continue;
      n = free[k].turn;
      free.splice(k); // older chat turns pair with older journal turns
    }
    const j = byNumber.get(n);
    if (!j) continue;
    const next: TurnChanges = {
      ...c, journalTurn: n, undone: j.undone || undefined,
      conflicts: j.conflicts && j.conflicts.length
        ? j.conflicts.map((x) => ({ path: relPath(x.uri, j.files), reason: x.reason })) : undefined,
      ignored: j.ignored && j.ignored.length ? j.ignored : undefined,
    };
    if (JSON.stringify(next) !== JSON.stringify(c)) {
      out[i] = { ...out[i], changes: next };
      changed = true;
    }
  }
  return changed ? out : turns;
}

// ---- what the webview draws (media/changes.js) ----

export interface FileView {
  path: string;
  /** "created", "deleted", "renamed from old.go", or "" for a modification. */
  note: string;
  kind: string;
  added: number;
  removed: number;
}
export interface ChangesView {
  /** The journal turn, which the buttons send back; absent until known. */
  turn?: number;
  files: FileView[];
  undone: boolean;
  conflicts: { path: string; reason: string }[];
  ignored: string[];
  /** Undo turn is offered (not undone, not while a run goes on). */
  canUndo: boolean;
  /** Undo all is offered on the newest turn that can still be undone. */
  canUndoAll: boolean;
  /** "2 files changed +5 −1". */
  summary: string;
}

/** relPath shows a file URI relative to the folder the changed paths are relative to (the URI itself when unknown). */
export function relPath(uri: string, files: { uri: string; path: string }[]): string {
  const f = files.find((x) => x.uri === uri);
  if (f) return f.path;
  try {
    return decodeURIComponent(new URL(uri).pathname);
  } catch {
    return uri;
  }
}

function fileView(f: FileChange): FileView {
  const note = f.kind === 'modified' ? '' : f.kind === 'renamed' && f.from ? `renamed from ${f.from}` : f.kind;
  return { path: f.path, note, kind: f.kind, added: f.added, removed: f.removed };
}

/** changesViews draws the changes of every turn (undefined where a turn changed nothing). */
export function changesViews(turns: WithChanges[], running: boolean): (ChangesView | undefined)[] {
  const views = turns.map((t): ChangesView | undefined => {
    const c = t.changes;
    if (!c) return undefined;
    const added = c.files.reduce((n, f) => n + f.added, 0);
    const removed = c.files.reduce((n, f) => n + f.removed, 0);
    const n = c.files.length;
    return {
      turn: c.journalTurn,
      files: c.files.map(fileView),
      undone: !!c.undone,
      conflicts: c.conflicts ?? [],
      ignored: c.ignored ?? [],
      canUndo: !running && !c.undone && c.journalTurn !== undefined,
      canUndoAll: false,
      summary: `${n} ${n === 1 ? 'file' : 'files'} changed +${added} −${removed}${c.undone ? ' (undone)' : ''}`,
    };
  });
  for (let i = views.length - 1; i >= 0; i--) {
    const v = views[i];
    if (v && v.canUndo) {
      v.canUndoAll = true;
      break;
    }
  }
  return views;
}

/** undoReport is what the user is told after an undo: a warning naming each file left as the user had it. */
export function undoReport(what: string, r: UndoResult, files: { uri: string; path: string }[]): { warn: boolean; text: string } {
  if (r.turns.length === 0) return { warn: false, text: 'agent-lsp: nothing left to undo in this chat.' };
  const turns = r.turns.length === 1 ? `turn ${r.turns[0]}` : `turns ${r.turns.join(', ')}`;
  const reverted = `${r.reverted.length} ${r.reverted.length === 1 ? 'file' : 'files'} reverted`;
  if (r.conflicts.length === 0) return { warn: false, text: `agent-lsp: ${what} (${turns}): ${reverted}.` };
  const left = r.conflicts.map((c) => `${relPath(c.uri, files)}: ${c.reason}`).join('; ');
  return { warn: true, text: `agent-lsp: ${what} (${turns}): ${reverted}; left as you edited them: ${left}` };
}
