import { loadavg } from "node:os";

/** The middle value (the mean of the two middle ones for an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** A whole number with thousands separators, as the figures in docs/performance.md are written. */
export function format(value: number): string {
  return Math.round(value).toLocaleString("en-US");
}

/** The machine's one-minute load average: other work on 2 cores changes every figure. */
export function load(): string {
  return (loadavg()[0] as number).toFixed(1);
}
