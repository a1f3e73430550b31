// Sealed runs hold where the in-process guard was one spelling from the next
// bypass. With `properties.sealed: kernel` and the static layer off
// (`tamper.mode: off`), src-only patches of each in-process class (reaching
// the test function, lying through an operator, ending the run early, writing
// the report, rewriting the judge, detecting the run) leave a red property
// red: production code runs in a Landlock-confined worker, and the verdict is
// computed in a process it never runs in. Real pytest and node --test, real
// git, revert-check and the gate; the honest fix still passes.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { landlockProbe } from '../../src/properties/sealed/confine.js';
import { cleanup, PROJECT } from '../helpers/repo.js';
import { pytestMissing, testUnless } from '../helpers/skip.js';
import {
  BUGGY_JS,
  BUGGY_PY,
  config,
  FIXED_JS,
  FIXED_PY,
  GC_SWAP_PY,
  jsProperty,
  NODE_TEST,
  project,
  PYTEST,
  pyProperty,
  registry,
} from '../properties/projects.js';

const ID = 'bill.total_non_negative';
const OFF = 'tamper:\n  mode: off\n';
const abi = landlockProbe(readFileSync(path.join(PROJECT, 'src/properties/sealed/confine.py'), 'utf8')).abi;
const noKernel = abi > 0 ? null : 'Landlock is not available on this kernel: kernel sealing cannot run';
const py = testUnless(noKernel ?? pytestMissing);
const js = testUnless(noKernel);

test.after.each(cleanup);

const pyFiles = (src: string) => ({
  '.patchwarden.yml': config(PYTEST, `  sealed: kernel\n${OFF}`),
  'spec/invariants.yaml': registry(ID),
  'spec/properties/test_bill.py': pyProperty(ID),
  'src/bill.py': src,
});
const jsFiles = (src: string) => ({
  '.patchwarden.yml': config(NODE_TEST, `  sealed: kernel\n${OFF}`),
  'spec/invariants.yaml': registry(ID),
  'spec/properties/bill.test.mjs': jsProperty(ID),
  'src/bill.mjs': src,
  'package.json': '{"type":"module"}\n',
});

/** revert-check on a src-only patch of a sealed project: its JSON, after checking the run was kernel-sealed. */
function check(files: Record<string, string>, patch: Record<string, string>) {
  const { repo, base, head } = project(files, patch);
  const r = repo.json(['revert-check', '--base', base, '--head', head]);
  assert.match(r.stderr, /sealed: kernel/, r.stderr);
  return r;
}

/**
 * The patch did not turn the property green: the property ran and still fails
 * on head as it does reverted. Not a guard's refusal (that would be
 * `fails_on_head`): the lie never reached the process that judges.
 */
function stillRed(files: Record<string, string>, patch: Record<string, string>): void {
  const r = check(files, patch);
  assert.is(r.code, 1, r.stderr);
  assert.is(r.out.status, 'pending_unmarked', r.out.reason);
}

// Python: each attack keeps the bug (total is one short) and tries to make the property pass anyway.
const PY_ATTACKS: Record<string, string> = {
  // The guard's first attack: find the test function through gc and swap its code.
  'gc swap of the test function': GC_SWAP_PY,
  // A result whose comparison lies.
  'an object whose __ge__ says yes': `class _Yes:\n    def __ge__(self, other):\n        return True\n\n\ndef total(xs):\n    return _Yes()\n`,
  'an int subclass whose __ge__ says yes': `class _Int(int):\n    def __ge__(self, other):\n        return True\n\n\ndef total(xs):\n    return _Int(sum(xs) - 1)\n`,
  // Trampolines through trusted code, patching what the property process would use.
  'timeit compiling a patch of builtins': `import timeit\n\ntimeit.Timer("import builtins; builtins.AssertionError = type('X', (Exception,), {})").timeit(1)\n\n\ndef total(xs):\n    return sum(xs) - 1\n`,
  'exec patching pytest internals': `exec("import _pytest.python as p\\np.pytest_pyfunc_call = lambda pyfuncitem: True")\n\n\ndef total(xs):\n    return sum(xs) - 1\n`,
  // Ending the run before the failure is reported.
  'os._exit(0) during the call': `import os\n\n\ndef total(xs):\n    os._exit(0)\n`,
  // The report and the judge, found through /proc: the property process's argv names both.
  'writing the JUnit report the property process names': `import os\n\n\ndef _forge():\n    for pid in os.listdir("/proc"):\n        try:\n            argv = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\\0")\n        except OSError:\n            continue\n        for a in argv:\n            if a.startswith(b"--junitxml="):\n                try:\n                    open(a[len(b"--junitxml="):], "w").write('<testsuite tests="1"><testcase classname="x" name="test_total_non_negative"/></testsuite>')\n                except OSError:\n                    pass\n\n\ndef total(xs):\n    _forge()\n    return sum(xs) - 1\n`,
  'rewriting the judge found through /proc': `import os\n\n\ndef _rewrite():\n    for pid in os.listdir("/proc"):\n        try:\n            argv = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\\0")\n        except OSError:\n            continue\n        for a in argv:\n            if a.endswith(b"main.js"):\n                try:\n                    open(a, "a").write("\\nprocess.exit(0)\\n")\n                except OSError:\n                    pass\n\n\ndef total(xs):\n    _rewrite()\n    return sum(xs) - 1\n`,
  // Knowing the run: the property's seed and patchwarden's variables.
  'behaving only when no run variable is seen': `import os\n\n\ndef total(xs):\n    if any(k.startswith("PATCHWARDEN_") or k == "PROP_SEED" for k in os.environ):\n        return sum(xs)\n    return sum(xs) - 1\n`,
};

for (const [name, patch] of Object.entries(PY_ATTACKS)) {
  py(`sealed pytest: ${name} leaves the property red`, () => {
    stillRed(pyFiles(BUGGY_PY), { 'src/bill.py': patch });
  });
}

py('sealed pytest: the honest fix is proven fixed', () => {
  const r = check(pyFiles(BUGGY_PY), { 'src/bill.py': FIXED_PY });
  assert.is(r.out.status, 'describes_patch', r.out.reason);
});

const JS_ATTACKS: Record<string, string> = {
  'a result whose valueOf lies': `export const total = (xs) => ({ valueOf: () => 1 });\n`,
  'Object.is and assert helpers redefined': `import assert from 'node:assert';\nObject.is = () => true;\nassert.ok = () => {};\nexport const total = (xs) => xs.reduce((a, b) => a + b, 0) - 1;\n`,
  'process.exit(0) during the call': `export const total = (xs) => process.exit(0);\n`,
  'writing the JUnit report the property process names': `import { readdirSync, readFileSync, writeFileSync } from 'node:fs';\nfor (const pid of readdirSync('/proc')) {\n  let argv = [];\n  try { argv = readFileSync('/proc/' + pid + '/cmdline', 'utf8').split('\\0'); } catch {}\n  for (const a of argv) if (a.startsWith('--test-reporter-destination=')) {\n    try { writeFileSync(a.slice(28), '<testsuites><testsuite name="x" tests="1"><testcase name="total is never negative [invariant:${ID}]"/></testsuite></testsuites>'); } catch {}\n  }\n}\nexport const total = (xs) => xs.reduce((a, b) => a + b, 0) - 1;\n`,
};

for (const [name, patch] of Object.entries(JS_ATTACKS)) {
  js(`sealed node --test: ${name} leaves the property red`, () => {
    stillRed(jsFiles(BUGGY_JS), { 'src/bill.mjs': patch });
  });
}

js('sealed node --test: the honest fix is proven fixed', () => {
  const r = check(jsFiles(BUGGY_JS), { 'src/bill.mjs': FIXED_JS });
  assert.is(r.out.status, 'describes_patch', r.out.reason);
});

py('the gate judges a sealed project: its table names the mode, an attack is refused and the fix passes', () => {
  const attack = project(pyFiles(BUGGY_PY), { 'src/bill.py': PY_ATTACKS['an object whose __ge__ says yes'] });
  const refused = attack.repo.json(['gate', '--base', attack.base]);
  assert.is(refused.code, 1, refused.stderr);
  const fixed = project(pyFiles(BUGGY_PY), { 'src/bill.py': FIXED_PY });
  const text = fixed.repo.pw(['gate', '--base', fixed.base]);
  assert.is(text.code, 0, text.stdout + text.stderr);
  assert.match(text.stdout + text.stderr, /kernel/);
});

test.run();
