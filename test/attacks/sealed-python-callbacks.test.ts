// Production code that uses a callable the property handed it to run code in
// the property process (the Python runtime alone, `confine: []`). The property
// side serves the worker one request only, a call of a callable the property
// handed over; these attacks reach further through callables that reflect
// (getattr) or hand back the property process's built-ins. Each leaves the
// property red with the sealed mode's TypeError, and the file production code
// asks the property process to write is not written.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { landlockProbe } from '../../src/properties/sealed/confine.js';
import { cleanup, PROJECT } from '../helpers/repo.js';
import { pytestMissing, testUnless } from '../helpers/skip.js';
import { config, project, PYTEST, registry } from '../properties/projects.js';
import { removeProjects, runProject, sealedMissing } from '../properties/sealed-python-site.js';

const py = testUnless(sealedMissing);
const abi = landlockProbe(readFileSync(path.join(PROJECT, 'src/properties/sealed/confine.py'), 'utf8')).abi;
const kernel = testUnless(
  abi > 0 ? pytestMissing : 'Landlock is not available on this kernel: kernel sealing cannot run',
);
const processMode = testUnless(pytestMissing);
const marks: string[] = [];
test.after.each(() => {
  removeProjects();
  cleanup();
  for (const dir of marks.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Runs `bill` against `spec` sealed: the one property stays red for `why` and no `escaped` file appears. */
function staysRed(bill: string, spec: string, why: RegExp): void {
  const sealed = runProject({ 'src/bill.py': bill, 'spec/test_bill.py': spec });
  const cases = [...sealed.cases.values()];
  assert.is(cases.length, 1, sealed.output);
  assert.is(cases[0].status, 'failed', sealed.output);
  assert.is(sealed.code, 1, sealed.output);
  assert.match(cases[0].failures[0].text, why);
  assert.not.ok(existsSync(path.join(sealed.dir, 'escaped')), 'production code ran in the property process');
}

// Asks the property process (through `run`, a callable that runs code there)
// to write its pid to ./escaped; the total is right only if that worked.
const ESCAPE = `import os

MARK = os.path.abspath("escaped")
CODE = "open(%r, 'w').write(str(__import__('os').getpid()))" % MARK


def escaped(run):
    try:
        run(CODE)
    except Exception:
        return False
    with open(MARK) as f:
        return int(f.read()) != os.getpid()
`;

const REFUSED = /TypeError: sealed mode: .* cannot be passed to production code/;

py('control: callables of the property, data types, built-ins on data and methods of data cross', () => {
  const bill = `def apply(fns, x):
    return [f(x) for f in fns]


def feed(sink, xs):
    for x in xs:
        sink(x)
`;
  const spec = `import functools

import bill


class Twice:
    def __call__(self, x):
        return x * 2


def test_callbacks():
    out = []
    bill.feed(out.append, [1, 2])
    assert out == [1, 2]
    fns = [len, str, sorted, str.upper, Twice(), functools.partial(lambda a, b: a + b, "<"), "-".join]
    assert bill.apply(fns, "ba") == [2, "ba", ["a", "b"], "BA", "baba", "<ba", "b-a"]
`;
  const sealed = runProject({ 'src/bill.py': bill, 'spec/test_bill.py': spec });
  assert.is(sealed.code, 0, sealed.output);
});

py('getattr handed over as a callback: refused, so no walk to subprocess.Popen', () => {
  const bill = `${ESCAPE}

def popen(get):
    classes = get(get(ValueError, "__mro__")[-1], "__subclasses__")()
    return next(c for c in classes if get(c, "__name__") == "Popen")


def total(xs, get):
    try:
        sh = popen(get)
        ok = escaped(lambda code: sh(["python3", "-c", code]).wait())
    except Exception:
        ok = False
    return sum(xs) if ok else sum(xs) - 1
`;
  const spec = `import bill


def test_total():
    assert bill.total([], getattr) >= 0
`;
  staysRed(bill, spec, REFUSED);
});

py(
  'a callback that returns a built-in of the property process (eval): refused, even when production catches it',
  () => {
    const bill = `${ESCAPE}

def total(xs, lookup):
    try:
        ok = escaped(lambda code: lookup("eval")(code))
    except Exception:
        ok = False
    return sum(xs) if ok else sum(xs) - 1
`;
    const spec = `import builtins

import bill


def test_total():
    assert bill.total([], lambda name: getattr(builtins, name)) >= 0
`;
    staysRed(bill, spec, /TypeError: sealed mode: .*eval.* cannot be passed to production code/);
  },
);

// End to end: revert-check on a src-only patch, the worker confined as configured.
const ID = 'bill.total_non_negative';
const LOOKUP_SPEC = `import builtins\n\nfrom bill import total\n\n\ndef test_total_non_negative(record_property):\n    record_property("invariant", "${ID}")\n    assert total([1, 2], lambda name: getattr(builtins, name)) >= 3\n`;

/** Asks the lookup the property handed over for exec, and through it the property process to write its pid to `mark`. */
function execPatch(mark: string): string {
  return `def total(xs, lookup):
    try:
        lookup("exec")("import os; open(%r, 'w').write(str(os.getpid()))" % ${JSON.stringify(mark)})
    except Exception:
        return sum(xs) - 1
    return sum(xs)
`;
}

function endToEnd(sealed: string): void {
  const dir = mkdtempSync(path.join(tmpdir(), 'pw-escape-'));
  marks.push(dir);
  const mark = path.join(dir, 'escaped');
  const files = {
    '.patchwarden.yml': config(PYTEST, `  sealed: ${sealed}\ntamper:\n  mode: off\n`),
    'spec/invariants.yaml': registry(ID),
    'spec/properties/test_bill.py': LOOKUP_SPEC,
    'src/bill.py': 'def total(xs, lookup):\n    return sum(xs) - 1\n',
  };
  const { repo, base, head } = project(files, { 'src/bill.py': execPatch(mark) });
  const r = repo.json(['revert-check', '--base', base, '--head', head]);
  assert.match(r.stderr, new RegExp(`sealed: ${sealed}`), r.stderr);
  assert.is(r.code, 1, r.stderr);
  assert.is(r.out.status, 'pending_unmarked', r.out.reason);
  assert.not.ok(existsSync(mark), 'production code ran in the property process');
}

kernel(
  'sealed: kernel: a lookup handing back exec leaves the property red and runs nothing in the property process',
  () => {
    endToEnd('kernel');
  },
);

processMode(
  'sealed: process: a lookup handing back exec leaves the property red and runs nothing in the property process',
  () => {
    endToEnd('process');
  },
);

test.run();
