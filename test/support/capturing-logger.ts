import pino from "pino";
import type { Logger } from "../../src/logger.ts";

/** A logged line, parsed: pino's level and message, and the fields (`Fields`) the code logged with it. */
export type LogLine<Fields = object> = { level: number; msg: string } & Fields;

/** A pino logger at `info` that keeps every line it writes, to check what the code under test said. */
export function capturingLogger<Fields = object>(): { logger: Logger; lines: LogLine<Fields>[] } {
  const lines: LogLine<Fields>[] = [];
  const logger = pino(
    { level: "info", base: undefined },
    { write: (line: string) => lines.push(JSON.parse(line)) },
  );
  return { logger, lines };
}
