// Whether this machine fences the two sides of revert.jobs: 2 (fence.ts):
// Landlock ABI 2 or later, probed as the judge probes it.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { landlockProbe } from '../../src/properties/sealed/confine.js';
import { PROJECT } from './repo.js';

export const FENCE =
  landlockProbe(readFileSync(path.join(PROJECT, 'src/properties/sealed/confine.py'), 'utf8')).abi >= 2;
