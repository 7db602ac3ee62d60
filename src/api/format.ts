// The last one written: a page's rows mostly share their block's time (a transaction list renders it for
// each of up to 550 transfers), and formatting one took 1.5 µs: 0.9 ms of rendering a 1 MB page.
let lastSeconds: number | null = null;
let lastTimestamp = "";

/** Unix seconds as Blockscout's timestamp: `2024-05-01T12:00:00.000000Z`. */
export function timestamp(seconds: number): string {
  if (seconds !== lastSeconds) {
    lastTimestamp = new Date(seconds * 1000).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
    lastSeconds = seconds;
  }
  return lastTimestamp;
}
