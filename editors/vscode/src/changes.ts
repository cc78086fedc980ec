// changes.ts is the chat's review and undo: the files each turn changed
// (bound to the journal's turns through agent/changes), a file's
// before/after in VS Code's diff editor (read-only documents of the
// agent-lsp-change: scheme, from agent/changes' contents), and Undo turn /
// Undo all through agent/undo, whose edits come back as
// workspace/applyEdit so open editors change in place and Ctrl+Z takes the
// undo back. The chat view only forwards its messages here.
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { ChangedFile, ChangesRequest, ChangesResult, UndoParams, UndoRequest } from './lsp_ext';
import { bindJournal, undoReport, WithChanges } from './changes_state';

/** What the chat's webview sends about changes (media/changes.js). */
export type ChangesMessage =
  | { type: 'changes.diff'; turn: number; path: string }
  | { type: 'changes.undo'; turn: number }
  | { type: 'changes.undoAll' };

export function isChangesMessage(m: { type: string }): m is ChangesMessage {
  return m.type === 'changes.diff' || m.type === 'changes.undo' || m.type === 'changes.undoAll';
}

/** The chat state as this file needs it. */
export interface ChangesHost<S extends { sessionId?: string; running: boolean; turns: WithChanges[] }> {
  state(): S;
  update(s: S): void;
}

export const scheme = 'agent-lsp-change';

/** The URI of one side of a journaled file: its path (so the language is known), the session, turn and side in the query. */
export function sideUri(sessionId: string, turn: number, path: string, side: 'before' | 'after'): vscode.Uri {
  const q = new URLSearchParams({ session: sessionId, turn: String(turn), side }).toString();
  return vscode.Uri.from({ scheme, path: '/' + path, query: q });
}

export class Changes<S extends { sessionId?: string; running: boolean; turns: WithChanges[] }>
implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly subs: vscode.Disposable[] = [];
  /** Texts of the sides opened, by URI: journaled content never changes. */
  private readonly texts = new Map<string, string>();

  constructor(
    private readonly getClient: () => Promise<LanguageClient | undefined>,
    private readonly host: ChangesHost<S>,
  ) {
    this.subs.push(vscode.workspace.registerTextDocumentContentProvider(scheme, this));
  }

  /** sync learns the journal turns of the chat's turns (and which were undone). */
  async sync(): Promise<ChangesResult | undefined> {
    const id = this.host.state().sessionId;
    const client = id && (await this.getClient());
    if (!id || !client) return undefined;
    let res: ChangesResult;
    try {
      res = await client.sendRequest(ChangesRequest, { sessionId: id });
    } catch {
      return undefined; // a session that never ran: nothing journaled yet
    }
    const s = this.host.state();
    if (s.sessionId !== id) return res; // "New chat" meanwhile
    const turns = bindJournal(s.turns, res);
    if (turns !== s.turns) this.host.update({ ...s, turns });
    return res;
  }

  async onMessage(m: ChangesMessage): Promise<void> {
    try {
      switch (m.type) {
        case 'changes.diff':
          return await this.openDiff(m.turn, m.path);
        case 'changes.undo':
          return await this.undo({ turn: m.turn }, `Undo turn ${m.turn}`);
        case 'changes.undoAll':
          return await this.undo({ turns: 'all' }, 'Undo all');
      }
    } catch (e) {
      void vscode.window.showErrorMessage(`agent-lsp: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  /** openDiff shows a file's content before the turn and after it, side by side. */
  private async openDiff(turn: number, path: string): Promise<void> {
    const id = this.host.state().sessionId;
    if (!id) return;
    const f = await this.file(id, turn, path);
    if (!f) throw new Error(`${path} is not among the files turn ${turn} changed`);
    if (f.binary || f.notKept) {
      void vscode.window.showInformationMessage(`agent-lsp: no diff of ${path}: ${f.binary ? 'a binary file' : f.notKept}.`);
      return;
    }
    const before = sideUri(id, turn, f.path, 'before');
    const after = sideUri(id, turn, f.path, 'after');
    const what = f.kind === 'modified' ? '' : f.kind === 'renamed' && f.fromUri ? ', renamed' : `, ${f.kind}`;
    await vscode.commands.executeCommand('vscode.diff', before, after, `${f.path} (turn ${turn}${what}: before ↔ after)`, { preview: true });
  }

  /** file fetches one file of a turn with its contents, keeping both sides for the provider. */
  private async file(id: string, turn: number, path: string): Promise<ChangedFile | undefined> {
    const client = await this.getClient();
    if (!client) return undefined;
    const res = await client.sendRequest(ChangesRequest, { sessionId: id, contents: true });
    const f = res.turns.find((t) => t.turn === turn)?.files.find((x) => x.path === path);
    if (f) {
      this.texts.set(sideUri(id, turn, f.path, 'before').toString(), f.before ?? '');
      this.texts.set(sideUri(id, turn, f.path, 'after').toString(), f.after ?? '');
    }
    return f;
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const known = this.texts.get(uri.toString());
    if (known !== undefined) return known;
    // A diff VS Code restores after a reload: ask the journal again.
    const q = new URLSearchParams(uri.query);
    const id = q.get('session') ?? '';
    await this.file(id, Number(q.get('turn')), uri.path.replace(/^\//, ''));
    return this.texts.get(uri.toString()) ?? '';
  }

  private async undo(p: Omit<UndoParams, 'sessionId'>, what: string): Promise<void> {
    const s = this.host.state();
    if (!s.sessionId) return;
    if (s.running) {
      void vscode.window.showWarningMessage('agent-lsp: the agent is still working; stop it or wait before undoing.');
      return;
    }
    const client = await this.getClient();
    if (!client) return;
    const r = await client.sendRequest(UndoRequest, { sessionId: s.sessionId, ...p });
    const res = await this.sync();
    const files = res ? res.turns.flatMap((t) => t.files) : [];
    const report = undoReport(what, r, files);
    if (report.warn) void vscode.window.showWarningMessage(report.text);
    else void vscode.window.showInformationMessage(report.text);
  }

  dispose(): void {
    for (const d of this.subs) d.dispose();
    this.subs.length = 0;
    this.texts.clear();
  }
}
