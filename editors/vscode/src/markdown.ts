// A small markdown renderer for the chat view. Everything is escaped first;
// only the tags made here reach the webview, no remote resource is ever
// referenced (images are shown as links' text), and links are plain
// http(s)/file targets the webview opens through the extension.

export function escapeHtml(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

const safeHref = /^(https?:|file:|mailto:)/i;

/** inline renders code spans, bold, italic and links of one line (escaped input expected raw). */
export function inline(src: string): string {
  const out: string[] = [];
  // Split out code spans first so their content is not formatted.
  const parts = src.split(/(`+[^`]*?`+)/);
  for (const part of parts) {
    const m = /^(`+)([^`]*?)\1$/.exec(part);
    if (m && part.length >= 2) {
      out.push(`<code>${escapeHtml(m[2])}</code>`);
      continue;
    }
    let h = escapeHtml(part);
    // Images: never load; show the alt text as a link.
    h = h.replace(/!\[([^\]]*)\]\(([^)\s]+)\)/g, (_a, alt: string, url: string) => link(alt || url, url));
    h = h.replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (_a, text: string, url: string) => link(text, url));
    h = h.replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>');
    h = h.replace(/__([^_]+)__/g, '<strong>$1</strong>');
    h = h.replace(/(^|[^*\w])\*([^*\s][^*]*?)\*(?!\w)/g, '$1<em>$2</em>');
    h = h.replace(/(^|[^_\w])_([^_\s][^_]*?)_(?!\w)/g, '$1<em>$2</em>');
    h = h.replace(/~~([^~]+)~~/g, '<del>$1</del>');
    out.push(h);
  }
  return out.join('');
}

function link(text: string, escapedUrl: string): string {
  // escapedUrl is already HTML-escaped; decode &amp; only to test the scheme.
  const raw = escapedUrl.replace(/&amp;/g, '&');
  if (!safeHref.test(raw)) return text;
  return `<a href="${escapedUrl}" title="${escapedUrl}">${text}</a>`;
}

/** renderMarkdown turns markdown into safe HTML. An unclosed fence (still streaming) renders as code. */
export function renderMarkdown(md: string): string {
  const lines = md.replace(/\r\n?/g, '\n').split('\n');
  const html: string[] = [];
  let para: string[] = [];
  let list: { tag: 'ul' | 'ol'; items: string[] } | undefined;
  const flushPara = () => {
    if (para.length) html.push(`<p>${para.map(inline).join('<br>')}</p>`);
    para = [];
  };
  const flushList = () => {
    if (list) html.push(`<${list.tag}>${list.items.map((i) => `<li>${i}</li>`).join('')}</${list.tag}>`);
    list = undefined;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const fence = /^\s*(```+|~~~+)\s*([\w+#.-]*)/.exec(line);
    if (fence) {
      flushPara();
      flushList();
      const code: string[] = [];
      i++;
      while (i < lines.length && !lines[i].trim().startsWith(fence[1])) code.push(lines[i++]);
      const lang = fence[2] ? ` class="language-${escapeHtml(fence[2])}"` : '';
      html.push(`<pre><code${lang}>${escapeHtml(code.join('\n'))}</code></pre>`);
      continue;
    }
    if (line.trim() === '') {
      flushPara();
      flushList();
      continue;
    }
    const h = /^(#{1,6})\s+(.*)$/.exec(line);
    if (h) {
      flushPara();
      flushList();
      const n = h[1].length;
      html.push(`<h${n}>${inline(h[2])}</h${n}>`);
      continue;
    }
    if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) {
      flushPara();
      flushList();
      html.push('<hr>');
      continue;
    }
    const q = /^>\s?(.*)$/.exec(line);
    if (q) {
      flushPara();
      flushList();
      html.push(`<blockquote>${inline(q[1])}</blockquote>`);
      continue;
    }
    const li = /^\s*([-*+]|\d+[.)])\s+(.*)$/.exec(line);
    if (li) {
      flushPara();
      const tag = /\d/.test(li[1]) ? 'ol' : 'ul';
      if (list && list.tag !== tag) flushList();
      if (!list) list = { tag, items: [] };
      const task = /^\[( |x|X)\]\s+(.*)$/.exec(li[2]);
      list.items.push(task ? `${task[1] === ' ' ? '☐' : '☑'} ${inline(task[2])}` : inline(li[2]));
      continue;
    }
    if (list && /^\s{2,}\S/.test(line)) {
      list.items[list.items.length - 1] += ' ' + inline(line.trim());
      continue;
    }
    flushList();
    para.push(line);
  }
  flushPara();
  flushList();
  return html.join('\n');
}
