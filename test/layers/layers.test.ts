// The layer check run as `npm run lint:layers` does: it passes on the tree,
// and on a temporary copy of src/ it fails on an import that climbs, however
// it is spelled, on an import whose path it cannot read, on a folder cycle, on
// a folder the order does not name and on a git command line outside src/git/.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PROJECT, sh } from '../helpers/repo.js';

const SCRIPT = path.join(PROJECT, 'scripts/layers.mjs');

function copyOfSrc(): string {
  const root = mkdtempSync(path.join(tmpdir(), 'pw-layers-'));
  cpSync(path.join(PROJECT, 'src'), path.join(root, 'src'), { recursive: true });
  return root;
}

function prepend(root: string, file: string, line: string): void {
  const p = path.join(root, 'src', file);
  writeFileSync(p, `${line}\n${readFileSync(p, 'utf8')}`);
}

test('the tree passes: imports run downward only', () => {
  const r = sh(process.execPath, [SCRIPT], { cwd: PROJECT });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /imports run downward only/);
});

test('an upward import from a rule into the outer layer fails, named with its file', () => {
  const root = copyOfSrc();
  try {
    prepend(root, 'owners/rule.ts', "import { parseRefLines } from '../hooks/ref-lines.js';");
    const r = sh(process.execPath, [SCRIPT, root]);
    assert.is(r.code, 1);
    assert.match(
      r.stderr,
      "src/owners/rule.ts:1 imports '../hooks/ref-lines.js': owners/ may not import hooks/, which sits above it",
    );
    assert.match(r.stderr, /folder cycle: .*hooks.*owners/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('a dynamic or type-only import that climbs fails as well', () => {
  const root = copyOfSrc();
  try {
    prepend(root, 'git/run.ts', "type C = typeof import('../config/schema.js');");
    prepend(root, 'zones/glob.ts', "import type { Config } from '../config/schema.js';");
    const r = sh(process.execPath, [SCRIPT, root]);
    assert.is(r.code, 1);
    assert.match(r.stderr, 'git/ may not import config/');
    assert.match(r.stderr, 'zones/ may not import config/');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

// Each an import from zones/ up into config/, on line 2 of its own file.
const SPELLINGS: Record<string, string> = {
  'static.ts': "import { defaults } from '../config/schema.js';",
  'type-only.ts': "import type { Config } from '../config/schema.js';",
  'type-query.ts': "type C = typeof import('../config/schema.js');",
  're-export.ts': "export { defaults } from '../config/schema.js';",
  're-export-all.ts': "export * from '../config/schema.js';",
  'dynamic.ts': "export const m = () => import('../config/schema.js');",
  'template.ts': 'export const m = () => import(`../config/schema.js`);',
  'create-require.ts':
    "import { createRequire } from 'node:module';\nexport const m = createRequire(import.meta.url)('../config/schema.js');",
  'create-require-bound.ts':
    "import { createRequire as made } from 'node:module';\nconst load = made(import.meta.url);\nexport const m = load('../config/schema.js');",
  'module-create-require.ts':
    "import mod from 'node:module';\nexport const m = mod.createRequire(import.meta.url)('../config/schema.js');",
  'module.mts': "import { defaults } from '../config/schema.js';",
  'common.cjs': "const { defaults } = require('../config/schema.js');",
  'common.cts': "import schema = require('../config/schema.js');",
  'common.js': 'module.exports = require(`../config/schema.js`);',
};

test('an upward import fails however it is spelled, named with its file and line', () => {
  const root = copyOfSrc();
  try {
    for (const [name, text] of Object.entries(SPELLINGS))
      writeFileSync(path.join(root, 'src/zones', `up-${name}`), `// climbs\n${text}\n`);
    const r = sh(process.execPath, [SCRIPT, root]);
    assert.is(r.code, 1);
    for (const [name, text] of Object.entries(SPELLINGS)) {
      const line = text.split('\n').length + 1;
      assert.match(
        r.stderr,
        `src/zones/up-${name}:${line} imports '../config/schema.js': zones/ may not import config/`,
        name,
      );
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('an import whose path the lint cannot read, or that leaves src/, fails with its file and line', () => {
  const root = copyOfSrc();
  try {
    const files: Record<string, string> = {
      'computed.ts': 'export const m = (name: string) => import(`../config/${name}.js`);',
      'variable.cjs': 'module.exports = (name) => require(name);',
      'outside.ts': "import '../../scripts/layers.mjs';",
      'url.ts': "export const m = () => import('data:text/javascript,export default 1');",
      // A load of the built bundle's own files, marked as such on the line above: not a source import.
      'built.cjs': '// layers: built files\nmodule.exports = (file) => require(file);',
    };
    for (const [name, text] of Object.entries(files))
      writeFileSync(path.join(root, 'src/git', name), `// reaches\n${text}\n`);
    writeFileSync(path.join(root, 'src/git/broken.ts'), 'import { from;\n');
    const r = sh(process.execPath, [SCRIPT, root]);
    assert.is(r.code, 1);
    assert.match(r.stderr, 'src/git/computed.ts:2: an import() or require() whose path is not a literal');
    assert.match(r.stderr, 'src/git/variable.cjs:2: an import() or require() whose path is not a literal');
    assert.match(r.stderr, "src/git/outside.ts:2: imports '../../scripts/layers.mjs', which lies outside src/");
    assert.match(
      r.stderr,
      "src/git/url.ts:2: imports 'data:text/javascript,export default 1', neither a path inside src/ nor a package",
    );
    assert.match(r.stderr, /src\/git\/broken\.ts: does not parse/);
    assert.not.match(r.stderr, 'src/git/built.cjs');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

// Each a git command line written outside src/git/, on line 2 of its own file.
const GIT_CALLS: Record<string, { text: string; what: string }> = {
  literal: { text: "export const f = (repo: any) => repo.run(['status']);", what: 'repo.run(...)' },
  'spread-text': {
    text: "export const f = (repo: any, a: string[]) => repo.text([...a, 'log']);",
    what: 'repo.text(...)',
  },
  forwarded: { text: 'export const f = (repo: any, args: string[]) => repo.run(args);', what: 'repo.run(...)' },
  member: { text: 'export const f = (s: any, args: string[]) => s.repo.text(args);', what: 'repo.text(...)' },
  'run-git': {
    text: "import { runGit } from '../git/run.js';\nexport const f = () => runGit('.', ['status']);",
    what: 'runGit(...)',
  },
  spawn: {
    text: "import { spawnSync } from 'node:child_process';\nexport const f = () => spawnSync('git', ['status']);",
    what: "spawnSync('git', ...)",
  },
  'exec-file': {
    text: "import * as cp from 'node:child_process';\nexport const f = () => cp.execFileSync(`git`, ['status']);",
    what: "execFileSync('git', ...)",
  },
  exec: {
    text: "import { execSync } from 'node:child_process';\nexport const f = () => execSync('git status');",
    what: "execSync('git', ...)",
  },
};

test('a git command line outside src/git/ fails however it is written, in every folder but git/', () => {
  const root = copyOfSrc();
  try {
    for (const [name, { text }] of Object.entries(GIT_CALLS))
      for (const folder of ['owners', 'git', 'hooks', 'gate'])
        writeFileSync(path.join(root, 'src', folder, `calls-${name}.ts`), `// runs git\n${text}\n`);
    const r = sh(process.execPath, [SCRIPT, root]);
    assert.is(r.code, 1);
    for (const [name, { text, what }] of Object.entries(GIT_CALLS)) {
      const line = text.split('\n').length + 1;
      for (const folder of ['owners', 'hooks', 'gate'])
        assert.match(
          r.stderr,
          `src/${folder}/calls-${name}.ts:${line}: ${what} writes a git command line outside src/git/`,
          `${folder} ${name}`,
        );
      assert.not.match(r.stderr, `src/git/calls-${name}.ts`, name);
    }
    // The import of the runner is named too: runGit is git/'s own.
    assert.match(r.stderr, 'src/owners/calls-run-git.ts:2: an import of runGit writes a git command line');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('a folder the order does not name fails until it is placed', () => {
  const root = copyOfSrc();
  try {
    mkdirSync(path.join(root, 'src/extra'));
    writeFileSync(path.join(root, 'src/extra/a.ts'), 'export const a = 1;\n');
    const r = sh(process.execPath, [SCRIPT, root]);
    assert.is(r.code, 1);
    assert.match(r.stderr, 'src/extra/ is not in the layer order');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test.run();
