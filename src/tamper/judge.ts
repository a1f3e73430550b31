// The tamper layer over a change: the lines it adds to production code, the
// rules of each file's language, the production files it cannot read (each
// pinned by its sha256 or refused), the allow rows of the base side, one
// verdict. The scanner's module loads beside the diff (nearly every change
// with production code needs it); the allow rows (YAML) load only when a line
// is hit or a file of no scanned type changes.
import path from 'node:path';
import type { Violation } from '../common/verdict.js';
import type { Config } from '../config/schema.js';
import type { Repo } from '../git/repo.js';
import { classifierFor } from '../mixing/check.js';
import { configBool } from '../git/repo.js';
import { readBlobs, readFileAt } from '../git/objects.js';
import { addedLines, type Added } from './added.js';
import type { AllowRow } from './allow.js';
import { ALLOW_FILE } from '../config/tamper-ids.js';
import type { Hit } from './hits.js';
import { isOpaque, langOf } from './lang.js';
import type { Classify } from '../zones/classify.js';

export interface JudgedHit extends Hit {
  /** Where the allow row that lets it stand is, when one does. */
  allowed_by?: string;
}

export interface TamperVerdict {
  mode: Config['tamper']['mode'];
  /** Every hit, allowed or not. */
  hits: JudgedHit[];
  /** Refusals (empty in warn mode). */
  violations: Violation[];
  /** Hits that stand, as lines for stderr in warn mode. */
  warnings: string[];
  /** Files scanned. */
  files: number;
}

export interface TamperRange {
  /** The base side (commit or tree); null for a history with nothing before it. */
  from: string | null;
  /** The tip; null for the index. */
  to: string | null;
  /** Where the allow rows are read from (the base side); null: none. */
  judgeRev: string | null;
}

export async function judgeTamper(repo: Repo, config: Config, range: TamperRange, zones?: Classify | Promise<Classify>): Promise<TamperVerdict> {
  const mode = config.tamper.mode;
  const none: TamperVerdict = { mode, hits: [], violations: [], warnings: [], files: 0 };
  if (mode === 'off') return none;
  // The diff and the scanner start at once, while the zones are still being read.
  const diffing = addedLines(repo, range.from, range.to);
  const scanner = import('./hits.js');
  for (const p of [diffing, scanner]) p.catch(() => { /* thrown below, where it is awaited */ });
  const classify = await (zones ?? classifierFor(repo, config));
  const changed = (await diffing).filter((a) => classify(a.path) === 'src');
  const added = changed.filter((a) => langOf(a.path) !== null);
  const disabled = new Set(config.tamper.rules.disable);
  const opaqueOn = !disabled.has('source.opaque');
  const opaque = opaqueOn ? changed.filter((a) => isOpaque(a.path)) : [];
  const unread = opaqueOn ? changed.filter((a) => langOf(a.path) === null && !isOpaque(a.path)) : [];
  if (!added.length && !opaque.length && !unread.length) return none;
  const { hitsIn } = await scanner;
  let found = added.flatMap((a) => hitsIn(a.path, a.text, langOf(a.path)!, a.lines, disabled));
  let rows: AllowRow[] | null = null;
  const allow = async () => {
    const { allowAt } = await import('./allow.js');
    return (rows ??= await allowAt(repo, range.judgeRev, await configBool(repo, 'core.ignorecase')));
  };
  if (found.length || opaque.length || unread.length) {
    const byPath = new Map(changed.map((a) => [a.path, a]));
    found = await opaqueHits(repo, range, found, opaque, unread.length ? pinned(unread, await allow()) : [], byPath);
  }
  let hits: JudgedHit[] = [];
  if (found.length) {
    const { allowedBy } = await import('./allow.js');
    const judged = await allow();
    hits = found.map((h) => {
      const row = allowedBy(judged, h);
      return row ? { ...h, allowed_by: row.where } : h;
    });
  }
  const standing = hits.filter((h) => !h.allowed_by);
  const verdict: TamperVerdict = { mode, hits, violations: [], warnings: [], files: added.length + opaque.length };
  if (mode === 'warn') verdict.warnings = standing.map((h) => `tamper warning [${h.rule}] ${h.path}${h.line ? `:${h.line}` : ''}: ${h.text} (${h.why})`);
  else verdict.violations = toViolations(standing, range);
  return verdict;
}

/** Files of no scanned type that an allow row pins by sha256: once reviewed, every change to them is judged again. */
function pinned(unread: Added[], rows: AllowRow[]): Added[] {
  return unread.filter((a) => rows.some((r) => r.rule === 'source.opaque' && r.matches(a.path)));
}

/**
 * The hits with `source.opaque` ones completed; those carry the sha256 of the file's bytes: opaque files
 * the change touches, files its added lines load as code (reported at the
 * loaded file), pinned files it changes, and Python files in another
 * encoding.
 */
async function opaqueHits(repo: Repo, range: TamperRange, found: Hit[], opaque: Added[], pins: Added[], byPath: Map<string, Added>): Promise<Hit[]> {
  const { lineDigest, sha256: sha } = await import('./hits.js');
  const { loadedFile, WHY } = await import('./rules.js');
  const why = WHY['source.opaque'];
  const blobs = await readBlobs(repo, [...new Set([...opaque, ...pins, ...found.filter((h) => h.rule === 'source.opaque' && !h.loads).map((h) => byPath.get(h.path)!)].map((a) => a.oid))]);
  const fileHit = (p: string, text: string, digest: string): Hit => ({ path: p, line: 0, rule: 'source.opaque', text, digest, why });
  const out: Hit[] = [
    ...opaque.map((a) => fileHit(a.path, `a ${path.extname(a.path)} file, sha256 ${sha(blobs.get(a.oid)!)}`, sha(blobs.get(a.oid)!))),
    ...pins.map((a) => fileHit(a.path, `a pinned file of no scanned type changed, sha256 ${sha(blobs.get(a.oid)!)}`, sha(blobs.get(a.oid)!))),
  ];
  const resolved: Hit[] = [];
  for (const h of found) {
    if (h.rule !== 'source.opaque') continue;
    if (!h.loads) { h.digest = sha(blobs.get(byPath.get(h.path)!.oid)!); continue; }
    const files = new Map<string, Buffer | null>();
    for (const ext of ['', '.js', '.json', '.node']) {
      const p = path.posix.normalize(path.posix.join(path.posix.dirname(h.path), h.loads + ext));
      files.set(p, await readFileAt(repo, range.to ?? ':', p));
    }
    const target = loadedFile(h.path, h.loads, (p) => files.get(p) != null);
    if (target === null) continue;
    const bytes = files.get(target);
    const by = `run as code by ${h.path} line ${h.line}: ${h.text}`;
    resolved.push(bytes ? fileHit(target, `${by} (sha256 ${sha(bytes)})`, sha(bytes)) : fileHit(target, `${by} (not in the tree)`, lineDigest(`missing ${target}`)));
  }
  // A load that resolves to a file the scan reads is no hit.
  return [...found.filter((h) => !h.loads), ...resolved, ...out];
}

/** One violation per rule: what it guards against, each line, the two ways forward. */
function toViolations(hits: Hit[], range: TamperRange): Violation[] {
  const byRule = new Map<string, Hit[]>();
  for (const h of hits) byRule.set(h.rule, [...(byRule.get(h.rule) ?? []), h]);
  const how = `(\`patchwarden tamper ${range.to === null ? '--staged' : '--range BASE..TIP'} --allow-line\` prints the row)`;
  return [...byRule].map(([rule, list]) => ({
    rule: 'tamper',
    paths: [...new Set(list.map((h) => h.path))],
    message: `[${rule}] production code that ${list[0].why}`,
    detail: list.map((h) => ({ path: h.path, note: h.line ? `line ${h.line}: ${h.text}` : h.text })),
    fix: (rule === 'source.opaque' ? [
      'commit the source instead (Python and JavaScript files in UTF-8, loaded under their own extension); or, when a person has',
      `reviewed the file and it must stay, an owner pins it by its sha256 in a row of ${ALLOW_FILE} in its own commit,`,
      `merged before this change ${how}.`,
    ] : [
      'change the code so it fixes the behaviour instead of steering the test run; or, when a person has',
      `reviewed the line and it must stay, an owner adds a row to ${ALLOW_FILE} in its own commit,`,
      `merged before this change ${how}.`,
    ]).join('\n'),
  }));
}

/**
 * Where a pushed ref's change starts on a server: the ref's old value (what
 * the ref gains over it), else its merge-base with the judging branch; null
 * (everything is new) for a history that shares nothing with it.
 */
export async function pushBase(repo: Repo, old: string | null, tip: string, judgeRev: string | null): Promise<string | null> {
  if (old) return old;
  if (!judgeRev) return null;
  const r = await repo.run(['merge-base', judgeRev, tip], { okCodes: [1] });
  return r.stdout.toString('utf8').trim() || null;
}

export type Settled = { verdict: TamperVerdict } | { error: unknown };

/**
 * pre-receive: starts the layer on every pushed ref at once, while the rest of
 * the push is still being read; each settles to its verdict or its error
 * (thrown where it is used, so nothing fails unseen).
 */
export function tamperPush(repo: Repo, config: Config, judgeRev: string | null, updates: { old: string; new: string; ref: string }[], zones: Promise<Classify>): Map<string, Promise<Settled>> {
  const zero = (id: string) => /^0+$/.test(id);
  return new Map(updates.filter((u) => !zero(u.new)).map((u) => [u.ref, (async () => {
    const to = `${u.new}^{commit}`;
    return judgeTamper(repo, config, { from: await pushBase(repo, zero(u.old) ? null : u.old, to, judgeRev), to, judgeRev }, zones);
  })().then((verdict) => ({ verdict }), (error: unknown) => ({ error }))]));
}
