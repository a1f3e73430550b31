// doctor's look at the property seed. The gate runs the revert check under a
// fresh PROP_SEED (docs/gate.md#the-property-seed), which changes nothing
// unless the properties draw their inputs from it. The look is static: the
// command, or a file the properties or their runner read (the spec zone's
// files, conftest.py at any depth, the runners' config files), names
// PROP_SEED. A name is not a use (a comment naming it passes), and an input
// drawn from an unseeded generator elsewhere is not seen: a warning, never a
// problem. A sealed run needs no name: its runtime seeds Hypothesis and
// fast-check.
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config/schema.js';
import type { Repo } from '../git/repo.js';
import { workingFiles } from '../git/files.js';
import { classifierFor } from '../config/classifier.js';
import { SEED_VARIABLE } from '../runner/env.js';
import type { Finding } from './doctor.js';

/** Where a property's seed is set, besides the command: runners' config files, wherever they are. */
const SETTINGS =
  /(^|\/)(conftest\.py|pytest\.ini|pyproject\.toml|setup\.cfg|tox\.ini|package\.json|(jest|vitest)\.(config|setup)\.[cm]?[jt]s|vitest\.workspace\.[cm]?[jt]s|\.mocharc\.[a-z]+)$/;

/** Larger files are not read: a seed's setting is never there. */
const LARGEST = 1 << 20;

export async function seedFinding(repo: Repo, root: string, config: Config): Promise<Finding[]> {
  const command = config.properties.command;
  if (!command) return [];
  const check = 'prop-seed';
  if (command.includes(SEED_VARIABLE))
    return [{ check, ok: true, detail: `properties.command passes $${SEED_VARIABLE} to the properties` }];
  const classify = await classifierFor(repo, config);
  const files = (await workingFiles(repo)).filter((f) => classify(f) === 'spec' || SETTINGS.test(f));
  const naming = files.find((f) => {
    const file = path.join(root, f);
    const st = statSync(file, { throwIfNoEntry: false });
    return st?.isFile() && st.size <= LARGEST && readFileSync(file, 'latin1').includes(SEED_VARIABLE);
  });
  if (naming) return [{ check, ok: true, detail: `${naming} reads $${SEED_VARIABLE} (seen by name only)` }];
  // A sealed run's harness hands the seed to the frameworks itself.
  if (config.properties.sealed !== 'off')
    return [
      {
        check,
        ok: true,
        detail: `properties.sealed is ${config.properties.sealed}: the sealed runtime hands $${SEED_VARIABLE} to Hypothesis and fast-check itself (a generator of your own must still be seeded from it)`,
      },
    ];
  return [
    {
      check,
      ok: true,
      warn: true,
      detail: `neither properties.command nor a spec or runner config file names $${SEED_VARIABLE}, so the gate's fresh seed changes no input and a patch can special-case the inputs of the pinned one; pass it to the framework (pytest with Hypothesis: --hypothesis-seed=$${SEED_VARIABLE} in the command; fast-check: fc.configureGlobal({ seed: Number(process.env.${SEED_VARIABLE}) }) in a setup file; your own generator: seed it from the variable)`,
    },
  ];
}
