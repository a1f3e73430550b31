// The tamper layer over a change: the lines it adds to production code, the
// rules of each file's language, the allow rows of the base side, one verdict.
// The scanner's module loads beside the diff (nearly every change with
// production code needs it); the allow rows (YAML) load only when a line is
// hit.
import type { Violation } from '../common/verdict.js';
import type { Config } from '../config/schema.js';
import type { Repo } from '../git/repo.js';
import { classifierFor } from '../mixing/check.js';
import { configBool, emptyTree, mergeBase } from '../git/repo.js';
import { addedLines, addedLinesOfTrees, type Added } from './added.js';
import type { AllowRow } from './allow.js';
import { CannotJudge } from '../common/errors.js';
import { ALLOW_FILE } from '../config/tamper-ids.js';
import type { Hit } from './hits.js';
import { langOf } from './lang.js';
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
  if (config.tamper.mode === 'off') return nothing(config);
  // The diff and the scanner start at once, while the zones are still being read.
  const diffing = addedLines(repo, range.from, range.to);
  const scanner = import('./hits.js');
  for (const p of [diffing, scanner]) p.catch(() => { /* thrown below, where it is awaited */ });
  const classify = await (zones ?? classifierFor(repo, config));
  return judgeAdded(config, await diffing, classify, range.to === null, () => allowRows(repo, range.judgeRev));
}

const nothing = (config: Config): TamperVerdict => ({ mode: config.tamper.mode, hits: [], violations: [], warnings: [], files: 0 });

/** The allow rows of the base side, read the way this repository reads paths. */
async function allowRows(repo: Repo, judgeRev: string | null): Promise<AllowRow[]> {
  const { allowAt } = await import('./allow.js');
  return allowAt(repo, judgeRev, await configBool(repo, 'core.ignorecase'));
}

/** The verdict on the lines a change adds; `rows` reads the allow rows, asked only when a line is hit. */
async function judgeAdded(config: Config, all: Added[], classify: Classify, staged: boolean, rows: () => Promise<AllowRow[]>): Promise<TamperVerdict> {
  const mode = config.tamper.mode;
  const added = all.filter((a) => classify(a.path) === 'src' && langOf(a.path) !== null);
  if (!added.length) return nothing(config);
  const { hitsIn } = await import('./hits.js');
  const disabled = new Set(config.tamper.rules.disable);
  const found = added.flatMap((a) => hitsIn(a.path, a.text, langOf(a.path)!, a.lines, disabled));
  let hits: JudgedHit[] = [];
  if (found.length) {
    const [{ allowedBy }, allowed] = await Promise.all([import('./allow.js'), rows()]);
    hits = found.map((h) => {
      const row = allowedBy(allowed, h);
      return row ? { ...h, allowed_by: row.where } : h;
    });
  }
  const standing = hits.filter((h) => !h.allowed_by);
  const verdict: TamperVerdict = { mode, hits, violations: [], warnings: [], files: added.length };
  if (mode === 'warn') verdict.warnings = standing.map((h) => `tamper warning [${h.rule}] ${h.path}:${h.line}: ${h.text} (${h.why})`);
  else verdict.violations = toViolations(standing, staged);
  return verdict;
}

/** One violation per rule: what it guards against, each line, the two ways forward. */
function toViolations(hits: Hit[], staged: boolean): Violation[] {
  const byRule = new Map<string, Hit[]>();
  for (const h of hits) byRule.set(h.rule, [...(byRule.get(h.rule) ?? []), h]);
  return [...byRule].map(([rule, list]) => ({
    rule: 'tamper',
    paths: [...new Set(list.map((h) => h.path))],
    message: `[${rule}] production code that ${list[0].why}`,
    detail: list.map((h) => ({ path: h.path, note: `line ${h.line}: ${h.text}` })),
    fix: [
      'change the code so it fixes the behaviour instead of steering the test run; or, when a person has',
      `reviewed the line and it must stay, an owner adds a row to ${ALLOW_FILE} in its own commit,`,
      `merged before this change (\`patchwarden tamper ${staged ? '--staged' : '--range BASE..TIP'} --allow-line\` prints the row).`,
    ].join('\n'),
  }));
}

/** A pushed ref with new commits, as the push's one walk found it. */
export interface PushedRef {
  ref: string;
  /** The ref's old value; null when the push creates it. */
  old: string | null;
  /** The commit the new value peels to. */
  tip: string;
  /** The commits the repository already had that the ref's new commits grow from. */
  boundary: string[];
}

/**
 * pre-receive: the layer on every pushed ref with new commits, each judged on
 * what its tip adds over where its change starts: the ref's old value, else
 * its merge-base with the judging branch, else (a history that shares nothing
 * with it) the empty tree. The diffs of all refs come from one process.
 */
export async function tamperPush(repo: Repo, config: Config, judgeRev: string | null, refs: PushedRef[], classify: Classify): Promise<Map<string, TamperVerdict>> {
  if (config.tamper.mode === 'off' || !refs.length) return new Map(refs.map((r) => [r.ref, nothing(config)]));
  const scanner = import('./hits.js');
  scanner.catch(() => { /* thrown where it is awaited */ });
  const bases = await pushBases(repo, refs, judgeRev);
  // Each distinct pair of trees is diffed and judged once.
  const empty = bases.includes(null) ? await emptyTree(repo) : '';
  const trees = await treesOf(repo, [...new Set(refs.flatMap((r, i) => [r.tip, bases[i] ?? empty]))]);
  const pairOf = refs.map((r, i) => `${trees.get(bases[i] ?? empty)} ${trees.get(r.tip)}`);
  const pairs = [...new Set(pairOf)];
  const added = await addedLinesOfTrees(repo, pairs.map((p) => p.split(' ') as [string, string]));
  let allowed: Promise<AllowRow[]> | undefined;
  const rows = () => (allowed ??= allowRows(repo, judgeRev));
  await scanner;
  const verdicts = new Map<string, Promise<TamperVerdict>>();
  pairs.forEach((p, k) => verdicts.set(p, judgeAdded(config, added[k], classify, false, rows)));
  const out = new Map<string, TamperVerdict>();
  for (const [i, r] of refs.entries()) out.set(r.ref, await verdicts.get(pairOf[i])!);
  return out;
}

/**
 * Where each ref's change starts. A new ref's merge-base with the judging
 * branch is, when its new commits grow from one commit that the judging
 * branch holds, that commit (what a push of new branches mostly is): one
 * process tells which of them it holds; any other new ref asks git.
 */
async function pushBases(repo: Repo, refs: PushedRef[], judgeRev: string | null): Promise<(string | null)[]> {
  const created = refs.filter((r) => r.old === null);
  const holds = new Set<string>();
  const single = [...new Set(created.flatMap((r) => (r.boundary.length === 1 ? r.boundary : [])))];
  if (judgeRev && single.length) {
    // What these commits reach that the judging branch does not: a commit missing from it is one the branch holds.
    const out = await repo.text(['rev-list', '--stdin'], { input: `${single.join('\n')}\n^${judgeRev}\n` });
    const outside = new Set(out.split('\n'));
    for (const b of single) if (!outside.has(b)) holds.add(b);
  }
  return Promise.all(refs.map(async (r) => {
    if (r.old !== null) return r.old;
    if (!judgeRev) return null;
    if (r.boundary.length === 1 && holds.has(r.boundary[0])) return r.boundary[0];
    return mergeBase(repo, judgeRev, r.tip);
  }));
}

/** The tree of each commit (or tree), from one process. */
async function treesOf(repo: Repo, revs: string[]): Promise<Map<string, string>> {
  const out = await repo.text(['cat-file', '--batch-check=%(objectname) %(objecttype)'], { input: revs.map((r) => `${r}^{tree}\n`).join('') });
  const lines = out.split('\n');
  return new Map(revs.map((r, i) => {
    const [id, type] = lines[i].split(' ');
    if (type !== 'tree') throw new CannotJudge(`${r} names no tree`);
    return [r, id];
  }));
}
