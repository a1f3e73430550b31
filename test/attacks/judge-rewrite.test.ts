// The judge is out of the run's reach. Production code loaded by the
// property run rewrites every file of patchwarden's own install (a copy of
// the build, whose path the attack is handed, as if it had found the gate
// through /proc): each module, once loaded, would write a marker and exit 0.
// The judge loaded all of its modules before the first test command, so none
// of the rewritten code runs, and its install's digest no longer matches:
// the run is not judged, and says why. The Python property runs without the
// runtime guards (which refuse writes outside the run's folders: each
// command drops the variable that loads its guard), as a runner they do not
// reach would. Real node --test and pytest.
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, DIST, sh } from '../helpers/repo.js';
import { pytestMissing, testUnless } from '../helpers/skip.js';
import { config, jsProperty, NODE_TEST, project, pyProperty, registry } from '../properties/projects.js';

const ID = 'bill.total_non_negative';
const PYTEST = 'env -u PYTHONPATH python3 -m pytest -q -p no:cacheprovider spec/properties --junitxml={junit}';

let dir: string;
test.before.each(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'pw-judge-'));
  cpSync(DIST, path.join(dir, 'judge'), { recursive: true });
});
test.after.each(() => {
  rmSync(dir, { recursive: true, force: true });
  cleanup();
});

// What each rewritten file would do if the judge read it after the run.
const ESM = (mark: string) =>
  `\nimport { writeFileSync as __pwMark } from 'node:fs';\n__pwMark(${JSON.stringify(mark)}, 'ran');\nprocess.exit(0);\n`;
const CJS = (mark: string) => `\nrequire('node:fs').writeFileSync(${JSON.stringify(mark)}, 'ran');\nprocess.exit(0);\n`;

const JS_ATTACK = `import { appendFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
const judge = process.env.PW_JUDGE;
for (const e of readdirSync(judge, { recursive: true, withFileTypes: true })) {
  if (!e.isFile()) continue;
  const f = path.join(e.parentPath, e.name);
  if (f.endsWith('.mjs')) appendFileSync(f, process.env.PW_ESM);
  else if (f.endsWith('.js') || f.endsWith('.cjs')) appendFileSync(f, process.env.PW_CJS);
  else writeFileSync(f, '{"type":"module"}\\n');
}
export const total = (xs) => xs.reduce((a, b) => a + b, 0) - 1;
`;

const PY_ATTACK = `import os

for root, _, names in os.walk(os.environ["PW_JUDGE"]):
    for n in names:
        f = os.path.join(root, n)
        if f.endswith(".mjs"):
            text = os.environ["PW_ESM"]
        elif f.endswith((".js", ".cjs")):
            text = os.environ["PW_CJS"]
        else:
            with open(f, "w") as out:
                out.write('{"type":"module"}\\n')
            continue
        with open(f, "a") as out:
            out.write(text)


def total(xs):
    return sum(xs) - 1
`;

function judged(
  files: Record<string, string>,
  patch: Record<string, string>,
  args: (b: string, h: string) => string[],
) {
  const { repo, base, head } = project(files, patch);
  const judge = path.join(dir, 'judge');
  const mark = path.join(dir, 'marker');
  const r = sh(process.execPath, [path.join(judge, 'main.js'), ...args(base, head), '--format', 'json'], {
    cwd: repo.dir,
    env: { ...repo.env, PW_JUDGE: judge, PW_ESM: ESM(mark), PW_CJS: CJS(mark) },
  });
  assert.not.ok(existsSync(mark), `the judge ran code rewritten during the run (exit ${r.code}): ${r.stderr}`);
  assert.is(r.code, 2, `${r.stdout}\n${r.stderr}`);
  assert.match(
    `${r.stdout}${r.stderr}`,
    /patchwarden's own files in .* changed while a test command ran \([^)]*lazy\//,
  );
  assert.match(`${r.stdout}${r.stderr}`, /install patchwarden where the job's test commands cannot write it/);
  return r;
}

const revert = (base: string, head: string) => ['revert-check', '--base', base, '--head', head];
const gate = (base: string) => ['gate', '--base', base];

const node = {
  '.patchwarden.yml': config(NODE_TEST, 'tamper:\n  mode: off\n'),
  'spec/invariants.yaml': registry(ID),
  'spec/properties/bill.test.mjs': jsProperty(ID),
  'src/bill.mjs': 'export const total = (xs) => xs.reduce((a, b) => a + b, 0) - 1;\n',
};
/** The same project under a command that drops the Node guard's preload. */
const unguarded = { ...node, '.patchwarden.yml': config(`env -u NODE_OPTIONS ${NODE_TEST}`, 'tamper:\n  mode: off\n') };

for (const [name, args] of [
  ['revert-check', revert],
  ['gate', gate],
] as const)
  test(`node --test: production code rewrites every file of the judge during ${name}; none of it runs, and the run is not judged`, () => {
    judged(unguarded, { 'src/bill.mjs': JS_ATTACK }, args);
  });

// Sealing the judge starts beside the worktrees and the cache key, before
// any command needs it: a module of the install that cannot be loaded still
// stops the check before its verdict, whichever step meets the failure first.
test('a module of the judge that cannot be loaded refuses the check under revert.jobs: 2; it never passes', () => {
  const judge = path.join(dir, 'judge');
  writeFileSync(path.join(judge, 'lazy', 'zz-broken.mjs'), "throw new Error('zz-broken: this module cannot load');\n");
  const { repo, base, head } = project(
    { ...node, '.patchwarden.yml': config(NODE_TEST, 'revert:\n  jobs: 2\n') },
    { 'src/bill.mjs': 'export const total = (xs) => xs.reduce((a, b) => a + b, 0);\n' },
  );
  const r = sh(process.execPath, [path.join(judge, 'main.js'), ...revert(base, head), '--format', 'json'], {
    cwd: repo.dir,
    env: repo.env,
  });
  assert.is.not(r.code, 0, `${r.stdout}\n${r.stderr}`);
  assert.not.match(r.stdout, /describes_patch/);
  assert.match(`${r.stdout}${r.stderr}`, /zz-broken: this module cannot load/);
  // The runs started beside the key are stopped and their trees removed.
  assert.equal(
    sh('git', ['worktree', 'list', '--porcelain'], { cwd: repo.dir }).stdout.match(/^worktree /gm)?.length,
    1,
  );
});

testUnless(pytestMissing)(
  'pytest: production code rewrites every file of the judge during revert-check; none of it runs, and the run is not judged',
  () => {
    judged(
      {
        '.patchwarden.yml': config(PYTEST, 'tamper:\n  mode: off\n'),
        'spec/invariants.yaml': registry(ID),
        'spec/properties/test_bill.py': pyProperty(ID),
        'src/bill.py': 'def total(xs):\n    return sum(xs) - 1\n',
      },
      { 'src/bill.py': PY_ATTACK },
      revert,
    );
  },
);

test.run();
