import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { Getter, initializationOptions, readConfig } from '../settings';

function getter(values: Record<string, unknown>): Getter {
  return <T>(k: string, d: T) => (k in values ? (values[k] as T) : d);
}

test('defaults send nothing but the wrapper', () => {
  const cfg = readConfig(getter({}));
  assert.equal(cfg.serverPath, 'agent-lsp');
  assert.equal(cfg.keySource, 'env');
  assert.equal(cfg.keyEnvVar, 'AGENT_LSP_API_KEY');
  assert.deepEqual(initializationOptions(cfg, {}, undefined), { agentLsp: {} });
});

test('settings map to the server keys; empty and zero mean server default', () => {
  const cfg = readConfig(getter({
    baseUrl: ' http://127.0.0.1:8080/v1 ', model: 'm', maxTurns: 12, maxToolCalls: 0,
    approvalTimeout: '90s', rewriteInstruction: '', actionMaxTurns: 3, actionAnyFile: true,
    permissions: { bash: { allow: ['go test *'] } },
  }));
  assert.deepEqual(initializationOptions(cfg, {}, undefined).agentLsp, {
    baseUrl: 'http://127.0.0.1:8080/v1', model: 'm', maxTurns: 12, approvalTimeout: '90s',
    actionMaxTurns: 3, actionAnyFile: true, permissions: { bash: { allow: ['go test *'] } },
  });
});

test('bad values are dropped', () => {
  const cfg = readConfig(getter({ approvalTimeout: 'soon', maxTurns: -1, permissions: [], apiKeySource: 'plain', serverPath: '  ' }));
  assert.deepEqual(cfg.server, {});
  assert.equal(cfg.keySource, 'env');
  assert.equal(cfg.serverPath, 'agent-lsp');
});

const table: Array<[string, Record<string, unknown>, Record<string, string>, string | undefined, string | undefined]> = [
  ['env default var', {}, { AGENT_LSP_API_KEY: 'k1' }, 's', 'k1'],
  ['env named var', { apiKeyEnvVar: 'OPENAI_API_KEY' }, { OPENAI_API_KEY: 'k2', AGENT_LSP_API_KEY: 'no' }, undefined, 'k2'],
  ['env unset', {}, {}, 's', undefined],
  ['secret storage', { apiKeySource: 'secretStorage' }, { AGENT_LSP_API_KEY: 'no' }, 'sek', 'sek'],
  ['secret storage empty', { apiKeySource: 'secretStorage' }, {}, undefined, undefined],
  ['none', { apiKeySource: 'none' }, { AGENT_LSP_API_KEY: 'no' }, 'no', undefined],
];
for (const [name, values, env, secret, want] of table) {
  test(`api key: ${name}`, () => {
    const got = initializationOptions(readConfig(getter(values)), env, secret).agentLsp.apiKey;
    assert.equal(got, want);
  });
}

test('an apiKey plain setting is never read', () => {
  const cfg = readConfig(getter({ apiKey: 'plain' }));
  assert.equal(initializationOptions(cfg, {}, undefined).agentLsp.apiKey, undefined);
});

// The server keys must be the json tags of lsp/initialize.go's Settings
// (permissions is extra: see the README).
test('server keys match lsp/initialize.go', () => {
  const src = fs.readFileSync(path.join(__dirname, '../../../../lsp/initialize.go'), 'utf8');
  const body = /type Settings struct \{([\s\S]*?)\n\}/.exec(src)![1];
  const goKeys = [...body.matchAll(/json:"(\w+)/g)].map((m) => m[1]).sort();
  const cfg = readConfig(getter({
    baseUrl: 'u', model: 'm', maxTurns: 1, maxToolCalls: 1, approvalTimeout: '1s',
    rewriteInstruction: 'r', actionMaxTurns: 1, actionAnyFile: true,
    permissions: { bash: { allow: ['make *'] } }, review: 'confirm',
  }));
  const ours = Object.keys(initializationOptions(cfg, { AGENT_LSP_API_KEY: 'k' }, undefined).agentLsp).sort();
  assert.deepEqual(ours, goKeys);
});

test('package.json declares every setting readConfig reads', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '../../package.json'), 'utf8'));
  const declared = new Set(Object.keys(pkg.contributes.configuration.properties));
  const read: string[] = [];
  readConfig(<T>(k: string, d: T) => { read.push('agentLsp.' + k); return d; });
  for (const k of read) assert.ok(declared.has(k), `${k} is not in package.json`);
  assert.ok(declared.has('agentLsp.trace.server'));
  for (const k of ['agentLsp.baseUrl', 'agentLsp.apiKeySource', 'agentLsp.apiKeyEnvVar', 'agentLsp.serverPath']) {
    assert.equal(pkg.contributes.configuration.properties[k].scope, 'machine', `${k} must be machine-scoped`);
  }
});

test('review: only "confirm" is sent ("off" is the server default, anything else is dropped)', () => {
  const sent = (v: unknown) => initializationOptions(readConfig(getter({ review: v })), {}, undefined).agentLsp.review;
  assert.equal(sent('confirm'), 'confirm');
  assert.equal(sent('off'), undefined);
  assert.equal(sent('yes'), undefined);
  assert.equal(sent(undefined), undefined);
});
