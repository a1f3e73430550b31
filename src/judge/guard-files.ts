// The guard's own files as a commit (or the index) holds them, read for the
// guard-file rule (rules/guard-file.ts): the config and the files it names
// (freeze ledger, fixture lock, invariant registry, allowed signers), and the
// adoption baseline. Once one of them is on the branch that judges, every
// later change is judged by it, so one that does not parse would stop every
// commit and push, so they are checked before they land (a branch where the
// config is broken anyway is judged as config/judging.ts says).
import { CannotJudge, isCannotJudge } from '../common/errors.js';
import { loadConfigAt } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { BASELINE_FILE, CONFIG_FILE } from '../zones/names.js';
import { parseLock } from '../fixtures/lock-format.js';
import { readLedgerAt } from '../freeze/ledger.js';
import { readFileAt } from '../git/objects.js';
import type { Repo } from '../git/repo.js';
import { parseBaseline } from '../mixing/baseline.js';
import { parseRegistry } from '../properties/registry.js';

/** How messages name a file at `rev` (`:` is the index). */
const shownAt = (rev: string, file: string) =>
  rev === ':' ? file : `${/^[0-9a-f]{40,64}$/.test(rev) ? rev.slice(0, 12) : rev}:${file}`;

/**
 * What stops the guard's files at `rev` from judging, one problem per file,
 * each naming the file, the line and the key. Only the files in `touched` (and
 * the ones a touched config names) are read, so an untouched file costs nothing.
 */
export async function guardFileProblems(repo: Repo, rev: string, touched: Set<string>): Promise<CannotJudge[]> {
  let config: Config;
  try {
    config = await loadConfigAt(repo, rev);
  } catch (err) {
    if (!isCannotJudge(err)) throw err;
    return [err];
  }
  // A config that moves or adds a named file brings it under the check.
  const all = touched.has(CONFIG_FILE);
  const wanted = (file: string) => all || touched.has(file);
  const problems: CannotJudge[] = [];
  const check = async (body: () => Promise<void>) => {
    try {
      await body();
    } catch (err) {
      if (!isCannotJudge(err)) throw err;
      problems.push(err);
    }
  };
  const { ledger } = config.freeze;
  const { lock } = config.fixtures;
  const { invariants, command } = config.properties;
  const signers = config.owners.signers;
  if (wanted(ledger))
    await check(async () => {
      await readLedgerAt(repo, config, rev, new Date());
    });
  if (wanted(lock)) {
    await check(async () => {
      const blob = await readFileAt(repo, rev, lock);
      if (blob) parseLock(blob, shownAt(rev, lock));
    });
  }
  // The registry judges only where properties.command runs the properties; the revert check cannot run without it.
  if (command && wanted(invariants)) {
    await check(async () => {
      const blob = await readFileAt(repo, rev, invariants);
      if (!blob)
        throw new CannotJudge(`properties.command is set but ${invariants} (properties.invariants) is not there`, {
          file: config.source,
        });
      parseRegistry(blob.toString('utf8'), shownAt(rev, invariants));
    });
  }
  if (wanted(BASELINE_FILE)) {
    await check(async () => {
      const blob = await readFileAt(repo, rev, BASELINE_FILE);
      if (blob) parseBaseline(blob.toString('utf8'), shownAt(rev, BASELINE_FILE));
    });
  }
  if (signers && wanted(signers)) {
    await check(async () => {
      const blob = await readFileAt(repo, rev, signers);
      if (!blob) throw new CannotJudge(`owners.signers names ${signers}, which is not there`, { file: config.source });
      checkSigners(blob.toString('utf8'), shownAt(rev, signers));
    });
  }
  return problems;
}

/** git's allowed-signers format: principals, optional options, key type and base64 key on each line. */
function checkSigners(text: string, shown: string): void {
  text.split('\n').forEach((line, i) => {
    const l = line.trim();
    if (!l || l.startsWith('#')) return;
    if (!/(^|\s)(ssh-[a-z0-9-]+|ecdsa-sha2-[a-z0-9-]+|sk-[a-z0-9@.-]+)\s+[A-Za-z0-9+/]+=*(\s|$)/.test(l)) {
      throw new CannotJudge(
        'not an allowed-signers line (principals, then the key type and the base64 key, as `git config gpg.ssh.allowedSignersFile` reads)',
        { file: shown, line: i + 1 },
      );
    }
  });
}
