// The starter `.patchwarden.yml` that `init` writes, from the layout it finds.
// It never blocks on day one: a layer whose oracle is not there yet stays a
// comment, so the first push is judged by the mixing rule alone.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { sourceGlobs } from './layout.js';

const PYTHON_MARKERS = [
  'pyproject.toml',
  'setup.py',
  'setup.cfg',
  'pytest.ini',
  'tox.ini',
  'conftest.py',
  'requirements.txt',
];
/** Packages that make a package.json without making a JavaScript project (hook tools, this guard). */
const TOOLING = new Set(['patchwarden', 'husky', 'lint-staged', 'lefthook', '@evilmartians/lefthook']);
export const REGISTRY = 'spec/invariants.yaml';

export type Language = 'python' | 'node' | null;

/** The project's language, from its own markers: a package.json that only holds hook tooling is not a node project. */
export function detectLanguage(root: string): Language {
  if (PYTHON_MARKERS.some((m) => existsSync(path.join(root, m)))) return 'python';
  let pkg: { scripts?: Record<string, string>; dependencies?: object; devDependencies?: object };
  try {
    pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  } catch {
    return null;
  }
  const deps = [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.devDependencies ?? {})];
  // `npm init`'s placeholder test script says nothing about the project.
  const test = pkg.scripts?.test && !/no test specified/.test(pkg.scripts.test);
  return deps.some((d) => !TOOLING.has(d)) || test ? 'node' : null;
}

/** Node's test runner only when the project already uses it: a guess at jest or mocha would fail the gate. */
function nodeRunsNodeTest(root: string): boolean {
  try {
    return /\bnode\s+(--\S+\s+)*--test\b/.test(
      JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).scripts?.test ?? '',
    );
  } catch {
    return false;
  }
}

/** Zone globs given on init's command line (--src, --spec, --fixtures), each replacing what the starter would write. */
export interface ZoneChoice {
  src?: string[];
  spec?: string[];
  fixtures?: string[];
}

export function starterConfig(root: string, chosen: ZoneChoice = {}): string {
  const has = (p: string) => existsSync(path.join(root, p));
  // tests/ stays free: ordinary tests are the patch's own suite, which it may change; spec/ holds the human-owned properties.
  const src = chosen.src ?? sourceGlobs(root);
  const language = detectLanguage(root);
  const nodeTest = language === 'node' && nodeRunsNodeTest(root);
  const list = (globs: string[]) =>
    `[${globs.map((g) => (/^[\w./*-]+$/.test(g) && !g.startsWith('*') ? g : JSON.stringify(g))).join(', ')}]`;
  // Properties run only against a registry; without one the revert check would stop every push.
  // node's JUnit reporter says only "test failed" for a file that cannot load;
  // the spec reporter on stderr says why, and a refusal prints that output.
  const nodeTestCommand =
    'node --test --test-reporter=junit --test-reporter-destination={junit} --test-reporter=spec --test-reporter-destination=stderr';
  const properties = !has(REGISTRY)
    ? null
    : language === 'python'
      ? 'python3 -m pytest -q spec/properties --junitxml={junit}'
      : nodeTest
        ? `${nodeTestCommand} spec/properties`
        : null;
  const suite = language === 'python' ? 'python3 -m pytest -q --junitxml={junit}' : nodeTest ? nodeTestCommand : null;
  const lines = [
    '# patchwarden: production code and the oracles that judge it change in separate commits.',
    '# Every key but version is optional; see the documentation for each one.',
    'version: 1',
    'zones:',
    ...(src ? [] : ['  # No production code found: name its folders here (or rerun init with --src GLOB).']),
    `  src: ${list(src ?? ['src/**'])}`,
    `  spec: ${list(chosen.spec ?? ['spec/**'])}`,
    `  fixtures: ${list(chosen.fixtures ?? ['fixtures/**'])}`,
    '  freeze: [freeze/**]',
    'freeze:',
    '  ledger: freeze/signatures.yaml',
    '  max_ttl: 30d',
    'fixtures:',
    '  inputs: fixtures/input',
    '  lock: fixtures/inputs.sha256',
    'properties:',
    ...(properties ? [] : [`  # Set once ${REGISTRY} lists invariants and spec/ has their properties:`]),
    `  ${properties ? '' : '# '}command: ${properties ?? 'YOUR PROPERTY COMMAND --junit-output {junit}'}`,
    `  invariants: ${REGISTRY}`,
    'suite:',
    `  ${suite ? '' : '# '}command: ${suite ?? 'YOUR TEST COMMAND --junit-output {junit}'}`,
    ...(language === 'node'
      ? [
          'revert:',
          '  # The revert check runs the properties in temporary trees: installed',
          "  # dependencies are linked in, and must match the base's lock file.",
          '  link: [node_modules]',
        ]
      : []),
    '# A patch is unproven while properties, fixtures or the suite judged by the',
    '# freeze ledger is missing: once all three are set up, make the gate refuse',
    '# a missing one instead of skipping it.',
    '# gate:',
    '#   require: [properties, fixtures, freeze]',
  ];
  return lines.join('\n') + '\n';
}
