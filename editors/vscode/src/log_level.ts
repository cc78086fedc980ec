// log_level maps the server's stderr lines (log/slog's text format,
// "time=… level=INFO msg=…") to the output channel's levels. Lines at INFO
// and above also arrive as window/logMessage, which the language client
// writes at their level: those are not written twice.

/** The part of a LogOutputChannel this uses. */
export interface LevelLog {
  trace(m: string): void;
  debug(m: string): void;
  info(m: string): void;
  warn(m: string): void;
  error(m: string): void;
}

export type Level = 'debug' | 'info' | 'warn' | 'error' | 'raw';

/** levelOf reads slog's level from a line; lines without one (a panic, a Go runtime message) are 'raw'. */
export function levelOf(line: string): Level {
  const m = /(?:^|\s)level=(DEBUG|INFO|WARN|ERROR)(?:[+-]\d+)?(?:\s|$)/.exec(line);
  if (!m) return 'raw';
  return m[1].toLowerCase() as Level;
}

/** logLine writes one stderr line at its level; INFO and above are skipped (window/logMessage has them). */
export function logLine(out: LevelLog, line: string): void {
  if (!line.trim()) return;
  switch (levelOf(line)) {
    case 'debug':
      out.debug(line);
      break;
    case 'raw':
      // Not a log record: a crash or the runtime speaking; show it plainly.
      out.error(line);
      break;
    default:
      break;
  }
}
