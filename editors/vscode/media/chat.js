// The chat view's page. It only draws the view model the extension sends
// (markdown is already safe HTML, made by src/markdown.ts) and reports the
// user's actions. No remote resources; the CSP allows this script only.
(function () {
  const vscode = acquireVsCodeApi();
  const $ = (id) => document.getElementById(id);
  const log = $('log'), form = $('form'), input = $('prompt'), stopBtn = $('stop'), sendBtn = $('send'),
    usage = $('usage'), todos = $('todos'), empty = $('empty'), chips = $('chips'), list = $('complete'),
    modelSel = $('model'), gaugeEl = $('gauge'), status = $('status');
  const open = new Set(); // tool calls the user expanded
  const saved = vscode.getState() || {};
  if (saved.draft) input.value = saved.draft;
  let running = false, sending = false;
  let mentions = saved.mentions || []; // {kind, label, uri, range?}
  let chip = null, chipOff = null;     // the current file (or selection), and the uri the user removed it for
  let last = null;                     // the last message, to redraw the chips alone
  let completeId = 0, items = [], active = -1, atStart = -1;

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  const save = () => vscode.setState({ draft: input.value, mentions });

  function tool(b) {
    const wrap = el('div', 'tool-row');
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
    wrap.appendChild(d);
    // A running command's output, as it comes (tool_output).
    if (b.running && b.output) {
      const live = el('pre', 'live', b.output);
      wrap.appendChild(live);
      requestAnimationFrame(() => (live.scrollTop = live.scrollHeight));
    }
    return wrap;
  }

  function approval(b) {
    const p = b.params;
    const card = el('div', 'approval' + (b.answer ? ' answered ' + b.answer : ' pending'));
    card.dataset.key = b.key;
    const head = el('div', 'approval-head');
    head.appendChild(el('span', 'approval-title', p.tool === 'bash' ? 'Run this command?' : 'Allow ' + p.tool + '?'));
    card.appendChild(head);
    card.appendChild(el('pre', 'approval-subject', p.subject));
    const why = el('ul', 'approval-reasons');
    for (const r of p.reasons || []) why.appendChild(el('li', '', r));
    card.appendChild(why);
    if (b.answer) {
      card.appendChild(el('div', 'approval-answer', b.answerLabel || b.answer));
      return card;
    }
    const bar = el('div', 'approval-actions');
    for (const c of p.choices) {
      const title = c.id === 'allow_session' && c.rule ? c.title + ' (rule: ' + c.rule + ')' : c.title;
      const btn = el('button', c.id === 'deny' ? 'approval-btn deny' : 'approval-btn secondary', title);
      btn.type = 'button';
      btn.dataset.key = b.key;
      btn.dataset.choice = c.id;
      btn.addEventListener('click', () => vscode.postMessage({ type: 'approve', key: b.key, choice: c.id }));
      bar.appendChild(btn);
    }
    card.appendChild(bar);
    card.appendChild(el('div', 'approval-hint', 'Enter denies; the run waits for your answer.'));
    return card;
  }

  // The files a turn changed, with diff and undo, drawn in the turn's
  // changes slot by media/changes.js (loaded first); null when it changed nothing.
  function renderChanges(t) {
    return t.changes ? window.agentLspChanges(t.changes, (m) => vscode.postMessage(m)) : null;
  }

  const seen = new Set(); // approval cards already focused once

  function render(st) {
    running = st.running;
    stopBtn.hidden = !running;
    sendBtn.disabled = running || sending;
    usage.textContent = st.usage ? st.usage + ' tokens' : '';
    usage.title = st.sessionId ? 'Session ' + st.sessionId : '';
    status.textContent = st.waiting ? 'Waiting for your approval' : running ? 'Working…' : '';
    status.className = 'status' + (st.waiting ? ' waiting' : '');
    empty.hidden = st.turns.length > 0;
    gaugeEl.hidden = !st.gauge;
    if (st.gauge) {
      $('gauge-label').textContent = st.gauge.label;
      $('gauge-fill').style.width = (st.gauge.percent || 0) + '%';
      gaugeEl.className = 'gauge' + ((st.gauge.percent || 0) >= 80 ? ' high' : '');
      gaugeEl.title = st.gauge.window ? st.gauge.tokens + ' of ' + st.gauge.window + ' tokens of the model\u2019s context window in use' : st.gauge.tokens + ' tokens in use';
    }
    todos.hidden = !st.todos || st.todos.length === 0;
    todos.replaceChildren();
    if (!todos.hidden) {
      todos.appendChild(el('div', 'caption', 'Todo'));
      const ul = el('ul');
      for (const t of st.todos) {
        ul.appendChild(el('li', 'todo ' + t.status, (t.status === 'completed' ? '☑ ' : t.status === 'in_progress' ? '▶ ' : '☐ ') + t.content));
      }
      todos.appendChild(ul);
    }
    const f = document.activeElement;
    const focusKey = f && f.dataset ? f.dataset.key : undefined, focusChoice = f && f.dataset ? f.dataset.choice : undefined;
    const atBottom = log.scrollTop + log.clientHeight >= log.scrollHeight - 30;
    log.replaceChildren();
    let newCard = null;
    st.turns.forEach((t, i) => {
      const turn = el('div', 'turn ' + t.role + (t.origin ? ' action ' + t.origin : ''));
      if (t.sessionId) turn.dataset.session = t.sessionId;
      if (t.role === 'user') {
        if (t.origin) turn.appendChild(el('span', 'badge', t.origin === 'edit' ? 'Inline edit' : t.origin === 'fix' ? 'Code action' : 'Code action'));
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
        } else if (b.kind === 'approval') {
          const card = approval(b);
          if (!b.answer && !seen.has(b.key)) { seen.add(b.key); newCard = card; }
          turn.appendChild(card);
        } else if (b.kind === 'reasoning') {
          const d = el('details', 'reasoning');
          d.appendChild(el('summary', '', 'Thinking'));
          d.appendChild(el('div', 'text', b.text));
          turn.appendChild(d);
        } else {
          turn.appendChild(el('div', b.kind, b.text));
        }
      }
      const ownLast = t.role === 'assistant' && !t.sessionId && running && i === lastOwn(st.turns);
      if (ownLast) turn.appendChild(el('div', 'working', st.waiting ? 'Waiting for your approval…' : 'Working…'));
      if (t.ending && (t.ending.label || t.ending.error)) {
        turn.appendChild(el('div', 'ending ' + t.ending.reason, [t.ending.label, t.ending.error].filter(Boolean).join(' ')));
      }
      if (t.role === 'assistant') {
        const slot = el('div', 'turn-changes');
        slot.dataset.slot = 'changes';
        const c = renderChanges(t);
        if (c) slot.appendChild(c);
        else slot.hidden = true;
        turn.appendChild(slot);
      }
      log.appendChild(turn);
    });
    if (newCard) {
      newCard.scrollIntoView({ block: 'nearest' });
      const deny = newCard.querySelector('button[data-choice="deny"]');
      if (deny) deny.focus(); // the safe default for the keyboard
    } else if (focusKey) {
      const b = log.querySelector('button[data-key="' + focusKey + '"][data-choice="' + focusChoice + '"]');
      if (b) b.focus();
      else input.focus();
    }
    if (atBottom && !newCard) log.scrollTop = log.scrollHeight;
  }

  function lastOwn(turns) {
    for (let i = turns.length - 1; i >= 0; i--) if (turns[i].role === 'assistant' && !turns[i].sessionId) return i;
    return -1;
  }

  function renderChips() {
    chips.replaceChildren();
    const add = (label, title, onRemove, cls) => {
      const c = el('span', 'chip' + (cls ? ' ' + cls : ''));
      c.title = title;
      c.appendChild(el('span', 'chip-label', label));
      const x = el('button', 'chip-x', '×');
      x.type = 'button';
      x.title = 'Remove';
      x.setAttribute('aria-label', 'Remove ' + label);
      x.addEventListener('click', onRemove);
      c.appendChild(x);
      chips.appendChild(c);
    };
    if (chip && chipOff !== chip.uri) add(chip.label, 'The current file goes with the prompt', () => { chipOff = chip.uri; renderChips(); }, 'current');
    for (const m of mentions) {
      add('@' + m.label, m.kind + ': ' + (m.detail || m.label), () => {
        mentions = mentions.filter((x) => x !== m);
        input.value = input.value.split('@' + m.label).join(m.label);
        save();
        renderChips();
      }, m.kind);
    }
  }

  function renderModels(m) {
    if (!m) return;
    const want = m.selected || '';
    modelSel.replaceChildren();
    const def = el('option', '', m.current ? 'Default (' + m.current + ')' : 'Default');
    def.value = '';
    modelSel.appendChild(def);
    for (const id of m.list) {
      if (id === m.current) continue;
      const o = el('option', '', id);
      o.value = id;
      modelSel.appendChild(o);
    }
    modelSel.value = want;
    modelSel.title = m.error ? 'Models could not be listed: ' + m.error : 'The model of the next prompt (remembered for this workspace)';
  }

  function submit() {
    const text = input.value.trim();
    if (!text || running || sending) return;
    sending = true;
    sendBtn.disabled = true;
    const used = mentions.filter((m) => text.includes('@' + m.label));
    const current = !(chip && chipOff === chip.uri);
    vscode.postMessage({ type: 'submit', text, mentions: used, current });
  }

  // ---- @-completion ----
  function query() {
    const upto = input.value.slice(0, input.selectionStart);
    const m = /(^|\s)@([^\s@]*)$/.exec(upto);
    if (!m) return null;
    return { start: upto.length - m[2].length - 1, text: m[2] };
  }
  function closeList() { list.hidden = true; list.replaceChildren(); items = []; active = -1; atStart = -1; }
  function showList() {
    list.replaceChildren();
    items.forEach((it, i) => {
      const li = el('li', 'complete-item' + (i === active ? ' active' : ''));
      li.setAttribute('role', 'option');
      li.appendChild(el('span', 'complete-kind', it.kind));
      li.appendChild(el('span', 'complete-label', it.label));
      if (it.detail) li.appendChild(el('span', 'complete-detail', it.detail));
      li.addEventListener('mousedown', (e) => { e.preventDefault(); pick(i); });
      list.appendChild(li);
    });
    list.hidden = items.length === 0;
  }
  function pick(i) {
    const it = items[i];
    const q = query();
    if (!it || !q) return closeList();
    const before = input.value.slice(0, q.start), after = input.value.slice(input.selectionStart);
    input.value = before + '@' + it.label + ' ' + after;
    const pos = (before + '@' + it.label + ' ').length;
    input.setSelectionRange(pos, pos);
    if (!mentions.some((m) => m.label === it.label)) mentions.push(it);
    save();
    renderChips();
    closeList();
  }
  function onInput() {
    save();
    const q = query();
    if (!q) return closeList();
    atStart = q.start;
    vscode.postMessage({ type: 'complete', id: ++completeId, query: q.text });
  }

  form.addEventListener('submit', (e) => { e.preventDefault(); submit(); });
  input.addEventListener('keydown', (e) => {
    if (!list.hidden && items.length) {
      if (e.key === 'ArrowDown') { e.preventDefault(); active = (active + 1) % items.length; return showList(); }
      if (e.key === 'ArrowUp') { e.preventDefault(); active = (active - 1 + items.length) % items.length; return showList(); }
      if ((e.key === 'Enter' || e.key === 'Tab') && active >= 0) { e.preventDefault(); return pick(active); }
      if (e.key === 'Escape') { e.preventDefault(); return closeList(); }
    }
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) { e.preventDefault(); submit(); }
    if (e.key === 'Escape' && running) vscode.postMessage({ type: 'stop' });
  });
  input.addEventListener('input', onInput);
  // Closed a moment after the box loses the focus, unless it has it back
  // by then: a focus that returns within that moment (the workbench took
  // it while the user typed) must not lose the list it reopened.
  input.addEventListener('blur', () => setTimeout(() => { if (document.activeElement !== input) closeList(); }, 150));
  // Back in the box (the workbench took the focus meanwhile): an @-query at
  // the caret opens its completion again.
  input.addEventListener('focus', onInput);
  stopBtn.addEventListener('click', () => vscode.postMessage({ type: 'stop' }));
  $('new').addEventListener('click', () => { open.clear(); vscode.postMessage({ type: 'newChat' }); });
  $('history').addEventListener('click', () => vscode.postMessage({ type: 'history' }));
  modelSel.addEventListener('change', () => vscode.postMessage({ type: 'model', model: modelSel.value }));
  log.addEventListener('click', (e) => {
    const t = e.target;
    const action = t.closest && t.closest('.code-action');
    if (action) {
      const code = action.closest('.code-block').querySelector('code').textContent;
      vscode.postMessage({ type: action.dataset.action, text: code });
      const was = action.textContent;
      action.textContent = action.dataset.action === 'copy' ? 'Copied' : 'Inserted';
      setTimeout(() => (action.textContent = was), 1500);
      return;
    }
    const a = t.closest && t.closest('a');
    if (a) { e.preventDefault(); vscode.postMessage({ type: 'openLink', href: a.getAttribute('href') }); }
  });
  window.addEventListener('message', (e) => {
    const m = e.data;
    if (!m) return;
    if (m.type === 'state') {
      last = m;
      if (m.chip && chip && m.chip.uri !== chip.uri) chipOff = null; // another file: its chip is back
      chip = m.chip || null;
      renderModels(m.models);
      render(m.state);
      renderChips();
    } else if (m.type === 'completions' && m.id === completeId) {
      items = m.items || [];
      active = items.length ? 0 : -1;
      showList();
    } else if (m.type === 'submitted') {
      sending = false;
      input.value = '';
      mentions = [];
      save();
      renderChips();
      if (last) render(last.state);
    } else if (m.type === 'kept') {
      // Not sent (no server, still running): the text stays to send again.
      sending = false;
      sendBtn.disabled = running;
    }
  });
  vscode.postMessage({ type: 'ready' });
  input.focus();
})();
