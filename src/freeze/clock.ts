// Times in the ledger: ISO 8601 in UTC, to the second. The clock can be pinned
// with PATCHWARDEN_NOW, a testing aid for expiry without waiting.
import { CannotJudge } from '../common/errors.js';

const UTC = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?Z)?$/;

/** `2026-12-09T00:00:00Z` (or a date alone, midnight UTC) as a Date; null otherwise. */
export function parseUtc(text: string): Date | null {
  const m = UTC.exec(text.trim());
  if (!m) return null;
  const [y, mo, d, h = '0', mi = '0', s = '0', frac = '0'] = m.slice(1);
  const ms = Number(frac.padEnd(3, '0').slice(0, 3));
  const date = new Date(Date.UTC(+y, +mo - 1, +d, +h, +mi, +s, ms));
  // Date.UTC rolls 2026-02-30 into March; a real date survives the round trip.
  const ok =
    date.getUTCFullYear() === +y &&
    date.getUTCMonth() === +mo - 1 &&
    date.getUTCDate() === +d &&
    date.getUTCHours() === +h &&
    date.getUTCMinutes() === +mi &&
    date.getUTCSeconds() === +s;
  return ok ? date : null;
}

/** The form the ledger is written in: seconds, Z. */
export function formatUtc(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

let warned = false;

/** Now, to the second; PATCHWARDEN_NOW pins it. */
export function clockNow(): Date {
  const pinned = process.env.PATCHWARDEN_NOW;
  if (!pinned) return new Date(Math.floor(Date.now() / 1000) * 1000);
  const date = parseUtc(pinned);
  if (!date)
    throw new CannotJudge(
      `PATCHWARDEN_NOW=${JSON.stringify(pinned)} is not an ISO 8601 UTC time such as 2026-12-02T00:00:00Z`,
    );
  // A pinned clock can revive an expired freeze: never silently.
  if (!warned)
    process.stderr.write(
      `patchwarden: the clock is pinned to ${pinned} by PATCHWARDEN_NOW; expiries are judged at that time\n`,
    );
  warned = true;
  return date;
}
