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
import { configBool, emptyTree, isZeroId, mergeBase } from '../git/repo.js';
import { reachableFrom } from '../git/commits.js';
import { objectsOf, readBlobs, readFileAt } from '../git/objects.js';
import { addedLines, addedLinesOf, type Added } from './added.js';
import type { AllowRow } from './allow.js';
import { CannotJudge } from '../common/errors.js';
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
  /** Only these paths (the pre-commit hook's staged production files); all when absent. */
  paths?: string[];
}

export async function judgeTamper(
  repo: Repo,
  config: Config,
  range: TamperRange,
  zones?: Classify | Promise<Classify>,
): Promise<TamperVerdict> {
  if (config.tamper.mode === 'off') return nothing(config);
  // The diff and the scanner start at once, while the zones are still being read.
  const diffing = addedLines(repo, range.from, range.to, range.paths);
  const scanner = import('./hits.js');
  for (const p of [diffing, scanner])
    p.catch(() => {
      /* thrown below, where it is awaited */
    });
  const classify = await (zones ?? zonesOf(repo, config, diffing));
  let allowed: Promise<AllowRow[]> | undefined;
  return judgeAdded(
    repo,
    config,
    await diffing,
    classify,
    range.to,
    () => (allowed ??= allowRows(repo, range.judgeRev)),
  );
}

/**
 * The config's zones, for when no classifier is handed in (the pre-commit
 * hook has one): the glob compiler loads and compiles while git diffs, and
 * git is asked for core.ignorecase only when a path the diff names could
 * fall in another zone with case folded (a process saved on most changes).
 */
async function zonesOf(repo: Repo, config: Config, diffing: Promise<Added[]>): Promise<Classify> {
  const [{ classifierFor }, { zoneRules }] = await Promise.all([
    import('../config/classifier.js'),
    import('../config/zone-rules.js'),
  ]);
  const rules = { exact: zoneRules(config), folded: zoneRules(config, true) };
  return classifierFor(repo, { rules }, { paths: (await diffing).map((a) => a.path) });
}

const nothing = (config: Config): TamperVerdict => ({
  mode: config.tamper.mode,
  hits: [],
  violations: [],
  warnings: [],
  files: 0,
});

/** The allow rows of the base side, read the way this repository reads paths. */
async function allowRows(repo: Repo, judgeRev: string | null): Promise<AllowRow[]> {
  const { allowAt } = await import('./allow.js');
  return allowAt(repo, judgeRev, await configBool(repo, 'core.ignorecase'));
}

/**
 * The verdict on what a change adds, up to `to` (a commit or tree; null: the
 * index); `rows` reads the allow rows, asked only when a line is hit or a
 * file of no scanned type changes.
 */
async function judgeAdded(
  repo: Repo,
  config: Config,
  all: Added[],
  classify: Classify,
  to: string | null,
  rows: () => Promise<AllowRow[]>,
): Promise<TamperVerdict> {
  const mode = config.tamper.mode;
  const changed = all.filter((a) => classify(a.path) === 'src');
  const added = changed.filter((a) => langOf(a.path) !== null);
  const disabled = new Set(config.tamper.rules.disable);
  const opaqueOn = !disabled.has('source.opaque');
  const opaque = opaqueOn ? changed.filter((a) => isOpaque(a.path)) : [];
  const unread = opaqueOn ? changed.filter((a) => langOf(a.path) === null && !isOpaque(a.path)) : [];
  if (!added.length && !opaque.length && !unread.length) return nothing(config);
  const { hitsIn } = await import('./hits.js');
  let found = added.flatMap((a) => hitsIn(a.path, a.text, langOf(a.path)!, a.lines, disabled));
  if (found.some((h) => h.rule === 'source.opaque') || opaque.length || unread.length) {
    const pins = unread.length ? pinned(unread, await rows()) : [];
    found = await opaqueHits(repo, to, found, opaque, pins, new Map(changed.map((a) => [a.path, a])));
  }
  let hits: JudgedHit[] = [];
  if (found.length) {
    const [{ allowedBy }, allowed] = await Promise.all([import('./allow.js'), rows()]);
    hits = found.map((h) => {
      const row = allowedBy(allowed, h);
      return row ? { ...h, allowed_by: row.where } : h;
    });
  }
  const standing = hits.filter((h) => !h.allowed_by);
  const verdict: TamperVerdict = { mode, hits, violations: [], warnings: [], files: added.length + opaque.length };
  if (mode === 'warn')
    verdict.warnings = standing.map(
      (h) => `tamper warning [${h.rule}] ${h.path}${h.line ? `:${h.line}` : ''}: ${h.text} (${h.why})`,
    );
  else verdict.violations = toViolations(standing, to === null);
  return verdict;
}

/** Files of no scanned type that an allow row pins by sha256: once reviewed, every change to them is judged again. */
function pinned(unread: Added[], rows: AllowRow[]): Added[] {
  return unread.filter((a) => rows.some((r) => r.rule === 'source.opaque' && r.matches(a.path)));
}

/**
 * The hits with the `source.opaque` ones completed, each carrying the sha256
 * of a file's bytes: opaque files the change touches, files its added lines
 * load as code (reported at the loaded file, as of `to`), pinned files it
 * changes, and Python files in another encoding.
 */
async function opaqueHits(
  repo: Repo,
  to: string | null,
  found: Hit[],
  opaque: Added[],
  pins: Added[],
  byPath: Map<string, Added>,
): Promise<Hit[]> {
  const { lineDigest, sha256: sha } = await import('./hits.js');
  const { loadedFile, WHY } = await import('./rules.js');
  const why = WHY['source.opaque'];
  const coded = found.filter((h) => h.rule === 'source.opaque' && !h.loads).map((h) => byPath.get(h.path)!);
  const blobs = await readBlobs(repo, [...new Set([...opaque, ...pins, ...coded].map((a) => a.oid))]);
  const shaOf = (a: Added) => sha(blobs.get(a.oid)!);
  const fileHit = (p: string, text: string, digest: string): Hit => ({
    path: p,
    line: 0,
    rule: 'source.opaque',
    text,
    digest,
    why,
  });
  const out: Hit[] = [
    ...opaque.map((a) => fileHit(a.path, `a ${path.extname(a.path)} file, sha256 ${shaOf(a)}`, shaOf(a))),
    ...pins.map((a) => fileHit(a.path, `a pinned file of no scanned type changed, sha256 ${shaOf(a)}`, shaOf(a))),
  ];
  for (const h of found) {
    if (h.rule === 'source.opaque' && !h.loads) h.digest = shaOf(byPath.get(h.path)!);
    if (!h.loads) continue;
    const files = new Map<string, Buffer | null>();
    for (const ext of ['', '.js', '.json', '.node']) {
      const p = path.posix.normalize(path.posix.join(path.posix.dirname(h.path), h.loads + ext));
      files.set(p, await readFileAt(repo, to ?? ':', p));
    }
    // A load that resolves to a file the scan reads (or judges by its type) is no hit.
    const target = loadedFile(h.path, h.loads, (p) => files.get(p) != null);
    if (target === null) continue;
    const bytes = files.get(target);
    const by = `run as code by ${h.path} line ${h.line}: ${h.text}`;
    out.push(
      bytes
        ? fileHit(target, `${by} (sha256 ${sha(bytes)})`, sha(bytes))
        : fileHit(target, `${by} (not in the tree)`, lineDigest(`missing ${target}`)),
    );
  }
  return [...found.filter((h) => !h.loads), ...out];
}

/** One violation per rule: what it guards against, each line, the two ways forward. */
function toViolations(hits: Hit[], staged: boolean): Violation[] {
  const byRule = new Map<string, Hit[]>();
  for (const h of hits) byRule.set(h.rule, [...(byRule.get(h.rule) ?? []), h]);
  const how = `(\`patchwarden tamper ${staged ? '--staged' : '--range BASE..TIP'} --allow-line\` prints the row)`;
  return [...byRule].map(([rule, list]) => ({
    rule: 'tamper',
    paths: [...new Set(list.map((h) => h.path))],
    message: `[${rule}] production code that ${list[0].why}`,
    detail: list.map((h) => ({ path: h.path, note: h.line ? `line ${h.line}: ${h.text}` : h.text })),
    fix: (rule === 'source.opaque'
      ? [
          'commit the source instead (Python and JavaScript files in UTF-8, loaded under their own extension); or, when a person has',
          `reviewed the file and it must stay, an owner pins it by its sha256 in a row of ${ALLOW_FILE} in its own commit,`,
          `merged before this change ${how}.`,
        ]
      : [
          'change the code so it fixes the behaviour instead of steering the test run; or, when a person has',
          `reviewed the line and it must stay, an owner adds a row to ${ALLOW_FILE} in its own commit,`,
          `merged before this change ${how}.`,
        ]
    ).join('\n'),
  }));
}

type Update = { old: string; new: string; ref: string };

/** What a push's one walk tells the layer: each ref's new commits, and the commits the repository had that they grow from. */
export interface PushWalk {
  commits: Map<string, string[]>;
  reach: { boundary(commits: string[]): string[] };
}

/**
 * pre-receive: the layer on every pushed ref, each judged on what its tip
 * adds over where its change starts: the ref's old value, else its
 * merge-base with the judging branch, else (a history that shares nothing
 * with it) the empty tree. `peeled` holds the commit each pushed object (new
 * and old values) peels to. Updated refs are diffed and judged at once,
 * beside the push's walk; created refs need the walk and take one more
 * process.
 */
export async function tamperPush(
  repo: Repo,
  config: Config,
  judgeRev: string | null,
  updates: Update[],
  zones: Promise<Classify>,
  peeled: Promise<Map<string, string>>,
  walked: Promise<PushWalk | null>,
): Promise<Map<string, TamperVerdict>> {
  const verdicts = new Map<string, TamperVerdict>();
  if (config.tamper.mode === 'off') return verdicts;
  const scanner = import('./hits.js');
  scanner.catch(() => {
    /* thrown where it is awaited */
  });
  const commitOf = await peeled;
  const live = updates.filter((u) => !isZeroId(u.new) && commitOf.has(u.new));
  const updated = live.filter((u) => !isZeroId(u.old) && commitOf.has(u.old));
  let allowed: Promise<AllowRow[]> | undefined;
  const rows = () => (allowed ??= allowRows(repo, judgeRev));
  // Each distinct change is judged once, read at `tipOf` its line: the tip commit, or the tip's tree beside the empty one.
  const judgeLines = async (lines: string[], tipOf: (line: string) => string) => {
    const [lists, classify] = await Promise.all([addedLinesOf(repo, lines), zones, scanner]);
    const judged = await Promise.all(
      lines.map((line, k) => judgeAdded(repo, config, lists[k], classify, tipOf(line), rows)),
    );
    return new Map(lines.map((line, k) => [line, judged[k]]));
  };
  // diff-tree --stdin: `TIP BASE` diffs two commits; a change with no base diffs the empty tree with the tip's tree.
  const updatedLines = updated.map((u) => `${commitOf.get(u.new)} ${commitOf.get(u.old)}`);
  // An updated ref is judged from its old value as soon as that diff is read, beside the walk.
  const early = judgeLines([...new Set(updatedLines)], (line) => line.split(' ')[0]);
  early.catch(() => {
    /* thrown below, where it is awaited */
  });
  const push = await walked;
  const created = push ? live.filter((u) => !updated.includes(u) && push.commits.get(u.ref)?.length) : [];
  const bases = await pushBases(
    repo,
    created.map((u) => ({ tip: commitOf.get(u.new)!, boundary: push!.reach.boundary(push!.commits.get(u.ref)!) })),
    judgeRev,
  );
  const rootless = created.filter((_, i) => bases[i] === null).map((u) => commitOf.get(u.new)!);
  const [empty, trees] = rootless.length
    ? await Promise.all([emptyTree(repo), treesOf(repo, rootless)])
    : ['', new Map<string, string>()];
  const createdLines = created.map((u, i) => {
    const tip = commitOf.get(u.new)!;
    return bases[i] === null ? `${empty} ${trees.get(tip)}` : `${tip} ${bases[i]}`;
  });
  const late = judgeLines([...new Set(createdLines)], (line) => {
    const [a, b] = line.split(' ');
    return a === empty ? b : a;
  });
  const [first, second] = await Promise.all([early, late]);
  for (const [i, u] of updated.entries()) verdicts.set(u.ref, first.get(updatedLines[i])!);
  for (const [i, u] of created.entries()) verdicts.set(u.ref, second.get(createdLines[i])!);
  return verdicts;
}

/**
 * Where each created ref's change starts: its merge-base with the judging
 * branch. When its new commits grow from one commit that the judging branch
 * holds (what a push of new branches mostly is), that commit is the
 * merge-base: one process tells which of them it holds; any other asks git.
 */
async function pushBases(
  repo: Repo,
  refs: { tip: string; boundary: string[] }[],
  judgeRev: string | null,
): Promise<(string | null)[]> {
  if (!judgeRev) return refs.map(() => null);
  const holds = new Set<string>();
  const single = [...new Set(refs.flatMap((r) => (r.boundary.length === 1 ? r.boundary : [])))];
  if (single.length) {
    // What these commits reach that the judging branch does not: a commit missing from it is one the branch holds.
    const outside = new Set(await reachableFrom(repo, single, [judgeRev]));
    for (const b of single) if (!outside.has(b)) holds.add(b);
  }
  return Promise.all(
    refs.map(async (r) => {
      if (r.boundary.length === 1 && holds.has(r.boundary[0])) return r.boundary[0];
      return mergeBase(repo, judgeRev, r.tip);
    }),
  );
}

/** The tree of each commit (or tree), from one process. */
async function treesOf(repo: Repo, revs: string[]): Promise<Map<string, string>> {
  const trees = await objectsOf(
    repo,
    revs.map((r) => `${r}^{tree}`),
  );
  return new Map(
    revs.map((r, i) => {
      const tree = trees[i];
      if (tree?.type !== 'tree') throw new CannotJudge(`${r} names no tree`);
      return [r, tree.oid];
    }),
  );
}
