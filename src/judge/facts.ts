// The facts of one range, built once and read by every rule of a plan: the
// config that judges, the tip judged (a commit, or `:` for the index), the
// paths the range changes, the classifier, the guard's own files read in one
// batch, the ledger, the fixture lock and the tamper scan of what the range
// adds. Each is read once, when first asked
// for or when a plan starts it (rule.ts), and what a range does not reach is
// never read: its modules load only then (readers.ts).
import type { CannotJudge } from '../common/errors.js';
import type { Violation } from '../common/verdict.js';
import { guardFiles } from '../config/guard-files.js';
import type { Config } from '../config/schema.js';
import { touchesFixtures } from '../fixtures/folder.js';
import type { FixtureReport } from '../fixtures/judge.js';
import type { Ledger } from '../freeze/ledger.js';
import type { Change } from '../git/changes.js';
import type { Repo } from '../git/repo.js';
import type { Landing } from '../mixing/advice.js';
import type { Sides } from '../mixing/rule.js';
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
  /** Every path the range changes. */
  paths: Iterable<string>;
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
   * The range's symbolic links that leave their zone, as the point reads
   * them (each commit's, the staged set's, or pre-receive's read of the whole
   * push); none where the point gives no reader.
   */
  links?: () => Promise<Violation[]>;
  /** The range's commits; none where the point judges the index. */
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
  | 'owners';

const NO_OWNERS: OwnersVerdict = { violations: [], exempt: new Set(), untouched: [] };

export class Facts extends Memo {
  readonly point: Point;
  readonly repo: Repo;
  readonly config: Config;
  readonly tip: string;
  readonly where: string;
  readonly touched: ReadonlySet<string>;
  readonly staged: StagedSet | null;
  private readonly input: RangeInput;
  private said: string[] = [];

  constructor(input: RangeInput) {
    super();
    this.input = input;
    ({ point: this.point, repo: this.repo, config: this.config, tip: this.tip, where: this.where } = input);
    this.touched = input.paths instanceof Set ? input.paths : new Set(input.paths);
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

  /** The guard's own files the range touches: the config, the files it names, the adoption baseline. */
  guardTouched(): Set<string> {
    const names = new Set([...guardFiles(this.config), CONFIG_FILE]);
    return new Set([...(this.input.guardPaths ?? this.touched)].filter((p) => names.has(p)));
  }

  /** What stops the touched guard files at the tip from judging, read in one batch; none when none is touched. */
  guardProblems(): Promise<CannotJudge[]> {
    return this.once('guardProblems', async () => {
      const touched = this.guardTouched();
      if (!touched.size) return [];
      return (await this.load()).guardFileProblems(this.repo, this.tip, touched);
    });
  }

  touchesLedger(): boolean {
    return this.touched.has(this.config.freeze.ledger);
  }

  /** The classifier of the config's zones, built once. */
  classify(): Promise<Classify> {
    return this.once('classify', async () => this.input.classify());
  }

  touchesFixtures(): Promise<boolean> {
    return this.once('touchesFixtures', async () =>
      touchesFixtures([...this.touched], this.config, await this.classify()),
    );
  }

  /** The time expiry is judged at. */
  now(): Promise<Date> {
    return this.once('now', async () => this.input.now ?? (await this.load()).clockNow());
  }

  /** The ledger at the tip; null where it has none, or where this point reads it only when touched and it is not. */
  ledger(): Promise<Ledger | null> {
    return this.once('ledger', async () => {
      if (WHEN_TOUCHED.has(this.point) && !this.touchesLedger()) return null;
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
    return this.once('links', async () => (this.input.links ? this.input.links() : []));
  }

  /** The range's commits and their changes; null where the point judges the index. */
  commitRange(): Promise<CommitRange | null> {
    return this.once('commitRange', async () => (this.input.commits ? this.input.commits() : null));
  }

  /** The owners verdict on the range's commits; none where the point reads no commits. */
  owners(): Promise<OwnersVerdict> {
    return this.once('owners', async () => (this.input.owners ? this.input.owners() : NO_OWNERS));
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
