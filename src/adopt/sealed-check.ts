// doctor's look at sealed property runs (docs/revert-check.md#sealed-runs):
// whether this machine can confine a worker with Landlock, and, where the
// config turns sealing on, the property and harness files that use what
// sealing does not carry to the worker (mocks and patches of production
// modules, fake timers, frozen clocks). The look is static and by name: a
// patch of the property's own objects is fine, and is named all the same.
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config/schema.js';
import type { Repo } from '../git/repo.js';
import { workingFiles } from '../git/files.js';
import { classifierFor } from '../config/classifier.js';
import { abiReach } from '../properties/sealed/confine.js';
import { landlockAbi } from '../properties/sealed/env.js';
import type { Finding } from './doctor.js';

/** What sealing does not carry to the worker, by how it is spelled. */
const UNSUPPORTED: [RegExp, string][] = [
  [/\bmonkeypatch\.(setattr|setitem|delattr|syspath_prepend)\b/, 'monkeypatch'],
  [/\b(mock\.patch|mocker\.patch)\b|^\s*from\s+unittest\.mock\s+import\b[^\n]*\bpatch\b/m, 'mock.patch'],
  [/\b(freezegun|freeze_time|time_machine)\b/, 'a frozen clock (freezegun, time-machine)'],
  [/\bjest\.(mock|doMock|unstable_mockModule|spyOn)\s*\(/, 'jest.mock'],
  [/\bvi\.(mock|doMock|spyOn)\s*\(/, 'vi.mock'],
  [/\b(jest|vi)\.useFakeTimers\b|\bsinon\.useFakeTimers\b|\bmock\.timers\.enable\b/, 'fake timers'],
  [/\bmock\.module\s*\(/, "node:test's mock.module"],
];

/** Files of the harness besides the spec zone: conftest.py and setup files at any depth. */
const HARNESS = /(^|\/)(conftest\.py|(jest|vitest)\.setup\.[cm]?[jt]s)$/;
const LARGEST = 1 << 20;

export async function sealedFindings(repo: Repo, root: string, config: Config): Promise<Finding[]> {
  const abi = landlockAbi();
  const machine: Finding =
    abi > 0
      ? { check: 'sealed', ok: true, detail: `this machine can run properties.sealed: kernel (${abiReach(abi)})` }
      : {
          check: 'sealed',
          ok: true,
          warn: config.properties.sealed === 'kernel',
          detail: `this machine cannot run properties.sealed: kernel (no Landlock: Linux 5.13 or newer with "landlock" in /sys/kernel/security/lsm, and python3 on PATH)${config.properties.sealed === 'kernel' ? ': its runs are sealed: process, and a gate with gate.require: kernel refuses them' : ''}`,
        };
  if (config.properties.sealed === 'off' || !config.properties.command) return [machine];
  const hits = await unsupportedUses(repo, root, config);
  if (!hits.length) return [machine];
  return [
    machine,
    {
      check: 'sealed',
      ok: true,
      warn: true,
      detail: `properties.sealed is ${config.properties.sealed}, and these files use what does not reach the sealed worker: ${hits.join('; ')}. A mock or patch of production code or its dependencies from the property side changes nothing the worker runs: pass the dependency in as an argument (a callback runs on the property's side), or set properties.sealed: off (docs/revert-check.md#sealed-runs)`,
    },
  ];
}

/** `file:line (what)` for each property or harness file that uses an unsupported pattern, first use only. */
async function unsupportedUses(repo: Repo, root: string, config: Config): Promise<string[]> {
  const classify = await classifierFor(repo, config);
  const files = (await workingFiles(repo)).filter((f) => classify(f) === 'spec' || HARNESS.test(f));
  const hits: string[] = [];
  for (const f of files) {
    const file = path.join(root, f);
    const st = statSync(file, { throwIfNoEntry: false });
    if (!st?.isFile() || st.size > LARGEST) continue;
    const text = readFileSync(file, 'utf8');
    for (const [re, what] of UNSUPPORTED) {
      const m = re.exec(text);
      if (m) hits.push(`${f}:${text.slice(0, m.index + m[0].search(/\S/)).split('\n').length} (${what})`);
    }
  }
  return hits;
}
