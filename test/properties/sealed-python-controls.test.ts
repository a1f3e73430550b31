// Honest properties that must pass when sealed: production code runs in the
// worker and every value crosses as data, yet a fix that returns a dataclass,
// a generator, an exception the property expects, a callback, threads, temp
// files, logging, a subprocess, modules importing each other and a
// Hypothesis property all pass as they do unsealed. A failing property
// reports the production frames as an unsealed run does, to the same failure
// signature; the property seed reaches Hypothesis and never the worker.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { defaults } from '../../src/config/schema.js';
import { signCase, signOptions } from '../../src/signature/sign.js';
import { testUnless } from '../helpers/skip.js';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { removeProjects, rerun, runProject, sealedMissing, statuses } from './sealed-python-site.js';

const py = testUnless(sealedMissing);
test.after.each(removeProjects);

const SHOP = {
  'src/shop/__init__.py': '',
  'src/shop/model.py': `from dataclasses import dataclass
import enum
from typing import NamedTuple


@dataclass
class Point:
    x: int
    y: int


class Pair(NamedTuple):
    a: int
    b: int


class Color(enum.Enum):
    RED = 1
    BLUE = 2


class StockError(ValueError):
    def __init__(self, sku, left):
        super().__init__("%s: only %d left" % (sku, left))
        self.sku = sku


try:
    import attrs

    @attrs.define
    class Money:
        units: int
        currency: str

except ImportError:
    Money = None


class Counter:
    def __init__(self, n):
        self.n = n

    def add(self, k):
        self.n += k
        return self.n
`,
  'src/shop/ops.py': `import logging
import os
import subprocess
import sys
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor

from .model import Color, Pair, Point, StockError
from . import extra, pricing

log = logging.getLogger(__name__)


def clamp(p):
    return Point(max(p.x, 0), max(p.y, 0))


def evens(n):
    for i in range(n):
        yield 2 * i


def take(stock, sku, k):
    if k > stock.get(sku, 0):
        raise StockError(sku, stock.get(sku, 0))
    return {**stock, sku: stock[sku] - k}


def parse(text):
    return int(text)


def apply(fn, xs):
    return [fn(x) for x in xs]


def squares(xs):
    with ThreadPoolExecutor(4) as pool:
        return list(pool.map(lambda x: x * x, xs))


def notify_from_thread(fn, value):
    out = []
    t = threading.Thread(target=lambda: out.append(fn(value)))
    t.start()
    t.join()
    return out[0]


def through_file(data):
    with tempfile.NamedTemporaryFile("w+b", delete=False) as f:
        f.write(data)
    try:
        with open(f.name, "rb") as g:
            return g.read()
    finally:
        os.unlink(f.name)


def logged(x):
    log.warning("pricing %s", x)
    return pricing.price(x)


def child_sum(xs):
    r = subprocess.run([sys.executable, "-c", "import sys; print(sum(map(int, sys.argv[1:])))", *map(str, xs)], capture_output=True, text=True, check=True)
    return int(r.stdout)


def pair(a, b):
    return Pair(min(a, b), max(a, b))


def double(m):
    return type(m)(m.units * 2, m.currency)


def flip(c):
    return Color.BLUE if c is Color.RED else Color.RED
`,
  'src/shop/extra.py': 'def seven():\n    return 7\n',
  'src/shop/pricing.py': `from . import tax


def price(x):
    return tax.with_tax(x)
`,
  'src/shop/tax.py': `RATE = 2


def with_tax(x):
    from . import pricing  # circular: pricing imports tax

    return x * RATE if pricing.price is not None else None
`,
};

const SPEC = `import threading

import pytest
from hypothesis import given, settings, strategies as st

import shop.ops as ops
from shop import pricing, tax
from shop.model import Color, Counter, Pair, Point, StockError


def test_dataclass():
    assert ops.clamp(Point(3, -1)) == Point(3, 0)
    assert ops.clamp(Point(-2, 5)) != Point(-2, 5)
    assert repr(Point(1, 2)) == "Point(x=1, y=2)" and isinstance(ops.clamp(Point(1, 1)), Point)


def test_records():
    assert ops.pair(5, 2) == Pair(2, 5) == (2, 5) and hash(Pair(2, 5)) == hash((2, 5))
    assert ops.flip(Color.RED) is Color.BLUE and Color(1) is Color.RED


def test_attrs():
    pytest.importorskip("attrs")
    from shop.model import Money

    assert ops.double(Money(2, "EUR")) == Money(4, "EUR")


def test_submodule_as_attribute():
    import shop

    # Imported by shop.ops (in the worker, when sealed), read as an attribute.
    assert shop.extra.seven() == 7


def test_generator():
    assert list(ops.evens(4)) == [0, 2, 4, 6]
    it = ops.evens(2)
    assert next(it) == 0 and next(it) == 2
    with pytest.raises(StopIteration):
        next(it)


def test_exceptions():
    with pytest.raises(ValueError, match="invalid literal"):
        ops.parse("x")
    with pytest.raises(StockError, match="only 1 left") as e:
        ops.take({"a": 1}, "a", 2)
    assert e.value.sku == "a" and isinstance(e.value, ValueError)
    with pytest.raises(ops.StockError):
        ops.take({}, "b", 1)


def test_handle():
    c = Counter(3)
    assert c.add(2) == 5 and c.n == 5


def test_callback():
    assert ops.apply(lambda x: x + 1, [1, 2]) == [2, 3]
    # Re-entrant: the callback calls production code while production waits on it.
    assert ops.apply(lambda x: ops.parse(str(x)) * 10, [4]) == [40]


def test_threads():
    assert ops.squares([1, 2, 3]) == [1, 4, 9]
    assert ops.notify_from_thread(lambda v: v * 3, 7) == 21
    out = []
    ts = [threading.Thread(target=lambda i=i: out.append(ops.parse(str(i)))) for i in range(8)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert sorted(out) == list(range(8))


def test_temp_files():
    assert ops.through_file(b"\\x00\\xffdata") == b"\\x00\\xffdata"


def test_logging():
    assert ops.logged(4) == 8


def test_subprocess():
    assert ops.child_sum([1, 2, 3]) == 6


def test_modules_importing_each_other():
    assert pricing.price(3) == tax.with_tax(3) == 6 and tax.RATE == 2


@settings(max_examples=50, deadline=None, database=None)
@given(st.lists(st.integers()))
def test_hypothesis(xs):
    assert ops.squares(xs) == [x * x for x in xs]
`;

py('honest controls pass sealed, as they pass unsealed', () => {
  const files = { ...SHOP, 'spec/test_shop.py': SPEC };
  const sealed = runProject(files);
  const plain = rerun(sealed.dir, { sealed: false });
  assert.is(plain.code, 0, plain.output);
  assert.is(sealed.code, 0, sealed.output);
  assert.equal(statuses(sealed), statuses(plain));
  assert.is(sealed.cases.size, 14);
});

const BUGGY = {
  'src/bill/__init__.py': '',
  'src/bill/lines.py': `def subtotal(xs):
    return sum(xs) - 1
`,
  'src/bill/total.py': `from .lines import subtotal


def total(xs):
    t = subtotal(xs)
    if t < 0:
        raise ArithmeticError("negative total %d" % t)
    return t
`,
  'spec/test_bill.py': `from hypothesis import given, settings, strategies as st

from bill.lines import subtotal
from bill.total import total


@settings(max_examples=50, deadline=None, database=None)
@given(st.lists(st.integers(min_value=0, max_value=9)))
def test_total_raises_nothing(xs):
    total(xs)


def test_subtotal():
    assert subtotal([2, 3]) == 5
`,
};

py('a failing property reports the production frames and signs as unsealed, in every traceback style', () => {
  const sign = signOptions(defaults());
  let dir = '';
  for (const tb of ['long', 'short', 'native']) {
    const args = ['spec', `--tb=${tb}`];
    const sealed = dir ? rerun(dir, { args }) : runProject(BUGGY, { args });
    dir = sealed.dir;
    const plain = rerun(dir, { sealed: false, args });
    assert.is(sealed.code, 1, sealed.output);
    for (const name of ['test_total_raises_nothing', 'test_subtotal']) {
      const [s, p] = [sealed.cases.get(name)!, plain.cases.get(name)!];
      assert.is(s.status, 'failed', `${tb} ${name}`);
      const [ss, ps] = [signCase(s, sign)!, signCase(p, sign)!];
      assert.equal(ss, ps, `${tb} ${name}`);
    }
    const where = {
      long: /src\/bill\/total\.py:7: ArithmeticError/,
      short: /src\/bill\/total\.py:7: in total/,
      native: /bill\/total\.py", line 7, in total/,
    }[tb]!;
    const text = sealed.cases.get('test_total_raises_nothing')!.failures[0].text;
    assert.match(text, where, text);
    const frames = signCase(sealed.cases.get('test_total_raises_nothing')!, sign)!.frames;
    assert.ok(frames.includes('total'), `${tb}: ${frames}`);
  }
});

const SEEDED = {
  'src/probe.py': `import os


def seen():
    return sorted(k for k in os.environ if k == "PROP_SEED" or k.startswith(("PATCHWARDEN", "PYTEST")))
`,
  'spec/test_seed.py': `import json
import os

from hypothesis import given, settings, strategies as st

from probe import seen

SEEN = []


@settings(max_examples=20, deadline=None, database=None)
@given(st.integers())
def test_examples(x):
    SEEN.append(x)


def test_zz_record():
    with open(os.environ["EXAMPLES_OUT"], "w") as f:
        json.dump({"examples": SEEN, "worker": seen()}, f)
`,
};

py('PROP_SEED reaches Hypothesis as --hypothesis-seed does, and never the worker', () => {
  let dir = '';
  const examples = (opts: { seed?: string; sealed?: boolean; args?: string[] }) => {
    const out = path.join(dir || '/nonexistent', 'examples.json');
    const env = { EXAMPLES_OUT: out, ...(opts.seed ? { PROP_SEED: opts.seed } : {}) };
    const r = dir ? rerun(dir, { env, sealed: opts.sealed, args: opts.args }) : null;
    assert.is(r?.code, 0, r?.output);
    return JSON.parse(readFileSync(out, 'utf8')) as { examples: number[]; worker: string[] };
  };
  dir = runProject(SEEDED, { env: { EXAMPLES_OUT: '/dev/null' } }).dir;
  const a = examples({ seed: '11' });
  assert.equal(a.worker, [], 'the worker saw none of the run variables');
  assert.equal(examples({ seed: '11' }).examples, a.examples);
  assert.not.equal(examples({ seed: '12' }).examples, a.examples);
  assert.equal(examples({ sealed: false, args: ['spec', '--hypothesis-seed=11'] }).examples, a.examples);
});

test.run();
