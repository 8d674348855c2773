/** `2h 5m`, `3m 20s`, `45s`: ages and waits for people, never parsed back. */
export function durationText(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  const days = Math.floor(seconds / 86_400);
  const hours = Math.floor((seconds % 86_400) / 3_600);
  const minutes = Math.floor((seconds % 3_600) / 60);
  const rest = seconds % 60;
  const parts: string[] = [];
  if (days) parts.push(`${days}d`);
  if (hours) parts.push(`${hours}h`);
  if (minutes && !days) parts.push(`${minutes}m`);
  if (rest && !days && !hours) parts.push(`${rest}s`);
  return parts.length ? parts.join(' ') : '0s';
}
