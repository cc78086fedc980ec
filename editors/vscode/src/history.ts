// history.ts is the chat history view: the workspace's recorded sessions
// (agent/sessions), opened in the chat, renamed or deleted on the server.
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { DeleteSessionRequest, RenameSessionRequest, SessionsRequest, SessionSummary } from './lsp_ext';

/** age says how long ago, in the largest unit: "5 min ago", "3 d ago". */
export function age(seconds: number): string {
  if (seconds < 60) return 'just now';
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86400) return `${Math.floor(seconds / 3600)} h ago`;
  return `${Math.floor(seconds / 86400)} d ago`;
}

export class HistoryView implements vscode.TreeDataProvider<SessionSummary>, vscode.Disposable {
  static readonly viewId = 'agentLsp.history';
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;

  constructor(private readonly getClient: () => Promise<LanguageClient | undefined>) {}

  refresh(): void {
    this.changed.fire();
  }

  getTreeItem(s: SessionSummary): vscode.TreeItem {
    const item = new vscode.TreeItem(s.title || s.id, vscode.TreeItemCollapsibleState.None);
    item.id = s.id;
    item.description = `${age(s.ageSeconds)} · ${s.messages} messages${s.running ? ' · running' : ''}`;
    item.tooltip = `${s.title}\n${s.id}${s.model ? `\nmodel ${s.model}` : ''}\nupdated ${s.updated}`;
    item.contextValue = 'agentLspSession';
    item.iconPath = new vscode.ThemeIcon(s.running ? 'loading~spin' : 'comment-discussion');
    item.command = { command: 'agentLsp.openSession', title: 'Open', arguments: [s] };
    return item;
  }

  async getChildren(): Promise<SessionSummary[]> {
    const client = await this.getClient();
    if (!client) return [];
    try {
      return (await client.sendRequest(SessionsRequest, { limit: 100 })).sessions;
    } catch {
      return [];
    }
  }

  async rename(s: SessionSummary): Promise<void> {
    const title = await vscode.window.showInputBox({ title: 'Rename chat', value: s.title, prompt: 'Empty: the first prompt' });
    if (title === undefined) return;
    const client = await this.getClient();
    await client?.sendRequest(RenameSessionRequest, { sessionId: s.id, title });
    this.refresh();
  }

  async delete(s: SessionSummary): Promise<boolean> {
    const ok = await vscode.window.showWarningMessage(`Delete the chat "${s.title}"? Its record is removed.`, { modal: true }, 'Delete');
    if (ok !== 'Delete') return false;
    const client = await this.getClient();
    try {
      await client?.sendRequest(DeleteSessionRequest, { sessionId: s.id });
    } catch (e) {
      void vscode.window.showErrorMessage(`agent-lsp: ${e instanceof Error ? e.message : String(e)}`);
      return false;
    }
    this.refresh();
    return true;
  }

  dispose(): void {
    this.changed.dispose();
  }
}
