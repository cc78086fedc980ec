// `agent-lsp acp` driven by the official ACP client library
// (@agentclientprotocol/sdk, pinned by package-lock.json; its zod schemas
// validate every message). acp/client_test.go runs it:
//   node client.mjs PHASE AGENT_LSP WORKSPACE MODEL_URL [SESSION_ID] [MARKER]
// PHASE "main": initialize, session/new, a prompt whose scripted model reads
// main.go (this client answers fs/read_text_file with an unsaved buffer that
// differs from the disk), edits it (fs/write_text_file lands in the buffer
// only), runs a command that asks (answered allow_once), writes a todo list
// and answers; then a prompt running `sleep MARKER`, cancelled once the
// command is running (found in /proc).
// PHASE "load": a new process, session/load of SESSION_ID, then one more
// prompt; session/list.
// It prints one line: RESULT <json of everything it saw>, for the Go test to
// check.
import { spawn } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import fs from 'node:fs';
import * as acp from '@agentclientprotocol/sdk';

const { methods } = acp;
const [phase, bin, ws, modelURL, sessionArg, marker] = process.argv.slice(2);
const child = spawn(bin, ['acp', '--base-url', modelURL, '--model', 'scripted'], {
  stdio: ['pipe', 'pipe', 'inherit'],
  env: { PATH: process.env.PATH, HOME: ws, XDG_CONFIG_HOME: ws + '/.config', XDG_STATE_HOME: process.env.XDG_STATE_HOME },
});
const exited = new Promise((r) => child.on('exit', (code) => r(code)));

const unsaved = 'package main\n\n// unsaved: say old things\nfunc main() {}\n';
const buffers = new Map([[ws + '/main.go', unsaved]]);
const seen = { updates: [], reads: [], writes: [], permissions: [], diskAtPermission: null };
let onUpdate = () => {};

const running = (m) => fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p) && Number(p) !== process.pid).some((p) => {
  try { return fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(m); } catch { return false; }
});

const app = acp.client({ name: 'acp-test-client' })
  .onRequest(methods.client.fs.readTextFile, ({ params }) => {
    seen.reads.push(params.path);
    if (buffers.has(params.path)) return { content: buffers.get(params.path) };
    return { content: fs.readFileSync(params.path, 'utf8') };
  })
  .onRequest(methods.client.fs.writeTextFile, ({ params }) => {
    seen.writes.push({ path: params.path, content: params.content });
    buffers.set(params.path, params.content); // the buffer only: the disk stays as it was
    return {};
  })
  .onRequest(methods.client.session.requestPermission, ({ params }) => {
    seen.permissions.push({ toolCallId: params.toolCall.toolCallId, title: params.toolCall.title, options: params.options });
    seen.diskAtPermission ??= fs.readFileSync(ws + '/main.go', 'utf8');
    const allow = params.options.find((o) => o.kind === 'allow_once');
    return { outcome: { outcome: 'selected', optionId: allow.optionId } };
  })
  .onNotification(methods.client.session.update, ({ params }) => {
    seen.updates.push(params.update);
    onUpdate(params.update);
  });

const settle = () => new Promise((r) => setTimeout(r, 50)); // notifications sent just before a response

try {
  const out = await app.connectWith(acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout)), async (agent) => {
    const init = await agent.request(methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
      clientInfo: { name: 'acp-test-client', version: '1.0.0' },
    });
    const res = { init };
    if (phase === 'main') {
      const s = await agent.request(methods.agent.session.new, { cwd: ws, mcpServers: [] });
      res.session = s;
      const p1 = await agent.request(methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [
        { type: 'text', text: 'Fix main.go ' },
        { type: 'resource', resource: { uri: 'file://' + ws + '/notes.txt', text: 'embedded note text', mimeType: 'text/plain' } },
      ] });
      await settle();
      res.first = { stopReason: p1.stopReason, usage: p1.usage, updates: seen.updates.splice(0) };
      res.bufferAfter = buffers.get(ws + '/main.go');

      // Cancel a long command once it runs.
      let started;
      const isRunning = new Promise((resolve) => {
        onUpdate = (u) => {
          if (u.sessionUpdate === 'tool_call' && u.kind === 'execute') {
            const poll = () => (running(marker) ? resolve() : setTimeout(poll, 20));
            poll();
          }
        };
      });
      const p2 = agent.request(methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'wait' }] });
      await isRunning;
      started = Date.now();
      await agent.notify(methods.agent.session.cancel, { sessionId: s.sessionId });
      const r2 = await p2;
      res.cancel = { stopReason: r2.stopReason, ms: Date.now() - started, stillRunning: running(marker) };
      await settle();
      res.cancel.updates = seen.updates.splice(0);
      res.list = await agent.request(methods.agent.session.list, { cwd: ws });
    } else {
      const loaded = await agent.request(methods.agent.session.load, { sessionId: sessionArg, cwd: ws, mcpServers: [] });
      await settle();
      res.loaded = { modes: loaded.modes, updates: seen.updates.splice(0) };
      const p = await agent.request(methods.agent.session.prompt, { sessionId: sessionArg, prompt: [{ type: 'text', text: 'and now?' }] });
      await settle();
      res.next = { stopReason: p.stopReason, updates: seen.updates.splice(0) };
      await agent.request(methods.agent.session.setMode, { sessionId: sessionArg, modeId: 'read-only' });
    }
    return res;
  });
  child.stdin.end();
  out.exitCode = await exited;
  out.reads = seen.reads;
  out.writes = seen.writes;
  out.permissions = seen.permissions;
  out.diskAtPermission = seen.diskAtPermission;
  console.log('RESULT ' + JSON.stringify(out));
  process.exit(0);
} catch (e) {
  console.log('FAIL: ' + (e.stack || JSON.stringify(e)));
  child.kill();
  process.exit(1);
}
