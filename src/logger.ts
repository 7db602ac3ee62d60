import pino from "pino";

export type Logger = pino.Logger;

/** Creates the process logger: JSON lines on stderr, at `level`. */
export function createLogger(level: pino.LevelWithSilent = "info"): Logger {
  return pino({ level, base: undefined }, pino.destination(2));
}
