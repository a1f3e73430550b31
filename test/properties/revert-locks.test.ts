// revert.link checked against whichever lock the project has: yarn classic
// and yarn berry installs (real yarn from the registry), yarn's Plug'n'Play
// refused with what to set, and Go's and cargo's vendor folders against
// go.sum and Cargo.lock. Each refusal names the project's own install command.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BIN, cleanup, sh, type TempRepo } from '../helpers/repo.js';
import { testUnless } from '../helpers/skip.js';
import { BUGGY_JS, config, FIXED_JS, jsProperty, NODE_TEST, project, registry } from './projects.js';

const ID = 'bill.total_non_negative';
const tools = mkdtempSync(path.join(tmpdir(), 'pw-yarn-tools-'));
writeFileSync(path.join(tools, 'package.json'), '{"name":"tools","private":true}\n');
const installed = sh('npm', ['install', '--no-audit', '--no-fund', 'yarn@1', '@yarnpkg/cli-dist@4'], { cwd: tools });
const missing = installed.code === 0 ? null : `yarn cannot be installed from the registry: ${installed.stderr.trim()}`;
const it = testUnless(missing);
const PATH = `${BIN}:${path.join(tools, 'node_modules/.bin')}:${process.env.PATH}`;
const BERRY = path.join(tools, 'node_modules/@yarnpkg/cli-dist/bin/yarn.js');

test.after.each(cleanup);
test.after(() => rmSync(tools, { recursive: true, force: true }));

const baseFiles = (link: string, extra: Record<string, string> = {}) => ({
  '.patchwarden.yml': config(NODE_TEST, `revert:\n  link: [${link}]\n`),
  '.gitignore': 'node_modules/\nvendor/\n.venv/\n.yarn/\n.pnp.*\nbuild/\n',
  'spec/invariants.yaml': registry(ID),
  'spec/properties/bill.test.mjs': jsProperty(ID),
  'src/bill.mjs': BUGGY_JS,
  ...extra,
});

type Yarn = (dir: string, args: string[]) => void;
const run =
  (cmd: string, pre: string[]): Yarn =>
  (dir, args) => {
    const r = sh(cmd, [...pre, ...args], {
      cwd: dir,
      // As a developer runs it: in CI yarn berry's default forbids writing the lock.
      env: { ...process.env, PATH, YARN_ENABLE_GLOBAL_CACHE: 'false', YARN_ENABLE_IMMUTABLE_INSTALLS: 'false' },
    });
    assert.is(r.code, 0, `${cmd} ${args.join(' ')}\n${r.stdout}${r.stderr}`);
  };
// Both packages name their bin yarn: each is run by its own path.
const classic = run(process.execPath, [path.join(tools, 'node_modules/yarn/bin/yarn.js'), '--no-progress']);
const berry = run(process.execPath, [BERRY]);

/** A node project whose base commits the lock `yarn` writes for ms@2.1.3, installed in the main tree. */
function yarnProject(yarn: Yarn, files: Record<string, string>): TempRepo {
  const pkg = { name: 'bill', private: true, type: 'module', devDependencies: { ms: '2.1.3' } };
  const scratch = mkdtempSync(path.join(tmpdir(), 'pw-yarn-'));
  try {
    for (const [f, c] of Object.entries({ 'package.json': JSON.stringify(pkg), ...files }))
      writeFileSync(path.join(scratch, f), c);
    yarn(scratch, ['install']);
    const lock = readFileSync(path.join(scratch, 'yarn.lock'), 'utf8');
    const { repo } = project(
      baseFiles('node_modules', { 'package.json': JSON.stringify(pkg), 'yarn.lock': lock, ...files }),
      { 'src/bill.mjs': FIXED_JS },
    );
    yarn(repo.dir, ['install']);
    return repo;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

const check = (repo: TempRepo) => repo.json(['revert-check', '--base', 'HEAD~1', '--head', 'HEAD']);

for (const [name, yarn, files, install] of [
  ['yarn classic', classic, {}, 'yarn install --frozen-lockfile'],
  ['yarn berry', berry, { '.yarnrc.yml': 'nodeLinker: node-modules\n' }, 'yarn install --immutable'],
] as const) {
  it(`${name}: node_modules as the base's yarn.lock says passes; another version is refused with ${install}`, () => {
    const repo = yarnProject(yarn, files);
    const ok = check(repo);
    assert.is(ok.code, 0, ok.stderr);
    assert.is(ok.out.status, 'describes_patch', ok.out.reason);
    yarn(repo.dir, ['add', '--dev', 'ms@2.1.2']);
    const r = check(repo);
    assert.is(r.code, 1, r.stderr);
    assert.is(r.out.status, 'fails_on_head');
    assert.match(r.out.reason, /node_modules holds packages the base's yarn\.lock does not: ms@/);
    assert.match(r.out.reason, `install them from the base's lock files (${install})`);
  });
}

it("yarn berry with Plug'n'Play: refused, naming the setting that makes a node_modules", () => {
  const repo = yarnProject(berry, {});
  rmSync(path.join(repo.dir, 'node_modules'), { recursive: true, force: true });
  const r = check(repo);
  assert.is(r.code, 1, r.stderr);
  assert.match(r.out.reason, /Plug'n'Play \(\.pnp\.cjs\).*set `nodeLinker: node-modules` in \.yarnrc\.yml/);
  assert.match(r.out.reason, '(yarn install --immutable)');
});

test('Go: a vendor folder with a module go.sum does not record is refused with go mod vendor; one that matches runs', () => {
  const goSum = 'example.com/a v1.0.0 h1:abc=\nexample.com/a v1.0.0/go.mod h1:def=\n';
  const { repo } = project(baseFiles('vendor', { 'go.sum': goSum }), { 'src/bill.mjs': FIXED_JS });
  const modules = (v: string) => `# example.com/a ${v}\n## explicit\nexample.com/a\n`;
  mkdirSync(path.join(repo.dir, 'vendor'));
  writeFileSync(path.join(repo.dir, 'vendor/modules.txt'), modules('v1.0.0'));
  assert.is(check(repo).out.status, 'describes_patch');
  writeFileSync(path.join(repo.dir, 'vendor/modules.txt'), modules('v1.1.0'));
  const r = check(repo);
  assert.is(r.code, 1, r.stderr);
  assert.match(r.out.reason, "vendor holds modules the base's go.sum does not: example.com/a v1.1.0");
  assert.match(r.out.reason, '(go mod vendor)');
});

test('cargo: a vendored crate at another checksum than Cargo.lock is refused with cargo vendor --locked', () => {
  const lock =
    'version = 3\n\n[[package]]\nname = "itoa"\nversion = "1.0.9"\nsource = "registry+https://github.com/rust-lang/crates.io-index"\nchecksum = "aaaa"\n';
  const { repo } = project(baseFiles('vendor', { 'Cargo.lock': lock }), { 'src/bill.mjs': FIXED_JS });
  const crate = (sum: string) => {
    mkdirSync(path.join(repo.dir, 'vendor/itoa'), { recursive: true });
    writeFileSync(path.join(repo.dir, 'vendor/itoa/Cargo.toml'), '[package]\nname = "itoa"\nversion = "1.0.9"\n');
    writeFileSync(path.join(repo.dir, 'vendor/itoa/.cargo-checksum.json'), JSON.stringify({ files: {}, package: sum }));
  };
  crate('aaaa');
  assert.is(check(repo).out.status, 'describes_patch');
  crate('bbbb');
  const r = check(repo);
  assert.is(r.code, 1, r.stderr);
  assert.match(r.out.reason, "vendor holds modules the base's Cargo.lock does not: itoa 1.0.9");
  assert.match(r.out.reason, '(cargo vendor --locked)');
});

for (const [lock, text, install] of [
  ['uv.lock', 'version = 1\n\n[[package]]\nname = "evil"\nversion = "0.9"\n', 'uv sync --locked'],
  ['requirements.txt', 'evil==0.9\n', 'python3 -m venv --clear .venv && .venv/bin/pip install -r requirements.txt'],
] as const) {
  test(`a virtual environment against the base's ${lock}: refused with ${install}`, () => {
    const { repo } = project(baseFiles('.venv', { [lock]: text }), { 'src/bill.mjs': FIXED_JS });
    repo.write('.venv/pyvenv.cfg', 'home = /usr/bin\n');
    const meta = (v: string) => `Metadata-Version: 2.1\nName: evil\nVersion: ${v}\n`;
    repo.write('.venv/lib/python3.11/site-packages/evil-0.9.dist-info/METADATA', meta('0.9'));
    assert.is(check(repo).out.status, 'describes_patch');
    repo.write('.venv/lib/python3.11/site-packages/evil-0.9.dist-info/METADATA', meta('1.0'));
    const r = check(repo);
    assert.is(r.code, 1, r.stderr);
    assert.match(r.out.reason, `.venv holds distributions the base's ${lock} do not: evil 1.0 (the base pins 0.9)`);
    assert.match(r.out.reason, `(${install})`);
  });
}

test("a base's uv.lock that is not valid TOML refuses the environment and names the file", () => {
  const { repo } = project(baseFiles('.venv', { 'uv.lock': '[[package]]\nname = "evil\n' }), {
    'src/bill.mjs': FIXED_JS,
  });
  repo.write('.venv/pyvenv.cfg', 'home = /usr/bin\n');
  const r = check(repo);
  assert.is(r.code, 1, r.stderr);
  assert.match(r.out.reason, "the base's uv.lock (");
  assert.match(r.out.reason, 'is not valid TOML');
});

test.run();
