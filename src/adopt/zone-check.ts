// doctor's look at the zones against the files the project has: a src zone
// that matches nothing guards nothing (every change passes as free), and an
// oracle zone with files but no owners can be changed by anyone who commits,
// and a src glob listed before an oracle zone claims that zone's paths.
import { workingFiles } from '../git/files.js';
import type { Repo } from '../git/repo.js';
import { classifierFor } from '../config/classifier.js';
import type { Config } from '../config/schema.js';
import { counted } from '../common/text.js';
import { globMatcher } from '../zones/glob.js';
import { CONFIG_FILE, ORACLE_ZONES } from '../zones/names.js';
import type { Finding } from './doctor.js';
import { sourceGlobs } from './layout.js';

/** The zones against the tracked files (and the untracked ones git does not ignore, which the next `git add -A` commits). */
export async function zoneFindings(repo: Repo, root: string, config: Config): Promise<Finding[]> {
  const files = await workingFiles(repo);
  const classify = await classifierFor(repo, config);
  const count = new Map<string, number>();
  for (const f of files) {
    const zone = classify(f);
    if (zone) count.set(zone, (count.get(zone) ?? 0) + 1);
  }
  const owned = config.owners.signers !== null || config.owners.agents.length > 0;
  const findings: Finding[] = [];
  for (const { name, globs } of config.zones) {
    if (name === 'guard') continue;
    const n = count.get(name) ?? 0;
    const shown = globs.join(', ') || '(none)';
    if (name === 'src') {
      if (n) {
        findings.push({ check: 'zones.src', ok: true, detail: `${shown}: ${counted(n, 'file')} of production code` });
        continue;
      }
      const found = sourceGlobs(root)?.filter((g) => !globs.includes(g));
      findings.push({
        check: 'zones.src',
        ok: false,
        detail: `${shown} matches no file of this project, so no change counts as production code and nothing is guarded; set zones.src to the folders that hold it${found?.length ? ` (this project's metadata names ${found.join(', ')})` : ''}: \`$EDITOR ${CONFIG_FILE}\``,
      });
    } else if (!n) {
      findings.push({ check: `zones.${name}`, ok: true, detail: `${shown}: no file yet` });
    } else {
      findings.push({
        check: `zones.${name}`,
        ok: true,
        warn: !owned,
        detail: `${shown}: ${counted(n, 'file')}${owned ? '' : `; no owners are set, so anyone who can commit may change them in a commit of their own (the server hook and the gate judge owners once owners.signers is set: docs/server.md)`}`,
      });
    }
  }
  const claimed = claimedOracles(config, files, classify);
  if (claimed) findings.push(claimed);
  return findings;
}

/**
 * A path takes the first zone whose globs match it, so a src glob listed
 * before an oracle zone (`**\/!(*_test).go` before `spec/**`) makes that
 * oracle's files production code. Tried on the files the project has, and
 * on each of its first production files as if it were under each oracle
 * folder (a Go helper under spec/ that is not there yet).
 */
function claimedOracles(config: Config, files: string[], classify: (f: string) => string | null): Finding | null {
  const oracles = config.zones.filter((z) => ORACLE_ZONES.includes(z.name) && z.globs.length);
  const folders = oracles.flatMap((z) => z.globs.filter((g) => g.endsWith('/**')).map((g) => g.slice(0, -3)));
  const src = files.filter((f) => classify(f) === 'src').slice(0, 50);
  const probes = [...files, ...src.flatMap((f) => folders.map((d) => `${d}/${f}`))];
  const hits = oracles.flatMap((z) => {
    const inZone = globMatcher(z.globs);
    return probes.filter((f) => inZone(f) && classify(f) === 'src').map((f) => ({ zone: z.name, f }));
  });
  if (!hits.length) return null;
  const src_ = config.zones.find((z) => z.name === 'src')!;
  const zones = [...oracles, src_].map((z) => `      ${z.name}: [${z.globs.map((g) => JSON.stringify(g)).join(', ')}]`);
  return {
    check: 'zones.order',
    ok: true,
    warn: true,
    detail: `zones.src (${src_.globs.join(', ')}) comes before ${[...new Set(hits.map((h) => h.zone))].join(', ')} and claims its paths (${hits
      .slice(0, 3)
      .map((h) => h.f)
      .join(
        ', ',
      )}): a path takes the first zone that matches, so those are production code, which a change may touch with its fix. List the oracle zones first, in a commit of its own: \`$EDITOR ${CONFIG_FILE}\`\n    zones:\n${zones.join('\n')}`,
  };
}
