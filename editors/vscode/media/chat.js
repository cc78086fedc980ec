// The chat view's page. It only draws the view model the extension sends
// (markdown is already safe HTML, made by src/markdown.ts) and reports the
// user's actions. No remote resources; the CSP allows this script only.
(function () {
  const vscode = acquireVsCodeApi();
  const $ = (id) => document.getElementById(id);
  const log = $('log'), form = $('form'), input = $('prompt'), stopBtn = $('stop'),
    sendBtn = $('send'), usage = $('usage'), todos = $('todos'), empty = $('empty');
  const open = new Set(); // tool calls the user expanded
  const saved = vscode.getState() || {};
  if (saved.draft) input.value = saved.draft;
  let running = false;

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function tool(b) {
    const d = el('details', 'tool' + (b.isError ? ' error' : '') + (b.running ? ' running' : ''));
    d.dataset.id = b.id;
    if (open.has(b.id)) d.open = true;
    d.addEventListener('toggle', () => (d.open ? open.add(b.id) : open.delete(b.id)));
    const s = el('summary');
    s.appendChild(el('span', 'status', b.running ? '⋯' : b.isError ? '✗' : '✓'));
    s.appendChild(el('span', 'label', b.summary));
    d.appendChild(s);
    d.appendChild(el('div', 'caption', 'Arguments'));
    d.appendChild(el('pre', 'args', b.arguments));
    if (b.result !== undefined) {
      d.appendChild(el('div', 'caption', b.isError ? 'Error' : 'Result'));
      d.appendChild(el('pre', 'result', b.result));
    }
    return d;
  }

  function render(st) {
    running = st.running;
    stopBtn.hidden = !running;
    sendBtn.disabled = running;
    usage.textContent = st.usage ? st.usage + ' tokens' : '';
    usage.title = st.sessionId ? 'Session ' + st.sessionId : '';
    empty.hidden = st.turns.length > 0;
    todos.hidden = !st.todos || st.todos.length === 0;
    todos.replaceChildren();
    if (!todos.hidden) {
      todos.appendChild(el('div', 'caption', 'Todo'));
      const ul = el('ul');
      for (const t of st.todos) {
        const li = el('li', 'todo ' + t.status, (t.status === 'completed' ? '☑ ' : t.status === 'in_progress' ? '▶ ' : '☐ ') + t.content);
        ul.appendChild(li);
      }
      todos.appendChild(ul);
    }
    const atBottom = log.scrollTop + log.clientHeight >= log.scrollHeight - 30;
    log.replaceChildren();
    st.turns.forEach((t, i) => {
      const turn = el('div', 'turn ' + t.role);
      if (t.role === 'user') {
        turn.appendChild(el('div', 'prompt', t.text));
        if (t.context) turn.appendChild(el('div', 'context', t.context));
      }
      for (const b of t.blocks) {
        if (b.kind === 'html') {
          const m = el('div', 'markdown');
          m.innerHTML = b.html; // made safe by the extension
          turn.appendChild(m);
        } else if (b.kind === 'tool') {
          turn.appendChild(tool(b));
        } else if (b.kind === 'reasoning') {
          const d = el('details', 'reasoning');
          d.appendChild(el('summary', '', 'Thinking'));
          d.appendChild(el('div', 'text', b.text));
          turn.appendChild(d);
        } else {
          turn.appendChild(el('div', b.kind, b.text));
        }
      }
      if (t.role === 'assistant' && running && i === st.turns.length - 1) turn.appendChild(el('div', 'working', 'Working…'));
      if (t.ending && (t.ending.label || t.ending.error)) {
        turn.appendChild(el('div', 'ending ' + t.ending.reason, [t.ending.label, t.ending.error].filter(Boolean).join(' ')));
      }
      // The files the turn changed, with diff and undo (media/changes.js).
      if (t.changes) turn.appendChild(window.agentLspChanges(t.changes, (m) => vscode.postMessage(m)));
      log.appendChild(turn);
    });
    if (atBottom) log.scrollTop = log.scrollHeight;
  }

  function submit() {
    const text = input.value.trim();
    if (!text || running) return;
    vscode.postMessage({ type: 'submit', text });
    input.value = '';
    vscode.setState({ draft: '' });
  }

  form.addEventListener('submit', (e) => { e.preventDefault(); submit(); });
  input.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) { e.preventDefault(); submit(); }
    if (e.key === 'Escape' && running) vscode.postMessage({ type: 'stop' });
  });
  input.addEventListener('input', () => vscode.setState({ draft: input.value }));
  stopBtn.addEventListener('click', () => vscode.postMessage({ type: 'stop' }));
  $('new').addEventListener('click', () => { open.clear(); vscode.postMessage({ type: 'newChat' }); });
  log.addEventListener('click', (e) => {
    const a = e.target.closest && e.target.closest('a');
    if (a) { e.preventDefault(); vscode.postMessage({ type: 'openLink', href: a.getAttribute('href') }); }
  });
  window.addEventListener('message', (e) => { if (e.data && e.data.type === 'state') render(e.data.state); });
  vscode.postMessage({ type: 'ready' });
  input.focus();
})();
