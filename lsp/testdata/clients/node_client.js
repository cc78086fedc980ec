// Smoke test of agent-lsp with vscode-languageserver-protocol as the client
// (the library VS Code's client is built on). Usage:
//   NODE_PATH=<dir with node_modules> node node_client.js AGENT_LSP WORKSPACE MODEL_URL
// It opens a buffer with unsaved text, runs agent/prompt (the scripted model
// reads the file), checks the agent/event stream and the result, cancels a
// second run with $/cancelRequest, then shuts down and checks exit status 0.
const assert = require('assert/strict');
const { spawn } = require('child_process');
const P = require('vscode-languageserver-protocol/node');

const [bin, ws, modelURL] = process.argv.slice(2);
const proc = spawn(bin, ['serve', '--stdio'], { stdio: ['pipe', 'pipe', 'inherit'],
  env: { PATH: process.env.PATH, HOME: ws, XDG_CONFIG_HOME: ws + '/.config' } });
const conn = P.createProtocolConnection(new P.StreamMessageReader(proc.stdout), new P.StreamMessageWriter(proc.stdin));
const events = [];
conn.onNotification('agent/event', (e) => events.push(e));
conn.onNotification(P.LogMessageNotification.type, () => {});
conn.onRequest(P.WorkDoneProgressCreateRequest.type, () => null);
conn.onNotification('$/progress', () => {});
conn.listen();

(async () => {
  setTimeout(() => { console.log('FAIL: timeout'); process.exit(2); }, 20000).unref();
  const init = await conn.sendRequest(P.InitializeRequest.type, {
    processId: process.pid, rootUri: 'file://' + ws, workspaceFolders: [{ uri: 'file://' + ws, name: 'ws' }],
    capabilities: { workspace: { applyEdit: true, workspaceEdit: { documentChanges: true } }, window: { workDoneProgress: true },
      general: { positionEncodings: ['utf-16'] } },
    initializationOptions: { agentLsp: { baseUrl: modelURL, model: 'scripted', apiKey: 'k' } },
  });
  assert.equal(init.serverInfo.name, 'agent-lsp');
  assert.equal(init.capabilities.positionEncoding, 'utf-16');
  await conn.sendNotification(P.InitializedNotification.type, {});
  const uri = 'file://' + ws + '/main.go';
  await conn.sendNotification(P.DidOpenTextDocumentNotification.type, {
    textDocument: { uri, languageId: 'go', version: 1, text: 'package main // UNSAVED\n' } });
  const res = await conn.sendRequest('agent/prompt', { prompt: 'read main.go', textDocument: { uri } });
  assert.equal(res.reason, 'end_turn');
  assert.ok(events.some((e) => e.type === 'tool_result' && e.result.includes('UNSAVED')), JSON.stringify(events));
  assert.equal(events[events.length - 1].type, 'end');

  // Cancel a slow run with $/cancelRequest (vscode-jsonrpc sends it for a cancelled token).
  const src = new P.CancellationTokenSource();
  // The server answers a cancelled run with a normal result, reason "aborted".
  const slow = conn.sendRequest('agent/prompt', { prompt: 'slow' }, src.token);
  setImmediate(() => src.cancel()); // right behind the request
  const got = await slow;
  assert.equal(got.reason, 'aborted');
  assert.ok(events.some((e) => e.type === 'end' && e.reason === 'aborted'));

  await conn.sendRequest(P.ShutdownRequest.type);
  await conn.sendNotification(P.ExitNotification.type);
  const code = await new Promise((r) => proc.on('exit', r));
  assert.equal(code, 0);
  console.log('PASS');
  process.exit(0);
})().catch((e) => { console.log('FAIL:', e); process.exit(1); });
