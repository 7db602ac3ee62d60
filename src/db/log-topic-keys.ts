/**
 * The key of a topic in the per-position topic indexes `logs_topic0` to `logs_topic3` (migration 040): the
 * first 8 bytes of the topic's SHA-256. A topic's own last 8 bytes (009) told apart only the values ABIs align
 * right; every left-aligned value (a padded selector, a bytes32 string) ended in zeros and shared one range.
 * A statement reads an index range only when its condition is this very expression, beside the full topic
 * checked on the row.
 */
export function topicKeySql(topic: string): string {
  return `substring(sha256(${topic}) FOR 8)`;
}
