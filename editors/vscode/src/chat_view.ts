// chat_view.ts is the chat: a webview view that sends prompts as
// agent/prompt (with the current file, the selection and the @-mentions),
// folds agent/event into the chat state and draws it; it shows the
// permission prompts of agent/approve as cards in the conversation, keeps
// the model choice per workspace and restores the current chat after a
// reload from the server's record (agent/sessionHistory).
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import {
  AgentEvent, ApproveParams, ApproveResult, CancelNotification, ContextItem, EventNotification, ModelsRequest,
  PromptParams, PromptRequest, SessionHistoryRequest, SessionsRequest,
} from './lsp_ext';
import {
  addApproval, answerApproval, ChatState, contextLabel, emptyState, failRun, finishRun, fromHistory, newSessionId, reduce, startRun,
} from './chat_state';
import { view } from './chat_view_model';
import { Changes, ChangesMessage, isChangesMessage } from './changes';
import { chatHtml } from './chat_html';
import { complete, MentionItem } from './mentions';
import { parsePathRef } from './markdown';
import { RestoreOutcome, Startup } from './startup';

export interface EditorContext {
  uri: vscode.Uri;
  selection?: vscode.Selection;
}

type FromWebview =
  | { type: 'ready' }
  | { type: 'submit'; text: string; mentions?: MentionItem[]; current?: boolean }
  | { type: 'stop' }
  | { type: 'newChat' }
  | { type: 'openLink'; href: string }
  | { type: 'approve'; key: string; choice: string }
  | { type: 'copy'; text: string }
  | { type: 'insert'; text: string }
  | { type: 'complete'; id: number; query: string }
  | { type: 'model'; model: string }
  | { type: 'history' }
  | ChangesMessage;

const sessionKey = 'agentLsp.currentSession';
/** newChatMark is the current session after New chat: nothing to restore. */
const newChatMark = 'new';
const modelKey = 'agentLsp.model';

export class ChatView implements vscode.WebviewViewProvider, vscode.Disposable {
  static readonly viewId = 'agentLsp.chat';
  private viewPanel?: vscode.WebviewView;
  private state: ChatState = emptyState();
  private cts?: vscode.CancellationTokenSource;
  private timer?: NodeJS.Timeout;
  private subs: vscode.Disposable[] = [];
  private pending = new Map<string, (choice: string) => void>();
  private approvals = 0;
  /** When the previous chat is restored and the models listed: once a server runs (startup.ts). */
  private readonly startup = new Startup<LanguageClient>({
    restore: (c, current) => this.restore(c, current),
    loadModels: (c) => this.loadModels(c),
  });
  private models: { id: string; contextWindow?: number }[] = [];
  private modelsError?: string;
  private currentModel = '';
  /** Review and undo of the turns' changes (changes.ts). */
  private readonly changes = new Changes(() => this.getClient(), { state: () => this.state, update: (s: ChatState) => this.update(s) });

  constructor(
    private readonly ctx: vscode.ExtensionContext,
    private readonly getClient: () => Promise<LanguageClient | undefined>,
  ) {
    this.subs.push(vscode.window.onDidChangeActiveTextEditor(() => this.post()));
    this.subs.push(vscode.window.onDidChangeTextEditorSelection(() => this.schedule()));
  }

  /**
   * started is told by the session that a client has started, also late
   * (the binary was not found until a setting arrived or was fixed, Retry,
   * Restart server): a chat not restored yet is restored now, and the
   * models are listed again.
   */
  started(client: LanguageClient): void {
    void this.startup.started(client);
  }

  /** settingsChanged is told when the endpoint's settings went to the running client: the models are listed again. */
  settingsChanged(client: LanguageClient): void {
    void this.startup.reloadModels(client);
  }

  /** attach listens to a (re)started client's events and approval requests. */
  attach(client: LanguageClient): void {
    this.subs.push(client.onNotification(EventNotification, (ev: AgentEvent) => {
      this.update(reduce(this.state, ev));
      // The run's journal turn is closed when its changes are announced.
      if (ev.type === 'changes' && ev.changes.length > 0 && ev.sessionId === this.state.sessionId) void this.changes.sync();
    }));
  }

  resolveWebviewView(v: vscode.WebviewView): void {
    this.viewPanel = v;
    const media = vscode.Uri.joinPath(this.ctx.extensionUri, 'media');
    v.webview.options = { enableScripts: true, localResourceRoots: [media] };
    v.webview.html = chatHtml(v.webview, media);
    v.webview.onDidReceiveMessage((m: FromWebview) => this.onMessage(m), undefined, this.subs);
    v.onDidChangeVisibility(() => v.visible && this.post(), undefined, this.subs);
  }

  private async onMessage(m: FromWebview): Promise<void> {
    switch (m.type) {
      case 'ready':
        this.post();
        void this.getClient().then((c) => this.startup.ready(c));
        break;
      case 'submit': {
        const sent = await this.ask(m.text, m.current === false ? undefined : activeContext(), m.mentions ?? []);
        void this.viewPanel?.webview.postMessage({ type: sent ? 'submitted' : 'kept' });
        break;
      }
      case 'stop':
        this.cancel();
        break;
      case 'newChat':
        this.newChat();
        break;
      case 'openLink':
        await openLink(m.href);
        break;
      case 'approve':
        this.pending.get(m.key)?.(m.choice);
        break;
      case 'copy':
        await vscode.env.clipboard.writeText(m.text);
        void vscode.window.setStatusBarMessage('agent-lsp: code copied', 2000);
        break;
      case 'insert':
        await insertAtCursor(m.text);
        break;
      case 'complete':
        void this.viewPanel?.webview.postMessage({ type: 'completions', id: m.id, items: await complete(m.query).catch(() => []) });
        break;
      case 'model':
        await this.ctx.workspaceState.update(modelKey, m.model || undefined);
        this.post();
        break;
      case 'history':
        await vscode.commands.executeCommand('agentLsp.history.focus');
        break;
      default:
        if (isChangesMessage(m)) void this.changes.onMessage(m);
    }
  }

  /** ask sends a prompt in this chat's session, with the editor's file and selection and the mentions as context; false when it was not sent. */
  async ask(prompt: string, ctx?: EditorContext, mentions: MentionItem[] = []): Promise<boolean> {
    prompt = prompt.trim();
    if (!prompt) return false;
    if (this.state.running) {
      void vscode.window.showWarningMessage('agent-lsp: the agent is still working; stop it first (Agent: Cancel).');
      return false;
    }
    const client = await this.getClient();
    if (!client) return false;
    const params: PromptParams = { prompt };
    const labels: string[] = [];
    if (ctx && (ctx.uri.scheme === 'file' || ctx.uri.scheme === 'untitled')) {
      params.textDocument = { uri: client.code2ProtocolConverter.asUri(ctx.uri) };
      const sel = ctx.selection && !ctx.selection.isEmpty ? ctx.selection : undefined;
      if (sel) params.range = client.code2ProtocolConverter.asRange(sel);
      labels.push(contextLabel(vscode.workspace.asRelativePath(ctx.uri), sel && { start: sel.start, end: sel.end }));
    }
    const items: ContextItem[] = [];
    for (const m of mentions) {
      items.push(m.range ? { uri: m.uri, range: m.range } : { uri: m.uri });
      labels.push('@' + m.label);
    }
    if (items.length) params.context = items;
    const model = this.selectedModel();
    if (model) params.model = model;
    this.startup.settle();
    this.update(startRun(this.state, prompt, labels.join(', ') || undefined, newSessionId()));
    params.sessionId = this.state.sessionId;
    const cts = (this.cts = new vscode.CancellationTokenSource());
    // After "New chat" the run's end belongs to no chat on screen.
    const ours = () => this.state.sessionId === params.sessionId;
    void (async () => {
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
    })();
    return true;
  }

  /**
   * approve answers agent/approve: a card in the conversation and, as a
   * fallback, a notification (Deny first, the primary button); the first
   * answer wins. When the server gives up (its timeout cancels the
   * request), the card says so.
   */
  approve(p: ApproveParams, token: vscode.CancellationToken): Promise<ApproveResult> {
    const key = String(++this.approvals);
    this.update(addApproval(this.state, key, p));
    if (this.viewPanel) this.viewPanel.show(true);
    else void vscode.commands.executeCommand(`${ChatView.viewId}.focus`);
    return new Promise((resolve) => {
      let done = false;
      const finish = (choice: string) => {
        if (done) return;
        done = true;
        this.pending.delete(key);
        this.update(answerApproval(this.state, key, choice));
        resolve({ choice: choice === 'timeout' ? 'deny' : choice });
      };
      this.pending.set(key, finish);
      token.onCancellationRequested(() => finish('timeout'));
      void vscode.window.showWarningMessage(p.message, ...p.choices.map((c) => c.title)).then((title) => {
        const c = p.choices.find((x) => x.title === title);
        if (c) finish(c.id);
      });
    });
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
    this.startup.settle();
    this.cancel();
    for (const f of this.pending.values()) f('deny');
    this.state = emptyState();
    void this.ctx.workspaceState.update(sessionKey, newChatMark);
    this.post();
  }

  /** openSession shows a recorded session (from the history) as the current chat; its next prompt continues it. */
  async openSession(id: string): Promise<void> {
    if (this.state.running) {
      void vscode.window.showWarningMessage('agent-lsp: the agent is still working; stop it first (Agent: Cancel).');
      return;
    }
    const client = await this.getClient();
    if (!client) return;
    this.startup.settle();
    const h = await client.sendRequest(SessionHistoryRequest, { sessionId: id });
    this.state = fromHistory(id, h.turns, h.usage);
    void this.ctx.workspaceState.update(sessionKey, id);
    await this.reveal();
    this.post();
  }

  /** forget clears the chat when its session was deleted. */
  forget(id: string): void {
    if (this.state.sessionId === id && !this.state.running) this.newChat();
  }

  /**
   * restore brings back the chat that was on screen before a reload. The
   * workspace state that names it is written to disk only now and then, so
   * a reload soon after the first prompt may find nothing: then the
   * workspace's most recent session is the one (unless New chat was the
   * last thing done). It runs with the first client that starts while
   * the view is drawn (startup.ts); nothing replaces a chat the user
   * started or chose meanwhile (current() is false then, or the chat has
   * turns).
   */
  private async restore(client: LanguageClient, current: () => boolean): Promise<RestoreOutcome> {
    let id = this.ctx.workspaceState.get<string>(sessionKey);
    const mine = () => current() && !this.state.turns.length;
    if (id === newChatMark || !mine()) return 'done';
    try {
      if (!id) {
        id = (await client.sendRequest(SessionsRequest, { limit: 1 })).sessions[0]?.id;
        if (!id || !mine()) return 'done';
      }
      const h = await client.sendRequest(SessionHistoryRequest, { sessionId: id });
      if (mine()) this.update(fromHistory(id, h.turns, h.usage));
      return 'done';
    } catch {
      // The server went away (a restart): the next one restores.
      if (!client.isRunning()) return 'retry';
      // The session is gone (deleted, another workspace): start empty.
      if (current()) void this.ctx.workspaceState.update(sessionKey, undefined);
      return 'done';
    }
  }

  /** loadModels asks the server for the endpoint's models, for the picker. */
  private async loadModels(client: LanguageClient): Promise<void> {
    try {
      const r = await client.sendRequest(ModelsRequest, {});
      this.models = r.models;
      this.currentModel = r.current;
      this.modelsError = r.error;
    } catch (e) {
      this.modelsError = e instanceof Error ? e.message : String(e);
    }
    this.post();
  }

  selectedModel(): string | undefined {
    return this.ctx.workspaceState.get<string>(modelKey) || undefined;
  }

  get running(): boolean {
    return this.state.running;
  }

  async reveal(): Promise<void> {
    await vscode.commands.executeCommand(`${ChatView.viewId}.focus`);
  }

  private update(s: ChatState): void {
    if (s.running !== this.state.running) void vscode.commands.executeCommand('setContext', 'agentLsp.running', s.running);
    if (s.sessionId && s.sessionId !== this.state.sessionId) void this.ctx.workspaceState.update(sessionKey, s.sessionId);
    this.state = s;
    this.schedule();
  }

  /** schedule coalesces redraws (streamed chunks): at most one every 50 ms. */
  private schedule(): void {
    if (!this.timer) this.timer = setTimeout(() => this.post(), 50);
  }

  private post(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const ed = activeContext();
    let chip: { label: string; uri: string } | undefined;
    if (ed && (ed.uri.scheme === 'file' || ed.uri.scheme === 'untitled')) {
      const sel = ed.selection && !ed.selection.isEmpty ? ed.selection : undefined;
      chip = { label: contextLabel(vscode.workspace.asRelativePath(ed.uri), sel && { start: sel.start, end: sel.end }), uri: ed.uri.toString() };
    }
    const selected = this.selectedModel();
    const models = this.models.map((m) => m.id);
    if (selected && !models.includes(selected)) models.push(selected);
    const vm = view(this.state);
    if (vm.gauge && !vm.gauge.window) {
      const w = this.models.find((m) => m.id === (selected || this.currentModel))?.contextWindow;
      if (w) vm.gauge = { ...vm.gauge, window: w, percent: Math.min(100, Math.round((vm.gauge.tokens / w) * 100)) };
    }
    void this.viewPanel?.webview.postMessage({
      type: 'state', state: vm, chip,
      models: { list: models, current: this.currentModel, selected: selected ?? '', error: this.modelsError },
    });
  }

  dispose(): void {
    this.cts?.cancel();
    this.changes.dispose();
    for (const f of this.pending.values()) f('deny');
    for (const d of this.subs) d.dispose();
    this.subs = [];
  }
}

export function activeContext(): EditorContext | undefined {
  const ed = vscode.window.activeTextEditor ?? vscode.window.visibleTextEditors[0];
  return ed ? { uri: ed.document.uri, selection: ed.selection } : undefined;
}

/** openLink opens a link of an answer: the web outside, files and path:line references in the editor. */
async function openLink(href: string): Promise<void> {
  if (/^(https?:|mailto:)/i.test(href)) {
    await vscode.env.openExternal(vscode.Uri.parse(href));
    return;
  }
  let uri: vscode.Uri | undefined;
  let line: number | undefined;
  let col: number | undefined;
  if (href.startsWith('file:')) {
    uri = vscode.Uri.parse(href);
  } else {
    const ref = parsePathRef(href);
    const rel = decodeURIComponent(ref ? ref.path : href.split('#')[0]);
    if (ref) [line, col] = [ref.line, ref.column];
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    if (!folder || rel.includes('..')) return;
    uri = rel.startsWith('/') ? vscode.Uri.file(rel) : vscode.Uri.joinPath(folder, rel);
  }
  try {
    const ed = await vscode.window.showTextDocument(uri, { preview: true });
    if (line) {
      const pos = new vscode.Position(Math.max(0, line - 1), Math.max(0, (col ?? 1) - 1));
      ed.selection = new vscode.Selection(pos, pos);
      ed.revealRange(new vscode.Range(pos, pos), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
    }
  } catch (e) {
    void vscode.window.showWarningMessage(`agent-lsp: cannot open ${href}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** insertAtCursor puts a code block's text at the cursor (replacing the selection) of the last editor. */
async function insertAtCursor(text: string): Promise<void> {
  const ed = vscode.window.activeTextEditor ?? vscode.window.visibleTextEditors[0];
  if (!ed) {
    void vscode.window.showWarningMessage('agent-lsp: open a file to insert the code into.');
    return;
  }
  await ed.edit((b) => b.replace(ed.selection, text));
  await vscode.window.showTextDocument(ed.document, ed.viewColumn);
}
