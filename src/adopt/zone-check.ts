// doctor's look at the zones against the files the project has: a src zone
// that matches nothing guards nothing (every change passes as free), and an
// oracle zone with files but no owners can be changed by anyone who commits.
import { splitNul } from '../git/run.js';
import type { Repo } from '../git/repo.js';
import { classifierFor } from '../mixing/check.js';
import type { Config } from '../config/schema.js';
import { counted } from '../common/text.js';
import { CONFIG_FILE } from '../zones/names.js';
import type { Finding } from './doctor.js';
import { sourceGlobs } from './layout.js';

/** The zones against the tracked files (and the untracked ones git does not ignore, which the next `git add -A` commits). */
export async function zoneFindings(repo: Repo, root: string, config: Config): Promise<Finding[]> {
  const files = splitNul(
    (await repo.run(['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--full-name'])).stdout,
  );
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
  return findings;
}
