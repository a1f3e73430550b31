// The facts of one range, built once and read by every rule of a plan: the
// config that judges, the tip judged (a commit, or `:` for the index), the
// paths the range changes, the classifier, the guard's own files read in one
// batch, the ledger, the fixture lock and the tamper scan of what the range
// adds; for a range of commits, the adoption baseline it leaves out and the
// owners' overrides it grants, judged here for every point (pre-receive
// hands those of its one push). Each is read once, when first asked
// for or when a plan starts it (rule.ts), and what a range does not reach is
// never read: its modules load only then (readers.ts).
import type { CannotJudge } from '../common/errors.js';
import type { Violation } from '../common/verdict.js';
import { guardFiles } from '../config/guard-files.js';
import type { Config } from '../config/schema.js';
import { touchesFixtures } from '../fixtures/folder.js';
import type { FixtureReport } from '../fixtures/judge.js';
import type { Ledger } from '../freeze/ledger.js';
import type { Change, RangeChanges } from '../git/changes.js';
import type { Repo } from '../git/repo.js';
import type { Landing } from '../mixing/advice.js';
import type { Sides } from '../mixing/rule.js';
import type { Overrides } from '../owners/override.js';
import type { OwnersVerdict } from '../owners/rule.js';
import type { TamperVerdict } from '../tamper/judge.js';
import type { Classify } from '../zones/classify.js';
import { CONFIG_FILE } from '../zones/names.js';
import { Memo } from './memo.js';
import type { Point } from './rule.js';

export type Readers = typeof import('./readers.js');

/** The commits of a range the commit rules judge, as the point read them. */
export interface CommitRange {
  /** Oldest first; the adoption baseline and the owners' granted overrides left out. */
  commits: string[];
  changes: Map<string, Change[]>;
  /** Which sides of the mixing rule a commit touches, where the point worked it out while reading (commit-sides.ts). */
  sidesOf?: (commit: string) => Sides;
}

/** A range of commits as the point walks it, for the facts to judge its baseline and overrides. */
export interface RangeWalk {
  /** git's walk of the range, with the override trailer read (rangeChanges with `trailer: OVERRIDE_TRAILER`). */
  read: () => Promise<RangeChanges>;
  /** What the walk excludes: a baseline tip's commits are counted up to there. */
  exclude: string[];
  /** The merge base an override is judged against; null where the range has none (no override is granted). */
  start: string | null;
  /** The revision the config came from: the baseline and the signers are read there. */
  judgeRev: string | null;
  /** Whether an owner-signed oracle commit that shares the range with production commits must be admitted to it, against `start`. */
  admit?: boolean;
}

/** What pre-commit judges instead of commits: the staged set, and how it lands. */
export interface StagedSet {
  changes: Change[];
  /** What the commit being made is: its mix is worded, and split, accordingly. */
  kind: 'commit' | 'amend' | 'merge';
  /** Where the commit goes and who makes it, read only for a commit that mixes (its split advice fits them). */
  landing: () => Promise<Landing | null>;
}

export interface RangeInput {
  point: Point;
  repo: Repo;
  /** The config that judges the range (the base side's). */
  config: Config;
  /** The commit judged, or `:` for the index. */
  tip: string;
  /** How a refusal names it: `the index`, `head 1234abcd`, `refs/heads/x at 1234abcd`. */
  where: string;
  /** Every path the range changes; where not given, those of the walk's judged commits. */
  paths?: Iterable<string>;
  /**
   * The paths whose guard files must parse, where not every changed path:
   * pre-commit checks the staged files that are there, and leaves a staged
   * deletion to the push, which judges the range.
   */
  guardPaths?: Iterable<string>;
  classify: () => Classify | Promise<Classify>;
  /** The time expiry is judged at; the clock's (PATCHWARDEN_NOW, else now) when not given. */
  now?: Date;
  /** The readers' module; the pre-commit hook hands its own lazy chunk, which holds them. */
  load?: () => Promise<Readers>;
  /**
   * The tamper scan of what the range adds, as the point reads it (the diff
   * from its base side, the staged files within pre-commit's bound, or
   * pre-receive's scan of the whole push); null where nothing is scanned.
   */
  tamper?: () => Promise<TamperVerdict | null>;
  /**
   * The range's symbolic links that leave their zone, where the point reads
   * them itself (the staged set's, or pre-receive's read of the whole push);
   * else each judged commit's of the walk.
   */
  links?: () => Promise<Violation[]>;
  /** The range as the point walks it: its commits, less the baseline and the granted overrides, are judged. */
  walk?: RangeWalk;
  /** The baseline's commits and the overrides granted, where the point judged them for more than this range (pre-receive's push). */
  baselined?: () => Promise<Set<string>>;
  overrides?: () => Promise<Overrides>;
  /** The range's commits, where the point hands them rather than a walk; none where it judges the index. */
  commits?: () => Promise<CommitRange | null>;
  /** The owners verdict on the range's commits: its owner-signed ones are left out of the whole-range mixing rule. */
  owners?: () => Promise<OwnersVerdict>;
  /** The staged set, at pre-commit (not for git's own merge, which authors nothing). */
  staged?: StagedSet;
}

/**
 * Where the ledger is read and the lock verified only when the range touches
 * them (a known difference, kept cheap on every commit and push); pre-push
 * and the gate verify the lock at every tip.
 */
const WHEN_TOUCHED: ReadonlySet<Point> = new Set(['pre-commit', 'pre-receive']);

export type FactName =
  | 'guardProblems'
  | 'ledger'
  | 'voided'
  | 'fixtureReport'
  | 'tamper'
  | 'links'
  | 'commitRange'
  | 'overrides'
  | 'owners';

const NO_OWNERS: OwnersVerdict = { violations: [], exempt: new Set(), untouched: [] };
const NO_OVERRIDES: Overrides = { granted: [], violations: [] };

export class Facts extends Memo {
  readonly point: Point;
  readonly repo: Repo;
  readonly config: Config;
  readonly tip: string;
  readonly where: string;
  readonly staged: StagedSet | null;
  private readonly input: RangeInput;
  private said: string[] = [];

  constructor(input: RangeInput) {
    super();
    this.input = input;
    ({ point: this.point, repo: this.repo, config: this.config, tip: this.tip, where: this.where } = input);
    this.staged = input.staged ?? null;
  }

  /** Starts reading facts; their errors are thrown where a rule awaits them. */
  start(names: readonly FactName[]): void {
    for (const name of names) void this[name]();
  }

  /** The readers, loaded once. */
  load(): Promise<Readers> {
    return this.once('load', this.input.load ?? (() => import('./readers.js')));
  }

  /** Every path the range changes. */
  touched(): Promise<ReadonlySet<string>> {
    return this.once('touched', async () => {
      const { paths } = this.input;
      if (paths) return paths instanceof Set ? paths : new Set(paths);
      const judged = await this.judged();
      return new Set([...(judged?.changes.values() ?? [])].flatMap((list) => list.map((c) => c.path)));
    });
  }

  /** What stops the touched guard files at the tip from judging, read in one batch; none when none is touched. */
  guardProblems(): Promise<CannotJudge[]> {
    return this.once('guardProblems', async () => {
      // The guard's own files: the config, the files it names, the adoption baseline.
      const names = new Set([...guardFiles(this.config), CONFIG_FILE]);
      const touched = [...(this.input.guardPaths ?? (await this.touched()))].filter((p) => names.has(p));
      if (!touched.length) return [];
      return (await this.load()).guardFileProblems(this.repo, this.tip, new Set(touched));
    });
  }

  async touchesLedger(): Promise<boolean> {
    return (await this.touched()).has(this.config.freeze.ledger);
  }

  /** The classifier of the config's zones, built once. */
  classify(): Promise<Classify> {
    return this.once('classify', async () => this.input.classify());
  }

  touchesFixtures(): Promise<boolean> {
    return this.once('touchesFixtures', async () =>
      touchesFixtures([...(await this.touched())], this.config, await this.classify()),
    );
  }

  /** The time expiry is judged at. */
  now(): Promise<Date> {
    return this.once('now', async () => this.input.now ?? (await this.load()).clockNow());
  }

  /** The ledger at the tip; null where it has none, or where this point reads it only when touched and it is not. */
  ledger(): Promise<Ledger | null> {
    return this.once('ledger', async () => {
      if (WHEN_TOUCHED.has(this.point) && !(await this.touchesLedger())) return null;
      const { readLedgerAt } = await this.load();
      // The gate alone verifies attestations (freeze.attestation): it runs where the CI's gh and token are.
      return readLedgerAt(this.repo, this.config, this.tip, await this.now(), this.point === 'gate');
    });
  }

  /** The fixture ids the ledger's rows name that the lock at the tip no longer holds. */
  voided(): Promise<Set<string>> {
    return this.once('voided', async () => {
      const ledger = await this.ledger();
      if (!ledger) return new Set<string>();
      return (await this.load()).voidedFixtures(this.repo, this.config, ledger.rows, this.source());
    });
  }

  /** The fixture lock verified at the tip; null where this point verifies it only when touched and it is not. */
  fixtureReport(): Promise<FixtureReport | null> {
    return this.once('fixtureReport', async () => {
      if (WHEN_TOUCHED.has(this.point) && !(await this.touchesFixtures())) return null;
      return (await this.load()).verifyFixtures(this.repo, this.config, this.source());
    });
  }

  /** The tamper verdict on what the range adds; null where the point scans nothing. */
  tamper(): Promise<TamperVerdict | null> {
    return this.once('tamper', async () => (this.input.tamper ? this.input.tamper() : null));
  }

  /** The symbolic links of the range that point out of their zone, one violation per commit (or for the index). */
  links(): Promise<Violation[]> {
    return this.once('links', async () => {
      if (this.input.links) return this.input.links();
      const judged = await this.judged();
      if (!judged?.commits.length) return [];
      const { symlinkViolations } = await this.load();
      return symlinkViolations(this.repo, judged.commits, judged.changes, await this.classify());
    });
  }

  /** The walk of the range; null where the point walks none. */
  private walked(): Promise<RangeChanges | null> {
    return this.once('walked', async () => (this.input.walk ? this.input.walk.read() : null));
  }

  /** The range's commits of the adoption baseline at the revision the config came from: the commit rules leave them out. */
  baselined(): Promise<Set<string>> {
    return this.once('baselined', async () => {
      if (this.input.baselined) return this.input.baselined();
      const [walk, w] = [await this.walked(), this.input.walk];
      if (!walk || !w) return new Set<string>();
      return (await this.load()).baselined(this.repo, w.judgeRev, w.exclude, walk.commits);
    });
  }

  /** The walk's commits and their changes, the baseline's left out; null where the point walks none. */
  judged(): Promise<Pick<RangeChanges, 'commits' | 'changes'> | null> {
    return this.once('judged', async () => {
      const [walk, old] = await Promise.all([this.walked(), this.baselined()]);
      if (!walk) return null;
      if (!old.size) return { commits: walk.commits, changes: walk.changes };
      const changes = new Map([...walk.changes].filter(([c]) => !old.has(c)));
      return { commits: walk.commits.filter((c) => !old.has(c)), changes };
    });
  }

  /** The owners' overrides the range's commits claim, judged against its merge base by the signers where the config came from. */
  overrides(): Promise<Overrides> {
    return this.once('overrides', async () => {
      if (this.input.overrides) return this.input.overrides();
      const [walk, judged, w] = [await this.walked(), await this.judged(), this.input.walk];
      if (!walk || !judged || !w) return NO_OVERRIDES;
      const { judgeOverrides, overrideClaims } = await this.load();
      const claimed = overrideClaims(walk, judged.commits);
      if (!claimed.length) return NO_OVERRIDES;
      return judgeOverrides(this.repo, this.config, w.judgeRev, claimed, judged.commits, w.start, await this.now());
    });
  }

  /** The commits the commit rules judge and their changes (the granted overrides left out); null where the point judges the index. */
  commitRange(): Promise<CommitRange | null> {
    return this.once('commitRange', async () => {
      if (this.input.commits) return this.input.commits();
      const [judged, overrides] = await Promise.all([this.judged(), this.overrides()]);
      if (!judged || !overrides.granted.length) return judged;
      const granted = new Set(overrides.granted.map((o) => o.commit));
      return { ...judged, commits: judged.commits.filter((c) => !granted.has(c)) };
    });
  }

  /**
   * The owners verdict on the walk's judged commits, with the signers file
   * read where the config came from; the point's own where it hands one (the
   * staged commit's identity, pre-receive's verdict on the push); none where
   * the point reads no commits.
   */
  owners(): Promise<OwnersVerdict> {
    return this.once('owners', async () => {
      if (this.input.owners) return this.input.owners();
      const [judged, w] = [await this.judged(), this.input.walk];
      if (!judged || !w) return NO_OWNERS;
      // Its own chunk: the signature checks are no part of what the pre-commit hook may load.
      const { checkOwners } = await import('../owners/check.js');
      const admission =
        w.admit && w.start ? { base: w.start, commits: new Set(judged.commits), now: await this.now() } : undefined;
      const { commits, changes } = judged;
      return checkOwners(this.repo, this.config, w.judgeRev, commits, changes, await this.classify(), [], admission);
    });
  }

  /** A line a rule says without refusing (a hit that stands in warn mode), for the point to print. */
  note(line: string): void {
    this.said.push(line);
  }

  /** The lines said since the point last took them. */
  takeNotes(): string[] {
    const lines = this.said;
    this.said = [];
    return lines;
  }

  private source(): { kind: 'index' } | { kind: 'rev'; rev: string } {
    return this.tip === ':' ? { kind: 'index' } : { kind: 'rev', rev: this.tip };
  }
}
