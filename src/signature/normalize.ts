// Message normalization: whatever changes from run to run or machine to
// machine becomes a fixed token, so that only the words of a failure remain.
// The order matters: wider patterns (a timestamp, a path) go before the
// numbers they contain.

/** Longest normalized message that enters a signature. */
export const MESSAGE_LIMIT = 300;

const RULES: [RegExp, string][] = [
  // UUIDs, before hex ids and numbers eat their parts.
  [/\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b/g, '<uuid>'],
  // JVM identity hashes, `Bill$Lock@57a3af25`, whatever digits they happen to have.
  [/(?<=[\w$]@)[0-9a-f]{1,8}\b/g, '<hex>'],
  // ISO 8601 dates and timestamps, with optional time, fraction and zone.
  [/\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b/g, '<time>'],
  // RFC 1123 / ctime style dates: Tue, 02 Dec 2025 14:04:00 GMT; Tue Dec  2 14:04:00 2025.
  [
    /\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,? +(?:\d{1,2} +)?(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]* +(?:\d{1,2} +)?(?:\d{4} +)?\d{1,2}:\d{2}(?::\d{2})?(?: +\d{4})?(?: +(?:GMT|UTC|[A-Z]{3,4}|[+-]\d{4}))?/g,
    '<time>',
  ],
  // Clock times: 14:04:00, 14:04:00.123.
  [/\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b/g, '<time>'],
  // Temporary folders (POSIX, macOS, Windows, pytest's basetemp) up to the end of the path.
  [/(?:[A-Za-z]:)?[\\/](?:[^\s'"`<>()[\]{},;]*[\\/])?(?:tmp|temp|Temp|TEMP|T)[\\/][^\s'"`<>()[\]{},;]*/g, '<tmp>'],
  [/\bpytest-of-[^\s'"`<>()[\]{},;]*/g, '<tmp>'],
  // A file location with a line (and column): test_bill.py:12, src/a.js:3:14.
  [/(?:[A-Za-z]:)?(?:[\w.@+-]*[\\/])*[\w.@+-]+\.[A-Za-z][A-Za-z0-9]{0,5}(?::\d+){1,2}\b/g, '<loc>'],
  // Relative paths with a folder and a file name: tests/unit/test_bill.py.
  [/(?<![\w.<>/])(?:[\w.@+-]+\/)+[\w@+-][\w.@+-]*\.[A-Za-z][A-Za-z0-9]{0,5}\b/g, '<path>'],
  // Absolute paths: /home/u/x, C:\Users\x, file:///x.
  [/(?:file:\/\/)?(?:[A-Za-z]:[\\/]|(?<![\w.<>/])\/(?=[\w.~@+-]))(?:[^\s'"`<>()[\]{},;:]+[\\/]?)+/g, '<path>'],
  // Memory addresses and hex literals.
  [/\b0x[0-9a-fA-F]+\b/g, '<addr>'],
  // Hex ids (object ids, hashes): at least 7 hex digits with a digit and a letter among them.
  [/\b(?=[0-9a-fA-F]*[0-9])(?=[0-9a-fA-F]*[a-fA-F])[0-9a-fA-F]{7,}\b/g, '<hex>'],
  // Durations: 12ms, 1.5s, 2000 milliseconds, 3 seconds, 1m30s.
  [
    /\b\d+(?:\.\d+)?\s?(?:ns|µs|us|ms|milliseconds?|seconds?|secs?|minutes?|mins?|hours?|[smh])\b(?:\s?\d+(?:\.\d+)?\s?(?:ms|s))?/g,
    '<duration>',
  ],
  // Every other number, with sign, fraction and exponent.
  [/(?<!\w)[-+]?\d+(?:[.,]\d+)*(?:[eE][-+]?\d+)?(?!\w)|(?<=[A-Za-z_])\d+\b/g, '<n>'],
  // Runs of white space.
  [/\s+/g, ' '],
];

/** The message as it enters a signature: every normalization applied, trimmed, capped. */
export function normalizeMessage(message: string): string {
  let s = message;
  for (const [re, token] of RULES) s = s.replace(re, token);
  s = s.trim();
  return s.length > MESSAGE_LIMIT ? s.slice(0, MESSAGE_LIMIT) : s;
}
