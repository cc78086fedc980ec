// mentions.ts finds what the prompt box's @-completion offers: files and
// folders of the workspace (by name) and symbols (the language servers'
// workspace symbols), as context items for agent/prompt.
import * as vscode from 'vscode';

export interface MentionItem {
  kind: 'file' | 'folder' | 'symbol';
  /** What the prompt shows after the @. */
  label: string;
  detail?: string;
  uri: string;
  range?: { start: { line: number; character: number }; end: { line: number; character: number } };
}

const exclude = '{**/node_modules/**,**/.git/**,**/out/**,**/dist/**}';

/** complete answers an @-query: at most 20 items, folders and files whose path contains the query, then symbols. */
export async function complete(query: string, kind?: string): Promise<MentionItem[]> {
  const q = query.toLowerCase();
  const out: MentionItem[] = [];
  if (kind !== 'symbol') {
    const files = await vscode.workspace.findFiles(q ? `**/*${globEscape(q)}*` : '**/*', exclude, 200);
    const more = q ? await vscode.workspace.findFiles(`**/*${globEscape(q)}*/**`, exclude, 200) : [];
    const folders = new Map<string, vscode.Uri>();
    for (const f of [...files, ...more]) {
      let dir = vscode.Uri.joinPath(f, '..');
      for (let i = 0; i < 8; i++) {
        const rel = vscode.workspace.asRelativePath(dir, false);
        if (!rel || rel === dir.fsPath || rel === '.') break;
        if (!q || rel.toLowerCase().includes(q)) folders.set(rel, dir);
        dir = vscode.Uri.joinPath(dir, '..');
      }
    }
    if (kind !== 'file') {
      for (const [rel, uri] of [...folders].sort((a, b) => a[0].length - b[0].length).slice(0, 5)) {
        out.push({ kind: 'folder', label: rel + '/', uri: uri.toString() });
      }
    }
    if (kind !== 'folder') {
      const rels = files.map((f) => ({ f, rel: vscode.workspace.asRelativePath(f, false) }))
        .filter((x) => !q || x.rel.toLowerCase().includes(q))
        .sort((a, b) => score(a.rel, q) - score(b.rel, q) || a.rel.localeCompare(b.rel));
      for (const { f, rel } of rels.slice(0, 15)) out.push({ kind: 'file', label: rel, uri: f.toString() });
    }
  }
  if (q && kind !== 'file' && kind !== 'folder') {
    const syms = (await vscode.commands.executeCommand<vscode.SymbolInformation[]>('vscode.executeWorkspaceSymbolProvider', query)) ?? [];
    for (const s of syms.slice(0, 10)) {
      const r = s.location.range;
      out.push({
        kind: 'symbol', label: s.name, detail: vscode.workspace.asRelativePath(s.location.uri, false) + ':' + (r.start.line + 1),
        uri: s.location.uri.toString(),
        range: { start: { line: r.start.line, character: r.start.character }, end: { line: r.end.line, character: r.end.character } },
      });
    }
  }
  return out.slice(0, 20);
}

/** score ranks a path: the base name starting with the query first, then shorter paths. */
function score(rel: string, q: string): number {
  const base = rel.slice(rel.lastIndexOf('/') + 1).toLowerCase();
  return (base.startsWith(q) ? 0 : base.includes(q) ? 1000 : 2000) + rel.length;
}

function globEscape(s: string): string {
  return s.replace(/[[\]{}*?!]/g, '');
}
