// The sides run in turn under revert.jobs: 1, and under revert.jobs: 2 where
// there is no Landlock to fence them. Head's code runs as the same user and
// can write what the base run reads outside its tracked tree: here a Go
// dependency in an ignored vendor folder that `revert.link` links into both
// trees. Head's Total is the base's, but its
// init, once head's test binary is built, rewrites that dependency's source
// so that a later build of it sums wrong. When head ran first the base was
// built on the rewritten source, failed the property, and a patch its
// property does not describe came out describes_patch. Now the base runs
// first, before any code of the patch, and the verdict is does_not_describe.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup } from '../helpers/repo.js';
import { testUnless } from '../helpers/skip.js';
import { goConfig, goProperty, goRegistry, GOTESTSUM_MISSING, TOTAL_BODY } from '../properties/go-module.js';
import { project } from '../properties/projects.js';

const ID = 'bill.total';
const MARK = 'POISONED';
const DEP = 'vendor/example.com/dep/dep.go';

const GO_MOD = 'module example.com/shop\n\ngo 1.19\n\nrequire example.com/dep v1.0.0\n';
/** What the base's lock holds for the vendored module (the vendor folder is checked against it; a vendored build reads no sum). */
const GO_SUM =
  'example.com/dep v1.0.0 h1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\nexample.com/dep v1.0.0/go.mod h1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n';
const TOTAL = '// Total sums the items.\nfunc Total(xs []int) int {\n\treturn dep.Sum(xs)\n}\n';
const BASE = `package bill\n\nimport "example.com/dep"\n\n${TOTAL}`;
/** Head's Total is the base's; its init rewrites the linked dependency's source through its own tree's link. */
const HEAD = `package bill

import (
\t"os"
\t"path/filepath"

\t"example.com/dep"
)

func init() {
\tsrc := filepath.Join(filepath.Dir(os.Getenv("TMPDIR")), "tree", ${JSON.stringify(DEP)})
\t_ = os.WriteFile(src, []byte("package dep\\n\\n// ${MARK}\\nfunc Sum(xs []int) int { return -1 }\\n"), 0o644)
}

${TOTAL}`;

/** Under revert.jobs: 2 the base's command waits up to 10 s for the rewrite, so the race head needs is won on every machine. */
const WAIT = `[ "$PATCHWARDEN_SIDE" != base ] || for i in $(seq 100); do grep -qs ${MARK} ${DEP} && break; sleep 0.1; done; `;

test.after.each(cleanup);

function goProject(extra: string, lead = '') {
  const config = goConfig(`revert:\n  link: [vendor]\n${extra}`).replace(
    /command: (.*)\n/,
    (_, command) => `command: ${JSON.stringify(lead + command)}\n`,
  );
  const p = project(
    {
      '.gitignore': 'build/\nvendor/\n',
      'go.mod': GO_MOD,
      'go.sum': GO_SUM,
      '.patchwarden.yml': config,
      'spec/invariants.yaml': goRegistry(ID),
      'spec/properties/bill_test.go': goProperty('TestBill', ID, TOTAL_BODY),
      'bill/bill.go': BASE,
    },
    { 'bill/bill.go': HEAD },
  );
  // The dependency, installed in the main tree and ignored by git.
  p.repo.write('vendor/modules.txt', '# example.com/dep v1.0.0\n## explicit; go 1.19\nexample.com/dep\n');
  p.repo.write(
    DEP,
    'package dep\n\n// Sum sums the items.\nfunc Sum(xs []int) int {\n\ts := 0\n\tfor _, x := range xs {\n\t\ts += x\n\t}\n\treturn s\n}\n',
  );
  return p;
}

function honest(r: { code: number; out: Record<string, any>; stderr: string }, dir: string): void {
  assert.is(r.out.status, 'does_not_describe', `${r.out.reason}\n${r.stderr}`);
  assert.is(r.code, 1);
  const [base, head] = ['running the properties with the production diff reverted', 'running the properties on head'];
  assert.ok(r.stderr.indexOf(base) < r.stderr.indexOf(head), r.stderr);
  // Head's code did rewrite the dependency: only after the base had run.
  assert.match(readFileSync(path.join(dir, DEP), 'utf8'), MARK);
}

testUnless(GOTESTSUM_MISSING)(
  'go, revert.jobs: 1: head rewrites a linked dependency the base builds: the base ran first',
  () => {
    const { repo, base, head } = goProject('');
    honest(repo.json(['revert-check', '--base', base, '--head', head]), repo.dir);
  },
);

testUnless(GOTESTSUM_MISSING)(
  'go, revert.jobs: 2 without Landlock: the same rewrite, the sides in turn, the base first',
  () => {
    const { repo, base, head } = goProject('  jobs: 2\n', WAIT);
    const r = repo.json(['revert-check', '--base', base, '--head', head], { env: { PATCHWARDEN_LANDLOCK: 'off' } });
    honest(r, repo.dir);
    assert.is(r.out.fence, 'none', r.stderr);
  },
);

test.run();
