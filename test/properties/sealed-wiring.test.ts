// properties.sealed wired into the revert check and the gate, end to end:
// the property command is a small script that reads PATCHWARDEN_SEALED, starts
// the worker exactly as the JSON says (confine prefix, environment, cwd),
// lets the production module compute there, and writes its JUnit report from
// the answer. Each run says which mode judged it; kernel falls back to
// process where there is no Landlock, and only gate.require: kernel refuses.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, type TempRepo } from '../helpers/repo.js';
import { testUnless } from '../helpers/skip.js';
import { BUGGY_PY, config, FIXED_PY, project, registry } from './projects.js';
import { landlockProbe } from '../../src/properties/sealed/confine.js';
import { PROJECT } from '../helpers/repo.js';

const ID = 'bill.total_non_negative';
const abi = landlockProbe(readFileSync(path.join(PROJECT, 'src/properties/sealed/confine.py'), 'utf8')).abi;
const kernelTest = testUnless(abi > 0 ? null : 'Landlock is not available on this kernel: kernel sealing cannot run');

/** The property command: the worker computes `total([1, 2])` and reports what it could reach; the case passes on 3. */
const RUNNER = `import json, os, subprocess, sys
file = os.environ.get("PATCHWARDEN_SEALED")
facts = {"sealed": file is not None}
ok = False
if file:
    cfg = json.load(open(file))
    facts.update(mode=cfg["mode"], src=[os.path.relpath(p, cfg["root"]) for p in cfg["src"]], confined=bool(cfg["confine"]),
                 pythonpath=os.environ["PYTHONPATH"].split(os.pathsep)[0], plugins=os.environ.get("PYTEST_PLUGINS"),
                 node_options=os.environ.get("NODE_OPTIONS", ""), root=cfg["root"] == os.getcwd())
    worker = r'''
import json, os, sys
sys.path.insert(0, "src")
from bill import total
def attempt(f):
    try:
        f()
        return "ok"
    except OSError as e:
        return e.errno
print(json.dumps({"total": total([1, 2]),
    "read_json": attempt(lambda: open(sys.argv[1]).read()),
    "write_tmp": attempt(lambda: open(os.path.join(sys.argv[2], "w.txt"), "w").write("x")),
    "write_tree": attempt(lambda: open("w.txt", "w").write("x")),
    "env": sorted(k for k in os.environ if k.startswith("PATCHWARDEN_") or k == "PROP_SEED"),
    "guard_paths": sorted(k for k, v in os.environ.items() if "patchwarden-guard-" in v),
    "tmpdir": os.environ.get("TMPDIR") == sys.argv[2]}))
'''
    r = subprocess.run([*cfg["confine"], sys.executable, "-c", worker, file, cfg["tmp"]], env=cfg["env"], cwd=cfg["root"],
                       capture_output=True, text=True)
    facts["worker"] = json.loads(r.stdout) if r.returncode == 0 else r.stderr
    ok = r.returncode == 0 and facts["worker"]["total"] == 3
with open(os.path.join(os.environ["FACTS_DIR"], os.environ["PATCHWARDEN_SIDE"] + ".json"), "w") as f:
    json.dump(facts, f)
case = '<testcase classname="spec.properties.run" name="total[invariant:${ID}]" file="spec/properties/run.py">%s</testcase>' % (
    "" if ok else '<failure message="total is wrong">total is wrong</failure>')
print('<testsuite name="p" tests="1" failures="%d">%s</testsuite>' % (0 if ok else 1, case))
sys.exit(0 if ok else 1)
`;

let facts: string;
test.before.each(() => {
  facts = mkdtempSync(path.join(tmpdir(), 'pw-sealed-facts-'));
});
test.after.each(() => {
  rmSync(facts, { recursive: true, force: true });
  cleanup();
});

function sealedProject(sealed: string | null, extra = '') {
  return project(
    {
      '.patchwarden.yml': config(
        'python3 spec/properties/run.py > {junit}',
        `${sealed ? `  sealed: ${sealed}\n` : ''}${extra}`,
      ),
      'spec/invariants.yaml': registry(ID),
      'spec/properties/run.py': RUNNER,
      'src/bill.py': BUGGY_PY,
      'src/util/__init__.py': '',
    },
    { 'src/bill.py': FIXED_PY },
  );
}

function check(repo: TempRepo, base: string, head: string, env: NodeJS.ProcessEnv = {}) {
  return repo.json(['revert-check', '--base', base, '--head', head], { env: { FACTS_DIR: facts, ...env } });
}

const side = (name: string) => JSON.parse(readFileSync(path.join(facts, `${name}.json`), 'utf8'));

kernelTest('kernel: production code runs in a confined worker with none of the run variables', () => {
  const { repo, base, head } = sealedProject('kernel');
  const r = check(repo, base, head);
  assert.is(r.code, 0, `${r.out.reason}\n${r.out.output}`);
  assert.is(r.out.status, 'describes_patch');
  assert.is(r.out.sealed, 'kernel');
  assert.is(r.out.head_run.sealed, 'kernel');
  assert.is(r.out.revert_run.sealed, 'kernel');
  assert.match(r.stderr, /properties on head ran \([^)]*sealed: kernel\)/);
  const head_ = side('head');
  assert.equal(
    {
      ...head_,
      pythonpath: path.basename(head_.pythonpath),
      plugins: head_.plugins.split(','),
      node_options: undefined,
    },
    {
      sealed: true,
      mode: 'kernel',
      src: ['src/bill.py', 'src/util/__init__.py'],
      confined: true,
      pythonpath: 'python',
      // The runtime's plugin first; the guard's own (which also selects cases) stays.
      plugins: ['patchwarden_sealed', '_patchwarden_pytest'],
      node_options: undefined,
      root: true,
      worker: { total: 3, read_json: 13, write_tmp: 'ok', write_tree: 13, env: [], guard_paths: [], tmpdir: true },
    },
  );
  assert.match(head_.node_options, /--import "file:\/\/[^"]+\/node\/register\.mjs"$/);
  assert.is(side('base').worker.total, 2, 'the reverted side computes with the bug');
});

test('process (and kernel without Landlock): an unconfined worker that keeps the guard, reported as such', () => {
  for (const [sealed, env] of [
    ['process', {}],
    ['kernel', { PATCHWARDEN_LANDLOCK: 'off' }],
  ] as const) {
    const { repo, base, head } = sealedProject(sealed);
    const r = check(repo, base, head, env);
    assert.is(r.code, 0, `${r.out.reason}\n${r.out.output}`);
    assert.is(r.out.status, 'describes_patch');
    assert.is(r.out.sealed, 'process');
    const w = side('head');
    assert.equal([w.mode, w.confined], ['process', false]);
    assert.equal(w.worker.env, ['PATCHWARDEN_GUARD'], 'the guard stays in the worker; the side and the seed do not');
    assert.equal(w.worker.guard_paths, ['NODE_OPTIONS', 'PATCHWARDEN_GUARD', 'PYTHONPATH']);
    assert.is(w.worker.total, 3);
    if (sealed === 'kernel') {
      const text = repo.pw(['revert-check', '--base', base, '--head', head], { env: { FACTS_DIR: facts, ...env } });
      assert.match(
        text.stdout,
        /patchwarden: sealed: process \(production code ran in a worker the runtime guard watches: properties\.sealed is kernel, but this machine has no Landlock\)/,
      );
    }
  }
});

test('off (every existing config): no worker, no sealing variables, and the run says so', () => {
  const { repo, base, head } = sealedProject(null);
  const r = check(repo, base, head);
  assert.is(r.code, 1, 'the script needs sealing to compute: without it the case fails on both sides');
  assert.is(r.out.sealed, 'off');
  assert.equal(side('head'), { sealed: false });
  assert.match(r.stderr, /properties on head ran \([^)]*sealed: off\)/);
});

test('a typo in properties.sealed is a config error naming the key and the values', () => {
  const { repo, base, head } = sealedProject('kernle');
  const r = repo.pw(['revert-check', '--base', base, '--head', head]);
  assert.is.not(r.code, 0);
  assert.match(r.stderr, /properties\.sealed: must be one of kernel, process, off/);
});

test('gate.require: kernel refuses a run that fell back to process, with the reason and the fix; the table shows the mode', () => {
  const { repo, base, head } = sealedProject('kernel', 'gate:\n  require: [kernel]\n');
  repo.git(['checkout', '-q', head]);
  const r = repo.pw(['gate', '--base', base], { env: { FACTS_DIR: facts, PATCHWARDEN_LANDLOCK: 'off' } });
  assert.is(r.code, 1, r.stdout + r.stderr);
  assert.match(r.stdout, /layer +status +sealed +summary/);
  assert.match(r.stdout, /properties +pass +process /);
  assert.match(r.stdout, /kernel +refused +- +unproven: sealed: process/);
  assert.match(r.stdout, /gate\.require names kernel, but the properties ran sealed: process/);
  assert.match(r.stdout, /Landlock enabled/);
  assert.match(r.stdout, /patchwarden gate: sealed: process/);
  // pre-push and local runs report the mode and never refuse on it: the same check passes outside the gate.
  const local = check(repo, base, head, { PATCHWARDEN_LANDLOCK: 'off' });
  assert.is(local.code, 0, local.stderr);
});

kernelTest('gate.require: kernel passes where the worker was confined by the kernel', () => {
  const { repo, base, head } = sealedProject('kernel', 'gate:\n  require: [kernel]\n');
  repo.git(['checkout', '-q', head]);
  const r = repo.pw(['gate', '--base', base, '--format', 'json'], { env: { FACTS_DIR: facts } });
  assert.is(r.code, 0, r.stdout + r.stderr);
  const out = JSON.parse(r.stdout);
  assert.is(out.sealed, 'kernel');
  const kernel = out.layers.find((l: { layer: string }) => l.layer === 'kernel');
  assert.is(kernel.status, 'pass');
  assert.is(out.layers.find((l: { layer: string }) => l.layer === 'properties').details.sealed, 'kernel');
});

kernelTest("the sealed mode a run gets is part of the revert cache's key", () => {
  const { repo, base, head } = sealedProject('kernel');
  assert.match(check(repo, base, head).stderr, /base: cached for the next check/);
  // Under kernel the head side is cached as well (revert-cache-head.test.ts).
  assert.match(check(repo, base, head).stderr, /cached on both sides \(head key [0-9a-f]{12}, base key/);
  // The same config on a machine without Landlock runs sealed: process: the kernel-sealed entry does not answer for it.
  const fallback = check(repo, base, head, { PATCHWARDEN_LANDLOCK: 'off' });
  assert.match(fallback.stderr, /base: not cached/);
  assert.is(fallback.out.revert_run.sealed, 'process');
});

test.run();
