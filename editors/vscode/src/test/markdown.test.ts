import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { escapeHtml, inline, renderMarkdown } from '../markdown';

test('escapes html everywhere', () => {
  assert.equal(escapeHtml(`<a href="x">'&'</a>`), '&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  const h = renderMarkdown('<script>alert(1)</script>\n\n**<img src=x onerror=alert(1)>**');
  assert.ok(!h.includes('<script'), h);
  assert.ok(!h.includes('<img'), h);
  assert.ok(h.includes('&lt;script&gt;'));
});

const cases: Array<[string, string, string]> = [
  ['paragraph', 'Hello *world*', '<p>Hello <em>world</em></p>'],
  ['bold and code', '**a** `b<c>`', '<p><strong>a</strong> <code>b&lt;c&gt;</code></p>'],
  ['code keeps stars', '`a*b*c`', '<p><code>a*b*c</code></p>'],
  ['snake_case is not italic', 'use foo_bar_baz', '<p>use foo_bar_baz</p>'],
  ['heading', '## Plan', '<h2>Plan</h2>'],
  ['list', '- one\n- two', '<ul><li>one</li><li>two</li></ul>'],
  ['ordered', '1. a\n2. b', '<ol><li>a</li><li>b</li></ol>'],
  ['fence', '```go\nx := 1 < 2\n```', '<pre><code class="language-go">x := 1 &lt; 2</code></pre>'],
  ['unclosed fence while streaming', 'see:\n```\nfoo', '<p>see:</p>\n<pre><code>foo</code></pre>'],
  ['link', '[docs](https://example.com/a?b=1&c=2)', '<p><a href="https://example.com/a?b=1&amp;c=2" title="https://example.com/a?b=1&amp;c=2">docs</a></p>'],
  ['javascript link is text', '[x](javascript:alert(1))', '<p>x)</p>'],
  ['image is never loaded', '![logo](https://cdn.example/x.png)', '<p><a href="https://cdn.example/x.png" title="https://cdn.example/x.png">logo</a></p>'],
  ['line breaks in a paragraph', 'a\nb', '<p>a<br>b</p>'],
  ['quote', '> note', '<blockquote>note</blockquote>'],
];
for (const [name, md, want] of cases) {
  test(`markdown: ${name}`, () => assert.equal(renderMarkdown(md), want));
}

test('inline attribute injection is escaped', () => {
  const h = inline('[a](https://x.com/"onmouseover="alert(1))');
  assert.ok(!/"onmouseover=/.test(h), h);
});
