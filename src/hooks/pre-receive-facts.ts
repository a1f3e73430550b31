// The facts of one push, read once for all its refs (pre-receive-judge.ts):
// what git's one walk brings (commits, changes, parents and trailers, read
// by pre-receive.ts), the classifier, the judging branch's rules per ref,
// the tamper scan, the adoption baseline and the commits it leaves out, the
// owners' granted overrides, the owners verdict and the links that leave
// their zone. Each is memoized (judge/memo.ts); `start` begins them all once
// the judge is known, and each runs as soon as its inputs are, most of them
// beside the walk, so a long push is mostly judged by the time it ends.
import type { Violation } from '../common/verdict.js';
import { classifierFor } from '../config/classifier.js';
import type { Judge } from '../config/judge.js';
import type { Config } from '../config/schema.js';
import { isAncestor, isZeroId, type Repo } from '../git/repo.js';
import { Memo } from '../judge/memo.js';
import { baselined, readBaseline } from '../mixing/baseline.js';
import { symlinkViolations } from '../mixing/symlinks.js';
import { checkOwners } from '../owners/check.js';
import { judgeOverrides, overrideClaims, type Overrides } from '../owners/override.js';
import type { Pusher } from '../owners/pusher.js';
import type { OwnersVerdict } from '../owners/rule.js';
import { tamperPush, type TamperVerdict } from '../tamper/judge.js';
import type { Classify } from '../zones/classify.js';
import { branchViolations, type JudgingBranch } from './judging-branch.js';
import type { Pushed, RefUpdate, readPush } from './pre-receive.js';

export interface PushInput {
  repo: Repo;
  judge: Judge;
  branch: JudgingBranch;
  updates: RefUpdate[];
  /** The push being read (pre-receive.ts): its peeled objects, and its commits' sides as the walk goes. */
  pushing: ReturnType<typeof readPush>;
  /** Its walk, or the error that stopped reading it. */
  reading: Promise<{ push: Pushed } | { error: unknown }>;
  pushers: Pusher[];
}

/** The commits the rules judge: all new ones and each update's, less the adoption baseline's. */
export interface Judged {
  all: string[];
  /** In the order of the updates. */
  byUpdate: string[][];
}

export class PushFacts extends Memo {
  readonly repo: Repo;
  readonly config: Config;
  readonly branch: JudgingBranch;
  readonly updates: RefUpdate[];
  readonly pushers: Pusher[];
  private readonly input: PushInput;

  constructor(input: PushInput) {
    super();
    this.input = input;
    ({ repo: this.repo, branch: this.branch, updates: this.updates, pushers: this.pushers } = input);
    this.config = input.judge.config;
  }

  /** Starts every fact of the push: each waits only for its own inputs. */
  start(): void {
    this.classify();
    this.branchFaults();
    this.tamper();
    this.overrides();
    this.owners();
    this.links();
  }

  /** What the push brings; the error that stopped reading it is thrown here. */
  walk(): Promise<Pushed> {
    return this.once('walk', async () => {
      const read = await this.input.reading;
      if ('error' in read) throw read.error;
      return read.push;
    });
  }

  /** The judging config's zones, as this repository folds case; each new commit's sides are worked out from then on. */
  classify(): Promise<Classify> {
    return this.once('classify', async () => {
      const classify = await classifierFor(this.repo, this.input.judge, { ignoreCase: this.branch.ignoreCase });
      this.input.pushing.sides.start(classify);
      return classify;
    });
  }

  /** The judging branch's rules (no rewind, no deletion, no replace ref), in the order of the updates. */
  branchFaults(): Promise<Violation[][]> {
    return this.once('branchFaults', () => {
      // A fast-forward shows in the push's own walk (a new commit of the ref grows from the old tip); else git answers.
      const grows = async (u: RefUpdate, old: string) => {
        const p = await this.walked();
        return Boolean(p?.commits.get(u.ref)?.some((c) => p.parents.get(c)?.includes(old)));
      };
      return Promise.all(
        this.updates.map((u) =>
          branchViolations(
            u,
            this.branch,
            this.config,
            async (a, b) => (await grows(u, a)) || isAncestor(this.repo, a, b),
          ),
        ),
      );
    });
  }

  /** The tamper verdict per ref: updated refs are scanned from their old value once the pushed objects are peeled, beside the walk. */
  tamper(): Promise<Map<string, TamperVerdict>> {
    return this.once('tamper', () =>
      tamperPush(
        this.repo,
        this.config,
        this.branch.id,
        this.updates,
        this.classify(),
        this.input.pushing.peeled,
        this.walked(),
      ),
    );
  }

  /** The new commits of the adoption baseline on the judging branch (its file read beside the walk). */
  baselined(): Promise<Set<string>> {
    return this.once('baselined', async () => {
      const file = readBaseline(this.repo, this.branch.id);
      file.catch(() => {});
      return baselined(this.repo, this.branch.id, ['--all'], (await this.walk()).all, file);
    });
  }

  /** The new commits the rules judge, the baseline's left out. */
  judged(): Promise<Judged> {
    return this.once('judged', async () => {
      const [push, old] = await Promise.all([this.walk(), this.baselined()]);
      const keep = (commits: string[]) => (old.size ? commits.filter((c) => !old.has(c)) : commits);
      return { all: keep(push.all), byUpdate: this.updates.map((u) => keep(push.commits.get(u.ref) ?? [])) };
    });
  }

  /** An owner's override commits claimed in each update's commits, judged for its range; in the order of the updates. */
  overrides(): Promise<Overrides[]> {
    return this.once('overrides', async () => {
      const [push, judged] = await Promise.all([this.walk(), this.judged()]);
      const claimed = overrideClaims(push, judged.all);
      const none: Overrides = { granted: [], violations: [] };
      if (!claimed.length) return this.updates.map(() => none);
      const { clockNow } = await import('../freeze/clock.js');
      return Promise.all(
        this.updates.map(async (u, i) => {
          const commits = judged.byUpdate[i];
          const mine = claimed.filter((o) => commits.includes(o.commit));
          if (isZeroId(u.new) || !mine.length) return none;
          const from = push.reach.boundary(commits);
          const base = from.length === 1 ? from[0] : null;
          return judgeOverrides(this.repo, this.config, this.branch.id, mine, commits, base, clockNow());
        }),
      );
    });
  }

  /** The owners verdict on every judged commit, whichever ref brings it. */
  owners(): Promise<OwnersVerdict> {
    return this.once('owners', async () => {
      const [push, judged, classify] = await Promise.all([this.walk(), this.judged(), this.classify()]);
      return checkOwners(this.repo, this.config, this.branch.id, judged.all, push.changes, classify, this.pushers);
    });
  }

  /** The owners' faults by commit. */
  ownerFaults(): Promise<Map<string, Violation>> {
    return this.once('ownerFaults', async () => new Map((await this.owners()).violations.map((o) => [o.commit!, o])));
  }

  /** Symbolic links that leave their zone, by commit, read once for every judged commit that adds or changes one. */
  links(): Promise<Map<string, Violation>> {
    return this.once('links', async () => {
      const [push, judged, classify] = await Promise.all([this.walk(), this.judged(), this.classify()]);
      const linking = push.linking.size ? judged.all.filter((c) => push.linking.has(c)) : [];
      const found = await symlinkViolations(this.repo, linking, push.changes, classify);
      return new Map(found.map((l) => [l.commit!, l]));
    });
  }

  /** The walk, or null where reading it failed (for the facts that judge without it; the error is thrown by `walk`). */
  private walked(): Promise<Pushed | null> {
    return this.once('walked', async () => {
      const read = await this.input.reading;
      return 'push' in read ? read.push : null;
    });
  }
}
