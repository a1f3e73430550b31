// The guard's own files for a config, the one list every enforcement point
// checks before they land (the engine's guard-file rule, judge/): the config,
// the files it names, and the adoption baseline.
import { BASELINE_FILE, CONFIG_FILE, type ZoneName } from '../zones/names.js';
import type { Config } from './schema.js';

/** The files a config names, each with the zone it belongs to (the signers file is the guard's). */
export function namedFiles(config: Config): [string, ZoneName][] {
  return [
    ...(config.owners.signers ? ([[config.owners.signers, 'guard']] as [string, ZoneName][]) : []),
    [config.freeze.ledger, 'freeze'],
    [config.fixtures.lock, 'fixtures'],
    [config.properties.invariants, 'spec'],
  ];
}

/** The paths of the guard's own files for `config`. */
export function guardFiles(config: Config): string[] {
  return [CONFIG_FILE, ...namedFiles(config).map(([file]) => file), BASELINE_FILE];
}
