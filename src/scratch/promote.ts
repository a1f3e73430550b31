// `patchwarden promote PROPOSAL`: an owner's acknowledgment of a scratch
// proposal, as one commit on the branch it merges into. It never runs for a
// committer that owners.agents names: an agent proposes, an owner promotes.
// The commit is made by `git commit`, so the hooks run and git signs it when
// it is set to sign. Nothing is written until every check passed, and a
// commit git refuses leaves the paths as HEAD has them.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { parse } from '../common/args.js';
import { CannotJudge, UsageError } from '../common/errors.js';
import { emit, violationsOutcome } from '../common/output.js';
import { counted, shellQuote } from '../common/text.js';
import type { Violation } from '../common/verdict.js';
import { judgingConfig } from '../config/judging.js';
import type { Config } from '../config/schema.js';
import { evidencePath, sha256 } from '../freeze/bound.js';
import {
  changedSince,
  checkoutAt,
  checkoutIndex,
  commitIndex,
  hasStagedChanges,
  setIndexEntries,
  stagePaths,
  unstage,
} from '../git/checkout.js';
import { objectExists, objectId, readBlobs, readFileAt, writeBlob } from '../git/objects.js';
import { identity, isAncestor, openRepo, resolveCommit, worktreeRoot, ZERO_ID, type Repo } from '../git/repo.js';
import { addressOf, identityMatcher } from '../owners/identity.js';
import { CONFIG_FILE } from '../zones/names.js';
import { readProposal, type Proposal } from './proposal.js';
import { withRows } from './registry-rows.js';

export const help = `usage: patchwarden promote PROPOSAL [--message TEXT]

Turns a scratch proposal (patchwarden scratch --out) into one commit on the
current branch, which must contain the proposal's base: the oracle files it
lists, at the bytes the branch has (each checked against its blob id, and
against the branch when it is fetched), the registry rows it proposes, and
each freeze row whose reason and owner the owner filled in, added with
freeze add --from-replay from the replay results beside the proposal.

The commit is made with git commit: the hooks run, and git signs it when it is
set to sign (commit.gpgsign, gpg.format ssh, user.signingkey); the owners rule
at push, server and gate wants it signed by a key in owners.signers.

It refuses (exit 1) when the committer or author matches owners.agents (an
owner promotes, never an agent), when HEAD lacks the proposal's base, when a
listed path changed on HEAD since the proposal was made, when a file differs
from the branch's, and when the index or those paths hold uncommitted work.

  --message TEXT  the commit message (default: names the branch and head)

Then the branch drops its own oracle commits and is rebased onto the new
commit; gate --scratch PROPOSAL prints where the gate's verdict differs from
the proposal's, and the gate's verdict stands.

exit 0 committed, 1 refused, 2 could not judge (an unreadable proposal).`;

export async function run(args: string[]): Promise<number> {
  const { common, values, positionals } = parse(args, { message: { type: 'string' } });
  if (positionals.length !== 1) throw new UsageError('promote takes one proposal file (patchwarden scratch --out)');
  const file = path.resolve(positionals[0]);
  const proposal = readProposal(file);
  const repo = await openRepo(common.dir);
  const root = worktreeRoot(repo);
  const head = await resolveCommit(repo, 'HEAD');
  const { config } = await judgingConfig(repo, common.config, head, () => {});
  const who = await agentRefusal(repo, config, head, positionals[0]);
  if (who) return emit(common.format, violationsOutcome([who]));
  const oids = await writeBlobs(repo, proposal, file);
  const stale = await staleness(repo, config, proposal, head, oids, positionals[0]);
  if (stale.length) return emit(common.format, violationsOutcome(stale));
  const paths = touched(config, proposal);
  const work = await uncommitted(repo, paths, positionals[0]);
  if (work) return emit(common.format, violationsOutcome([work]));
  try {
    await apply(repo, config, proposal, oids, root);
    const freeze = await freezeRows(repo, config, proposal, file, common.config);
    await stagePaths(repo, freeze);
    const refused = await commitIndex(repo, values.message ?? defaultMessage(proposal));
    if (refused !== null) throw new CannotJudge(`git commit refused: ${refused}`);
  } catch (err) {
    await putBack(repo, config, proposal, root, file);
    throw err;
  }
  const commit = await resolveCommit(repo, 'HEAD');
  const signed = (await readBlobs(repo, [commit], 'commit')).get(commit)!.toString('utf8').includes('\ngpgsig ');
  const v = proposal.verdict.gate;
  return emit(common.format, {
    ok: true,
    json: {
      commit,
      signed,
      files: proposal.files.length,
      registry: proposal.registry.length,
      freeze: filled(proposal).map((z) => z.sig),
      predicted: v,
    },
    text: [
      `promote: ${commit.slice(0, 12)}, ${counted(proposal.files.length, 'file')} and ${counted(proposal.registry.length, 'registry row')} of the proposal of ${proposal.branch ?? proposal.head.slice(0, 12)}, ${signed ? 'signed' : 'not signed (git is not set to sign: the owners rule refuses it at push; git commit --amend -S signs it)'}`,
      `promote: scratch predicts properties ${v.properties}, revert ${v.revert}, suite ${v.suite} once the branch is rebased onto it; the gate's verdict stands (gate --scratch ${shellQuote(positionals[0])} prints any difference)`,
      `promote: push it for review, then on the branch: git rebase ${commit.slice(0, 12)} (its own oracle commits become empty and are dropped)`,
    ],
  });
}

/** The refusal for a committer or author owners.agents names, naming who may promote. */
async function agentRefusal(repo: Repo, config: Config, head: string, file: string): Promise<Violation | null> {
  const isAgent = identityMatcher(config.owners.agents);
  const idents = await Promise.all([identity(repo, 'committer'), identity(repo, 'author')]);
  const agent = idents.map((i) => addressOf(i ?? '')).find((a) => a && isAgent(a));
  if (!agent) return null;
  const signers = config.owners.signers;
  const listed = signers ? await readFileAt(repo, head, signers) : null;
  const owners = listed
    ? [
        ...new Set(
          listed
            .toString('utf8')
            .split('\n')
            .map((l) => l.trim())
            .filter((l) => l && !l.startsWith('#'))
            .flatMap((l) => l.split(/\s+/)[0].split(',')),
        ),
      ]
    : [];
  const who = owners.length
    ? `an owner (${owners.join(', ')}, listed in ${signers})`
    : `an owner (a key in owners.signers once one is listed)`;
  return {
    rule: 'promote-agent',
    paths: [CONFIG_FILE, ...(signers ? [signers] : [])],
    message: `${agent} matches owners.agents: a scratch proposal is promoted by an owner, never by an agent`,
    fix: `${who} reviews the proposal and runs, in their own clone on the branch it merges into:\npatchwarden promote ${shellQuote(file)}`,
  };
}

/** Writes each file's bytes as a blob; a blob id that does not match its bytes means the proposal was edited. */
async function writeBlobs(repo: Repo, p: Proposal, file: string): Promise<Map<string, string>> {
  const oids = new Map<string, string>();
  for (const f of p.files) {
    if (f.content === null) continue;
    const oid = await writeBlob(repo, Buffer.from(f.content, 'base64'));
    if (oid !== f.oid)
      throw new CannotJudge(
        `${f.path}: its content does not hash to its blob id ${f.oid}: the file was edited after scratch wrote it`,
        { file },
      );
    oids.set(f.path, oid);
  }
  return oids;
}

/** Refusals for a base HEAD lacks, a path HEAD changed since, or a file that is not the branch's. */
async function staleness(
  repo: Repo,
  config: Config,
  p: Proposal,
  head: string,
  oids: Map<string, string>,
  file: string,
): Promise<Violation[]> {
  const rerun = `ask for a new proposal: on the branch, git rebase ${shellQuote(p.base_ref)} && patchwarden scratch --base ${shellQuote(p.base_ref)}; then promote the proposal it writes`;
  if (!(await isAncestor(repo, p.base, head)))
    return [
      {
        rule: 'promote-base',
        paths: [],
        message: `HEAD does not contain the proposal's base ${p.base.slice(0, 12)}`,
        fix: `on the branch the proposal merges into (${p.base_ref}), up to date: git switch ${shellQuote(localBranch(p.base_ref))} && git pull --ff-only && patchwarden promote ${shellQuote(file)}`,
      },
    ];
  const paths = touched(config, p).filter((f) => f !== config.freeze.ledger);
  const at = async (rev: string, f: string) => (await objectId(repo, `${rev}:${f}`)) ?? '';
  const changed = [];
  for (const f of paths) if ((await at(p.base, f)) !== (await at(head, f))) changed.push(f);
  const out: Violation[] = [];
  if (changed.length)
    out.push({
      rule: 'promote-stale',
      paths: changed,
      message: `${counted(changed.length, 'path')} of the proposal changed on HEAD since it was made`,
      fix: rerun,
    });
  // Where the branch is fetched, each file must be the branch's.
  if (await objectExists(repo, `${p.head}^{commit}`)) {
    const differ = [];
    for (const f of p.files) if ((await at(p.head, f.path)) !== (oids.get(f.path) ?? '')) differ.push(f.path);
    if (differ.length)
      out.push({
        rule: 'promote-branch',
        paths: differ,
        message: `the proposal's files differ from the branch's at ${p.head.slice(0, 12)}`,
        fix: rerun,
      });
  }
  return out;
}

/** The paths the commit writes: the files, the registry when rows are added, and the ledger when freeze rows are. */
function touched(config: Config, p: Proposal): string[] {
  return [
    ...p.files.map((f) => f.path),
    ...(p.registry.length ? [config.properties.invariants] : []),
    ...(filled(p).length ? [config.freeze.ledger] : []),
  ];
}

const filled = (p: Proposal) => p.freeze.filter((z) => z.reason?.trim() && z.owner?.trim());

/** Staged work, or uncommitted edits of the paths the commit writes: promote would sweep them in. */
async function uncommitted(repo: Repo, paths: string[], file: string): Promise<Violation | null> {
  const staged = await hasStagedChanges(repo);
  const edited = await changedSince(repo, 'HEAD', paths);
  if (!staged && !edited.length) return null;
  return {
    rule: 'promote-dirty',
    paths: edited,
    message: staged
      ? 'the index holds staged changes: promote makes a commit of the proposal alone'
      : 'these paths hold uncommitted edits',
    fix: `set them aside, promote, and take them back: git stash && patchwarden promote ${shellQuote(file)} && git stash pop`,
  };
}

/** The files into the index and the working tree, then the registry rows. */
async function apply(repo: Repo, config: Config, p: Proposal, oids: Map<string, string>, root: string): Promise<void> {
  await setIndexEntries(
    repo,
    p.files.map((f) =>
      f.oid && f.mode
        ? { mode: f.mode, oid: oids.get(f.path)!, path: f.path }
        : { mode: '0', oid: ZERO_ID, path: f.path },
    ),
  );
  await checkoutIndex(
    repo,
    p.files.filter((f) => f.oid).map((f) => f.path),
  );
  for (const f of p.files) if (!f.oid) rmSync(path.join(root, f.path), { force: true });
  if (!p.registry.length) return;
  const file = config.properties.invariants;
  const before = await readFileAt(repo, ':', file);
  const oid = await writeBlob(repo, withRows(before?.toString('utf8') ?? null, p.registry, file));
  await setIndexEntries(repo, [{ mode: '100644', oid, path: file }]);
  await checkoutIndex(repo, [file]);
}

/**
 * The filled freeze rows, through `freeze add --from-replay` run as its own
 * process of this CLI (its output is its own, not promote's); the paths it wrote.
 */
async function freezeRows(
  repo: Repo,
  config: Config,
  p: Proposal,
  file: string,
  configFlag?: string,
): Promise<string[]> {
  const rows = filled(p);
  if (!rows.length) return [];
  for (const z of rows) {
    const r = spawnSync(
      process.execPath,
      [
        process.argv[1],
        'freeze',
        'add',
        `--from-replay=${path.join(path.dirname(file), z.evidence)}`,
        `--sig=${z.sig}`,
        `--reason=${z.reason}`,
        `--owner=${z.owner}`,
        `--ttl=${z.ttl}`,
        '-C',
        worktreeRoot(repo),
        ...(configFlag ? ['--config', configFlag] : []),
      ],
      { encoding: 'utf8' },
    );
    if (r.status !== 0)
      throw new CannotJudge(
        `freeze add refused the row for ${z.sig}, so nothing was committed: ${`${r.stdout}${r.stderr}`.trim()}`,
      );
  }
  return [config.freeze.ledger, path.posix.dirname(config.freeze.ledger)];
}

/** After a refused commit: the proposal's paths back as HEAD has them (they held no work of the owner's: checked before). */
async function putBack(repo: Repo, config: Config, p: Proposal, root: string, file: string): Promise<void> {
  const kept = filled(p).flatMap((z) => {
    try {
      return [evidenceOf(config, file, z.evidence)];
    } catch {
      return [];
    }
  });
  const paths = [...touched(config, p), ...kept];
  await unstage(repo, paths);
  for (const f of paths) {
    if (await objectExists(repo, `HEAD:${f}`)) await checkoutAt(repo, 'HEAD', f);
    else if (existsSync(path.join(root, f))) rmSync(path.join(root, f), { force: true });
  }
}

/** The local branch a remote-tracking name stands for (origin/main: main). */
function localBranch(ref: string): string {
  return ref.replace(/^(refs\/remotes\/)?origin\//, '').replace(/^refs\/heads\//, '');
}

/** Where freeze add keeps a results file beside the ledger: its digest names it. */
function evidenceOf(config: Config, file: string, evidence: string): string {
  return evidencePath(config, sha256(readFileSync(path.join(path.dirname(file), evidence))));
}

function defaultMessage(p: Proposal): string {
  return [
    `oracles: promote the scratch proposal of ${p.branch ?? 'a branch'} at ${p.head.slice(0, 12)}`,
    '',
    `${counted(p.files.length, 'file')} and ${counted(p.registry.length, 'registry row')} from the branch, reviewed by an owner; its production diff (${p.production.digest.slice(0, 12)}) comes on its own.`,
  ].join('\n');
}
