// The seal loads what the process can still load, and that is enough. Before
// the first test command, a revert-check loads the modules of its install
// reachable, along the build's import graph (dist/imports.json), from the
// modules it has loaded so far: the JUnit parser, which it first needs to
// read the first command's report, is loaded before any command runs. What
// no loaded module can reach (the pre-push hook's bundle) is never loaded,
// and a graph the judge cannot read loads every module, as before. Real
// node --test, on a copy of the build.
import { appendFileSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, DIST, sh } from '../helpers/repo.js';
import { config, jsProperty, NODE_TEST, project, registry } from '../properties/projects.js';

const ID = 'bill.total_non_negative';

let dir: string;
let judge: string;
test.before.each(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'pw-seal-'));
  judge = path.join(dir, 'judge');
  cpSync(DIST, judge, { recursive: true });
});
test.after.each(() => {
  rmSync(dir, { recursive: true, force: true });
  cleanup();
});

const base = {
  '.patchwarden.yml': config(`env -u NODE_OPTIONS ${NODE_TEST}`, 'tamper:\n  mode: off\n'),
  'spec/invariants.yaml': registry(ID),
  'spec/properties/bill.test.mjs': jsProperty(ID),
  'src/bill.mjs': 'export const total = (xs) => xs.reduce((a, b) => a + b, 0) - 1;\n',
};
const FIX = 'export const total = (xs) => xs.reduce((a, b) => a + b, 0);\n';

/** The chunk of the install that holds the JUnit parser (its name is a hash of its content). */
function parserChunk(): string {
  const lazy = path.join(judge, 'lazy');
  const found = readdirSync(lazy).filter(
    (f) => f.startsWith('chunk-') && readFileSync(path.join(lazy, f), 'utf8').includes('fast-xml-parser'),
  );
  assert.is(found.length, 1, `one chunk holds the JUnit parser: ${found}`);
  return `lazy/${found[0]}`;
}

function revertCheck(patch: Record<string, string>, env: Record<string, string> = {}, from = base) {
  const { repo, base: b, head } = project(from, patch);
  return sh(process.execPath, [path.join(judge, 'main.js'), 'revert-check', '--base', b, '--head', head], {
    cwd: repo.dir,
    env: { ...repo.env, PATCHWARDEN_TRACE: '1', ...env },
  });
}

// A module the seal did not load would be read after the first command ran.
// The check first reads a report after its first command, so a broken JUnit
// parser stops it before that command starts only if the seal loaded it.
test('the JUnit parser, which the check first needs after a test command ran, is loaded before the first one starts', () => {
  const chunk = parserChunk();
  appendFileSync(path.join(judge, chunk), "\nthrow new Error('junit parser: loaded');\n");
  const ran = path.join(dir, 'ran');
  const r = revertCheck(
    { 'src/bill.mjs': FIX },
    {},
    {
      ...base,
      '.patchwarden.yml': config(`touch ${ran} && env -u NODE_OPTIONS ${NODE_TEST}`, 'tamper:\n  mode: off\n'),
    },
  );
  assert.is.not(r.code, 0, `${r.stdout}\n${r.stderr}`);
  assert.match(`${r.stdout}${r.stderr}`, /junit parser: loaded/);
  assert.not.ok(existsSync(ran), `a test command ran before the seal loaded the parser: ${r.stderr}`);
});

test('the pre-push hook, which no module of a revert-check reaches, is never loaded: broken, the check still passes', () => {
  appendFileSync(path.join(judge, 'lazy', 'hooks-pre-push.cjs'), "\nthrow new Error('pre-push: loaded');\n");
  const r = revertCheck({ 'src/bill.mjs': FIX });
  assert.is(r.code, 0, `${r.stdout}\n${r.stderr}`);
  const [, loaded, all] = r.stderr.match(/the judge's seal loads (\d+) of (\d+) modules/) ?? [];
  assert.ok(Number(loaded) > 0 && Number(loaded) < Number(all), r.stderr);
});

test('without a readable import graph the seal loads every module: the broken pre-push hook stops the check', () => {
  appendFileSync(path.join(judge, 'lazy', 'hooks-pre-push.cjs'), "\nthrow new Error('pre-push: loaded');\n");
  rmSync(path.join(judge, 'imports.json'));
  const r = revertCheck({ 'src/bill.mjs': FIX });
  assert.is.not(r.code, 0, `${r.stdout}\n${r.stderr}`);
  assert.match(`${r.stdout}${r.stderr}`, /pre-push: loaded/);
  assert.match(r.stderr, /the judge's seal loads (\d+) of \1 modules/);
});

test.run();
