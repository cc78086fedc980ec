// The files a turn changed, drawn under the turn in the chat (the view
// model is src/changes_state.ts's ChangesView): a row per file with its
// +/− counts that opens the diff, and Undo turn / Undo all. Loaded before
// chat.js, which calls window.agentLspChanges(view, post) for each turn.
(function () {
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function button(cls, text, title, enabled, onClick) {
    const b = el('button', 'secondary ' + cls, text);
    b.type = 'button';
    b.title = title;
    b.disabled = !enabled;
    b.addEventListener('click', onClick);
    return b;
  }

  window.agentLspChanges = function (v, post) {
    const box = el('div', 'changes' + (v.undone ? ' undone' : ''));
    const head = el('div', 'changes-head');
    head.appendChild(el('span', 'changes-summary', v.summary));
    if (!v.undone) {
      head.appendChild(button('changes-undo', 'Undo turn', 'Take back what this turn changed (your later edits are kept)',
        v.canUndo, () => post({ type: 'changes.undo', turn: v.turn })));
      if (v.canUndoAll) {
        head.appendChild(button('changes-undo-all', 'Undo all', 'Take back every change of this chat',
          true, () => post({ type: 'changes.undoAll' })));
      }
    }
    box.appendChild(head);
    const ul = el('ul', 'changes-files');
    for (const f of v.files) {
      const li = el('li');
      // A button, not a link: the chat sends links to the browser.
      const b = el('button', 'changes-file');
      b.type = 'button';
      b.title = v.turn === undefined ? f.path : 'Show the diff of ' + f.path;
      b.disabled = v.turn === undefined;
      b.appendChild(el('span', 'changes-path', f.path));
      if (f.note) b.appendChild(el('span', 'changes-note', f.note));
      b.appendChild(el('span', 'changes-added', '+' + f.added));
      b.appendChild(el('span', 'changes-removed', '−' + f.removed));
      b.addEventListener('click', () => post({ type: 'changes.diff', turn: v.turn, path: f.path }));
      li.appendChild(b);
      ul.appendChild(li);
    }
    box.appendChild(ul);
    for (const c of v.conflicts) box.appendChild(el('div', 'changes-conflict', c.path + ': ' + c.reason));
    for (const t of v.ignored) box.appendChild(el('div', 'changes-ignored', t));
    return box;
  };
})();
