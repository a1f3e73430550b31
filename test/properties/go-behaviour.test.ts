// Whether a Go diff changes behaviour, judged by Go's own parser through the
// helper built with the real go: comments and gofmt's layout are not
// behaviour, directive comments and the cgo preamble are; without go every Go
// change counts. Then a comment-only change pushed through the real pre-push
// hook runs no property, timed with the helper's build and warm.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { defaults } from '../../src/config/schema.js';
import { openRepo } from '../../src/git/repo.js';
import { productionBehaviour } from '../helpers/behaviour.js';
import { cleanup, installPrePush, tempRepo, type TempRepo } from '../helpers/repo.js';
import { testUnless } from '../helpers/skip.js';
import { GO_MISSING, GO_MOD, GOTESTSUM_MISSING, goConfig, goProperty, goRegistry, TOTAL_BODY } from './go-module.js';

const goTest = testUnless(GO_MISSING);
const pushTest = testUnless(GOTESTSUM_MISSING);

const BILL = `package bill

import "fmt"

// Total sums the items.
func Total(xs []int) int {
\ts := 0
\tfor _, x := range xs {
\t\ts += x
\t}
\treturn s
}

// Show prints a total.
func Show(n int) string { return fmt.Sprintf("total %d", n) }
`;

/** One repository for every pair, so the helper is built once: each call commits base, then head, and judges them. */
function judge(repo: TempRepo) {
  return async (base: string, head: string, file = 'src/bill/bill.go') => {
    const b = repo.commit({ [file]: base }, 'base');
    const h = repo.commit({ [file]: head }, 'head');
    return productionBehaviour(await openRepo(repo.dir), defaults(), b, h);
  };
}

test.after.each(cleanup);

goTest(
  'go: doc comments and gofmt layout are no behaviour change; literals, directives and the cgo preamble are',
  async () => {
    const repo = tempRepo();
    const verdict = judge(repo);
    const same = async (a: string, b: string) => {
      const v = await verdict(a, b);
      assert.ok(v?.same, JSON.stringify(v));
    };
    const differs = async (a: string, b: string, why: RegExp) => {
      const v = await verdict(a, b);
      assert.ok(v && !v.same, JSON.stringify(v));
      if (v && !v.same) assert.match(v.why, why);
    };
    // A doc comment reworded, a line comment added.
    await same(
      BILL,
      BILL.replace('Total sums the items.', 'Total adds up the items.').replace('s := 0', 's := 0 // none yet'),
    );
    // gofmt's own rewrite of a badly laid-out file.
    const messy = BILL.replace('for _, x := range xs {\n\t\ts += x\n\t}', 'for _,x:=range xs{ s+=x }').replace(
      'import "fmt"',
      'import (\n    "fmt"\n)',
    );
    const fmt = spawnSync('gofmt', [], { input: messy, encoding: 'utf8' });
    assert.is(fmt.status, 0, fmt.stderr);
    assert.is.not(fmt.stdout, messy);
    await same(messy, fmt.stdout);
    // The same value spelled another way is the same tree.
    await same(BILL.replace('s := 0', 's := 0x0'), BILL);
    await differs(BILL, BILL.replace('"total %d"', '"sum %d"'), /syntax tree differs/);
    await differs(`//go:build linux\n\n${BILL}`, `//go:build darwin\n\n${BILL}`, /go:build darwin|go:build linux/);
    await differs(BILL, `// +build linux\n\n${BILL}`, /\+build linux/);
    const embed = (name: string) => `package bill\n\nimport _ "embed"\n\n//go:embed ${name}\nvar rates string\n`;
    await differs(embed('rates.txt'), embed('rates-v2.txt'), /go:embed/);
    // The same directive moved to another declaration is a move.
    const linked = '//go:noinline\nfunc A() int { return 1 }\n\nfunc B() int { return 2 }\n';
    await differs(
      `package bill\n\n${linked}`,
      `package bill\n\n${linked.replace('//go:noinline\n', '').replace('func B', '//go:noinline\nfunc B')}`,
      /go:noinline/,
    );
    const cgo = (body: string) =>
      `package bill\n\n/*\n#include <stdlib.h>\n${body}\n*/\nimport "C"\n\nfunc Rate() int { return int(C.rate()) }\n`;
    await differs(
      cgo('static int rate(void) { return 1; }'),
      cgo('static int rate(void) { return 2; }'),
      /cgo preamble/,
    );
    await differs(BILL, `${BILL}\n//export Show\n`, /export Show/);
    await differs(BILL, BILL.replace('func Total(', 'func Total(('), /does not parse/);
  },
);

goTest('go: without go on PATH every Go change owes evidence', async () => {
  // A PATH holding git alone.
  const bin = mkdtempSync(path.join(tmpdir(), 'pw-nogo-'));
  const git = spawnSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).stdout.trim();
  symlinkSync(git, path.join(bin, 'git'));
  const prior = process.env.PATH;
  process.env.PATH = bin;
  try {
    const v = await judge(tempRepo())(BILL, BILL.replace('Total sums', 'Total adds'));
    assert.ok(v && !v.same, JSON.stringify(v));
    if (v && !v.same) assert.match(v.why, /go is not on PATH/);
  } finally {
    process.env.PATH = prior;
  }
});

pushTest(
  'go: a comment-only change pushed through pre-push runs no property (timed with the helper build, then warm)',
  () => {
    const remote = tempRepo({ bare: true });
    const repo = tempRepo();
    repo.git(['remote', 'add', 'origin', remote.dir]);
    installPrePush(repo);
    repo.commit(
      {
        'go.mod': GO_MOD,
        '.patchwarden.yml': goConfig(),
        'spec/invariants.yaml': goRegistry('bill.total'),
        'spec/properties/bill_test.go': goProperty('TestBill', 'bill.total', TOTAL_BODY),
        'bill/bill.go': BILL,
      },
      'start',
    );
    assert.is(repo.git(['push', '-q', 'origin', 'main']).code, 0);
    const times: number[] = [];
    for (const words of ['adds up', 'totals']) {
      repo.commit({ 'bill/bill.go': BILL.replace('sums', words) }, `docs: reword Total's comment (${words})`);
      const t = performance.now();
      const r = repo.git(['push', '-q', 'origin', 'main'], { allowFail: true });
      times.push(performance.now() - t);
      assert.is(r.code, 0, r.stdout + r.stderr);
      assert.match(r.stdout + r.stderr, /no behaviour change/);
      assert.not.match(r.stdout + r.stderr, /running the properties/);
    }
    const cache = path.join(repo.dir, '.git/patchwarden/go-syntax');
    assert.is(readdirSync(cache).length, 1);
    console.log(
      `go comment-only push: ${times[0].toFixed(0)} ms with the helper's build, ${times[1].toFixed(0)} ms warm`,
    );
  },
);

test.run();
