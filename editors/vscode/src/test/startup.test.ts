import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { RestoreOutcome, Startup } from '../startup';

interface Client { name: string }

/** A chat view stand-in: what was asked of which client, with answers the test releases. */
function fake(outcome: (c: Client) => RestoreOutcome | Error = () => 'done') {
  const calls: string[] = [];
  const pending: (() => void)[] = [];
  let applied = 0;
  let hold = false;
  const startup = new Startup<Client>({
    async restore(c, current) {
      calls.push('restore ' + c.name);
      if (hold) await new Promise<void>((r) => pending.push(r));
      const o = outcome(c);
      if (o instanceof Error) throw o;
      if (o === 'done' && current()) applied++;
      return o;
    },
    async loadModels(c) {
      calls.push('models ' + c.name);
    },
  });
  return {
    startup, calls,
    applied: () => applied,
    hold: (h: boolean) => (hold = h),
    release: async () => {
      for (const r of pending.splice(0)) r();
      await new Promise((r) => setImmediate(r));
    },
  };
}

test('a server running when the view is drawn: restore and models once', async () => {
  const f = fake();
  const a = { name: 'a' };
  await f.startup.started(a); // activation, before the view
  assert.deepEqual(f.calls, []);
  await f.startup.ready(a);
  await f.startup.ready(a); // the webview drawn again
  assert.deepEqual(f.calls, ['models a', 'restore a']);
  assert.equal(f.applied(), 1);
  assert.equal(f.startup.restorePending, false);
});

test('no server when the view is drawn: nothing is marked done; the late start restores and lists the models', async () => {
  const f = fake();
  await f.startup.ready(undefined); // the binary was not found
  assert.deepEqual(f.calls, []);
  assert.equal(f.startup.restorePending, true);
  const a = { name: 'a' };
  await f.startup.started(a); // the setting arrived: onDidChangeConfiguration restarted it
  assert.deepEqual(f.calls, ['models a', 'restore a']);
  assert.equal(f.applied(), 1);
  // A later restart lists the models again but restores nothing twice.
  const b = { name: 'b' };
  await f.startup.started(b);
  assert.deepEqual(f.calls, ['models a', 'restore a', 'models b']);
  assert.equal(f.applied(), 1);
});

test('the start a ready triggers reports first, then ready gets the same client: the work is done once', async () => {
  const f = fake();
  await f.startup.ready(undefined); // the view was drawn with no server
  f.hold(true);
  const b = { name: 'b' };
  const p1 = f.startup.started(b); // Retry: the start reports ...
  const p2 = f.startup.ready(b); // ... and the view, drawn again, gets the same client
  f.hold(false);
  await f.release();
  await Promise.all([p1, p2]);
  assert.deepEqual(f.calls, ['models b', 'restore b']);
  assert.equal(f.applied(), 1);
});

test('a concurrent start while restoring does not restore twice', async () => {
  const f = fake();
  f.hold(true);
  await f.startup.ready(undefined);
  const a = { name: 'a' };
  const p = f.startup.started(a);
  const q = f.startup.started(a);
  await f.release();
  await Promise.all([p, q]);
  assert.deepEqual(f.calls, ['models a', 'restore a']);
  assert.equal(f.applied(), 1);
});

test('the user\'s own chat meanwhile: the restore is dropped and never tried again', async () => {
  const f = fake();
  f.hold(true);
  await f.startup.ready(undefined);
  const p = f.startup.started({ name: 'a' });
  f.startup.settle(); // New chat, a prompt, a session opened from the history
  await f.release();
  await p;
  assert.equal(f.applied(), 0);
  f.hold(false);
  await f.startup.started({ name: 'b' });
  assert.deepEqual(f.calls, ['models a', 'restore a', 'models b']);
  assert.equal(f.startup.restorePending, false);
});

test('settled before any server: no restore at all, the models still load', async () => {
  const f = fake();
  await f.startup.ready(undefined);
  f.startup.settle();
  await f.startup.started({ name: 'a' });
  assert.deepEqual(f.calls, ['models a']);
});

test('the client went away while restoring: the next one restores', async () => {
  const gone = new Set(['a']);
  const f = fake((c) => (gone.has(c.name) ? 'retry' : 'done'));
  await f.startup.ready({ name: 'a' });
  assert.equal(f.startup.restorePending, true);
  await f.startup.started({ name: 'b' });
  assert.deepEqual(f.calls, ['models a', 'restore a', 'models b', 'restore b']);
  assert.equal(f.applied(), 1);
  assert.equal(f.startup.restorePending, false);
});

test('a newer client that started during a failed restore is tried at once', async () => {
  const f = fake((c) => (c.name === 'a' ? new Error('connection closed') : 'done'));
  f.hold(true);
  const a = { name: 'a' };
  const b = { name: 'b' };
  await f.startup.started(a);
  const p = f.startup.ready(a);
  const q = f.startup.started(b); // restore of a still under way: b waits for its outcome
  f.hold(false);
  await f.release();
  await Promise.all([p, q]);
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(f.calls, ['models a', 'restore a', 'models b', 'restore b']);
  assert.equal(f.applied(), 1);
});

test('endpoint settings changed on a running client: the models again, no second restore', async () => {
  const f = fake();
  const a = { name: 'a' };
  await f.startup.reloadModels(a); // before the view: nothing to draw them in
  assert.deepEqual(f.calls, []);
  await f.startup.ready(a);
  await f.startup.reloadModels(a); // agentLsp.baseUrl arrived late, pushed to the server
  assert.deepEqual(f.calls, ['models a', 'restore a', 'models a']);
  assert.equal(f.applied(), 1);
});
