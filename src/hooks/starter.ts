// The starter `.patchwarden.yml` that `init` writes, from the layout it finds.
import { existsSync } from 'node:fs';
import path from 'node:path';

/** Folders that usually hold production code, in the order they are tried. */
const SOURCE_DIRS = ['src', 'lib', 'app', 'pkg', 'internal', 'cmd'];

export function starterConfig(root: string): string {
  const has = (p: string) => existsSync(path.join(root, p));
  const src = SOURCE_DIRS.filter(has);
  const python = has('pyproject.toml') || has('setup.py') || has('setup.cfg') || has('pytest.ini');
  const node = has('package.json');
  const glob = (dirs: string[]) => `[${dirs.map((d) => `${d}/**`).join(', ')}]`;
  // Properties need a registry in spec/; until there is one the command stays a comment.
  const properties = !has('spec') ? null : python
    ? 'python3 -m pytest -q spec/properties --junitxml={junit}'
    : node
      ? 'node --test --test-reporter=junit --test-reporter-destination={junit} spec/properties'
      : null;
  const suite = python
    ? 'python3 -m pytest -q --junitxml={junit}'
    : node
      ? 'node --test --test-reporter=junit --test-reporter-destination={junit}'
      : null;
  const lines = [
    '# patchwarden: production code and the oracles that judge it change in separate commits.',
    '# Every key but version is optional; see the documentation for each one.',
    'version: 1',
    'zones:',
    `  src: ${glob(src.length ? src : ['src'])}`,
    '  spec: [spec/**]',
    '  fixtures: [fixtures/**]',
    '  freeze: [freeze/**]',
    'freeze:',
    '  ledger: freeze/signatures.yaml',
    '  max_ttl: 30d',
    'fixtures:',
    '  inputs: fixtures/input',
    '  lock: fixtures/inputs.sha256',
    'properties:',
    `  ${properties ? '' : '# '}command: ${properties ?? 'YOUR PROPERTY COMMAND --junit-output {junit}'}`,
    '  invariants: spec/invariants.yaml',
    'suite:',
    `  ${suite ? '' : '# '}command: ${suite ?? 'YOUR TEST COMMAND --junit-output {junit}'}`,
  ];
  return lines.join('\n') + '\n';
}
