// The allowed-signers file (ssh-keygen(1), "ALLOWED SIGNERS") read as
// ssh-keygen reads it: principals, then options (cert-authority,
// namespaces, valid-after, valid-before), then the key type and the base64
// key. A line this reader cannot take is never used to accept a signature.

export interface SignerLine {
  principals: string;
  /** The key as an SSH wire blob. */
  key: Buffer;
  certAuthority: boolean;
  /** The namespaces pattern-list, null when the line sets none (every namespace). */
  namespaces: string | null;
  /** Seconds since the epoch, null when unset. */
  validAfter: number | null;
  validBefore: number | null;
}

/** The lines of the file that parse; the rest are left out, as ssh-keygen skips a line it cannot read. */
export function parseAllowedSigners(text: string): SignerLine[] {
  return text.split('\n').flatMap((raw) => {
    const line = raw.trim();
    if (!line || line.startsWith('#')) return [];
    try {
      return [parseLine(line)];
    } catch {
      return [];
    }
  });
}

/** The next space-separated field from `at`, where double quotes keep spaces in; [field, next index]. */
function field(line: string, at: number): [string, number] {
  let i = at;
  let quoted = false;
  while (i < line.length && (quoted || !/\s/.test(line[i]))) {
    if (line[i] === '"') quoted = !quoted;
    i++;
  }
  if (quoted) throw new Error('unterminated quote');
  let next = i;
  while (next < line.length && /\s/.test(line[next])) next++;
  return [line.slice(at, i), next];
}

const KEY_TYPE = /^(ssh-|ecdsa-sha2-|sk-)/;

function parseLine(line: string): SignerLine {
  let [principals, at] = field(line, 0);
  principals = principals.replace(/^"(.*)"$/, '$1');
  let [next, after] = field(line, at);
  let options = '';
  if (!KEY_TYPE.test(next)) {
    options = next;
    [next, after] = field(line, after);
  }
  const [b64] = field(line, after);
  const key = Buffer.from(b64, 'base64');
  if (!KEY_TYPE.test(next) || !b64 || key.toString('base64').replace(/=+$/, '') !== b64.replace(/=+$/, ''))
    throw new Error('no key');
  const parsed: SignerLine = {
    principals,
    key,
    certAuthority: false,
    namespaces: null,
    validAfter: null,
    validBefore: null,
  };
  for (const opt of splitOptions(options)) {
    const eq = opt.indexOf('=');
    const name = (eq < 0 ? opt : opt.slice(0, eq)).toLowerCase();
    const value = eq < 0 ? null : opt.slice(eq + 1).replace(/^"(.*)"$/, '$1');
    if (name === 'cert-authority' && value === null) parsed.certAuthority = true;
    else if (name === 'namespaces' && value !== null) parsed.namespaces = value;
    else if (name === 'valid-after' && value !== null) parsed.validAfter = absoluteTime(value);
    else if (name === 'valid-before' && value !== null) parsed.validBefore = absoluteTime(value);
    else throw new Error(`unknown option ${name}`);
  }
  return parsed;
}

/** Comma-separated options, commas inside double quotes kept. */
function splitOptions(options: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (const c of options) {
    if (c === '"') quoted = !quoted;
    if (c === ',' && !quoted) {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  if (cur) out.push(cur);
  return out;
}

/** YYYYMMDD[Z] or YYYYMMDDHHMM[SS][Z]: local time, or UTC with Z (ssh-keygen's parse_absolute_time). */
function absoluteTime(text: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})(?:(\d{2})(\d{2})(\d{2})?)?(Z?)$/i.exec(text);
  if (!m) throw new Error(`bad time ${text}`);
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map((x) => Number(x ?? 0));
  const ms = m[7] ? Date.UTC(y, mo - 1, d, h, mi, s) : new Date(y, mo - 1, d, h, mi, s).getTime();
  return Math.floor(ms / 1000);
}

/** ssh_config(5)'s pattern-list: `*` and `?` wildcards, a `!` pattern that matches vetoes the list. */
function matchPatternList(value: string, list: string): boolean {
  let matched = false;
  for (const p of list.split(',')) {
    const negated = p.startsWith('!');
    const pattern = negated ? p.slice(1) : p;
    const re = new RegExp(
      `^${[...pattern].map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[\\^$.|+()[\]{}]/g, '\\$&'))).join('')}$`,
      's',
    );
    if (re.test(value)) {
      if (negated) return false;
      matched = true;
    }
  }
  return matched;
}

/** The lines that let `key` sign in `namespace` at `time` (seconds): its own key, not a CA, within its validity. */
export function signersOf(lines: SignerLine[], key: Buffer, namespace: string, time: number): SignerLine[] {
  return lines.filter(
    (l) =>
      !l.certAuthority &&
      l.key.equals(key) &&
      (l.namespaces === null || matchPatternList(namespace, l.namespaces)) &&
      (l.validAfter === null || time >= l.validAfter) &&
      (l.validBefore === null || time <= l.validBefore),
  );
}
