import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { missingMessage, which, WhichDeps } from '../which';

const deps = (files: string[], env: Record<string, string>, platform: NodeJS.Platform = 'linux'): WhichDeps => ({
  isExecutable: (p) => files.includes(p), env, platform,
});

test('finds a command on PATH, first match wins', () => {
  const d = deps(['/b/agent-lsp', '/c/agent-lsp'], { PATH: '/a::/b:/c' });
  assert.equal(which('agent-lsp', d), '/b/agent-lsp');
});
test('missing on PATH and in the usual places', () => {
  assert.equal(which('agent-lsp', deps([], { PATH: '/a:/b', HOME: '/home/u' })), undefined);
  assert.equal(which('agent-lsp', deps([], {})), undefined);
});
test('a path is checked as is, ~ expands', () => {
  assert.equal(which('/opt/agent-lsp', deps(['/opt/agent-lsp'], { PATH: '' })), '/opt/agent-lsp');
  assert.equal(which('~/go/bin/agent-lsp', deps(['/home/u/go/bin/agent-lsp'], { HOME: '/home/u' })), '/home/u/go/bin/agent-lsp');
  assert.equal(which('./nope', deps([], {})), undefined);
});
test('windows extensions', () => {
  const d = deps(['C:\\go\\bin\\agent-lsp.EXE'], { PATH: 'C:\\x;C:\\go\\bin', PATHEXT: '.EXE;.CMD' }, 'win32');
  assert.equal(which('agent-lsp', d), 'C:\\go\\bin\\agent-lsp.EXE');
});
test('the message says how to fix it', () => {
  assert.match(missingMessage('agent-lsp'), /not found on PATH, in ~\/go\/bin.*go install .*agentLsp\.serverPath/s);
  assert.match(missingMessage('/x/agent-lsp'), /"\/x\/agent-lsp".*agentLsp\.serverPath/s);
});

test('PATH lacking it: ~/go/bin, ~/.local/bin, /usr/local/bin are tried, in that order after PATH', () => {
  for (const f of ['/home/u/go/bin/agent-lsp', '/home/u/.local/bin/agent-lsp', '/usr/local/bin/agent-lsp']) {
    assert.equal(which('agent-lsp', deps([f], { PATH: '/usr/bin', HOME: '/home/u' })), f);
  }
  assert.equal(which('agent-lsp', deps(['/usr/bin/agent-lsp', '/home/u/go/bin/agent-lsp'], { PATH: '/usr/bin', HOME: '/home/u' })), '/usr/bin/agent-lsp');
  assert.equal(which('agent-lsp', deps(['/g/bin/agent-lsp'], { PATH: '', GOPATH: '/g' })), '/g/bin/agent-lsp');
  // Other commands are looked up on PATH only.
  assert.equal(which('other', deps(['/usr/local/bin/other'], { PATH: '/usr/bin', HOME: '/home/u' })), undefined);
});
test('a bundled binary (platform .vsix) comes first', () => {
  const d = deps(['/ext/bin/agent-lsp', '/usr/bin/agent-lsp'], { PATH: '/usr/bin' });
  assert.equal(which('agent-lsp', d, '/ext/bin/agent-lsp'), '/ext/bin/agent-lsp');
});
