/** What `n` bytes read as in a reason: `600 MiB`, `70 KiB`, `512 bytes` (whole units, rounded down). */
export function byteSize(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Math.floor(bytes / (1024 * 1024))} MiB`;
  if (bytes >= 1024) return `${Math.floor(bytes / 1024)} KiB`;
  return `${bytes} bytes`;
}
