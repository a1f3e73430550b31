// A Cargo project's starter config: init writes the libtest property command
// revert-check.md prints once the registry and the `properties` test target
// exist, and that command, as written, proves an honest fix with real cargo;
// without the target it stays a comment naming the lines Cargo.toml needs.
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ownerKey } from '../helpers/owner.js';
import { cleanup, tempRepo } from '../helpers/repo.js';
import { testUnless } from '../helpers/skip.js';
import { CARGO_MISSING, CARGO_TOML, crate, RUST_COMMAND, rustProperty } from '../properties/rust-crate.js';

const ID = 'bill.total_non_negative';
const BUGGY = 'pub fn total(xs: &[i64]) -> i64 {\n    xs.iter().sum::<i64>() - 1\n}\n';
const FIXED = 'pub fn total(xs: &[i64]) -> i64 {\n    xs.iter().sum()\n}\n';
const PROPERTY = rustProperty(ID, ['empty', 'assert!(shop::total(&[]) >= 0);']);

test.after.each(cleanup);

const configOf = (dir: string) => readFileSync(path.join(dir, '.patchwarden.yml'), 'utf8');

testUnless(CARGO_MISSING)("rust: init writes revert-check.md's libtest command, and as written it proves a fix", () => {
  const repo = tempRepo();
  repo.commit(crate(BUGGY, PROPERTY, ID), 'start');
  const init = repo.pw(['init', '--yes', '--owner-key', ownerKey()]);
  assert.is(init.code, 0, init.stdout + init.stderr);
  const config = configOf(repo.dir);
  assert.ok(config.includes(`\n  command: ${RUST_COMMAND}\n`), config);
  assert.match(config, '# Rust properties run in one test binary with the code they judge');
  assert.match(
    config,
    availableParallelism() > 1 ? /\n {2}jobs: 2\n/ : /^(?![\s\S]*\n {2}jobs:)/,
    'jobs: 2 on 2 cores: at once where each side is fenced, else in turn, the base first',
  );
  repo.git(['add', '-A']);
  repo.git(['commit', '-q', '--no-verify', '-m', 'patchwarden']);
  repo.commit({ 'src/lib.rs': FIXED }, 'total: no longer one short');
  const r = repo.json(['revert-check', '--base', 'HEAD~1']);
  assert.is(r.out.status, 'describes_patch', `${r.out.reason}\n${r.stderr}`);
  assert.equal(r.out.failing_on_revert, [ID]);
});

test('rust: without the properties target the command stays a comment, with the lines Cargo.toml needs', () => {
  const repo = tempRepo();
  repo.commit(
    { ...crate(BUGGY, PROPERTY, ID), 'Cargo.toml': CARGO_TOML.replace(/\n\[\[test\]\][\s\S]*$/, '\n') },
    'start',
  );
  assert.is(repo.pw(['init', '--yes', '--owner-key', ownerKey()]).code, 0);
  const config = configOf(repo.dir);
  assert.ok(config.includes(`\n  # command: ${RUST_COMMAND}\n`), config);
  assert.match(config, '(Cargo.toml: [[test]] with name = "properties" and path = "spec/properties.rs")');
});

test.run();
