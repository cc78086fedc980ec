// End-to-end test of review and undo in real VS Code (code-server +
// Chromium, like drive.js, in its own window and workspace): two turns
// against a scripted model (the first edits main.go and creates NOTES.md,
// the second edits another line of main.go) while main.go holds an
// unsaved note of the user's. It checks the changed-files list under each
// turn (+/− counts), opens a file's before/after in the diff editor, takes
// back the first turn alone with *Undo turn* (the second turn's line and
// the user's note stay, NOTES.md is deleted), then the rest with *Undo
// all*, and that the file on disk was never written.
//
//
// It installs the linux-x64 .vsix, the one that bundles the server, with no
// agentLsp.serverPath and no agent-lsp on the server's PATH, and checks
// that the bundled binary is what runs: installing it is all a user does.
//
// Usage: node undo.js   (run.sh builds what it needs; env: VSIX (default
// ../agent-lsp-linux-x64.vsix), CS_PORT (default 18094), KEEP=1)
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const model = require('./model_server');
const { until, openFile, chatFrame, installExtension, launchChromium, startCodeServer, writeSettings } = require('./lib');

const here = __dirname;
const CS = path.join(here, 'node_modules/.bin/code-server');
const VSIX = process.env.VSIX || path.resolve(here, '../agent-lsp-linux-x64.vsix');
const PORT = process.env.CS_PORT || '18094';
fs.mkdirSync(path.join(here, 'work'), { recursive: true });
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-lsp-vscode-undo-'));
const ws = path.join(tmp, 'ws');

const MAIN = 'package main\n\nimport "fmt"\n\nfunc greet() string {\n\treturn "hello"\n}\n\nfunc main() {\n\tfmt.Println(greet())\n}\n';
const NOTE = '// unsaved note from the user';
const NOTES = '# Notes\n\nThe greeting changed.\n';

// The scripted model: for each prompt, its tool calls, then an answer once
// their results are in (so a retried request gets the same reply).
const replies = {
  'Greet the agent': {
    calls: [
      { id: 'call_edit1', name: 'str_replace', arguments: JSON.stringify({ path: 'main.go', old_str: 'return "hello"', new_str: 'return "hello, agent"' }) },
      { id: 'call_notes', name: 'write_file', arguments: JSON.stringify({ path: 'NOTES.md', content: NOTES }) },
    ],
    text: 'Changed the greeting and wrote `NOTES.md`.',
  },
  'Shout it': {
    calls: [{ id: 'call_edit2', name: 'str_replace', arguments: JSON.stringify({ path: 'main.go', old_str: 'fmt.Println(greet())', new_str: 'fmt.Println(greet(), "!")' }) }],
    text: 'Added an exclamation mark.',
  },
};
function script(req) {
  const i = req.messages.findLastIndex((m) => m.role === 'user' && Object.keys(replies).some((k) => String(m.content).includes(k)));
  if (i < 0) return undefined;
  const r = replies[Object.keys(replies).find((k) => String(req.messages[i].content).includes(k))];
  if (!req.messages.slice(i).some((m) => m.role === 'tool')) return { toolCalls: r.calls, promptTokens: 3000, completionTokens: 20 };
  return { text: r.text, promptTokens: 3100, completionTokens: 10 };
}

const t0 = Date.now();
const log = (...a) => console.log(`[${((Date.now() - t0) / 1000).toFixed(1)}s]`, ...a);

/** editorText is the text of the active (non-diff) editor, as shown. */
async function editorText(page) {
  const t = await page.locator('.editor-instance .monaco-editor .view-lines').first().innerText();
  return t.replace(/\u00a0/g, ' ');
}

/** serversUnder lists the running agent-lsp processes whose executable lies under dir. */
function serversUnder(dir) {
  const out = [];
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    let exe;
    try { exe = fs.readlinkSync(`/proc/${pid}/exe`); } catch { continue; }
    if (path.basename(exe) === 'agent-lsp' && exe.startsWith(dir.endsWith('/') ? dir : dir + '/')) out.push(`${pid}: ${exe}`);
  }
  return out;
}

async function ask(chat, prompt, answer) {
  await chat.locator('#prompt').fill(prompt);
  await chat.locator('#prompt').press('Enter');
  await chat.locator('.markdown', { hasText: answer }).waitFor({ timeout: 30000 });
  await chat.locator('#stop[hidden]').waitFor({ state: 'attached', timeout: 10000 });
}

(async () => {
  let cs, browser, srv, page, code = 1;
  try {
    for (const f of [CS, VSIX]) if (!fs.existsSync(f)) throw new Error(`missing ${f}: run e2e/run.sh (after test.sh made the .vsix)`);
    fs.mkdirSync(ws, { recursive: true });
    fs.writeFileSync(path.join(ws, 'main.go'), MAIN);
    srv = await model.start(script);

    const dirs = ['--user-data-dir', path.join(tmp, 'user'), '--extensions-dir', path.join(tmp, 'ext')];
    // baseUrl and apiKeySource (machine-scoped) go in the remote settings.
    writeSettings(path.join(tmp, 'user'), {
      'security.workspace.trust.enabled': false, 'workbench.startupEditor': 'none',
      'telemetry.telemetryLevel': 'off', 'extensions.autoCheckUpdates': false, 'extensions.autoUpdate': false,
      'workbench.tips.enabled': false, 'editor.minimap.enabled': false, 'chat.commandCenter.enabled': false,
      'workbench.secondarySideBar.defaultVisibility': 'hidden', 'diffEditor.renderSideBySide': true,
      'files.autoSave': 'off', 'git.enabled': false, 'git.openRepositoryInParentFolders': 'never',
      'agentLsp.baseUrl': srv.url, 'agentLsp.model': 'scripted',
      'agentLsp.apiKeySource': 'none', 'agentLsp.trace.server': 'messages',
    });
    installExtension({ cs: CS, dirs, tmp, vsix: VSIX });

    cs = await startCodeServer({ cs: CS, dirs, tmp, ws, port: PORT });

    browser = await launchChromium(tmp);
    page = await browser.newPage({ viewport: { width: 1400, height: 860 } });
    page.on('pageerror', (e) => console.log('pageerror:', e.message));
    await page.goto(`http://127.0.0.1:${PORT}/?folder=${encodeURIComponent(ws)}`);
    await page.waitForSelector('.monaco-workbench', { timeout: 60000 });
    log('workbench rendered');

    await openFile(page, 'main.go');
    await page.locator('.monaco-editor .view-lines').first().click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type(NOTE);
    await page.locator('.tab.dirty', { hasText: 'main.go' }).waitFor({ timeout: 5000 });
    await until('the Agent view container', async () => {
      await page.locator('.activitybar .action-item a[aria-label^="Agent"]').first().click({ timeout: 3000 });
      return true;
    }, 40000);
    const chat = await chatFrame(page);
    // The server reaches the model endpoint: the picker lists its models.
    await until('the models listed', async () => (await chat.locator('#model option[value="other-model"]').count()) === 1, 30000);
    log('main.go open with an unsaved note; chat open, models listed');

    await ask(chat, 'Greet the agent and keep notes', 'wrote');
    // The server that answered is the one inside the installed extension.
    const bundled = serversUnder(path.join(tmp, 'ext'));
    if (bundled.length === 0) throw new Error('no agent-lsp from the extension\'s bin/ is running: ' + JSON.stringify(serversUnder('/')));
    log('the server is the bundled binary:', bundled[0]);
    await ask(chat, 'Shout it', 'exclamation');
    log('two turns ran');

    // The changed files under each turn, with their counts.
    const blocks = chat.locator('.turn.assistant .changes');
    await until('two changes blocks', async () => (await blocks.count()) === 2, 10000);
    const first = blocks.nth(0), second = blocks.nth(1);
    const sum1 = await first.locator('.changes-summary').innerText();
    const sum2 = await second.locator('.changes-summary').innerText();
    if (sum1 !== '2 files changed +4 −1' || sum2 !== '1 file changed +1 −1') throw new Error(`summaries: ${sum1} | ${sum2}`);
    // A row's parts joined by hand: innerText's separators between them
    // come from layout, and a webview not laid out at that moment (hidden
    // a moment by the workbench) gives them run together.
    const rows = await first.locator('.changes-file').evaluateAll((bs) => bs.map((b) => Array.from(b.children, (c) => c.textContent.trim()).join(' ')));
    if (rows.length !== 2 || !/^NOTES\.md created \+3 −0$/.test(rows[0]) || !/^main\.go \+1 −1$/.test(rows[1])) throw new Error('rows: ' + JSON.stringify(rows));
    // Undo all is offered once, on the newest turn; both turns are bound to the journal.
    await first.locator('.changes-undo:not([disabled])').waitFor({ timeout: 10000 });
    await second.locator('.changes-undo:not([disabled])').waitFor({ timeout: 10000 });
    if ((await first.locator('.changes-undo-all').count()) !== 0 || (await second.locator('.changes-undo-all').count()) !== 1) throw new Error('Undo all is not on the newest turn alone');
    log('changed files listed:', sum1, '/', sum2, JSON.stringify(rows));

    // A file's before/after in the diff editor.
    await first.locator('.changes-file', { hasText: 'main.go' }).click();
    const diffTab = page.locator('.tab', { hasText: 'main.go (turn 1: before ↔ after)' });
    await diffTab.waitFor({ timeout: 10000 });
    const diff = page.locator('.monaco-diff-editor').first();
    await diff.waitFor({ timeout: 10000 });
    const [orig, mod] = await until('both sides of the diff', async () => {
      const o = (await diff.locator('.editor.original .view-lines').innerText()).replace(/\u00a0/g, ' ');
      const m = (await diff.locator('.editor.modified .view-lines').innerText()).replace(/\u00a0/g, ' ');
      return o.includes('return "hello"') && m.includes('return "hello, agent"') ? [o, m] : null;
    }, 10000);
    if (orig.includes('hello, agent') || mod.includes('greet(), "!"')) throw new Error('the diff is not turn 1\'s before/after');
    log('the diff editor shows main.go before and after turn 1');
    await diffTab.click();
    await page.keyboard.press('Control+W');
    await diffTab.waitFor({ state: 'detached', timeout: 5000 });

    // Undo turn on the first turn alone: its line and the file it created
    // go, the second turn's line and the user's note stay.
    if (!fs.existsSync(path.join(ws, 'NOTES.md'))) throw new Error('NOTES.md was not created');
    await first.locator('.changes-undo').click();
    await page.locator('.notification-toast', { hasText: 'Undo turn 1 (turn 1): 2 files reverted' }).waitFor({ timeout: 15000 });
    await page.locator('.tab', { hasText: 'main.go' }).first().click();
    const after1 = await until('turn 1 taken back in the open editor', async () => {
      const t = await editorText(page);
      return t.includes('return "hello"\n') && !t.includes('hello, agent') && t.includes('greet(), "!"') && t.includes(NOTE) ? t : null;
    }, 10000);
    await page.locator('.tab.dirty', { hasText: 'main.go' }).waitFor({ timeout: 2000 });
    await until('NOTES.md deleted', () => !fs.existsSync(path.join(ws, 'NOTES.md')), 10000);
    await chat.locator('.turn.assistant .changes.undone').first().waitFor({ timeout: 5000 });
    if (!(await first.locator('.changes-summary').innerText()).endsWith('(undone)')) throw new Error('turn 1 not marked undone');
    if ((await first.locator('.changes-undo').count()) !== 0) throw new Error('an undone turn still offers Undo turn');
    log('Undo turn took back turn 1 in the buffer (turn 2 and the unsaved note kept), NOTES.md deleted');
    void after1;

    // Undo all takes back the rest.
    await second.locator('.changes-undo-all').click();
    await page.locator('.notification-toast', { hasText: 'Undo all (turn 2): 1 file reverted' }).waitFor({ timeout: 15000 });
    await until('every turn taken back', async () => {
      const t = await editorText(page);
      return t.includes('return "hello"\n') && t.includes('fmt.Println(greet())\n') && !t.includes('"!"') && t.includes(NOTE);
    }, 10000);
    await until('both turns undone', async () => (await chat.locator('.changes.undone').count()) === 2, 5000);
    if ((await chat.locator('.changes-undo, .changes-undo-all').count()) !== 0) throw new Error('undo buttons left after Undo all');
    if (fs.readFileSync(path.join(ws, 'main.go'), 'utf8') !== MAIN) throw new Error('main.go on disk was written');
    log('Undo all took back turn 2; the unsaved note is kept and main.go on disk never changed');
    await page.locator('.part.sidebar').screenshot({ path: path.join(here, 'work/vscode-undo.png') });
    console.log(`PASS vscode undo e2e in ${((Date.now() - t0) / 1000).toFixed(1)}s`);
    code = 0;
  } catch (e) {
    console.log('FAIL:', e.stack || e);
    if (page) await page.screenshot({ path: path.join(here, 'work/fail-undo.png') }).catch(() => {});
    // What explains a failure (code-server's and the extension's logs,
    // the workspace) is copied into e2e/work; the scratch folder goes
    // unless KEEP=1, so a failed run leaves nothing in the temp dir.
    const kept = path.join(here, 'work/fail-undo-scratch');
    fs.rmSync(kept, { recursive: true, force: true });
    for (const d of ['user/logs', 'ws']) {
      try { fs.cpSync(path.join(tmp, d), path.join(kept, d), { recursive: true }); } catch { /* not made yet */ }
    }
    console.log('screenshot of the failure: e2e/work/fail-undo.png; logs and workspace in e2e/work/fail-undo-scratch' + (process.env.KEEP ? '; scratch kept in ' + tmp : ''));
  } finally {
    if (browser) await browser.close().catch(() => {});
    if (cs) { try { process.kill(-cs.pid, 'SIGTERM'); } catch { /* gone */ } }
    if (srv) srv.close();
    await new Promise((r) => setTimeout(r, 500));
    if (!process.env.KEEP) fs.rmSync(tmp, { recursive: true, force: true });
    console.log(code === 0 ? '1 passed, 0 failed' : '0 passed, 1 failed');
    process.exit(code);
  }
})();
