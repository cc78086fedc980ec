// client.ts builds the LanguageClient on `agent-lsp serve` over stdio and
// wires the editor's side of the agent/… extension: the save request, the
// diagnostics forwarding and the settings.
import * as vscode from 'vscode';
import {
  ClientCapabilities, DidChangeConfigurationNotification, FeatureState, LanguageClient,
  LanguageClientOptions, ServerOptions, StaticFeature,
} from 'vscode-languageclient/node';
import * as cp from 'child_process';
import { DiagnosticsNotification, SaveDocumentsRequest, SaveDocumentsResult } from './lsp_ext';
import { logLine } from './log_level';
import { Config, initializationOptions, readConfig, SecretKey } from './settings';

export function currentConfig(): Config {
  const c = vscode.workspace.getConfiguration('agentLsp');
  return readConfig(<T>(k: string, d: T) => c.get<T>(k, d));
}

export async function serverSettings(ctx: vscode.ExtensionContext, cfg: Config) {
  const secret = cfg.keySource === 'secretStorage' ? await ctx.secrets.get(SecretKey) : undefined;
  return initializationOptions(cfg, process.env, secret);
}

/**
 * Declares capabilities.experimental.agentLsp.saveRequest (the server asks
 * before shell commands) and .approve (permission prompts come as
 * agent/approve, shown in the chat).
 */
class SaveRequestFeature implements StaticFeature {
  getState(): FeatureState {
    return { kind: 'static' };
  }
  fillClientCapabilities(caps: ClientCapabilities): void {
    const exp = (caps.experimental ??= {}) as Record<string, unknown>;
    exp.agentLsp = { ...(exp.agentLsp as object | undefined), saveRequest: true, approve: true };
  }
  initialize(): void {}
  clear(): void {}
}

export async function createClient(
  ctx: vscode.ExtensionContext,
  cfg: Config,
  output: vscode.LogOutputChannel,
  binary: string,
): Promise<LanguageClient> {
  // The process is started here, not by the client, so its stderr reaches
  // the output channel at the level of each line (slog's level=…); the
  // INFO and higher lines also come as window/logMessage, so only the
  // rest (debug lines, a crash) is written from stderr.
  const serverOptions: ServerOptions = async () => {
    const child = cp.spawn(binary, ['serve'], { stdio: ['pipe', 'pipe', 'pipe'], env: process.env });
    let rest = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d: string) => {
      const lines = (rest + d).split('\n');
      rest = lines.pop() ?? '';
      for (const l of lines) logLine(output, l);
    });
    child.on('exit', () => rest && logLine(output, rest));
    return child;
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ scheme: 'file' }, { scheme: 'untitled' }],
    initializationOptions: await serverSettings(ctx, cfg),
    outputChannel: output,
    traceOutputChannel: output,
    // Settings go through our own didChangeConfiguration (the key is added
    // there), so no configurationSection here.
  };
  const client = new LanguageClient('agentLsp', 'agent-lsp', serverOptions, clientOptions);
  client.registerFeature(new SaveRequestFeature());
  client.onRequest(SaveDocumentsRequest, saveDocuments);
  return client;
}

/** saveDocuments answers agent/saveDocuments: save the open documents named, report which were saved. */
export async function saveDocuments(p: { uris: string[] }): Promise<SaveDocumentsResult> {
  const saved: string[] = [];
  for (const u of p.uris ?? []) {
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === vscode.Uri.parse(u).toString());
    if (!doc) continue;
    if (!doc.isDirty || (await doc.save())) saved.push(u);
  }
  return { saved };
}

/** pushSettings sends the current settings (with the key) after a change. */
export async function pushSettings(ctx: vscode.ExtensionContext, client: LanguageClient): Promise<void> {
  if (!client.isRunning()) return;
  await client.sendNotification(DidChangeConfigurationNotification.type, {
    settings: await serverSettings(ctx, currentConfig()),
  });
}

/**
 * forwardDiagnostics sends agent/diagnostics whenever the editor's
 * diagnostics of a file change (from the other language servers), so the
 * agent sees the problems an edit caused.
 */
export function forwardDiagnostics(client: LanguageClient): vscode.Disposable {
  const pending = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    timer = undefined;
    if (!client.isRunning()) return void pending.clear();
    for (const key of pending) {
      const uri = vscode.Uri.parse(key);
      const diags = vscode.languages.getDiagnostics(uri).filter((d) => d.source !== 'agent-lsp');
      void client.sendNotification(DiagnosticsNotification, {
        uri: client.code2ProtocolConverter.asUri(uri),
        diagnostics: client.code2ProtocolConverter.asDiagnosticsSync(diags),
      });
    }
    pending.clear();
  };
  return vscode.languages.onDidChangeDiagnostics((e) => {
    for (const u of e.uris) if (u.scheme === 'file') pending.add(u.toString());
    if (pending.size && !timer) timer = setTimeout(flush, 100);
  });
}
