// session.ts owns the language client's lifecycle and the commands: start
// (with a clear message when the binary is missing), restart on a setting
// change, and the chat view.
import * as path from 'path';
import * as vscode from 'vscode';
import { ExecuteCommandRequest, type LanguageClient } from 'vscode-languageclient/node';
import { ChatView, activeContext } from './chat_view';
import { createClient, currentConfig, forwardDiagnostics, pushSettings } from './client';
import { HistoryView } from './history';
import { ApproveRequest, PromptResult, SessionSummary } from './lsp_ext';
import { modelKeys, restartKeys, SecretKey } from './settings';
import { missingMessage, which } from './which';

export class Session implements vscode.Disposable {
  private client?: LanguageClient;
  private starting?: Promise<LanguageClient | undefined>;
  private clientSubs: vscode.Disposable[] = [];
  private readonly output: vscode.LogOutputChannel;
  readonly chat: ChatView;
  readonly history: HistoryView;

  constructor(private readonly ctx: vscode.ExtensionContext) {
    this.output = vscode.window.createOutputChannel('agent-lsp', { log: true });
    this.chat = new ChatView(ctx, () => this.ensure());
    this.history = new HistoryView(() => this.ensure());
    const cmd = vscode.commands.registerCommand;
    ctx.subscriptions.push(
      this.output,
      this.chat,
      this.history,
      vscode.window.registerWebviewViewProvider(ChatView.viewId, this.chat, { webviewOptions: { retainContextWhenHidden: true } }),
      vscode.window.registerTreeDataProvider(HistoryView.viewId, this.history),
      cmd('agentLsp.openSession', (s: SessionSummary) => this.chat.openSession(s.id)),
      cmd('agentLsp.renameSession', (s: SessionSummary) => this.history.rename(s)),
      cmd('agentLsp.deleteSession', async (s: SessionSummary) => (await this.history.delete(s)) && this.chat.forget(s.id)),
      cmd('agentLsp.refreshHistory', () => this.history.refresh()),
      cmd('agentLsp.inlineEdit', () => this.inlineEdit()),
      cmd('agentLsp.askSelection', () => this.askSelection()),
      cmd('agentLsp.cancel', () => this.chat.cancel()),
      cmd('agentLsp.newChat', () => this.chat.newChat()),
      cmd('agentLsp.setApiKey', () => this.setApiKey()),
      cmd('agentLsp.restartServer', () => this.restart()),
      vscode.workspace.onDidChangeConfiguration((e) => this.onConfig(e)),
      ctx.secrets.onDidChange((e) => e.key === SecretKey && this.push(true)),
    );
  }

  /** start starts the server; a missing binary is reported once, with the fix. */
  async start(): Promise<void> {
    await this.ensure();
  }

  /** ensure returns the running client, starting it when needed. */
  ensure(): Promise<LanguageClient | undefined> {
    if (this.client?.isRunning()) return Promise.resolve(this.client);
    this.starting ??= this.doStart().finally(() => (this.starting = undefined));
    return this.starting;
  }

  private async doStart(): Promise<LanguageClient | undefined> {
    const cfg = currentConfig();
    const bundled = path.join(this.ctx.extensionPath, 'bin', process.platform === 'win32' ? 'agent-lsp.exe' : 'agent-lsp');
    const binary = which(cfg.serverPath, undefined, bundled);
    if (!binary) {
      const msg = missingMessage(cfg.serverPath);
      this.output.error(msg);
      void vscode.window.showErrorMessage(msg, 'Open Settings', 'Retry').then((a) => {
        if (a === 'Open Settings') void openSetting('agentLsp.serverPath');
        if (a === 'Retry') void this.ensure();
      });
      return undefined;
    }
    try {
      if (this.client) await this.stop();
      const client = await createClient(this.ctx, cfg, this.output, binary);
      this.chat.attach(client);
      client.onRequest(ApproveRequest, (p, token) => this.chat.approve(p, token));
      this.clientSubs.push(forwardDiagnostics(client));
      await client.start();
      this.client = client;
      this.output.info(`agent-lsp started: ${binary} serve`);
      this.history.refresh();
      // Also a late start (the setting arrived or was fixed after the
      // binary was not found): the chat restores and lists the models now.
      this.chat.started(client);
      return client;
    } catch (e) {
      const msg = `agent-lsp: the server did not start (${e instanceof Error ? e.message : String(e)}). See the "agent-lsp" output.`;
      this.output.error(msg);
      void vscode.window.showErrorMessage(msg, 'Show Output').then((a) => a && this.output.show());
      return undefined;
    }
  }

  async stop(): Promise<void> {
    for (const d of this.clientSubs) d.dispose();
    this.clientSubs = [];
    const c = this.client;
    this.client = undefined;
    if (c) {
      try {
        await c.stop(2000);
      } catch {
        // already gone
      }
    }
  }

  async restart(): Promise<void> {
    // A start under way read the settings before the change: let it
    // finish, then start again (ensure would hand back that start).
    await this.starting;
    await this.stop();
    await this.ensure();
  }

  private onConfig(e: vscode.ConfigurationChangeEvent): void {
    if (!e.affectsConfiguration('agentLsp')) return;
    if (restartKeys.some((k) => e.affectsConfiguration(k))) {
      void this.restart();
    } else {
      void this.push(modelKeys.some((k) => e.affectsConfiguration(k)));
    }
  }

  /** push sends the settings to the running server; models: they may list other models now (also settings that arrived late). */
  private async push(models: boolean): Promise<void> {
    const c = this.client;
    if (!c) return;
    await pushSettings(this.ctx, c);
    if (models && c === this.client) this.chat.settingsChanged(c);
  }

  private async askSelection(): Promise<void> {
    const ctx = activeContext();
    const sel = ctx?.selection && !ctx.selection.isEmpty;
    const prompt = await vscode.window.showInputBox({
      title: 'Ask the agent',
      prompt: sel ? 'About the selection' : ctx ? 'About the current file' : undefined,
      placeHolder: 'What should the agent do or explain?',
      ignoreFocusOut: true,
    });
    if (!prompt) return;
    await this.chat.reveal();
    await this.chat.ask(prompt, ctx);
  }

  /**
   * inlineEdit asks for an instruction and runs a bounded agent on the
   * selection (or the current line): agent-lsp.edit, whose edit lands in
   * the editor as usual and whose run shows in the chat as its own turn.
   */
  private async inlineEdit(): Promise<void> {
    const ed = vscode.window.activeTextEditor;
    if (!ed) {
      void vscode.window.showWarningMessage('agent-lsp: open a file and select the code to edit.');
      return;
    }
    const sel = ed.selection.isEmpty ? ed.document.lineAt(ed.selection.active.line).range : ed.selection;
    const instruction = await vscode.window.showInputBox({
      title: 'Edit with agent', prompt: `Lines ${sel.start.line + 1}-${sel.end.line + 1}`,
      placeHolder: 'What should change? e.g. "handle the error", "rename x to count"', ignoreFocusOut: true,
    });
    if (!instruction?.trim()) return;
    const client = await this.ensure();
    if (!client) return;
    const arg = {
      uri: client.code2ProtocolConverter.asUri(ed.document.uri),
      range: client.code2ProtocolConverter.asRange(sel),
      instruction,
    };
    await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: 'agent-lsp: editing', cancellable: true },
      async (_p, token) => {
        try {
          const r = (await client.sendRequest(ExecuteCommandRequest.type, { command: 'agent-lsp.edit', arguments: [arg] }, token)) as PromptResult;
          if (r && r.reason !== 'end_turn' && r.reason !== 'aborted') {
            void vscode.window.showWarningMessage(`agent-lsp: the edit ended: ${r.error || r.reason}`);
          }
        } catch (e) {
          void vscode.window.showErrorMessage(`agent-lsp: the edit failed: ${e instanceof Error ? e.message : String(e)}`);
        }
      },
    );
  }

  private async setApiKey(): Promise<void> {
    const key = await vscode.window.showInputBox({
      title: 'agent-lsp API key', password: true, ignoreFocusOut: true,
      prompt: 'Stored in the editor\'s secret storage. Empty removes it.',
    });
    if (key === undefined) return;
    if (key === '') await this.ctx.secrets.delete(SecretKey);
    else await this.ctx.secrets.store(SecretKey, key);
    const src = vscode.workspace.getConfiguration('agentLsp').get<string>('apiKeySource');
    if (key && src !== 'secretStorage') {
      const a = await vscode.window.showInformationMessage(
        'The key is stored. Use it instead of the environment variable?', 'Use Secret Storage');
      if (a) await vscode.workspace.getConfiguration('agentLsp').update('apiKeySource', 'secretStorage', vscode.ConfigurationTarget.Global);
    }
  }

  dispose(): void {
    void this.stop();
  }
}

/**
 * openSetting opens the settings editor on one setting. Machine-scoped
 * settings of a remote window (code-server, SSH) live in the Remote tab,
 * so that is where a remote window goes; the @id: query finds the setting
 * whatever its section.
 */
async function openSetting(id: string): Promise<void> {
  const query = `@id:${id}`;
  if (vscode.env.remoteName) {
    try {
      await vscode.commands.executeCommand('workbench.action.openRemoteSettings', { query });
      return;
    } catch {
      // older builds: the plain settings editor below
    }
  }
  await vscode.commands.executeCommand('workbench.action.openSettings', query);
}
