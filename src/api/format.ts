/** Unix seconds as Blockscout's timestamp: `2024-05-01T12:00:00.000000Z`. */
export function timestamp(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}
