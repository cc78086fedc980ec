// The chat view's page: no remote resource, a CSP that allows this
// extension's stylesheets and its nonce'd scripts only.
import * as crypto from 'crypto';
import * as vscode from 'vscode';

export function chatHtml(w: vscode.Webview, media: vscode.Uri): string {
  const nonce = crypto.randomBytes(16).toString('base64');
  const css = w.asWebviewUri(vscode.Uri.joinPath(media, 'chat.css'));
  const js = w.asWebviewUri(vscode.Uri.joinPath(media, 'chat.js'));
  // The turns' changes blocks (changes.js defines window.agentLspChanges, which chat.js calls).
  const changesJs = w.asWebviewUri(vscode.Uri.joinPath(media, 'changes.js'));
  const changesCss = w.asWebviewUri(vscode.Uri.joinPath(media, 'changes.css'));
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src ${w.cspSource}; script-src 'nonce-${nonce}'; img-src ${w.cspSource}; font-src ${w.cspSource};">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${css}"><link rel="stylesheet" href="${changesCss}"><title>Agent</title></head>
<body>
<header id="header">
  <label class="model-label" for="model">Model</label>
  <select id="model" title="The model of the next prompt (remembered for this workspace)" aria-label="Model"></select>
  <span id="gauge" class="gauge" hidden><span class="gauge-bar"><span id="gauge-fill"></span></span><span id="gauge-label"></span></span>
  <button type="button" id="history" class="icon" title="Chat history">History</button>
</header>
<div id="todos" hidden></div>
<div id="log" role="log" aria-live="polite"></div>
<div id="empty" class="empty">Ask the agent about your code. The current file and selection go with the prompt; type @ to add files, folders or symbols.</div>
<form id="form">
  <div id="chips" class="chips"></div>
  <div class="prompt-wrap">
    <textarea id="prompt" rows="3" placeholder="Ask the agent… (Enter to send, Shift+Enter for a new line, @ to mention)" aria-label="Prompt"></textarea>
    <ul id="complete" class="complete" role="listbox" hidden></ul>
  </div>
  <div class="bar">
    <span id="status" class="status"></span>
    <span id="usage" class="usage"></span>
    <button type="button" id="new" class="secondary" title="New chat">New chat</button>
    <button type="button" id="stop" class="secondary" title="Stop the agent" hidden>Stop</button>
    <button type="submit" id="send" title="Send (Enter)">Send</button>
  </div>
</form>
<script nonce="${nonce}" src="${changesJs}"></script>
<script nonce="${nonce}" src="${js}"></script>
</body></html>`;
}
