// which finds the server binary the way the language client will start it,
// so a missing binary gets a clear message instead of a stack trace.
import * as fs from 'fs';
import * as path from 'path';

export interface WhichDeps {
  isExecutable(p: string): boolean;
  env: Record<string, string | undefined>;
  platform: NodeJS.Platform;
}

export const nodeDeps: WhichDeps = {
  isExecutable(p: string): boolean {
    try {
      const st = fs.statSync(p);
      if (!st.isFile()) return false;
      if (process.platform === 'win32') return true;
      fs.accessSync(p, fs.constants.X_OK);
      return true;
    } catch {
      return false;
    }
  },
  env: process.env,
  platform: process.platform,
};

/** which returns the absolute path of cmd, or undefined when it cannot be run. */
export function which(cmd: string, deps: WhichDeps = nodeDeps): string | undefined {
  const win = deps.platform === 'win32';
  const sep = win ? ';' : ':';
  const exts = win ? (deps.env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';').concat(['']) : [''];
  const p = win ? path.win32 : path.posix;
  if (cmd.includes('/') || (win && cmd.includes('\\'))) {
    if (cmd.startsWith('~/') && deps.env.HOME) cmd = p.join(deps.env.HOME, cmd.slice(2));
    for (const e of exts) if (deps.isExecutable(cmd + e)) return cmd + e;
    return undefined;
  }
  for (const dir of (deps.env.PATH ?? '').split(sep)) {
    if (!dir) continue;
    for (const e of exts) {
      const full = p.join(dir, cmd + e);
      if (deps.isExecutable(full)) return full;
    }
  }
  return undefined;
}

/** missingMessage is what the user reads when the binary is not found, with the fix. */
export function missingMessage(serverPath: string): string {
  return serverPath.includes('/') || serverPath.includes('\\')
    ? `agent-lsp: the server binary "${serverPath}" (setting agentLsp.serverPath) does not exist or is not executable. ` +
        'Build it with `go build -o agent-lsp ./cmd/agent-lsp` in the agent-lsp repository, or fix the setting.'
    : `agent-lsp: "${serverPath}" was not found on PATH. ` +
        'Install it with `go install github.com/agent-lsp/agent-lsp/cmd/agent-lsp@latest` (and put $(go env GOPATH)/bin on PATH), ' +
        'or set agentLsp.serverPath to the binary\'s full path.';
}
