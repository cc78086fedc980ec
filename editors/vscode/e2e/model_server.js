// A scripted OpenAI-compatible chat server on 127.0.0.1 for the e2e test,
// the Node twin of agent/agenttest/server.go: /v1/chat/completions answers
// with the reply `script(request)` returns, as a real SSE stream in small
// pieces (so the chat view really streams); /v1/models lists one model.
'use strict';
const http = require('http');

function sse(model, rep) {
  const out = [];
  const chunk = (delta, finish) => out.push('data: ' + JSON.stringify({
    id: 'chatcmpl-scripted', object: 'chat.completion.chunk', created: 1, model,
    choices: [{ index: 0, delta, finish_reason: finish }],
  }) + '\n\n');
  chunk({ role: 'assistant', content: '' }, null);
  for (const p of pieces(rep.text || '', 12)) chunk({ content: p }, null);
  (rep.toolCalls || []).forEach((c, i) => {
    const half = Math.floor(c.arguments.length / 2);
    chunk({ tool_calls: [{ index: i, id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments.slice(0, half) } }] }, null);
    chunk({ tool_calls: [{ index: i, function: { arguments: c.arguments.slice(half) } }] }, null);
  });
  chunk({}, rep.toolCalls && rep.toolCalls.length ? 'tool_calls' : 'stop');
  out.push('data: ' + JSON.stringify({
    id: 'chatcmpl-scripted', object: 'chat.completion.chunk', created: 1, model, choices: [],
    usage: { prompt_tokens: rep.promptTokens || 0, completion_tokens: rep.completionTokens || 0,
      total_tokens: (rep.promptTokens || 0) + (rep.completionTokens || 0) },
  }) + '\n\n');
  out.push('data: [DONE]\n\n');
  return out;
}

function pieces(s, n) {
  const a = Array.from(s), out = [];
  for (let i = 0; i < a.length; i += n) out.push(a.slice(i, i + n).join(''));
  return out;
}

/** start listens on 127.0.0.1:0; script(req) returns the next reply. */
function start(script, { chunkDelayMs = 15 } = {}) {
  const requests = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', async () => {
      if (req.method === 'GET' && req.url === '/v1/models') {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        return res.end(JSON.stringify({ object: 'list', data: [{ id: 'scripted', object: 'model' }, { id: 'other-model', object: 'model' }] }));
      }
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404, { 'Content-Type': 'application/json' });
        return res.end('{"error":{"message":"not found"}}');
      }
      let parsed;
      try { parsed = JSON.parse(body); } catch { res.writeHead(400); return res.end(); }
      requests.push(parsed);
      const rep = script(parsed, requests.length);
      if (!rep) {
        res.writeHead(500, { 'Content-Type': 'application/json' });
        return res.end('{"error":{"message":"scripted server: no more replies"}}');
      }
      if (rep.delayMs) {
        // Wait (to test Stop); give up when the client goes away.
        const gone = await new Promise((r) => {
          const t = setTimeout(() => r(false), rep.delayMs);
          res.on('close', () => { clearTimeout(t); r(true); });
        });
        if (gone) return;
      }
      res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
      for (const c of sse(parsed.model, rep)) {
        if (res.destroyed) return;
        res.write(c);
        await new Promise((r) => setTimeout(r, chunkDelayMs));
      }
      res.end();
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => {
    resolve({ url: `http://127.0.0.1:${server.address().port}/v1`, requests, close: () => server.close() });
  }));
}

module.exports = { start, sse };
