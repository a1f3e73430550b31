// The fixture lock and the ledger checked again once the whole commit hook
// chain has run. A formatter the project runs after the guard (prettier
// through lint-staged, a pre-commit framework hook) restages what it
// rewrites, so the index the pre-commit hook passed is not the one git
// commits. pre-commit leaves a mark when it checked either
// (recheck-mark.ts); commit-msg, the last hook before git writes the commit
// under every manager, checks the index again.
import { createHash } from 'node:crypto';
import type { Config } from '../config/schema.js';
import type { Violation } from '../common/verdict.js';
import { shellQuote } from '../common/text.js';
import type { Repo } from '../git/repo.js';
import { readFileAt } from '../git/objects.js';
import { fixtureViolations, FORMATTER_NOTE, verifyFixtures } from '../fixtures/verify.js';
import { clockNow } from '../freeze/clock.js';
import { Facts } from '../judge/facts.js';
import { runPlan } from '../judge/rule.js';
import { freezeRule } from '../judge/rules/freeze.js';
import { classifierFor } from '../config/classifier.js';
import type { Recheck } from './recheck-mark.js';

const AFTER = 'after the commit hooks ran (pre-commit had passed them)';

/** The index checked again; a drift from the lock is named as the formatter's rewrite it most likely is. */
export async function recheckIndex(repo: Repo, config: Config, kinds: Recheck[]): Promise<Violation[]> {
  const out: Violation[] = [];
  // The freeze rule again, on the index as it is now.
  const ledger = new Facts({
    point: 'pre-commit',
    repo,
    config,
    tip: ':',
    where: 'the index',
    paths: [config.freeze.ledger],
    classify: () => classifierFor(repo, config),
    now: clockNow(),
  });
  if (kinds.includes('ledger'))
    for (const v of await runPlan(ledger, [[freezeRule]]))
      out.push({
        ...v,
        message: `${v.message}, ${AFTER}: a formatter likely rewrote it`,
        fix: `${v.fix}\n${FORMATTER_NOTE}`,
      });
  if (!kinds.includes('fixtures')) return out;
  const report = await verifyFixtures(repo, config, { kind: 'index' });
  const rest = fixtureViolations({ ...report, changed: [] }, config, 'the index');
  if (report.changed.length) out.push(await rewritten(repo, config, report.changed, report.drift ?? {}));
  return [...out, ...rest];
}

async function rewritten(
  repo: Repo,
  config: Config,
  paths: string[],
  drift: Record<string, { locked: string; found: string }>,
): Promise<Violation> {
  // A fixture HEAD holds with the locked bytes comes back with git; a new one is written again.
  const fromHead: string[] = [];
  for (const p of paths) {
    const bytes = await readFileAt(repo, 'HEAD', p).catch(() => null);
    if (bytes && createHash('sha256').update(bytes).digest('hex') === drift[p]?.locked) fromHead.push(p);
  }
  const others = paths.filter((p) => !fromHead.includes(p));
  const restore = [
    ...(fromHead.length ? [`git checkout HEAD -- ${fromHead.map(shellQuote).join(' ')}`] : []),
    ...(others.length
      ? [`write ${others.join(', ')} again as it was locked (rerun the \`patchwarden fixtures add\` that wrote it)`]
      : []),
  ];
  return {
    rule: 'fixtures',
    paths,
    message: `fixture bytes in the index changed ${AFTER}: a formatter in the hook chain likely rewrote them, so the commit would not match ${config.fixtures.lock}`,
    fix: `${FORMATTER_NOTE};\nthen put the locked bytes back: ${restore.join('; ')}; stage them and commit again`,
    detail: paths.map((p) => ({
      path: p,
      note: `the lock has sha256 ${drift[p]?.locked.slice(0, 16)}…, the staged bytes ${drift[p]?.found.slice(0, 16)}…`,
    })),
  };
}
