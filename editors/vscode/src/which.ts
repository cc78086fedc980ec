// which finds the server binary the way the language client will start it,
// so a missing binary gets a clear message instead of a stack trace. When
// the editor's PATH lacks it (code-server, a GUI login shell), the usual
// install places are tried too, and a binary bundled in a platform build of
// the extension (bin/agent-lsp) comes first.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

export interface WhichDeps {
  isExecutable(p: string): boolean;
  env: Record<string, string | undefined>;
  platform: NodeJS.Platform;
  home?: string;
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
  home: os.homedir(),
};

/** usualDirs are where `go install`, pipx-style installs and packages put binaries. */
export function usualDirs(deps: WhichDeps): string[] {
  const home = deps.env.HOME || deps.home;
  const gopath = deps.env.GOPATH?.split(deps.platform === 'win32' ? ';' : ':')[0];
  const out: string[] = [];
  if (deps.env.GOBIN) out.push(deps.env.GOBIN);
  if (gopath) out.push(path.join(gopath, 'bin'));
  if (home) out.push(path.join(home, 'go', 'bin'), path.join(home, '.local', 'bin'));
  if (deps.platform !== 'win32') out.push('/usr/local/bin', '/opt/homebrew/bin');
  return out;
}

/** which returns the absolute path of cmd, or undefined when it cannot be run. */
export function which(cmd: string, deps: WhichDeps = nodeDeps, bundled?: string): string | undefined {
  const win = deps.platform === 'win32';
  const sep = win ? ';' : ':';
  const exts = win ? (deps.env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';').concat(['']) : [''];
  const p = win ? path.win32 : path.posix;
  if (cmd.includes('/') || (win && cmd.includes('\\'))) {
    if (cmd.startsWith('~/') && (deps.env.HOME || deps.home)) cmd = p.join((deps.env.HOME || deps.home) as string, cmd.slice(2));
    for (const e of exts) if (deps.isExecutable(cmd + e)) return cmd + e;
    return undefined;
  }
  const dirs = (deps.env.PATH ?? '').split(sep).filter(Boolean);
  if (cmd === 'agent-lsp' && bundled && deps.isExecutable(bundled)) return bundled;
  for (const dir of [...dirs, ...(cmd === 'agent-lsp' ? usualDirs(deps) : [])]) {
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
        'Build it with `CGO_ENABLED=0 go build -o agent-lsp ./cmd/agent-lsp` in the agent-lsp repository, or fix the setting.'
    : `agent-lsp: "${serverPath}" was not found on PATH, in ~/go/bin, ~/.local/bin or /usr/local/bin. ` +
        'Install it with `go install github.com/agent-lsp/agent-lsp/cmd/agent-lsp@latest`, ' +
        'or set agentLsp.serverPath to the binary\'s full path.';
}
