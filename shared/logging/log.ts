/**
 * The product's log. Locally one human-readable line per entry on stderr, `handoff: ...`;
 * on Lambda a host installs a structured sink (shared/aws/observability.ts) and the same
 * entries become JSON with the ids below as keys.
 */

/** The ids an entry is about; a structured sink writes each as its own key. */
export interface LogFields {
  run_id?: string;
  workflow_id?: string;
  decision_id?: string;
}

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface Log {
  /** Diagnostics: written only when HANDOFF_DEBUG is set. */
  debug(message: string, fields?: LogFields): void;
  /** What a host reports about each invocation (a Lambda step's outcome); the CLI does not use it. */
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

/** Where entries go instead of the human-readable line (a host's structured logger). */
export type LogSink = (level: LogLevel, message: string, fields: LogFields) => void;

export interface LogOptions {
  /** Where a line goes; stderr unless a test or host says otherwise. */
  write?: (line: string) => void;
  /** Whether debug lines are written; read at each entry, so setting HANDOFF_DEBUG later works. */
  debug?: () => boolean;
  /** The structured sink, read at each entry; when it returns one, lines are not written. */
  sink?: () => LogSink | undefined;
}

/** A log that writes each entry as one line (line breaks inside a message are flattened). */
export function createLog(options: LogOptions = {}): Log {
  const write = options.write ?? ((line: string) => process.stderr.write(`${line}\n`));
  const debugOn = options.debug ?? (() => Boolean(process.env.HANDOFF_DEBUG));
  const sinkOf = options.sink ?? (() => undefined);
  const entry = (level: LogLevel, message: string, fields: LogFields = {}) => {
    const flat = message.replace(/\s*\n\s*/g, ' ');
    const sink = sinkOf();
    if (sink) return sink(level, flat, fields);
    write(`handoff: ${level === 'debug' ? 'debug: ' : ''}${flat}`);
  };
  return {
    debug: (message, fields) => {
      if (debugOn()) entry('debug', message, fields);
    },
    info: (message, fields) => entry('info', message, fields),
    warn: (message, fields) => entry('warn', message, fields),
    error: (message, fields) => entry('error', message, fields),
  };
}

let processSink: LogSink | undefined;

/** Sends the process log's entries to `sink` (undefined: back to human-readable lines). */
export function setLogSink(sink: LogSink | undefined): void {
  processSink = sink;
}

/** The process's log. */
export const log: Log = createLog({ sink: () => processSink });

/** Logs a line already prefixed `handoff: ` (the older `(line) => void` callbacks) as an error. */
export function logLine(line: string): void {
  log.error(line.replace(/^handoff: /, ''));
}
