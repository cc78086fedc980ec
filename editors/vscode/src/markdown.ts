// The chat's markdown renderer: markdown-it (CommonMark with tables and
// strikethrough) and highlight.js for code, run in the extension host, so
// the webview only receives finished, safe HTML. Raw HTML in the model's
// answer is escaped, images become links (no remote resource is ever
// loaded; the webview's CSP forbids them anyway), links are http(s),
// mailto, file or workspace-relative paths the extension opens, and
// `path:line` references become links to the file.
import MarkdownIt = require('markdown-it');
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import c from 'highlight.js/lib/languages/c';
import cpp from 'highlight.js/lib/languages/cpp';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import dockerfile from 'highlight.js/lib/languages/dockerfile';
import go from 'highlight.js/lib/languages/go';
import ini from 'highlight.js/lib/languages/ini';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import lua from 'highlight.js/lib/languages/lua';
import makefile from 'highlight.js/lib/languages/makefile';
import markdownLang from 'highlight.js/lib/languages/markdown';
import python from 'highlight.js/lib/languages/python';
import rust from 'highlight.js/lib/languages/rust';
import shell from 'highlight.js/lib/languages/shell';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';

const languages: Record<string, Parameters<typeof hljs.registerLanguage>[1]> = {
  bash, c, cpp, css, diff, dockerfile, go, ini, java, javascript, json, lua, makefile,
  markdown: markdownLang, python, rust, shell, sql, typescript, xml, yaml,
};
for (const [name, lang] of Object.entries(languages)) hljs.registerLanguage(name, lang);
hljs.registerAliases(['sh', 'zsh', 'console'], { languageName: 'bash' });
hljs.registerAliases(['toml'], { languageName: 'ini' });
hljs.registerAliases(['html', 'svg'], { languageName: 'xml' });

export function escapeHtml(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** A file reference: a path with an extension and a line, optionally a column ("src/main.go:12", "a.ts:3:7"). */
export const pathLineRe = /(?<![\w/.:-])((?:\.{0,2}\/)?(?:[\w@.+-]+\/)*[\w@+-][\w@.+-]*\.[A-Za-z0-9]+):(\d+)(?::(\d+))?(?![\w/])/g;

const safeScheme = /^(https?:|mailto:|file:)/i;

const md = new MarkdownIt({
  html: false,
  linkify: false,
  breaks: false,
  highlight: (code, lang) => {
    const l = lang.trim().toLowerCase();
    if (l && hljs.getLanguage(l)) {
      try {
        return hljs.highlight(code, { language: l, ignoreIllegals: true }).value;
      } catch {
        // fall through: plain, escaped
      }
    }
    return escapeHtml(code);
  },
});

// Links: the schemes above, and relative paths (opened in the workspace).
md.validateLink = (url: string) => safeScheme.test(url) || !/^[a-z][a-z0-9+.-]*:/i.test(url.trim());

const rules = md.renderer.rules;
rules.fence = (tokens, idx, options) => {
  const t = tokens[idx];
  const lang = t.info.trim().split(/\s+/)[0] ?? '';
  const body = options.highlight ? options.highlight(t.content, lang, '') : escapeHtml(t.content);
  const cls = lang ? ` class="hljs language-${escapeHtml(lang)}"` : ' class="hljs"';
  return `<div class="code-block">` +
    `<div class="code-actions">${lang ? `<span class="code-lang">${escapeHtml(lang)}</span>` : ''}` +
    `<button type="button" class="code-action" data-action="copy" title="Copy">Copy</button>` +
    `<button type="button" class="code-action" data-action="insert" title="Insert at the cursor in the editor">Insert at cursor</button></div>` +
    `<pre><code${cls}>${body}</code></pre></div>\n`;
};
rules.code_block = rules.fence;
rules.image = (tokens, idx) => {
  // Never load an image: show its text as a link.
  const t = tokens[idx];
  const src = String(t.attrGet('src') ?? '');
  const alt = String(t.content || src);
  return safeScheme.test(src) ? `<a href="${escapeHtml(src)}" title="${escapeHtml(src)}">${escapeHtml(alt)}</a>` : escapeHtml(alt);
};
rules.code_inline = (tokens, idx) => {
  const code = tokens[idx].content;
  const m = new RegExp(`^${pathLineRe.source}$`).exec(code);
  const inner = `<code>${escapeHtml(code)}</code>`;
  return m ? `<a class="path-ref" href="${escapeHtml(code)}" title="Open ${escapeHtml(code)}">${inner}</a>` : inner;
};
rules.text = (tokens, idx) => linkPaths(escapeHtml(tokens[idx].content));

let linkDepth = 0;
const openLink = rules.link_open;
rules.link_open = (tokens, idx, options, env, self) => {
  linkDepth++;
  return openLink ? openLink(tokens, idx, options, env, self) : self.renderToken(tokens, idx, options);
};
const closeLink = rules.link_close;
rules.link_close = (tokens, idx, options, env, self) => {
  linkDepth--;
  return closeLink ? closeLink(tokens, idx, options, env, self) : self.renderToken(tokens, idx, options);
};

/** linkPaths turns path:line references of escaped text into links (not inside a link already). */
function linkPaths(escaped: string): string {
  if (linkDepth > 0) return escaped;
  return escaped.replace(pathLineRe, (ref: string) => `<a class="path-ref" href="${ref}" title="Open ${ref}">${ref}</a>`);
}

/** renderMarkdown turns markdown into safe HTML. An unclosed fence (still streaming) renders as code. */
export function renderMarkdown(src: string): string {
  linkDepth = 0;
  return md.render(src);
}

/** parsePathRef splits "src/a.go:12:3" into its path, line and column (1-based), or undefined. */
export function parsePathRef(ref: string): { path: string; line: number; column?: number } | undefined {
  const m = new RegExp(`^${pathLineRe.source}$`).exec(ref);
  if (!m) return undefined;
  return { path: m[1], line: Number(m[2]), column: m[3] ? Number(m[3]) : undefined };
}
