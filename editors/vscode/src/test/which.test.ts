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
test('missing on PATH', () => {
  assert.equal(which('agent-lsp', deps([], { PATH: '/a:/b' })), undefined);
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
  assert.match(missingMessage('agent-lsp'), /not found on PATH.*go install .*agentLsp\.serverPath/s);
  assert.match(missingMessage('/x/agent-lsp'), /"\/x\/agent-lsp".*agentLsp\.serverPath/s);
});
