// Sizes as written in config: `50MB`, `128 KiB`, `2GB`, or a number of bytes.

const UNITS: Record<string, number> = {
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
};

/** Bytes for `<number>[unit]` (units as above, any case), or null when it is not a size. */
export function parseSize(text: string | number): number | null {
  if (typeof text === 'number') return Number.isInteger(text) && text >= 0 ? text : null;
  const m = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(text.trim());
  const unit = m && UNITS[(m[2] || 'b').toLowerCase()];
  return unit ? Math.round(Number(m![1]) * unit) : null;
}

/** Bytes for people: `52.4 MB`, `812 KB`, `17 bytes`. */
export function formatSize(bytes: number): string {
  if (bytes < 1e3) return `${bytes} bytes`;
  if (bytes < 1e6) return `${(bytes / 1e3).toFixed(1)} KB`;
  if (bytes < 1e9) return `${(bytes / 1e6).toFixed(1)} MB`;
  return `${(bytes / 1e9).toFixed(2)} GB`;
}
