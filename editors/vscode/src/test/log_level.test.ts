import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { levelOf, logLine } from '../log_level';

test('slog levels are read; other lines are raw', () => {
  assert.equal(levelOf('time=2026 level=DEBUG msg="Permission allow"'), 'debug');
  assert.equal(levelOf('time=2026 level=INFO msg=Configuration'), 'info');
  assert.equal(levelOf('time=2026 level=WARN msg=x'), 'warn');
  assert.equal(levelOf('time=2026 level=ERROR msg=x'), 'error');
  assert.equal(levelOf('panic: runtime error'), 'raw');
  assert.equal(levelOf('msg="the level=INFOx is not a level"'), 'raw');
});

test('only debug and raw lines are written from stderr, at their level', () => {
  const got: string[] = [];
  const out = {
    trace: (m: string) => got.push('trace ' + m), debug: (m: string) => got.push('debug ' + m), info: (m: string) => got.push('info ' + m),
    warn: (m: string) => got.push('warn ' + m), error: (m: string) => got.push('error ' + m),
  };
  for (const l of ['level=DEBUG msg=a', 'level=INFO msg=b', 'level=WARN msg=c', 'panic: d', '']) logLine(out, l);
  assert.deepEqual(got, ['debug level=DEBUG msg=a', 'error panic: d']);
});
