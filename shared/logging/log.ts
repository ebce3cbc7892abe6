/** The product's log: one line per entry on stderr, `handoff: ...`. */
export interface Log {
  /** Diagnostics: written only when HANDOFF_DEBUG is set. */
  debug(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export interface LogOptions {
  /** Where a line goes; stderr unless a test or host says otherwise. */
  write?: (line: string) => void;
  /** Whether debug lines are written; read at each entry, so setting HANDOFF_DEBUG later works. */
  debug?: () => boolean;
}

/** A log that writes each entry as one line (line breaks inside a message are flattened). */
export function createLog(options: LogOptions = {}): Log {
  const write = options.write ?? ((line: string) => process.stderr.write(`${line}\n`));
  const debugOn = options.debug ?? (() => Boolean(process.env.HANDOFF_DEBUG));
  const line = (level: string, message: string) =>
    write(`handoff: ${level}${message.replace(/\s*\n\s*/g, ' ')}`);
  return {
    debug: (message) => {
      if (debugOn()) line('debug: ', message);
    },
    warn: (message) => line('', message),
    error: (message) => line('', message),
  };
}

/** The process's log. */
export const log: Log = createLog();
