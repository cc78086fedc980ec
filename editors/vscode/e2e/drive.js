// End-to-end test of the agent-lsp extension in real VS Code: code-server
// 4.100.3 (= VS Code 1.100.3) driven by Debian's headless Chromium through
// playwright-core. It installs the .vsix, opens a workspace, types an
// unsaved change, asks the agent in the chat view against a scripted model
// server on 127.0.0.1, checks the streamed answer, approves the permission
// prompt by clicking "Allow" in the notification, and finds the agent's edit
// in the open editor next to the unsaved change (the file on disk is
// untouched). A reload first starts without agentLsp.serverPath (the binary
// is not found, nothing is restored), then the setting comes back in the
// remote settings: the server starts late and the chat is restored then,
// once, with the models listed. It saves a screenshot of the
// chat view to e2e/work/vscode-chat.png (SHOT=$PWD/docs/vscode-chat.png from
// the repository root refreshes the one in docs/editors/vscode.md; the suite
// never rewrites a tracked file).
//
// Usage: node drive.js   (run.sh builds what it needs; env: AGENT_LSP_BIN,
// VSIX, CS_PORT, KEEP=1 keeps the scratch folder, SHOT=path of the screenshot)
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const model = require('./model_server');
const { until, openFile, chatFrame, installExtension, launchChromium, startCodeServer, splitSettings, writeSettings } = require('./lib');

const here = __dirname;
const CS = path.join(here, 'node_modules/.bin/code-server');
const BIN = process.env.AGENT_LSP_BIN || path.join(here, 'work/bin/agent-lsp');
const VSIX = process.env.VSIX || path.resolve(here, '../agent-lsp.vsix');
const PORT = process.env.CS_PORT || '18093';
const SHOT = path.resolve(process.env.SHOT || path.join(here, 'work/vscode-chat.png'));
fs.mkdirSync(path.join(here, 'work'), { recursive: true });
// Outside the repository, so VS Code's git does not offer the parent repo.
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-lsp-vscode-e2e-'));
const ws = path.join(tmp, 'ws');

const MAIN = 'package main\n\nimport "fmt"\n\nfunc greet() string {\n\treturn "hello"\n}\n\nfunc main() {\n\tfmt.Println(greet())\n}\n';
const NOTE = '// unsaved note from the user';
const ANSWER = 'Done: `greet` now returns **"hello, agent"**.';

// The scripted model: plan with todos and edit main.go, then mark the todos
// done, then answer. Which reply comes is decided by how many assistant turns
// the request already holds, so a retried request gets the same reply.
function script(req) {
  if (process.env.DEBUG_SCRIPT) console.log('script:', JSON.stringify(req.messages.map((m) => [m.role, String(m.content).slice(0, 60)])));
  // The user's prompts, without the context-update message agent-lsp appends.
  const users = req.messages.filter((m) => m.role === 'user').map((m) => JSON.stringify(m.content))
    .filter((c) => !c.startsWith('"<context-update>'));
  const last = users[users.length - 1] || '';
  if (last.includes('Anything else?')) {
    // First a shell command (the server has the editor save main.go before
    // it runs: agent/saveDocuments), then the answer.
    const i = req.messages.findLastIndex((m) => m.role === 'user' && JSON.stringify(m.content).includes('Anything else?'));
    if (!req.messages.slice(i).some((m) => m.role === 'tool')) {
      return { toolCalls: [{ id: 'call_ls', name: 'bash', arguments: JSON.stringify({ command: 'ls' }) }], promptTokens: 3550, completionTokens: 8 };
    }
    return { text: 'Nothing else: `main.go` is the only file.', promptTokens: 3600, completionTokens: 12 };
  }
  if (last.includes('Any problems?')) {
    const i = req.messages.findLastIndex((m) => m.role === 'user' && JSON.stringify(m.content).includes('Any problems?'));
    if (!req.messages.slice(i).some((m) => m.role === 'tool')) {
      return { toolCalls: [{ id: 'call_diag', name: 'diagnostics', arguments: '{}' }], promptTokens: 3200, completionTokens: 5 };
    }
    return { text: '`data.json` has a syntax error.', promptTokens: 3300, completionTokens: 8 };
  }
  if (last.includes('Clean the build')) {
    const i = req.messages.findLastIndex((m) => m.role === 'user' && JSON.stringify(m.content).includes('Clean the build'));
    if (!req.messages.slice(i).some((m) => m.role === 'tool')) {
      return { toolCalls: [{ id: 'call_rm', name: 'bash', arguments: JSON.stringify({ command: 'touch build.stamp' }) }], promptTokens: 3700, completionTokens: 8 };
    }
    return { text: 'Understood, I left the build alone.', promptTokens: 3800, completionTokens: 8 };
  }
  if (last.includes('Run the slow check')) {
    const i = req.messages.findLastIndex((m) => m.role === 'user' && JSON.stringify(m.content).includes('Run the slow check'));
    if (!req.messages.slice(i).some((m) => m.role === 'tool')) {
      // It prints, then waits for the test to create go.flag: the output must show while it runs.
      return { toolCalls: [{ id: 'call_slow', name: 'bash', arguments: JSON.stringify({ command: 'echo first-line; while [ ! -e go.flag ]; do sleep 0.1; done; echo last-line' }) }], promptTokens: 3900, completionTokens: 8 };
    }
    return { text: 'The check passed.', promptTokens: 4000, completionTokens: 8 };
  }
  if (last.includes('Summarise @data.json')) return { text: 'It names the demo.', promptTokens: 3300, completionTokens: 6 };
  if (last.includes('Shout the greeting')) {
    const i = req.messages.findLastIndex((m) => m.role === 'user' && JSON.stringify(m.content).includes('Shout the greeting'));
    if (!req.messages.slice(i).some((m) => m.role === 'tool')) {
      return { toolCalls: [{ id: 'call_shout', name: 'str_replace', arguments: JSON.stringify({ path: 'main.go', old_str: 'return "hello, agent"', new_str: 'return "HELLO, AGENT"' }) }], promptTokens: 3000, completionTokens: 9 };
    }
    return { text: 'Shouted.', promptTokens: 3100, completionTokens: 3 };
  }
  if (last.includes('What does this do?')) return { text: 'It returns the greeting that `main` prints.', promptTokens: 3200, completionTokens: 10 };
  if (last.includes('Take your time')) return { text: 'too late', delayMs: 60000 };
  const turns = req.messages.filter((m) => m.role === 'assistant').length;
  const todos = (a, b) => JSON.stringify({ todos: [
    { content: 'Change the greeting in main.go', status: a },
    { content: 'Report what changed', status: b },
  ] });
  if (turns === 0) {
    return {
      text: "I'll change the greeting in `main.go`; the edit needs your approval.",
      toolCalls: [
        { id: 'call_todos1', name: 'write_todos', arguments: todos('in_progress', 'pending') },
        { id: 'call_edit', name: 'str_replace', arguments: JSON.stringify({ path: 'main.go', old_str: 'return "hello"', new_str: 'return "hello, agent"' }) },
      ],
      promptTokens: 3100, completionTokens: 60,
    };
  }
  if (turns === 1) {
    return { toolCalls: [{ id: 'call_todos2', name: 'write_todos', arguments: todos('completed', 'completed') }], promptTokens: 3300, completionTokens: 30 };
  }
  if (turns === 2) {
    return { text: ANSWER + '\n\n| file | change |\n|---|---|\n| main.go:6 | greeting |\n\n- edited `main.go` (undo with Ctrl+Z)\n- your unsaved note is kept\n\n```go\nfunc greet() string {\n\treturn "hello, agent"\n}\n```', promptTokens: 3500, completionTokens: 40 };
  }
  return undefined;
}

/** agentLogs is the text of the extension's output ("agent-lsp" log) of every window so far. */
function agentLogs() {
  const out = [];
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(d, e.name));
      else if (e.name === 'agent-lsp.log') out.push(fs.readFileSync(path.join(d, e.name), 'utf8'));
    }
  };
  try { walk(path.join(tmp, 'user/logs')); } catch { /* no logs yet */ }
  return out.join('\n');
}

/** remoteCaches are the window's cached copies of the remote settings (VS Code starts a window from them). */
function remoteCaches() {
  const d = path.join(tmp, 'user/User/caches/CachedConfigurations/user');
  try {
    return fs.readdirSync(d).map((a) => fs.readFileSync(path.join(d, a, 'configuration.json'), 'utf8'));
  } catch {
    return [];
  }
}

/**
 * editRemoteSettings replaces the remote settings (Machine/settings.json)
 * in VS Code's own editor, as a user does, and closes it: the window
 * applies them at once (it does not see the file written from outside).
 */
async function editRemoteSettings(page, s) {
  await page.locator('.tab.active').first().click(); // the keys go to the workbench, not a webview
  await page.keyboard.press('F1');
  await page.keyboard.type('Open Remote Settings (JSON)');
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: 'Open Remote Settings (JSON)' }).first();
  await row.waitFor({ timeout: 10000 });
  await row.click();
  const tab = page.locator('.tab', { hasText: 'settings.json' });
  await page.locator('.tab.active', { hasText: 'settings.json' }).waitFor({ timeout: 10000 });
  await page.evaluate((t) => navigator.clipboard.writeText(t), JSON.stringify(s, null, 2));
  await page.locator('.monaco-editor .view-lines', { hasText: '{' }).first().click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Control+V');
  // The paste lands when the clipboard has been read: then save.
  await page.locator('.tab.active.dirty', { hasText: 'settings.json' }).waitFor({ timeout: 10000 });
  await page.keyboard.press('Control+S');
  await page.locator('.tab.active:not(.dirty)', { hasText: 'settings.json' }).waitFor({ timeout: 10000 });
  const saved = JSON.parse(fs.readFileSync(path.join(tmp, 'user/Machine/settings.json'), 'utf8'));
  if (JSON.stringify(saved) !== JSON.stringify(JSON.parse(JSON.stringify(s)))) throw new Error('remote settings saved as ' + JSON.stringify(saved));
  await tab.locator('.tab-actions .action-label').first().click();
  await tab.waitFor({ state: 'detached', timeout: 5000 });
}

const t0 = Date.now();
const el = () => ((Date.now() - t0) / 1000).toFixed(1) + 's';
const log = (...a) => console.log(`[${el()}]`, ...a);

(async () => {
  let cs, browser, srv, page, code = 1;
  try {
    for (const f of [CS, BIN, VSIX]) if (!fs.existsSync(f)) throw new Error(`missing ${f}: run e2e/run.sh`);
    fs.mkdirSync(path.join(ws, '.agent-lsp'), { recursive: true });
    fs.writeFileSync(path.join(ws, 'main.go'), MAIN);
    fs.writeFileSync(path.join(ws, 'data.json'), '{"name": "demo",, "version": 1}\n');
    // A workspace may only tighten the rules: make this edit ask.
    fs.writeFileSync(path.join(ws, '.agent-lsp/config.toml'), '[permissions.str_replace]\nask = ["main.go"]\n');

    srv = await model.start(script);
    log('model server', srv.url);

    const dirs = ['--user-data-dir', path.join(tmp, 'user'), '--extensions-dir', path.join(tmp, 'ext')];
    const settings = {
      'security.workspace.trust.enabled': false, 'workbench.startupEditor': 'none',
      'telemetry.telemetryLevel': 'off', 'extensions.autoCheckUpdates': false, 'extensions.autoUpdate': false,
      'workbench.tips.enabled': false, 'editor.minimap.enabled': false, 'chat.commandCenter.enabled': false,
      'workbench.secondarySideBar.defaultVisibility': 'hidden',
      'files.autoSave': 'off', 'git.enabled': false, 'git.openRepositoryInParentFolders': 'never',
      'agentLsp.serverPath': BIN, 'agentLsp.baseUrl': srv.url, 'agentLsp.model': 'scripted',
      'agentLsp.apiKeySource': 'none', 'agentLsp.trace.server': 'messages',
    };
    // serverPath, baseUrl, apiKeySource (machine-scoped) go in the remote settings.
    writeSettings(path.join(tmp, 'user'), settings);
    installExtension({ cs: CS, dirs, tmp, vsix: VSIX });
    log('extension installed');

    // Without agentLsp.serverPath the extension must not find a binary (the
    // reload below relies on it): no agent-lsp on the PATH or in the usual
    // places (which.ts), a scratch HOME, no GOBIN/GOPATH.
    const csEnv = {
      HOME: path.join(tmp, 'home'), GOBIN: undefined, GOPATH: undefined,
      PATH: (process.env.PATH || '').split(':').filter((d) => d && !fs.existsSync(path.join(d, 'agent-lsp'))).join(':'),
    };
    fs.mkdirSync(csEnv.HOME, { recursive: true });
    const { which, nodeDeps } = require(path.resolve(here, '../out/which.js'));
    const found = which('agent-lsp', { ...nodeDeps, env: { PATH: csEnv.PATH, HOME: csEnv.HOME }, home: csEnv.HOME });
    if (found) throw new Error(`agent-lsp is installed at ${found}: the missing-binary check after the reload cannot run here`);

    cs = await startCodeServer({ cs: CS, dirs, tmp, ws, port: PORT, env: csEnv });
    log('code-server up');

    browser = await launchChromium(tmp);
    const context = await browser.newContext({ viewport: { width: 1400, height: 860 }, permissions: ['clipboard-read', 'clipboard-write'] });
    page = await context.newPage();
    page.on('pageerror', (e) => console.log('pageerror:', e.message));
    await page.goto(`http://127.0.0.1:${PORT}/?folder=${encodeURIComponent(ws)}`);
    await page.waitForSelector('.monaco-workbench', { timeout: 60000 });
    log('workbench rendered');

    await openFile(page, 'main.go');
    // An unsaved change of the user's, at the end of the file.
    await page.locator('.monaco-editor .view-lines').first().click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type(NOTE);
    await page.locator('.tab.dirty', { hasText: 'main.go' }).waitFor({ timeout: 5000 });
    log('main.go open with an unsaved change');

    // Silence notifications (Do Not Disturb): the approval must still come through, in the chat.
    await page.keyboard.press('F1');
    await page.keyboard.type('Toggle Do Not Disturb Mode');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Do Not Disturb' }).first().waitFor({ timeout: 10000 });
    await page.keyboard.press('Enter');
    await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 5000 });
    log('notifications silenced');

    // The chat view: click the activity bar entry.
    await until('the Agent view container', async () => {
      await page.locator('.activitybar .action-item a[aria-label^="Agent"]').first().click({ timeout: 3000 });
      return true;
    }, 40000);
    let chat = await chatFrame(page);
    // The server runs and reaches the model endpoint: the picker lists its
    // models (remote settings that arrive after the extension activated
    // start it late; the list comes then).
    await until('the models listed', async () => (await chat.locator('#model option[value="other-model"]').count()) === 1, 30000);
    log('chat view open, models listed');
    // Focus goes to the chat; the editor selection (none) and file go with the prompt.
    await chat.locator('#prompt').click();
    await chat.locator('#prompt').fill('Make greet say hello to the agent');
    await chat.locator('#prompt').press('Enter');
    log('prompt sent with Enter');

    // Streaming: the first sentence shows while the run waits for approval.
    await chat.locator('.markdown', { hasText: 'the edit needs your approval' }).waitFor({ timeout: 30000 });
    await chat.locator('#stop:not([hidden])').waitFor({ timeout: 5000 });
    log('streamed text visible, Stop button shown');
    // The permission prompt is a card in the chat (notifications are silenced:
    // Do Not Disturb), with the reason in plain words, Deny first and focused.
    const card = chat.locator('.approval.pending', { hasText: 'main.go' });
    await card.waitFor({ timeout: 30000 });
    await chat.locator('#status', { hasText: 'Waiting for your approval' }).waitFor({ timeout: 5000 });
    const cardText = (await card.innerText()).replace(/\s+/g, ' ');
    if (!/matches the ask rule `main\.go`/.test(cardText) || /no rule matches|Reason:/.test(cardText)) throw new Error('card wording: ' + cardText);
    const titles = await card.locator('button').allInnerTexts();
    if (titles[0] !== 'Deny' || titles[1] !== 'Allow once') throw new Error('card buttons: ' + titles.join('|'));
    if (!(await card.locator('button[data-choice="deny"]').evaluate((b) => b === document.activeElement))) throw new Error('Deny is not the keyboard default');
    if (await page.locator('.notification-toast', { hasText: 'wants to edit' }).count()) throw new Error('a toast showed under Do Not Disturb');
    log('approval card:', cardText.slice(0, 140));
    await card.getByRole('button', { name: 'Allow once', exact: true }).click();
    await chat.locator('.approval.answered', { hasText: 'Allowed once' }).waitFor({ timeout: 5000 });
    log('clicked Allow once in the card');

    await chat.locator('.markdown', { hasText: 'now returns' }).waitFor({ timeout: 30000 });
    await chat.locator('#stop[hidden]').waitFor({ state: 'attached', timeout: 10000 });
    log('final answer streamed, run ended');
    const tool = chat.locator('details.tool', { hasText: 'str_replace main.go' });
    await tool.waitFor({ timeout: 5000 });
    if (!(await tool.getAttribute('class')).includes('tool') || (await tool.getAttribute('class')).includes('error')) {
      throw new Error('str_replace shown as failed: ' + (await tool.innerText()));
    }
    await tool.locator('summary').click(); // expand it: arguments and result
    await tool.locator('pre.result').waitFor({ timeout: 5000 });
    const result = await tool.locator('pre.result').innerText();
    if (!result.includes('hello, agent')) throw new Error('tool result: ' + result);
    await tool.locator('summary').click(); // and fold it again for the screenshot
    const todoText = await chat.locator('#todos').innerText();
    if (!todoText.includes('Change the greeting in main.go')) throw new Error('todos not shown: ' + todoText);
    const usage = await chat.locator('#usage').innerText();
    if (!/tokens/.test(usage)) throw new Error('usage not shown: ' + usage);
    log('tool call expandable, todos and usage shown:', usage);
    // A real markdown renderer: a table, a highlighted code block with Copy, a path:line link.
    await chat.locator('.markdown table td', { hasText: 'greeting' }).waitFor({ timeout: 5000 });
    await chat.locator('.code-block .hljs-keyword', { hasText: 'func' }).first().waitFor({ timeout: 5000 });
    await chat.locator('a.path-ref', { hasText: 'main.go:6' }).waitFor({ timeout: 5000 });
    await chat.locator('.code-block .code-action[data-action="copy"]').first().click();
    const copied = await until('the code on the clipboard', async () => {
      const t = await page.evaluate(() => navigator.clipboard.readText()).catch(() => '');
      return t.includes('return "hello, agent"') ? t : null;
    }, 10000);
    log('table, highlighted code and path link rendered; Copy put', JSON.stringify(copied.split('\n')[0]), 'on the clipboard');

    // The edit is in the open editor, next to the unsaved note; disk untouched.
    const text = await until('the edit in the editor', async () => {
      const t = (await page.locator('.monaco-editor .view-lines').first().innerText()).replace(/\u00a0/g, ' ');
      return t.includes('hello, agent') && t.includes(NOTE.slice(3)) ? t : null;
    }, 10000);
    await page.locator('.tab.dirty', { hasText: 'main.go' }).waitFor({ timeout: 2000 });
    if (fs.readFileSync(path.join(ws, 'main.go'), 'utf8') !== MAIN) throw new Error('main.go on disk changed');
    log('edit applied in the open editor, unsaved note kept, disk untouched');
    void text;

    // What the model saw: the open document (with the unsaved note) went with the prompt.
    const first = JSON.stringify(srv.requests[0].messages);
    if (!first.includes('unsaved note from the user')) throw new Error('the prompt lacked the current document');
    if (srv.requests.length < 3) throw new Error(`expected 3 model requests, got ${srv.requests.length}`);
    log('the model got the current file with the prompt');

    fs.mkdirSync(path.dirname(SHOT), { recursive: true });
    await page.locator('.part.sidebar').screenshot({ path: SHOT });
    await page.screenshot({ path: path.join(here, 'work/last-window.png') });
    log('screenshot', SHOT);

    // A follow-up continues the session: the model sees the conversation.
    await chat.locator('#prompt').fill('Thanks! Anything else?');
    await chat.locator('#send').click();
    await chat.locator('.markdown', { hasText: 'is the only file' }).waitFor({ timeout: 20000 });
    const followUp = JSON.stringify(srv.requests[3].messages);
    if (!followUp.includes('Make greet say hello to the agent')) throw new Error('the follow-up started a new session');
    if ((await chat.locator('.turn.user').count()) !== 2) throw new Error('expected 2 prompts in the chat');
    log('follow-up reused the session');
    // Before its shell command ran, the server had the editor save main.go.
    await page.locator('.tab:not(.dirty)', { hasText: 'main.go' }).waitFor({ timeout: 5000 });
    const disk = fs.readFileSync(path.join(ws, 'main.go'), 'utf8');
    if (!disk.includes('hello, agent') || !disk.includes(NOTE)) throw new Error('main.go not saved before bash: ' + disk);
    const lsResult = await chat.locator('details.tool', { hasText: 'bash ls' }).innerText();
    log('agent/saveDocuments saved main.go before the shell command (' + lsResult.replace(/\s+/g, ' ').slice(0, 40) + ')');

    // Deny in the card: the command does not run.
    await chat.locator('#stop[hidden]').waitFor({ state: 'attached', timeout: 10000 }); // the run is over
    await chat.locator('#prompt').fill('Clean the build');
    await chat.locator('#prompt').press('Enter');
    const rmCard = chat.locator('.approval.pending', { hasText: 'touch build.stamp' });
    await rmCard.waitFor({ timeout: 20000 });
    await chat.locator('.approval.pending button[data-choice="deny"]').press('Enter'); // Enter on the focused default
    await chat.locator('.markdown', { hasText: 'left the build alone' }).waitFor({ timeout: 20000 });
    const rmRow = await chat.locator('details.tool', { hasText: 'touch build.stamp' }).getAttribute('class');
    if (!rmRow.includes('error')) throw new Error('the denied command is not shown as refused: ' + rmRow);
    if (fs.existsSync(path.join(ws, 'build.stamp'))) throw new Error('the denied command ran');
    log('Deny (Enter on the card) refused the command');

    // Streaming bash output: the first line shows while the command still runs.
    await chat.locator('#stop[hidden]').waitFor({ state: 'attached', timeout: 10000 }); // the run is over
    await chat.locator('#prompt').fill('Run the slow check');
    await chat.locator('#prompt').press('Enter');
    const slowCard = chat.locator('.approval.pending', { hasText: 'first-line' });
    await slowCard.waitFor({ timeout: 20000 });
    await slowCard.getByRole('button', { name: 'Allow once', exact: true }).click();
    await chat.locator('.tool-row pre.live', { hasText: 'first-line' }).waitFor({ timeout: 20000 });
    if (await chat.locator('.markdown', { hasText: 'The check passed' }).count()) throw new Error('the run ended before the live output was seen');
    fs.writeFileSync(path.join(ws, 'go.flag'), '');
    await chat.locator('.markdown', { hasText: 'The check passed' }).waitFor({ timeout: 20000 });
    log('bash output streamed into the tool row while it ran');

    // The model picker: the next prompt goes to the model chosen.
    await chat.locator('#model').selectOption('other-model');
    await chat.locator('#stop[hidden]').waitFor({ state: 'attached', timeout: 10000 }); // the run is over
    await chat.locator('#prompt').fill('What does this do? (other model)');
    await chat.locator('#prompt').press('Enter');
    await chat.locator('.markdown', { hasText: 'It returns the greeting' }).last().waitFor({ timeout: 20000 });
    if (srv.requests[srv.requests.length - 1].model !== 'other-model') throw new Error('model sent: ' + srv.requests[srv.requests.length - 1].model);
    log('the model picker changed the model the server received');

    // A reload restores the chat from the server's record; the history lists
    // it. Here the reloaded window first has no agentLsp.serverPath, as when
    // the settings reach the extension after it activated (VS Code starts a
    // remote window from its cached copy of the remote settings): the binary
    // is not found and nothing is restored. When the setting comes back, the
    // server starts late, and the chat is restored then, once, with the
    // models listed.
    const turnsBefore = await chat.locator('.turn.user').count();
    const machine = splitSettings(settings).Machine;
    const notFound = () => agentLogs().split('\n').filter((l) => l.includes('"agent-lsp" was not found on PATH')).length;
    let n = notFound();
    await editRemoteSettings(page, { ...machine, 'agentLsp.serverPath': undefined });
    // The running window restarts on the change and does not find it; the
    // window's copy of the remote settings, which the reloaded one starts
    // from, has no serverPath either.
    await until('the running window missing the binary', () => notFound() > n, 20000);
    await until('the cached remote settings without serverPath', () => remoteCaches().every((c) => !c.includes('agentLsp.serverPath')), 10000);
    log('without agentLsp.serverPath the running window reports the binary missing');
    n = notFound();
    await page.reload();
    await page.waitForSelector('.monaco-workbench', { timeout: 60000 });
    // The restored window may show the Agent container already: clicking its
    // icon then would hide the side bar, so click only when it is not the
    // checked (shown) one, and wait for the activity bar to be drawn first.
    await page.locator('.activitybar .action-item a[aria-label^="Agent"]').first().waitFor({ timeout: 40000 });
    await until('the Agent view container', async () => {
      if (await page.locator('.activitybar .action-item.checked a[aria-label^="Agent"]').count()) return true;
      await page.locator('.activitybar .action-item a[aria-label^="Agent"]').first().click({ timeout: 3000 });
      return false;
    }, 40000);
    chat = await chatFrame(page);
    await page.locator('.notification-toast', { hasText: '"agent-lsp" was not found on PATH' }).first().waitFor({ timeout: 30000 });
    if (notFound() <= n) throw new Error('the toast came but the reloaded window did not log the missing binary');
    const early = await chat.locator('.turn').count();
    if (early) throw new Error(`${early} turns shown with no server`);
    if ((await chat.locator('#model option').first().textContent()) !== 'Default') throw new Error('models listed with no server');
    log('the reloaded window has no server: binary missing, chat empty, no models');
    await editRemoteSettings(page, machine);
    await until('the chat restored', async () => (await chat.locator('.turn.user', { hasText: 'Make greet say hello' }).count()) === 1, 30000);
    // The models of the late server: the default names the configured one.
    await until('the models listed', async () => (await chat.locator('#model option').first().textContent()) === 'Default (scripted)', 10000);
    const turnsAfter = await chat.locator('.turn.user').count();
    if (turnsAfter !== turnsBefore) throw new Error(`restored ${turnsAfter} prompts of ${turnsBefore}`);
    log('agentLsp.serverPath back: the server started, the chat restored once:', turnsAfter, 'prompts, models listed');
    // The model choice is remembered for the workspace; back to the configured one.
    await until('the remembered model', async () => (await chat.locator('#model').inputValue()) === 'other-model', 10000);
    await chat.locator('#model').selectOption({ index: 0 });
    log('the model choice survived the reload');
    await chat.locator('#history').click();
    const item = page.locator('.monaco-list-row', { hasText: 'Make greet say hello to the agent' });
    await item.first().waitFor({ timeout: 20000 });
    fs.mkdirSync(path.dirname(SHOT), { recursive: true });
    await page.locator('.part.sidebar').screenshot({ path: SHOT.replace(/\.png$/, '-history.png') });
    log('history view lists the session');

    // New chat, then Stop a run that waits on the model.
    await chat.locator('#new').click();
    await until('an empty chat', async () => (await chat.locator('.turn').count()) === 0, 5000);
    const before = srv.requests.length;
    await chat.locator('#prompt').fill('Take your time');
    await chat.locator('#prompt').press('Enter');
    await chat.locator('#stop:not([hidden])').waitFor({ timeout: 5000 });
    await until('the model request', () => srv.requests.length === before + 1, 10000);
    if (JSON.stringify(srv.requests[before].messages).includes('Make greet say hello')) throw new Error('New chat kept the old session');
    if (srv.requests[before].model !== 'scripted') throw new Error('the picker back on Default still sent ' + srv.requests[before].model);
    await chat.locator('#stop').click();
    await chat.locator('.ending', { hasText: 'Stopped.' }).waitFor({ timeout: 10000 });
    await chat.locator('#stop[hidden]').waitFor({ state: 'attached', timeout: 5000 });
    log('New chat started a new session; Stop ended the run (agent/cancel, before the model answered)');
    // The stopped run's session goes on; Stop again.
    const before2 = srv.requests.length;
    await chat.locator('#prompt').fill('Take your time, again');
    await chat.locator('#prompt').press('Enter');
    await until('the model request', () => srv.requests.length === before2 + 1, 10000);
    // The first prompt, with or without the current file's context after
    // it (the chip follows the active editor), is in the history.
    const users = srv.requests[before2].messages.filter((m) => m.role === 'user').map((m) => String(m.content));
    if (!users.some((c) => c === 'Take your time' || c.startsWith('Take your time\n'))) throw new Error('the stopped session was not continued: ' + JSON.stringify(users.map((c) => c.slice(0, 60))));
    await chat.locator('#stop').click();
    await until('two stopped runs', async () => (await chat.locator('.ending', { hasText: 'Stopped.' }).count()) === 2, 10000);
    log('a prompt after Stop continued the session; Stop again ended the run');

    // "Agent: Ask about selection" from the command palette: the selection goes with the prompt.
    await page.locator('.monaco-editor .view-lines').first().click();
    await page.keyboard.press('Control+G');
    await page.keyboard.type('5');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Home');
    for (let i = 0; i < 3; i++) await page.keyboard.press('Shift+ArrowDown');
    // The server's code actions are in the lightbulb menu like any other.
    await page.keyboard.press('Control+.');
    await page.locator('.action-widget', { hasText: 'Rewrite with agent' }).waitFor({ timeout: 10000 });
    await page.keyboard.press('Escape');
    log('"Rewrite with agent" is in the code action menu');
    await page.keyboard.press('F1');
    await page.keyboard.type('Agent: Ask about selection');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Ask about selection' }).first().waitFor({ timeout: 5000 });
    await page.keyboard.press('Enter');
    await page.locator('.quick-input-widget', { hasText: 'About the selection' }).waitFor({ timeout: 5000 });
    await page.keyboard.type('What does this do?');
    await page.keyboard.press('Enter');
    await chat.locator('.markdown', { hasText: 'It returns the greeting' }).waitFor({ timeout: 20000 });
    const ctxLabel = await chat.locator('.turn.user .context').last().innerText();
    if (ctxLabel !== 'main.go:5-7') throw new Error('selection label: ' + ctxLabel);
    const asked = JSON.stringify(srv.requests[srv.requests.length - 1].messages);
    if (!asked.includes('What does this do?')) throw new Error('the selection prompt did not reach the model');
    log('Ask about selection sent the selection (main.go:5-7)');

    // Diagnostics from another language server (VS Code's JSON one) reach
    // the agent through agent/diagnostics.
    await openFile(page, 'data.json');
    await until('a JSON diagnostic in the status bar', async () => {
      const t = await page.locator('#status\\.problems').innerText().catch(() => '');
      return /[1-9]/.test(t.split(/\s+/)[0] || '') || /[1-9]/.test(t);
    }, 20000);
    await chat.locator('#prompt').fill('Any problems?');
    await chat.locator('#prompt').press('Enter');
    await chat.locator('.markdown', { hasText: 'has a syntax error' }).waitFor({ timeout: 20000 });
    const diagTool = chat.locator('details.tool', { hasText: 'diagnostics' }).last();
    await diagTool.locator('summary').click();
    const diagText = await diagTool.locator('pre.result').innerText();
    if (!diagText.includes('data.json')) throw new Error('the diagnostics tool did not see data.json: ' + diagText);
    log('agent/diagnostics forwarded the JSON error:', diagText.split('\n')[0]);

    // An @file mention: completion in the prompt box, its content reaches the model.
    await chat.locator('#stop[hidden]').waitFor({ state: 'attached', timeout: 10000 });
    await chat.locator('#prompt').fill('');
    await chat.locator('#prompt').pressSequentially('Summarise @data');
    // The workbench may take the focus while we type (a diagnostic, a
    // view refresh), which closes the list; back in the box it reopens.
    await chat.locator('#prompt').focus();
    await chat.locator('.complete-item', { hasText: 'data.json' }).first().waitFor({ timeout: 15000 });
    await chat.locator('#prompt').press('Enter'); // picks the highlighted item
    await chat.locator('.chip', { hasText: '@data.json' }).waitFor({ timeout: 5000 });
    // The current file (data.json) would go anyway: remove its chip, so only the mention carries it.
    await chat.locator('.chip.current .chip-x').click();
    await chat.locator('.chip.current').waitFor({ state: 'detached', timeout: 5000 });
    await chat.locator('#prompt').press('Enter'); // sends
    await chat.locator('.markdown', { hasText: 'It names the demo' }).waitFor({ timeout: 20000 });
    const mention = JSON.stringify(srv.requests[srv.requests.length - 1].messages);
    if (!mention.includes('The user mentioned data.json') || !mention.includes('\\"name\\": \\"demo\\"') || mention.slice(-600).includes('The user is looking at')) throw new Error('the mention did not reach the model: ' + mention.slice(-400));
    log('@data.json completed, the current-file chip removed; the mention alone reached the model');

    // Inline edit on a selection: its run shows as its own turn, its edit lands in the editor.
    await page.locator('.tab', { hasText: 'main.go' }).click();
    await page.locator('.tab.active', { hasText: 'main.go' }).waitFor({ timeout: 5000 });
    await page.locator('.monaco-editor .view-lines', { hasText: 'func greet' }).first().click();
    await page.keyboard.press('Control+G');
    await page.keyboard.type('6');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Home');
    await page.keyboard.press('Shift+End');
    await page.keyboard.press('F1');
    await page.keyboard.type('Agent: Edit with agent');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Edit with agent' }).first().waitFor({ timeout: 5000 });
    await page.keyboard.press('Enter');
    await page.locator('.quick-input-widget', { hasText: 'Lines 6-6' }).waitFor({ timeout: 5000 });
    await page.keyboard.type('Shout the greeting');
    await page.keyboard.press('Enter');
    const editCard = chat.locator('.turn.action.edit .approval.pending', { hasText: 'main.go' });
    await editCard.waitFor({ timeout: 20000 });
    await editCard.getByRole('button', { name: 'Allow once', exact: true }).click();
    await chat.locator('.turn.action.edit .markdown', { hasText: 'Shouted.' }).waitFor({ timeout: 20000 });
    await chat.locator('.turn.user.action .badge', { hasText: 'Inline edit' }).waitFor({ timeout: 5000 });
    await until('the inline edit in the editor', async () => (await page.locator('.monaco-editor .view-lines', { hasText: 'func greet' }).first().innerText()).replace(/\u00a0/g, ' ').includes('HELLO, AGENT'), 10000);
    log('inline edit ran as its own turn and edited the selection');
    console.log(`PASS vscode e2e in ${el()}`);
    code = 0;
  } catch (e) {
    console.log('FAIL:', e.stack || e);
    if (page) await page.screenshot({ path: path.join(here, 'work/fail.png') }).catch(() => {});
    // What explains a failure (code-server's and the extension's logs,
    // the workspace) is copied into e2e/work; the scratch folder goes
    // unless KEEP=1, so a failed run leaves nothing in the temp dir.
    const kept = path.join(here, 'work/fail-scratch');
    fs.rmSync(kept, { recursive: true, force: true });
    for (const d of ['user/logs', 'ws']) {
      try { fs.cpSync(path.join(tmp, d), path.join(kept, d), { recursive: true }); } catch { /* not made yet */ }
    }
    console.log('screenshot of the failure: e2e/work/fail.png; logs and workspace in e2e/work/fail-scratch' + (process.env.KEEP ? '; scratch kept in ' + tmp : ''));
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
