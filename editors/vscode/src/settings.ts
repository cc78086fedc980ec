// Settings: the agentLsp.* configuration turned into the server's
// initializationOptions (lsp/initialize.go Settings). Pure, so it is unit
// tested without VS Code.

/** Reads one agentLsp.* setting (the key without the prefix). */
export type Getter = <T>(key: string, fallback: T) => T;

export type KeySource = 'env' | 'secretStorage' | 'none';

/** The server's settings object; keys match lsp/initialize.go. */
export interface ServerSettings {
  baseUrl?: string;
  model?: string;
  apiKey?: string;
  maxTurns?: number;
  maxToolCalls?: number;
  approvalTimeout?: string;
  rewriteInstruction?: string;
  actionMaxTurns?: number;
  actionAnyFile?: boolean;
  permissions?: Record<string, unknown>;
  /** "confirm": every agent edit is confirmed in VS Code's refactor preview. */
  review?: 'confirm' | 'off';
}

export interface Config {
  serverPath: string;
  keySource: KeySource;
  keyEnvVar: string;
  server: ServerSettings;
}

export const SecretKey = 'agentLsp.apiKey';
const durationRe = /^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$/;

/** readConfig reads the settings; empty strings and zeros mean "server default" and are left out. */
export function readConfig(get: Getter): Config {
  const server: ServerSettings = {};
  const str = (k: keyof ServerSettings) => {
    const v = get<string>(k, '');
    if (typeof v === 'string' && v.trim() !== '') (server as Record<string, unknown>)[k] = v.trim();
  };
  const int = (k: keyof ServerSettings) => {
    const v = get<number>(k, 0);
    if (typeof v === 'number' && Number.isInteger(v) && v > 0) (server as Record<string, unknown>)[k] = v;
  };
  str('baseUrl');
  str('model');
  int('maxTurns');
  int('maxToolCalls');
  const t = get<string>('approvalTimeout', '').trim();
  if (t !== '' && durationRe.test(t)) server.approvalTimeout = t;
  str('rewriteInstruction');
  int('actionMaxTurns');
  if (get<boolean>('actionAnyFile', false) === true) server.actionAnyFile = true;
  const perms = get<Record<string, unknown> | null>('permissions', {});
  if (perms && typeof perms === 'object' && !Array.isArray(perms) && Object.keys(perms).length > 0) {
    server.permissions = perms;
  }
  // "off" is the server's default: it is sent only to turn review on.
  if (get<string>('review', 'off') === 'confirm') server.review = 'confirm';
  let keySource = get<string>('apiKeySource', 'env') as KeySource;
  if (!['env', 'secretStorage', 'none'].includes(keySource)) keySource = 'env';
  const serverPath = get<string>('serverPath', 'agent-lsp').trim() || 'agent-lsp';
  const keyEnvVar = get<string>('apiKeyEnvVar', 'AGENT_LSP_API_KEY').trim() || 'AGENT_LSP_API_KEY';
  return { serverPath, keySource, keyEnvVar, server };
}

/**
 * initializationOptions builds what the server receives, adding the API key
 * from its source. The key never comes from a plain setting.
 */
export function initializationOptions(
  cfg: Config,
  env: Record<string, string | undefined>,
  secret: string | undefined,
): { agentLsp: ServerSettings } {
  const s: ServerSettings = { ...cfg.server };
  let key: string | undefined;
  if (cfg.keySource === 'env') key = env[cfg.keyEnvVar];
  else if (cfg.keySource === 'secretStorage') key = secret;
  if (key && key.trim() !== '') s.apiKey = key.trim();
  return { agentLsp: s };
}

/** Settings whose change needs the server restarted (the rest go through didChangeConfiguration). */
export const restartKeys = ['agentLsp.serverPath', 'agentLsp.trace.server'];

/** Settings that change the model list (the endpoint, its key, the default model). */
export const modelKeys = ['agentLsp.baseUrl', 'agentLsp.model', 'agentLsp.apiKeySource', 'agentLsp.apiKeyEnvVar'];
