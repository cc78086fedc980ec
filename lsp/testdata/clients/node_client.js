// agent-lsp driven by vscode-languageserver-protocol, the library VS Code's
// client is built on. Usage (lsp/client_test.go runs it):
//   NODE_PATH=<node_modules> node node_client.js AGENT_LSP WORKSPACE MODEL_URL
// The workspace holds main.go; the scripted model behind MODEL_URL answers:
//   1. read_file main.go  2. str_replace "old" -> "new"
//   3. bash "touch made.txt && echo changed > data.txt"
//   4. "done"            5. a slow reply (cancelled)
// It sets review "confirm" and advertises changeAnnotationSupport, so the
// agent's edit comes annotated (needsConfirmation) and the undo's plainly.
// Between the two runs the user types into main.go (unsaved), then it lists
// the turn's three changed files (agent/changes) and takes the turn back
// (agent/undo): the buffer keeps the user's text, made.txt goes, data.txt
// is as before the command.
// This client opens main.go with unsaved text (an emoji before the edit),
// runs agent/prompt, applies the server's workspace/applyEdit to its own copy
// of the buffer (version checked, UTF-16 ranges, didChange back), answers the
// bash permission prompt with "Allow once", checks the agent/event stream, cancels
// a second run with $/cancelRequest, then shuts down and checks exit status 0.
// Prints PASS on success.
const assert = require('assert/strict');
const fs = require('fs');
const { spawn } = require('child_process');
const P = require('vscode-languageserver-protocol/node');

const [bin, ws, modelURL] = process.argv.slice(2);
const proc = spawn(bin, ['serve', '--stdio'], { stdio: ['pipe', 'pipe', 'inherit'],
  env: { PATH: process.env.PATH, HOME: ws, XDG_CONFIG_HOME: ws + '/.config', XDG_STATE_HOME: process.env.XDG_STATE_HOME } });
const conn = P.createProtocolConnection(new P.StreamMessageReader(proc.stdout), new P.StreamMessageWriter(proc.stdin));

const uri = 'file://' + ws + '/main.go';
const unsaved = 'package main\n\n// 😀 say old things\nfunc main() {}\n';
const buffers = new Map([[uri, { version: 1, text: unsaved }]]);
const events = [];
const edits = [];
const asked = [];

// offset of an LSP position (UTF-16, which is what JS strings index).
function offset(text, pos) {
  let i = 0;
  for (let line = 0; line < pos.line; line++) {
    const nl = text.indexOf('\n', i);
    if (nl < 0) return text.length;
    i = nl + 1;
  }
  return Math.min(i + pos.character, text.length);
}

// applyTo applies TextEdits to text, from the end so earlier offsets stay valid.
function applyTo(text, edits) {
  const sorted = [...edits].sort((a, b) => offset(text, b.range.start) - offset(text, a.range.start));
  for (const e of sorted) {
    text = text.slice(0, offset(text, e.range.start)) + e.newText + text.slice(offset(text, e.range.end));
  }
  return text;
}

conn.onRequest(P.ApplyWorkspaceEditRequest.type, async (params) => {
  edits.push(params);
  for (const dc of params.edit.documentChanges || []) {
    if (dc.kind) return { applied: false, failureReason: 'resource operations are not expected here' };
    const buf = buffers.get(dc.textDocument.uri);
    if (!buf && dc.textDocument.version === null && dc.textDocument.uri.startsWith('file://')) {
      // A file not open here: edited where it is, on the disk.
      const file = dc.textDocument.uri.slice('file://'.length);
      fs.writeFileSync(file, applyTo(fs.readFileSync(file, 'utf8'), dc.edits));
      continue;
    }
    if (!buf) return { applied: false, failureReason: 'not open: ' + dc.textDocument.uri };
    if (dc.textDocument.version !== null && dc.textDocument.version !== buf.version) {
      return { applied: false, failureReason: `version ${dc.textDocument.version}, buffer at ${buf.version}` };
    }
    buf.text = applyTo(buf.text, dc.edits);
    buf.version++;
    await conn.sendNotification(P.DidChangeTextDocumentNotification.type, {
      textDocument: { uri: dc.textDocument.uri, version: buf.version }, contentChanges: [{ text: buf.text }] });
  }
  return { applied: true };
});
conn.onRequest(P.ShowMessageRequest.type, (params) => {
  asked.push(params);
  return params.actions.find((a) => a.title === 'Allow once');
});
conn.onNotification('agent/event', (e) => events.push(e));
conn.onNotification(P.LogMessageNotification.type, () => {});
conn.onRequest(P.WorkDoneProgressCreateRequest.type, () => null);
conn.onNotification('$/progress', () => {});
conn.listen();

(async () => {
  setTimeout(() => { console.log('FAIL: timeout'); process.exit(2); }, 30000).unref();
  const init = await conn.sendRequest(P.InitializeRequest.type, {
    processId: process.pid, rootUri: 'file://' + ws, workspaceFolders: [{ uri: 'file://' + ws, name: 'ws' }],
    capabilities: { workspace: { applyEdit: true, workspaceEdit: { documentChanges: true, changeAnnotationSupport: { groupsOnLabel: true } } },
      window: { workDoneProgress: true }, general: { positionEncodings: ['utf-16'] } },
    initializationOptions: { agentLsp: { baseUrl: modelURL, model: 'scripted', apiKey: 'k', approvalTimeout: '20s', review: 'confirm' } },
  });
  assert.equal(init.serverInfo.name, 'agent-lsp');
  assert.equal(init.capabilities.positionEncoding, 'utf-16');
  await conn.sendNotification(P.InitializedNotification.type, {});
  await conn.sendNotification(P.DidOpenTextDocumentNotification.type, {
    textDocument: { uri, languageId: 'go', version: 1, text: unsaved } });

  const res = await conn.sendRequest('agent/prompt', { prompt: 'say new things, then make made.txt', textDocument: { uri } });
  assert.equal(res.reason, 'end_turn', JSON.stringify(res));
  assert.equal(res.toolCalls, 3);
  const results = events.filter((e) => e.type === 'tool_result');
  assert.deepEqual(results.map((e) => [e.name, e.isError]), [['read_file', false], ['str_replace', false], ['bash', false]], JSON.stringify(results));
  assert.ok(results[0].result.includes('say old things') && !results[0].result.includes('disk'), results[0].result); // the unsaved buffer
  assert.equal(events[events.length - 1].type, 'end');

  // The edit: against version 1, only "old", UTF-16 columns (the emoji is
  // two units), annotated for review (review "confirm" and the capability).
  assert.equal(edits.length, 1, JSON.stringify(edits));
  assert.equal(edits[0].label, 'agent-lsp: str_replace main.go');
  assert.deepEqual(edits[0].edit.changeAnnotations, { 'agent-lsp.review': { label: 'agent-lsp: str_replace main.go', needsConfirmation: true } });
  const tde = edits[0].edit.documentChanges[0];
  assert.equal(tde.textDocument.version, 1);
  assert.deepEqual(tde.edits, [{ range: { start: { line: 2, character: 10 }, end: { line: 2, character: 13 } }, newText: 'new', annotationId: 'agent-lsp.review' }]);
  assert.equal(buffers.get(uri).text, unsaved.replace('old', 'new'));
  assert.equal(fs.readFileSync(ws + '/main.go', 'utf8'), 'package main // disk\n'); // the open buffer stays unsaved

  // The permission prompt.
  assert.equal(asked.length, 1, JSON.stringify(asked));
  assert.equal(asked[0].type, P.MessageType.Warning);
  assert.ok(asked[0].message.includes('wants to run `touch made.txt && echo changed > data.txt`'), asked[0].message);
  assert.deepEqual(asked[0].actions.map((a) => a.title), ['Deny', 'Allow once', 'Allow for this session']);
  assert.ok(fs.existsSync(ws + '/made.txt'), 'the allowed command did not run');
  assert.equal(fs.readFileSync(ws + '/data.txt', 'utf8'), 'changed\n');

  // The user types a line of their own into main.go (not saved).
  const buf = buffers.get(uri);
  buf.text = '// mine\n' + buf.text;
  buf.version++;
  await conn.sendNotification(P.DidChangeTextDocumentNotification.type, {
    textDocument: { uri, version: buf.version }, contentChanges: [{ text: buf.text }] });

  // The change journal lists the turn's files; agent/undo takes the turn
  // back: the agent's edit goes from the buffer through workspace/applyEdit
  // (the user's line stays), the file the command created is removed, the
  // one it changed is as it was.
  const ch = await conn.sendRequest('agent/changes', { sessionId: res.sessionId });
  assert.equal(ch.turns.length, 1, JSON.stringify(ch));
  assert.equal(ch.turns[0].files.length, 3, JSON.stringify(ch.turns[0].files));
  const files = Object.fromEntries(ch.turns[0].files.map((f) => [f.path, f]));
  assert.equal(files['main.go'].kind, 'modified', JSON.stringify(files));
  assert.equal(files['main.go'].tool, 'str_replace');
  assert.ok(files['main.go'].diff.includes('-// 😀 say old things') && files['main.go'].diff.includes('+// 😀 say new things'), files['main.go'].diff);
  assert.equal(files['made.txt'].kind, 'created');
  assert.equal(files['made.txt'].tool, 'bash');
  assert.equal(files['data.txt'].kind, 'modified');
  assert.equal(files['data.txt'].tool, 'bash');
  assert.ok(files['data.txt'].diff.includes('-original\n+changed\n'), files['data.txt'].diff);
  const before = edits.length;
  const undo = await conn.sendRequest('agent/undo', { sessionId: res.sessionId });
  assert.deepEqual(undo.turns, [1], JSON.stringify(undo));
  assert.deepEqual(undo.conflicts, [], JSON.stringify(undo));
  assert.equal(undo.reverted.length, 3, JSON.stringify(undo));
  assert.equal(buffers.get(uri).text, '// mine\n' + unsaved);
  assert.ok(!fs.existsSync(ws + '/made.txt'), 'the created file is still there after the undo');
  assert.equal(fs.readFileSync(ws + '/data.txt', 'utf8'), 'original\n');
  // The undo's edits are plain: the user asked for them.
  const undoEdits = edits.slice(before);
  assert.ok(undoEdits.length > 0 && undoEdits.every((e) => !e.edit.changeAnnotations &&
    e.edit.documentChanges.every((dc) => dc.edits.every((x) => !x.annotationId))), JSON.stringify(undoEdits));
  assert.equal(fs.readFileSync(ws + '/main.go', 'utf8'), 'package main // disk\n');

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
