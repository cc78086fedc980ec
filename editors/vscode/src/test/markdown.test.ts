import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { escapeHtml, parsePathRef, renderMarkdown } from '../markdown';

test('escapes html everywhere', () => {
  assert.equal(escapeHtml(`<a href="x">'&'</a>`), '&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  const h = renderMarkdown('<script>alert(1)</script>\n\n**<img src=x onerror=alert(1)>**');
  assert.ok(!h.includes('<script'), h);
  assert.ok(!h.includes('<img'), h);
  assert.ok(h.includes('&lt;script&gt;'));
});

const cases: Array<[string, string, string]> = [
  ['paragraph', 'Hello *world*', '<p>Hello <em>world</em></p>\n'],
  ['bold around a code span', '**`x`**', '<p><strong><code>x</code></strong></p>\n'],
  ['code keeps stars', '`a*b*c`', '<p><code>a*b*c</code></p>\n'],
  ['snake_case is not italic', 'use foo_bar_baz', '<p>use foo_bar_baz</p>\n'],
  ['heading', '## Plan', '<h2>Plan</h2>\n'],
  ['javascript link is text', '[x](javascript:alert(1))', '<p>[x](javascript:alert(1))</p>\n'],
  ['image is never loaded', '![logo](https://cdn.example/x.png)', '<p><a href="https://cdn.example/x.png" title="https://cdn.example/x.png">logo</a></p>\n'],
];
for (const [name, md, want] of cases) {
  test(`markdown: ${name}`, () => assert.equal(renderMarkdown(md), want));
}

test('tables render as tables', () => {
  const h = renderMarkdown('| a | b |\n|---|---|\n| 1 | 2 |');
  assert.ok(h.includes('<table>') && h.includes('<th>a</th>') && h.includes('<td>2</td>'), h);
  assert.ok(!h.includes('|'), h);
});

test('code blocks are highlighted and carry Copy and Insert', () => {
  const h = renderMarkdown('```go\nfunc main() { x := "s" }\n```');
  assert.ok(h.includes('class="hljs language-go"'), h);
  assert.ok(h.includes('<span class="hljs-keyword">func</span>'), h);
  assert.ok(h.includes('data-action="copy"') && h.includes('data-action="insert"'), h);
  // An unknown language is escaped, not highlighted; an unclosed fence (streaming) is still code.
  const u = renderMarkdown('```nolang\n<b>\n```');
  assert.ok(u.includes('&lt;b&gt;') && !u.includes('<b>'), u);
  assert.ok(renderMarkdown('see:\n```\nfoo').includes('<code class="hljs">foo</code>'));
});

test('path:line references become links; plain words do not', () => {
  const h = renderMarkdown('The bug is in src/main.go:12 and `lib/a.ts:3:5`, not in v1.2 or 10:30.');
  assert.ok(h.includes('<a class="path-ref" href="src/main.go:12"'), h);
  assert.ok(h.includes('<a class="path-ref" href="lib/a.ts:3:5" title="Open lib/a.ts:3:5"><code>lib/a.ts:3:5</code></a>'), h);
  assert.ok(!h.includes('href="10:30"') && !h.includes('v1.2</a>'), h);
  // Inside a link the text stays the link's.
  const l = renderMarkdown('[see a.go:3](https://x.dev/a)');
  assert.equal((l.match(/<a /g) ?? []).length, 1, l);
  assert.deepEqual(parsePathRef('src/main.go:12'), { path: 'src/main.go', line: 12, column: undefined });
  assert.deepEqual(parsePathRef('a.ts:3:7'), { path: 'a.ts', line: 3, column: 7 });
  assert.equal(parsePathRef('nope'), undefined);
});

test('relative links are kept for the extension to open; attributes are escaped', () => {
  const h = renderMarkdown('[main](src/main.go) [x](https://x.com/"onmouseover="alert(1))');
  assert.ok(h.includes('href="src/main.go"'), h);
  assert.ok(!/"onmouseover=/.test(h), h);
});
