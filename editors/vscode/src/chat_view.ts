// chat_view.ts is the sidebar chat: a webview view that sends prompts as
// agent/prompt, folds agent/event into the chat state and draws it.
import * as crypto from 'crypto';
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { AgentEvent, CancelNotification, EventNotification, PromptParams, PromptRequest } from './lsp_ext';
import { Changes, ChangesMessage, isChangesMessage } from './changes';
import { ChatState, contextLabel, emptyState, failRun, finishRun, newSessionId, reduce, startRun, view } from './chat_state';

export interface EditorContext {
  uri: vscode.Uri;
  selection?: vscode.Selection;
}

type FromWebview =
  | { type: 'ready' }
  | { type: 'submit'; text: string }
  | { type: 'stop' }
  | { type: 'newChat' }
  | { type: 'openLink'; href: string }
  | ChangesMessage;

export class ChatView implements vscode.WebviewViewProvider, vscode.Disposable {
  static readonly viewId = 'agentLsp.chat';
  private viewPanel?: vscode.WebviewView;
  private state: ChatState = emptyState();
  private cts?: vscode.CancellationTokenSource;
  private timer?: NodeJS.Timeout;
  private subs: vscode.Disposable[] = [];
  /** Review and undo of the turns' changes (changes.ts). */
  private readonly changes = new Changes(() => this.getClient(), { state: () => this.state, update: (s: ChatState) => this.update(s) });

  constructor(
    private readonly extUri: vscode.Uri,
    private readonly getClient: () => Promise<LanguageClient | undefined>,
  ) {}

  /** attach listens to a (re)started client's events. */
  attach(client: LanguageClient): void {
    this.subs.push(client.onNotification(EventNotification, (ev: AgentEvent) => {
      this.update(reduce(this.state, ev));
      // The run's journal turn is closed when its changes are announced.
      if (ev.type === 'changes' && ev.changes.length > 0) void this.changes.sync();
    }));
  }

  resolveWebviewView(v: vscode.WebviewView): void {
    this.viewPanel = v;
    const media = vscode.Uri.joinPath(this.extUri, 'media');
    v.webview.options = { enableScripts: true, localResourceRoots: [media] };
    v.webview.html = this.html(v.webview, media);
    v.webview.onDidReceiveMessage((m: FromWebview) => this.onMessage(m), undefined, this.subs);
    v.onDidChangeVisibility(() => v.visible && this.post(), undefined, this.subs);
  }

  private onMessage(m: FromWebview): void {
    switch (m.type) {
      case 'ready':
        this.post();
        break;
      case 'submit':
        void this.ask(m.text, activeContext());
        break;
      case 'stop':
        this.cancel();
        break;
      case 'newChat':
        this.newChat();
        break;
      case 'openLink':
        if (/^(https?:|mailto:)/.test(m.href)) void vscode.env.openExternal(vscode.Uri.parse(m.href));
        else if (m.href.startsWith('file:')) void vscode.window.showTextDocument(vscode.Uri.parse(m.href));
        break;
      default:
        if (isChangesMessage(m)) void this.changes.onMessage(m);
    }
  }

  /** ask sends a prompt in this chat's session, with the editor's file and selection as context. */
  async ask(prompt: string, ctx?: EditorContext): Promise<void> {
    prompt = prompt.trim();
    if (!prompt) return;
    if (this.state.running) {
      void vscode.window.showWarningMessage('agent-lsp: the agent is still working; stop it first (Agent: Cancel).');
      return;
    }
    const client = await this.getClient();
    if (!client) return;
    const params: PromptParams = { prompt };
    let label: string | undefined;
    if (ctx && (ctx.uri.scheme === 'file' || ctx.uri.scheme === 'untitled')) {
      params.textDocument = { uri: client.code2ProtocolConverter.asUri(ctx.uri) };
      const sel = ctx.selection && !ctx.selection.isEmpty ? ctx.selection : undefined;
      if (sel) params.range = client.code2ProtocolConverter.asRange(sel);
      label = contextLabel(vscode.workspace.asRelativePath(ctx.uri), sel && { start: sel.start, end: sel.end });
    }
    this.update(startRun(this.state, prompt, label, newSessionId()));
    params.sessionId = this.state.sessionId;
    const cts = (this.cts = new vscode.CancellationTokenSource());
    // After "New chat" the run's end belongs to no chat on screen.
    const ours = () => this.state.sessionId === params.sessionId;
    try {
      const r = await client.sendRequest(PromptRequest, params, cts.token);
      if (ours()) this.update(finishRun(this.state, r));
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e);
      if (!ours()) return;
      this.update(cts.token.isCancellationRequested ? finishRun(this.state, {
        sessionId: this.state.sessionId ?? '', reason: 'aborted', turns: 0, toolCalls: 0,
        usage: { inputTokens: 0, outputTokens: 0 }, text: '',
      }) : failRun(this.state, msg));
    } finally {
      if (this.cts === cts) this.cts = undefined;
      cts.dispose();
    }
  }

  /** cancel stops the run with agent/cancel (the session id is always known: the chat names new sessions); $/cancelRequest is the fallback. */
  cancel(): void {
    if (!this.state.running) return;
    const id = this.state.sessionId;
    if (id) {
      void this.getClient().then((c) => c?.sendNotification(CancelNotification, { sessionId: id }));
    } else {
      this.cts?.cancel();
    }
  }

  newChat(): void {
    this.cancel();
    this.state = emptyState();
    this.post();
  }

  get running(): boolean {
    return this.state.running;
  }

  async reveal(): Promise<void> {
    await vscode.commands.executeCommand(`${ChatView.viewId}.focus`);
  }

  private update(s: ChatState): void {
    if (s.running !== this.state.running) void vscode.commands.executeCommand('setContext', 'agentLsp.running', s.running);
    this.state = s;
    // Coalesce streamed chunks: at most one redraw every 50 ms.
    if (!this.timer) this.timer = setTimeout(() => this.post(), 50);
  }

  private post(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    void this.viewPanel?.webview.postMessage({ type: 'state', state: view(this.state) });
  }

  private html(w: vscode.Webview, media: vscode.Uri): string {
    const nonce = crypto.randomBytes(16).toString('base64');
    const css = w.asWebviewUri(vscode.Uri.joinPath(media, 'chat.css'));
    const js = w.asWebviewUri(vscode.Uri.joinPath(media, 'chat.js'));
    const changesJs = w.asWebviewUri(vscode.Uri.joinPath(media, 'changes.js'));
    const changesCss = w.asWebviewUri(vscode.Uri.joinPath(media, 'changes.css'));
    return `<!DOCTYPE html>
<html lang="en"><head><meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src ${w.cspSource}; script-src 'nonce-${nonce}'; img-src ${w.cspSource}; font-src ${w.cspSource};">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${css}"><link rel="stylesheet" href="${changesCss}"><title>Agent</title></head>
<body>
<div id="todos" hidden></div>
<div id="log" role="log" aria-live="polite"></div>
<div id="empty" class="empty">Ask the agent about your code. The current file and selection go with the prompt.</div>
<form id="form">
  <textarea id="prompt" rows="3" placeholder="Ask the agent… (Enter to send, Shift+Enter for a new line)" aria-label="Prompt"></textarea>
  <div class="bar">
    <span id="usage" class="usage"></span>
    <button type="button" id="new" class="secondary" title="New chat">New chat</button>
    <button type="button" id="stop" class="secondary" title="Stop the agent" hidden>Stop</button>
    <button type="submit" id="send" title="Send (Enter)">Send</button>
  </div>
</form>
<script nonce="${nonce}" src="${changesJs}"></script>
<script nonce="${nonce}" src="${js}"></script>
</body></html>`;
  }

  dispose(): void {
    this.cts?.cancel();
    this.changes.dispose();
    for (const d of this.subs) d.dispose();
    this.subs = [];
  }
}

export function activeContext(): EditorContext | undefined {
  const ed = vscode.window.activeTextEditor ?? vscode.window.visibleTextEditors[0];
  return ed ? { uri: ed.document.uri, selection: ed.selection } : undefined;
}
