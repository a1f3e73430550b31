// The starter `.patchwarden.yml` that `init` writes, from the layout it finds.
// It never blocks on day one: a layer whose oracle is not there yet stays a
// comment, so the first push is judged by the mixing rule alone.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { HARNESS_CONFIGS } from '../config/harness.js';
import { SHARED_CONFIGS, setupFilesOf } from '../config/harness-setup.js';
import { globMatcher } from '../zones/glob.js';
import { KNOWN_AGENT_IDENTITIES } from '../owners/agents.js';
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

export type Language = 'python' | 'go' | 'node' | 'rust' | 'maven' | null;

/** The project's language, from its own markers: a package.json that only holds hook tooling is not a node project. */
export function detectLanguage(root: string): Language {
  if (PYTHON_MARKERS.some((m) => existsSync(path.join(root, m)))) return 'python';
  if (existsSync(path.join(root, 'go.mod'))) return 'go';
  if (existsSync(path.join(root, 'Cargo.toml'))) return 'rust';
  if (existsSync(path.join(root, 'pom.xml'))) return 'maven';
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

/** The project's own JavaScript test runner, where the starter knows how to run it: a guess at jest or mocha would fail the gate. */
function nodeRunner(root: string): 'node' | 'vitest' | null {
  let pkg: { scripts?: Record<string, string>; dependencies?: object; devDependencies?: object };
  try {
    pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  } catch {
    return null;
  }
  const test = pkg.scripts?.test ?? '';
  if (/\bnode\s+(--\S+\s+)*--test\b/.test(test)) return 'node';
  const deps = { ...pkg.dependencies, ...pkg.devDependencies };
  return /\bvitest\b/.test(test) || Object.hasOwn(deps, 'vitest') ? 'vitest' : null;
}

/**
 * The runner's command, to which the files to run are added. node's JUnit
 * reporter says only "test failed" for a file that cannot load, so the spec
 * reporter on stderr says why (a refusal prints the output); vitest runs once
 * (`run`, never watch mode) with its default reporter beside the JUnit one.
 */
const RUNNER_COMMANDS = {
  node: 'node --test --test-reporter=junit --test-reporter-destination={junit} --test-reporter=spec --test-reporter-destination=stderr',
  vitest: 'npx vitest run --reporter=default --reporter=junit --outputFile.junit={junit}',
};

/**
 * The properties of a Cargo project: the test target `properties`
 * (spec/properties.rs) under libtest, whose JUnit output is unstable
 * (`RUSTC_BOOTSTRAP=1` lets a stable toolchain write it) and comes on stdout,
 * one document per test binary, so one target is run. Where nothing compiles
 * no report is written: an empty one stands in, which never reads as a pass.
 */
const RUST_PROPERTIES =
  "RUSTC_BOOTSTRAP=1 cargo test --test properties -- -Z unstable-options --format junit > {junit}; s=$?; [ -s {junit} ] || echo '<testsuites/>' > {junit}; exit $s";

/** Whether Cargo.toml names the test target RUST_PROPERTIES runs. */
function hasRustProperties(root: string): boolean {
  try {
    return /\[\[test\]\][^[]*\bname\s*=\s*"properties"/.test(readFileSync(path.join(root, 'Cargo.toml'), 'utf8'));
  } catch {
    return false;
  }
}

/**
 * Maven's tests under Surefire, one report per class joined into one. The
 * pom names its test folder by the property `tests` (revert-check.md, Java),
 * so the properties run alone with `-Dtests=spec/java`. Where nothing ran
 * the report is empty, which never reads as a pass.
 */
const surefire = (args: string) =>
  `mvn -q ${args}test; s=$?; { echo '<testsuites>'; for f in target/surefire-reports/TEST-*.xml; do sed 1d "$f"; done; echo '</testsuites>'; } > {junit}; exit $s`;

/** Whether the pom's test folder is the property MAVEN's property command sets. */
function hasMavenProperties(root: string): boolean {
  try {
    return /<testSourceDirectory>\s*\$\{tests\}\s*<\/testSourceDirectory>/.test(
      readFileSync(path.join(root, 'pom.xml'), 'utf8'),
    );
  } catch {
    return false;
  }
}

/** Go's packages but those under spec/, from the module's own list. */
const GO_PACKAGES_BUT_SPEC = '$(go list ./... | grep -v -E "^$(go list -m)/spec(/|$)")';

/**
 * The build steps a node project's test script runs before its runner (`npm
 * run build && node --test test/`), as a prefix: the revert check's trees hold
 * nothing a build wrote, so a test importing compiled output fails to load
 * there without them. Joined by `;`, so the tests run whatever the build says
 * (a reverted side that does not compile is read as fixed by build).
 */
function buildPrefix(root: string): string {
  let test = '';
  try {
    test = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).scripts?.test ?? '';
  } catch {
    return '';
  }
  const steps = String(test).split(/\s*(?:&&|;)\s*/);
  const at = steps.findIndex((step) => /\bnode\s+(--\S+\s+)*--test\b|\bvitest\b/.test(step));
  const builds = steps.slice(0, Math.max(at, 0)).filter((step) => /\b(build|tsc|compile)\b/.test(step));
  return builds.map((step) => `${step}; `).join('');
}

/** The command that runs the properties under spec/properties, where the starter knows the project's runner. */
function propertyCommand(language: Language, runner: 'node' | 'vitest' | null, build: string): string | null {
  if (language === 'python') return 'python3 -m pytest -q spec/properties --junitxml={junit}';
  if (language === 'go') return 'gotestsum --junitfile {junit} -- ./spec/...';
  if (language === 'rust') return RUST_PROPERTIES;
  if (language === 'maven') return surefire('-Dtests=spec/java ');
  return runner && `${build}${RUNNER_COMMANDS[runner]} spec/properties`;
}

/** The suite's command: every test but the spec zone's. */
function suiteCommand(
  language: Language,
  runner: 'node' | 'vitest' | null,
  testDirs: string[],
  build: string,
): string | null {
  if (language === 'python') return 'python3 -m pytest -q --ignore=spec --junitxml={junit}';
  if (language === 'go') return `gotestsum --junitfile {junit} -- ${GO_PACKAGES_BUT_SPEC}`;
  if (language === 'maven') return surefire('');
  if (runner === 'vitest') return `${build}${RUNNER_COMMANDS.vitest} --exclude 'spec/**'`;
  return runner === 'node' && testDirs.length ? `${build}${RUNNER_COMMANDS.node} ${testDirs.join(' ')}` : null;
}

/**
 * Both sides at once where the machine has a core for each: the check runs
 * them at once only where the kernel fences each side (fence.ts), and in
 * turn, the base first, elsewhere, so jobs: 2 is safe for every runner.
 */
function revertJobs(language: Language): string[] {
  if (availableParallelism() < 2) return [];
  return [
    ...(language === 'node' ? [] : ['revert:']),
    '  # Both sides at once where the kernel fences each side (Landlock ABI 2), else in turn,',
    '  # the base first (docs/revert-check.md).',
    '  jobs: 2',
  ];
}

/** What the project's build file needs before the starter's property command runs, as comment lines. */
function needs(language: Language): string[] {
  if (language === 'rust')
    return ['  # (Cargo.toml: [[test]] with name = "properties" and path = "spec/properties.rs")'];
  if (language === 'maven')
    return [
      '  # (pom.xml: <testSourceDirectory>${tests}</testSourceDirectory> in <build>, <tests>src/test/java</tests>',
      "  # in <properties>, and Surefire's phrased case names: docs/revert-check.md, Java)",
    ];
  return [];
}

/** Zone globs given on init's command line (--src, --spec, --fixtures), each replacing what the starter would write. */
export interface ZoneChoice {
  src?: string[];
  spec?: string[];
  fixtures?: string[];
}

/** The owners section of a new config: on from the first commit; `signers` only when init was given a key it may trust. */
function ownersLines(signers: string | null): string[] {
  return [
    'owners:',
    '  # Oracle commits (spec, fixtures, freeze, this file) must be signed by a key listed',
    signers
      ? `  # in the signers file; add a teammate with an owner-signed commit to it.`
      : '  # in a signers file: until an owner runs patchwarden init --owner-key PATH, every',
    ...(signers ? [`  signers: ${signers}`] : ['  # oracle commit is refused (docs/server.md#owners).']),
    '  required: true',
    '  # Known coding agents, by identity and by the credit trailers they write;',
    "  # an owner's own assistant goes in assisted_by_ok.",
    `  agents: [${KNOWN_AGENT_IDENTITIES.map((a) => JSON.stringify(a)).join(', ')}]`,
    '  trailers: strict',
    '  assisted_by_ok: []',
  ];
}

export function starterConfig(root: string, chosen: ZoneChoice = {}, signers: string | null = null): string {
  const has = (p: string) => existsSync(path.join(root, p));
  // tests/ stays free: ordinary tests are the patch's own suite, which it may change; spec/ holds the human-owned properties.
  const src = chosen.src ?? sourceGlobs(root);
  const language = detectLanguage(root);
  const runner = language === 'node' ? nodeRunner(root) : null;
  const list = (globs: string[]) =>
    `[${globs.map((g) => (/^[\w./*-]+$/.test(g) && !g.startsWith('*') ? g : JSON.stringify(g))).join(', ')}]`;
  // Properties run only against a registry; without one the revert check would stop every push,
  // so the command the starter knows stays a comment until there is one.
  const build = runner ? buildPrefix(root) : '';
  const known = propertyCommand(language, runner, build);
  const ready = language === 'rust' ? hasRustProperties(root) : language === 'maven' ? hasMavenProperties(root) : true;
  const properties = has(REGISTRY) && ready ? known : null;
  // The suite leaves the spec zone out: a pending property is the registry's, never a suite failure.
  const suite = suiteCommand(language, runner, ['test', 'tests'].filter(has), build);
  const lines = [
    '# patchwarden: production code and the oracles that judge it change in separate commits.',
    '# Every key but version is optional; see the documentation for each one.',
    '# Version 2: the test harness (conftest.py on the property path, pytest.ini,',
    '# jest, vitest and mocha configs) is in the guard zone.',
    'version: 2',
    'zones:',
    '  # The first zone whose globs match a path is its zone: the oracles come first.',
    `  spec: ${list(chosen.spec ?? ['spec/**'])}`,
    `  fixtures: ${list(chosen.fixtures ?? ['fixtures/**'])}`,
    '  freeze: [freeze/**]',
    ...setupLines(root, list),
    ...(src ? [] : ['  # No production code found: name its folders here (or rerun init with --src GLOB).']),
    `  src: ${list(src ?? ['src/**'])}`,
    'freeze:',
    '  ledger: freeze/signatures.yaml',
    '  max_ttl: 30d',
    'fixtures:',
    '  inputs: fixtures/input',
    '  lock: fixtures/inputs.sha256',
    '  # The whole fixtures zone holds locked inputs only: an output-shaped name',
    '  # (expected*, *golden*, __snapshots__/) or an unlocked file there is refused.',
    '  strict: true',
    'properties:',
    ...(properties ? [] : [`  # Set once ${REGISTRY} lists invariants and spec/ has their properties:`]),
    ...(properties ? [] : needs(language)),
    `  ${properties ? '' : '# '}command: ${known ?? 'YOUR PROPERTY COMMAND --junit-output {junit}'}`,
    `  invariants: ${REGISTRY}`,
    ...sealedLines(root, language, runner === 'node'),
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
    ...revertJobs(language),
    ...ownersLines(signers),
    '# A patch is unproven while properties, fixtures or the suite judged by the',
    '# freeze ledger is missing: once all three are set up, make the gate refuse',
    '# a missing one instead of skipping it.',
    '# gate:',
    '#   require: [properties, fixtures, freeze]',
  ];
  return lines.join('\n') + '\n';
}

/** Files where a Python project names its test plugins and settings. */
const PYTHON_SETTINGS = [
  'pyproject.toml',
  'setup.cfg',
  'pytest.ini',
  'tox.ini',
  'requirements.txt',
  'requirements-dev.txt',
  'Pipfile',
];

/** pytest-django: its settings and database fixtures load production code in the property process. */
function usesPytestDjango(root: string): boolean {
  return PYTHON_SETTINGS.some((f) => {
    try {
      return /pytest[-_]django|DJANGO_SETTINGS_MODULE/i.test(readFileSync(path.join(root, f), 'utf8'));
    } catch {
      return false;
    }
  });
}

/** The JavaScript runner a project that does not use node:test depends on, if any. */
function runnerDependency(root: string): string | null {
  try {
    const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
    const deps = { ...pkg.dependencies, ...pkg.devDependencies };
    return ['jest', 'vitest', 'mocha'].find((r) => r in deps) ?? null;
  } catch {
    return null;
  }
}

/** properties.sealed: kernel where the runner is one sealing serves (pytest without pytest-django, node:test), else off and why. */
function sealedLines(root: string, language: Language, nodeTest: boolean): string[] {
  const off = (why: string) => [`  # ${why}: sealing cannot serve it yet.`, '  sealed: off'];
  if ((language === 'python' && !usesPytestDjango(root)) || nodeTest)
    return [
      '  # Production code runs in a worker the kernel confines (Landlock); where the',
      '  # machine has none, runs are sealed: process and say so.',
      '  sealed: kernel',
    ];
  if (language === 'python')
    return off('pytest-django loads settings, models and database fixtures in the property process');
  if (language === 'go') return off('Go properties run in one test binary with the code they judge');
  if (language === 'rust') return off('Rust properties run in one test binary with the code they judge');
  if (language === 'maven') return off('Java properties run in one JVM with the code they judge');
  const runner = language === 'node' ? runnerDependency(root) : null;
  if (runner)
    return off(
      `${runner} runs spec files through its own module pipeline (transforms, ${runner === 'mocha' ? 'root hooks' : `${runner === 'jest' ? 'jest' : 'vi'}.mock`})`,
    );
  return off('no runner sealing serves was found (pytest, node --test)');
}

/** The setup files the root's harness configs name, in the guard zone beside them (doctor checks every config later). */
function setupLines(root: string, list: (globs: string[]) => string): string[] {
  const isConfig = globMatcher([...HARNESS_CONFIGS, ...SHARED_CONFIGS]);
  const files = new Set<string>();
  for (const name of readdirSync(root).filter(isConfig)) {
    let text: string;
    try {
      text = readFileSync(path.join(root, name), 'utf8');
    } catch {
      continue;
    }
    const named = setupFilesOf(name, text, (p) => existsSync(path.join(root, p)));
    if ('files' in named) for (const f of named.files) files.add(f);
  }
  return files.size ? ["  # Named as setup files by the test runners' configs.", `  guard: ${list([...files])}`] : [];
}
