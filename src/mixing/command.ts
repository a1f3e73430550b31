// `patchwarden check`: the mixing rule on the index, a commit or a range.
import { parse } from '../cli/args.js';
import { openWithConfig } from '../cli/context.js';
import { emit, violationsOutcome } from '../cli/output.js';
import { UsageError } from '../common/errors.js';
import { resolveCommit } from '../git/repo.js';
import { stagedChanges } from '../git/changes.js';
import { checkRange, classifierFor } from './check.js';
import { checkStaged } from './staged.js';

export const help = `usage: patchwarden check [--staged | --commit REV | --range A..B] [--format text|json|github] [--config PATH] [-C DIR]

The mixing rule: a change to production code (the src zone) may not also
change an oracle (spec, fixtures, freeze) or the guard (its config, hooks).

  --staged        the index, as git hands it to a hook (default)
  --commit REV    one commit
  --range A..B    every commit of A..B, and the range as a whole
                  (mix.range: allow relaxes the whole-range rule)

In commit and range modes a merge counts as changing what it authored (where
its tree differs from git's own merge of its parents), and a symbolic link in
a zone may point only inside that zone. The owners rule applies too, when
configured (owners.signers, owners.agents; the signers file is read from HEAD): every
commit that touches an oracle must be owner-signed and no agent's, and
owner-signed oracle commits may share a range with production commits.

exit 0 clean, 1 refused, 2 could not judge.`;

export async function run(args: string[]): Promise<number> {
  const { common, values } = parse(args, { staged: { type: 'boolean' }, commit: { type: 'string' }, range: { type: 'string' } }, false);
  const modes = [values.staged, values.commit, values.range].filter((v) => v !== undefined);
  if (modes.length > 1) throw new UsageError('give one of --staged, --commit REV, --range A..B');
  const { repo, config } = await openWithConfig(common);
  if (values.commit !== undefined) {
    const id = await resolveCommit(repo, values.commit);
    const { violations } = await checkRange(repo, config, `${id}^@`, id, 'HEAD');
    return emit(common.format, violationsOutcome(violations, { commits: [id] }));
  }
  if (values.range !== undefined) {
    const m = /^(.*?)\.\.(.+)$/.exec(values.range);
    if (!m || m[1].endsWith('.')) throw new UsageError(`--range wants A..B, not ${JSON.stringify(values.range)}`);
    const from = await resolveCommit(repo, m[1] || 'HEAD');
    const to = await resolveCommit(repo, m[2]);
    const { commits, violations } = await checkRange(repo, config, from, to, 'HEAD');
    return emit(common.format, violationsOutcome(violations, { commits }));
  }
  return emit(common.format, violationsOutcome(checkStaged(await stagedChanges(repo), await classifierFor(repo, config))));
}
