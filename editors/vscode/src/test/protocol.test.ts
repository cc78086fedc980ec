import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';

const root = path.join(__dirname, '../../../..');
const ext = path.join(__dirname, '../../src/lsp_ext.ts');

test('lsp_ext.ts mirrors the methods of lsp/ext.go', () => {
  const goSrc = fs.readFileSync(path.join(root, 'lsp/ext.go'), 'utf8');
  const goMethods = [...goSrc.matchAll(/Method\w+\s*=\s*"(agent\/\w+)"/g)].map((m) => m[1]).sort();
  const tsSrc = fs.readFileSync(ext, 'utf8');
  const tsMethods = [...tsSrc.matchAll(/export const Method\w+ = '(agent\/\w+)'/g)].map((m) => m[1]).sort();
  assert.ok(goMethods.length >= 5);
  assert.deepEqual(tsMethods, goMethods);
});

test('package.json: engines, commands, view', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '../../package.json'), 'utf8'));
  assert.equal(pkg.engines.vscode, '^1.100.0');
  const cmds = pkg.contributes.commands.map((c: { command: string }) => c.command);
  for (const c of ['agentLsp.askSelection', 'agentLsp.cancel', 'agentLsp.newChat']) assert.ok(cmds.includes(c), c);
  const src = fs.readFileSync(path.join(__dirname, '../../src/session.ts'), 'utf8');
  for (const c of cmds) assert.ok(src.includes(`'${c}'`), `${c} is declared but not registered`);
  assert.equal(pkg.contributes.views.agentLsp[0].id, 'agentLsp.chat');
  assert.equal(pkg.contributes.views.agentLsp[0].type, 'webview');
});
