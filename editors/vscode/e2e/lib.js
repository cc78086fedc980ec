// What both end-to-end scenarios (drive.js, undo.js) share: waiting on what
// VS Code signals, opening a file like a person, finding the chat webview,
// installing the extension, starting code-server and Chromium, writing the
// settings where code-server reads them.
'use strict';

/** until retries fn every 200 ms until it returns something truthy, for ms. */
async function until(what, fn, ms = 30000) {
  const end = Date.now() + ms;
  let last;
  while (Date.now() < end) {
    try { last = await fn(); if (last) return last; } catch (e) { last = e; }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timeout waiting for ${what} (last: ${last instanceof Error ? last.message : JSON.stringify(last)})`);
}

/**
 * openFile opens name with Quick Open, like a person, and waits on what VS
 * Code signals: the input box, the file among the results (the file search
 * can lag behind the workbench on a busy machine), the editor tab. Each try
 * starts from a closed Quick Open with an empty box: a try that ran out of
 * time must not leave its text for the next one to add to.
 */
async function openFile(page, name) {
  const tab = page.locator('.tab', { hasText: name });
  await until(`${name} open`, async () => {
    if (await tab.count()) return true;
    const box = page.locator('.quick-input-widget input');
    if (await box.isVisible().catch(() => false)) await page.keyboard.press('Escape');
    await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 3000 }).catch(() => {});
    await page.keyboard.press('Control+P');
    await box.waitFor({ timeout: 3000 });
    await box.fill(name);
    const row = page.locator('.quick-input-list .monaco-list-row', { hasText: name }).first();
    await row.waitFor({ timeout: 5000 });
    await row.click();
    await tab.waitFor({ timeout: 5000 });
    return true;
  }, 40000);
}

/** chatFrame finds the webview frame of the chat view (two iframes deep). */
async function chatFrame(page) {
  return until('the chat view webview', async () => {
    for (const f of page.frames()) {
      if (f === page.mainFrame()) continue;
      if (await f.$('#prompt').catch(() => null)) return f;
    }
    return null;
  }, 30000);
}

/**
 * codeServerEnv is the clean environment every code-server process of a
 * test runs in: no AGENT_LSP_/OPENAI_ variables from the caller, XDG homes
 * and TMPDIR (code-server's IPC sockets, its coder-logs) inside the scratch
 * dir tmp, so nothing lands in /tmp or the user's home; extra overrides
 * more (undefined removes a variable).
 */
function codeServerEnv(tmp, extra = {}) {
  const path = require('path');
  const fs = require('fs');
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('AGENT_LSP_') || k.startsWith('OPENAI_')) delete env[k];
  for (const x of ['CONFIG', 'DATA', 'STATE', 'CACHE']) {
    env[`XDG_${x}_HOME`] = path.join(tmp, 'xdg', x.toLowerCase());
    fs.mkdirSync(env[`XDG_${x}_HOME`], { recursive: true });
  }
  env.TMPDIR = path.join(tmp, 'tmp');
  fs.mkdirSync(env.TMPDIR, { recursive: true });
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

/** installExtension installs the .vsix into the test's extensions dir (dirs), in codeServerEnv. */
function installExtension({ cs: bin, dirs, tmp, vsix }) {
  const path = require('path');
  const { execFileSync } = require('child_process');
  execFileSync(bin, [...dirs, '--config', path.join(tmp, 'config.yaml'), '--install-extension', vsix],
    { stdio: 'inherit', env: codeServerEnv(tmp) });
}

/**
 * launchChromium starts the headless Chromium the scenarios drive, in
 * codeServerEnv(tmp) too: its crash-report database and dconf's cache
 * otherwise land in the user's ~/.config and ~/.cache.
 */
function launchChromium(tmp) {
  const { chromium } = require('playwright-core');
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true, env: codeServerEnv(tmp),
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/**
 * startCodeServer starts code-server on 127.0.0.1:port for the workspace ws
 * in codeServerEnv(tmp, env). It resolves once the server listens, with
 * the child (its own process group, for kill(-pid)).
 */
async function startCodeServer({ cs: bin, dirs, tmp, ws, port, env: extra = {} }) {
  const path = require('path');
  const { spawn } = require('child_process');
  const env = codeServerEnv(tmp, extra);
  const child = spawn(bin, [...dirs, '--config', path.join(tmp, 'config.yaml'), '--auth', 'none',
    '--bind-addr', `127.0.0.1:${port}`, '--disable-telemetry', '--disable-update-check',
    '--disable-workspace-trust', '--disable-getting-started-override', ws],
  { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  await until('code-server listening', () => /HTTP server listening/.test(out), 30000);
  return child;
}

/** splitSettings parts settings into the User and the Machine (remote) ones; undefined values are left out. */
function splitSettings(settings) {
  const props = require('../package.json').contributes.configuration.properties;
  const machine = new Set(['machine', 'machine-overridable', 'application-machine']);
  const out = { User: {}, Machine: {} };
  for (const [k, v] of Object.entries(settings)) {
    if (v !== undefined) out[machine.has(props[k]?.scope) ? 'Machine' : 'User'][k] = v;
  }
  return out;
}

/**
 * writeSettings writes the settings of the user-data dir `user` where a
 * remote window (code-server is one) reads them: the extension's
 * machine-scoped ones (agentLsp.serverPath, .baseUrl, …, from
 * package.json) in the remote settings, Machine/settings.json; the rest in
 * User/settings.json. A remote window takes machine-scoped settings from
 * the remote settings only: in User/settings.json they count only until VS
 * Code parses that file with the extension's settings known, and are gone
 * after (this failed drive.js once: serverPath read as unset after a
 * reload). Each file is written whole (a temporary file renamed).
 */
function writeSettings(user, settings) {
  const path = require('path');
  const fs = require('fs');
  for (const [dir, s] of Object.entries(splitSettings(settings))) {
    const f = path.join(user, dir, 'settings.json');
    fs.mkdirSync(path.dirname(f), { recursive: true });
    fs.writeFileSync(f + '.tmp', JSON.stringify(s, null, 2));
    fs.renameSync(f + '.tmp', f);
  }
}

module.exports = { until, openFile, chatFrame, installExtension, launchChromium, startCodeServer, splitSettings, writeSettings };
