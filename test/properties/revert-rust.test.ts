import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { site } from '../attacks/range-site.js';
import { cleanup } from '../helpers/repo.js';
import { testUnless } from '../helpers/skip.js';
import { commitAs, Keys } from '../prereceive/server.js';
import { AGENT, commitBy, gate, splitAsAdvised } from './evidence-site.js';
import {
  CARGO_MISSING,
  CARGO_TOML,
  crate,
  docExample,
  rustConfig,
  rustProperty,
  rustRegistry as registry,
} from './rust-crate.js';

const cargoTest = testUnless(CARGO_MISSING);

const TOTAL = 'bill.total';
const DOUBLE = 'bill.double';
const LIB = '/// Sums the items.\npub fn total(xs: &[i64]) -> i64 {\n    xs.iter().sum()\n}\n';
/** The agent's fix: double, new, and (when `scaled`) total given a scale, which changes its signature. */
const withDouble = (scaled = false) =>
  `${scaled ? LIB.replace('total(xs: &[i64]) -> i64 {', 'total(xs: &[i64], k: i64) -> i64 {').replace('.sum()', '.sum::<i64>() * k') : LIB}\n/// Doubles.\npub fn double(x: i64) -> i64 {\n    2 * x\n}\n`;

const TOTAL_PROPERTY = rustProperty(TOTAL, ['sums', 'assert_eq!(shop::total(&[1, 2]), 3);']);
const DOUBLE_PROPERTY = rustProperty(DOUBLE, ['doubles', 'assert_eq!(shop::double(2), 4);']);

function rustSite(owner: { pub: string }) {
  return site(rustConfig('owners:\n  signers: .patchwarden/allowed_signers\n'), {
    '.patchwarden/allowed_signers': `owner@example.com ${owner.pub}\n`,
    ...crate(LIB, TOTAL_PROPERTY, TOTAL),
  });
}

const keys = new Keys();
const owner = keys.make('owner');
test.after.each(cleanup);
test.after(() => keys.rm());

cargoTest('rust: the libtest example of revert-check.md, as printed, proves a fix through the gate', () => {
  const doc = docExample();
  const id = 'bill.total_non_negative';
  const buggy = 'pub fn total(xs: &[i64]) -> i64 {\n    if xs.is_empty() { -1 } else { xs.iter().sum() }\n}\n';
  const config = `version: 1\nzones:\n  spec: [spec/**]\n  src: ["src/**"]\n${doc.yaml}  invariants: spec/invariants.yaml\n`;
  const { work } = site(config, {
    ...crate(buggy, doc.rust, id),
    'Cargo.toml': CARGO_TOML.replace(/\n\[\[test\]\][\s\S]*$/, `\n${doc.toml}`),
  });
  work.git(['switch', '-q', '-c', 'fix', 'origin/main']);
  commitBy(work, AGENT, { 'src/lib.rs': LIB }, 'total: an empty bill is 0');
  const g = gate(work);
  const revert = g.layers.revert.details;
  assert.is(revert.status, 'describes_patch', `${JSON.stringify(g.layers.revert)}\n${g.stderr}`);
  assert.equal(revert.failing_on_revert, [id]);
  assert.is(g.code, 0, JSON.stringify(g.out.layers));
});

cargoTest(
  "rust: an owner's signed property for a new function beside an agent's fix is fixed (by build); the gate accepts it",
  () => {
    const { work } = rustSite(owner);
    work.git(['switch', '-q', '-c', 'double', 'origin/main']);
    commitAs(
      work,
      { 'spec/invariants.yaml': registry(TOTAL, DOUBLE), 'spec/properties.rs': TOTAL_PROPERTY + DOUBLE_PROPERTY },
      'property: double doubles',
      { sign: owner.file, email: 'owner@example.com' },
    );
    commitBy(work, AGENT, { 'src/lib.rs': withDouble() }, 'add double');
    const g = gate(work);
    const revert = g.layers.revert.details;
    assert.is(revert.status, 'describes_patch', `${revert.reason}\n${revert.output}\n${g.stderr}`);
    assert.equal(revert.failing_on_revert, [DOUBLE]);
    assert.equal(revert.by_build, { [DOUBLE]: ['double'] });
    assert.match(g.layers.revert.summary, `${DOUBLE} (by build)`);
    assert.is(g.code, 0, JSON.stringify(g.out.layers));
  },
);

cargoTest('rust: a reverted build that fails on anything the diff does not add stays revert_broken', () => {
  const { work } = rustSite(owner);
  work.git(['switch', '-q', '-c', 'double', 'origin/main']);
  // The property calls double and total with the fix's new signature: without the fix total's call is wrong too.
  commitAs(
    work,
    {
      'spec/invariants.yaml': registry(TOTAL, DOUBLE),
      'spec/properties.rs': TOTAL_PROPERTY.replace('total(&[1, 2])', 'total(&[1, 2], 1)') + DOUBLE_PROPERTY,
    },
    'property: double doubles, total scales',
    { sign: owner.file, email: 'owner@example.com' },
  );
  commitBy(work, AGENT, { 'src/lib.rs': withDouble(true) }, 'add double, scale total');
  const g = gate(work);
  const revert = g.layers.revert.details;
  assert.is(revert.status, 'revert_broken', `${revert.reason}\n${g.stderr}`);
  assert.equal(revert.failing_on_revert, []);
  assert.is(revert.by_build, undefined);
  assert.is.not(g.code, 0);
});

cargoTest('rust: a doc-comment-only change still owes evidence: doc comments are attributes and doctests run', () => {
  const { work } = rustSite(owner);
  work.git(['switch', '-q', '-c', 'doc', 'origin/main']);
  commitBy(work, AGENT, { 'src/lib.rs': LIB.replace('/// Sums the items.', '/// Sums every item.') }, 'doc: total');
  const g = gate(work);
  assert.match(
    g.stderr,
    'behaviour: src/lib.rs changes it (Rust: doc comments are attributes and doctests run, so any change counts)',
  );
  // It ran both sides, and no property tells them apart: an owner's refactor row is the way through.
  assert.is(g.layers.revert.details.status, 'does_not_describe', g.stderr);
  assert.match(g.layers.revert.violations[0].fix, '.patchwarden/refactors.yaml');
  assert.is.not(g.code, 0);
});

cargoTest(
  "rust: the owner's split advice for a property and a new function, run as printed, reaches a state the gate accepts",
  () => {
    const s = rustSite(owner);
    const { work } = s;
    const g = splitAsAdvised(work, owner.file, {
      'src/lib.rs': withDouble(),
      'spec/properties.rs': TOTAL_PROPERTY + DOUBLE_PROPERTY,
      'spec/invariants.yaml': registry(TOTAL, DOUBLE),
    });
    const revert = g.layers.revert.details;
    assert.is(revert.status, 'describes_patch', `${revert.reason}\n${g.stderr}`);
    assert.equal(revert.by_build, { [DOUBLE]: ['double'] });
    assert.is(g.code, 0, JSON.stringify(g.out.layers));
    assert.is(s.ref('refs/heads/double'), work.head(), 'pushed as printed');
  },
);

test.run();
