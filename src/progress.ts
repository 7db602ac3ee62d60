import type { IndexerStatus } from "./indexer/create-indexer.ts";

export type StartProgressBarParameters = {
  /** The indexer's status, read at each redraw. */
  status: () => IndexerStatus;
  /** A terminal: the bar redraws its one line in place. */
  stream: NodeJS.WritableStream & { columns?: number };
  /** Milliseconds between redraws. */
  intervalMs?: number;
};

/** Rates are measured over the last few redraws, so the ETA follows the current speed, not the average. */
const windowSamples = 10;

/**
 * Draws a catch-up progress bar on a terminal: blocks indexed of the node's head, blocks and transactions
 * per second, and the time left. It erases itself once the indexer follows the head (or `stop` is called)
 * and leaves one line saying what was indexed.
 */
export function startProgressBar({
  status,
  stream,
  intervalMs = 500,
}: StartProgressBarParameters): () => void {
  const started = Date.now();
  const first = status();
  const samples: { at: number; blocks: number; transactions: number }[] = [];
  let drawn = false;

  const draw = () => {
    const now = status();
    samples.push({ at: Date.now(), blocks: now.blocksWritten, transactions: now.transactionsWritten });
    if (samples.length > windowSamples) samples.shift();
    if (now.following) return stop();
    if (now.headBlock === null || now.indexedBlock === null) return;
    const oldest = samples[0] as (typeof samples)[number];
    const newest = samples[samples.length - 1] as (typeof samples)[number];
    const seconds = (newest.at - oldest.at) / 1000;
    const blocksPerSecond = seconds > 0 ? (newest.blocks - oldest.blocks) / seconds : 0;
    const transactionsPerSecond = seconds > 0 ? (newest.transactions - oldest.transactions) / seconds : 0;
    const left = Number(now.headBlock - now.indexedBlock);
    const share = Number(now.indexedBlock) / Math.max(1, Number(now.headBlock));
    const eta = blocksPerSecond > 0 ? formatDuration(left / blocksPerSecond) : "…";
    const text = ` ${(share * 100).toFixed(1)}% block ${now.indexedBlock} of ${now.headBlock} · ${Math.round(blocksPerSecond)} blocks/s · ${Math.round(transactionsPerSecond)} tx/s · ${eta} left`;
    const width = Math.max(10, Math.min(40, (stream.columns ?? 80) - text.length - 3));
    const filled = Math.round(share * width);
    stream.write(`\r\x1b[2K[${"#".repeat(filled)}${".".repeat(width - filled)}]${text}`);
    drawn = true;
  };

  const timer = setInterval(draw, intervalMs);
  timer.unref();
  let stopped = false;
  function stop() {
    if (stopped) return;
    stopped = true;
    clearInterval(timer);
    const end = status();
    const blocks = end.blocksWritten - first.blocksWritten;
    if (drawn) stream.write("\r\x1b[2K");
    if (blocks > 0) {
      const seconds = (Date.now() - started) / 1000;
      stream.write(
        `indexed ${blocks} blocks and ${end.transactionsWritten - first.transactionsWritten} transactions in ${formatDuration(seconds)}\n`,
      );
    }
  }
  return stop;
}

function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return "…";
  const whole = Math.round(seconds);
  if (whole < 60) return `${whole} s`;
  if (whole < 3600) return `${Math.floor(whole / 60)} min ${whole % 60} s`;
  return `${Math.floor(whole / 3600)} h ${Math.floor((whole % 3600) / 60)} min`;
}

/**
 * A catch-up progress bar on stdout when it is a terminal, else nothing (the log's periodic "catching up"
 * lines say the same). Returns what stops it.
 */
export function progressOnTerminal(status: () => IndexerStatus): () => void {
  return process.stdout.isTTY ? startProgressBar({ status, stream: process.stdout }) : () => {};
}
