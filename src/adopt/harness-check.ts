// doctor's look at the test harness (config/harness.ts): a version 1 config
// leaves it free, which a note names; under version 2 every setup file a
// runner's config names must be in an oracle zone, and a config that can be
// read only by running it is said to be so.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { counted } from '../common/text.js';
import { HARNESS_CONFIGS, harnessGuarded } from '../config/harness.js';
import { SHARED_CONFIGS, setupFilesOf } from '../config/harness-setup.js';
import type { Config } from '../config/schema.js';
import type { Repo } from '../git/repo.js';
import { trackedFiles } from '../git/files.js';
import { classifierFor } from '../config/classifier.js';
import { globMatcher } from '../zones/glob.js';
import { CONFIG_FILE, ORACLE_ZONES } from '../zones/names.js';
import type { Finding } from './doctor.js';

const CHECK = 'harness';

export async function harnessFindings(repo: Repo, root: string, config: Config): Promise<Finding[]> {
  if (!harnessGuarded(config)) {
    if (!config.present) return [];
    return [
      {
        check: CHECK,
        ok: true,
        warn: true,
        detail: `version: 1 leaves the test harness (conftest.py on the property path, pytest.ini, jest, vitest and mocha configs, the setup files they name) free: a patch that changes only those can swap the function under test and judge itself. \`version: 2\` in ${CONFIG_FILE} puts them in the guard zone (an owner's change)`,
      },
    ];
  }
  const files = await trackedFiles(repo);
  const tracked = new Set(files);
  const isConfig = globMatcher([...HARNESS_CONFIGS, ...SHARED_CONFIGS]);
  const classify = await classifierFor(repo, config);
  const free = new Set<string>();
  const unreadable: string[] = [];
  for (const file of files.filter((f) => isConfig(f) && !f.includes('node_modules/'))) {
    let text: string;
    try {
      text = readFileSync(path.join(root, file), 'utf8');
    } catch {
      continue;
    }
    const named = setupFilesOf(file, text, (p) => tracked.has(p));
    if ('unreadable' in named) unreadable.push(named.unreadable);
    else for (const f of named.files) if (!ORACLE_ZONES.includes(classify(f) as never)) free.add(f);
  }
  const findings: Finding[] = [];
  if (free.size)
    findings.push({
      check: CHECK,
      ok: false,
      detail: `setup files the test runners' configs name are in no oracle zone, so a patch may change them freely: ${[...free].join(', ')}; add them to the guard zone (an owner's change): \`zones: guard: [${[...free].join(', ')}]\` in ${CONFIG_FILE}`,
    });
  for (const why of unreadable)
    findings.push({
      check: CHECK,
      ok: true,
      warn: true,
      detail: `${why}, so its setup files cannot be read without running it: list them under zones.guard in ${CONFIG_FILE}`,
    });
  if (!findings.length)
    findings.push({
      check: CHECK,
      ok: true,
      detail: `version 2: the test harness is in the guard zone (${counted(files.filter((f) => classify(f) === 'guard').length, 'guard file')} in all)`,
    });
  return findings;
}
