// The Go, Java and PHP examples of docs/revert-check.md ("How each runner
// names an invariant"), read from the doc itself and run as printed: each
// builds a real project (a base whose total goes negative for an empty bill,
// an agent's fix), and the real gate, through the real runner, proves the fix
// `fixed` for the invariant the example names; init writes the Java
// example's command for a project with its pom. (The Rust example is run by
// revert-rust.test.ts.)
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { site } from '../attacks/range-site.js';
import { ownerKey } from '../helpers/owner.js';
import { cleanup, PROJECT, tempRepo } from '../helpers/repo.js';
import { ciInstalls, type Missing, missingUnless, testUnless } from '../helpers/skip.js';
import { AGENT, commitBy, gate } from './evidence-site.js';
import { GO_MOD, GOTESTSUM_MISSING } from './go-module.js';

const ID = 'bill.total_non_negative';

/** The doc's text from the paragraph starting `from` up to `to`. */
function section(from: string, to: string): string {
  const doc = readFileSync(path.join(PROJECT, 'docs/revert-check.md'), 'utf8');
  const start = doc.indexOf(from);
  const end = doc.indexOf(to, start);
  assert.ok(start >= 0 && end > start, `docs/revert-check.md has no section from "${from}" to "${to}"`);
  return doc.slice(start, end);
}

/** Each fenced block of `lang` in `text`, in order. */
const blocks = (text: string, lang: string) =>
  [...text.matchAll(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((m) => m[1]);

/** A code block as a file: its path from the comment that opens it (on the line after `<?php` for PHP). */
function file(block: string): Record<string, string> {
  const named = /^(?:<\?php\n)?(?:\/\/|<!--) ([\w./-]+)/.exec(block);
  assert.ok(named, `a doc example names no file: ${block.slice(0, 80)}`);
  return { [named[1]]: block };
}

/** The example's `properties:` block, as the config's. */
function config(text: string): string {
  const [yaml] = blocks(text, 'yaml');
  return `version: 1\nzones:\n  spec: [spec/**]\n  src: ["src/**", "bill/**"]\n${yaml}  invariants: spec/invariants.yaml\n`;
}

const REGISTRY = `version: 1\ninvariants:\n  - id: ${ID}\n    description: a total is never negative\n`;

/** Builds the site from the example's files, has the agent fix `src`, and asserts the gate proves the fix. */
function proves(cfg: string, files: Record<string, string>, src: string, fixed: string): void {
  const { work } = site(cfg, { 'spec/invariants.yaml': REGISTRY, ...files });
  work.git(['switch', '-q', '-c', 'fix', 'origin/main']);
  commitBy(work, AGENT, { [src]: fixed }, 'total: an empty bill is 0');
  const g = gate(work);
  const revert = g.layers.revert.details;
  assert.is(revert.status, 'describes_patch', `${JSON.stringify(g.layers.revert)}\n${g.stderr}`);
  assert.equal(revert.failing_on_revert, [ID]);
  assert.is(g.code, 0, JSON.stringify(g.out.layers));
}

test.after.each(cleanup);

testUnless(GOTESTSUM_MISSING && ciInstalls(GOTESTSUM_MISSING))(
  'go: the gotestsum example of revert-check.md, as printed, proves a fix through the gate',
  () => {
    const text = section('Go, with gotestsum:', 'Rust, with libtest');
    const total = (empty: string) =>
      `package bill\n\n// Total sums the items.\nfunc Total(xs []int) int {\n\tif len(xs) == 0 {\n\t\treturn ${empty}\n\t}\n\ts := 0\n\tfor _, x := range xs {\n\t\ts += x\n\t}\n\treturn s\n}\n`;
    const files = { 'go.mod': GO_MOD, 'bill/bill.go': total('-1'), ...file(blocks(text, 'go')[0]) };
    proves(config(text), files, 'bill/bill.go', total('0'));
  },
);

/** What the example needs here: mvn, and the plugins its pom pins and JUnit 5 in ~/.m2 (the run is offline). */
function mavenMissing(): Missing | null {
  const mvn = missingUnless('mvn', ['-v'], 'mvn is not installed');
  if (mvn) return mvn;
  const repo = path.join(process.env.HOME ?? '', '.m2/repository');
  const needs = [
    'org/apache/maven/plugins/maven-surefire-plugin/3.2.5',
    'org/apache/maven/plugins/maven-compiler-plugin/3.13.0',
    'org/apache/maven/plugins/maven-resources-plugin/3.3.1',
    'org/junit/jupiter/junit-jupiter/5.10.2',
  ];
  const missing = needs.find((n) => !existsSync(path.join(repo, n)));
  return missing ? `${missing} is not in the local Maven repository (the test runs offline)` : null;
}

testUnless(mavenMissing())(
  'java: the Surefire example of revert-check.md, as printed, proves a fix through the gate (mvn offline)',
  () => {
    const text = section('Java, JUnit 5 under Maven Surefire', 'PHP, PHPUnit');
    const bill = (empty: string) =>
      `package shop;\n\npublic class Bill {\n  public static int total(int... xs) {\n    if (xs.length == 0) return ${empty};\n    int s = 0;\n    for (int x : xs) s += x;\n    return s;\n  }\n}\n`;
    const files = {
      ...file(blocks(text, 'xml')[0]),
      ...file(blocks(text, 'java')[0]),
      // Offline, so that a run never reaches for the network: the command stays as printed.
      '.mvn/maven.config': '-o\n',
      '.gitignore': 'target/\n',
      'src/main/java/shop/Bill.java': bill('-1'),
    };
    proves(config(text), files, 'src/main/java/shop/Bill.java', bill('0'));
  },
);

testUnless(mavenMissing())(
  "java: init in a project with the doc's pom writes the doc's command, and as written it proves a fix",
  () => {
    const text = section('Java, JUnit 5 under Maven Surefire', 'PHP, PHPUnit');
    const command = /\n {2}command: (.*)\n/.exec(blocks(text, 'yaml')[0])?.[1];
    const bill = (empty: string) =>
      `package shop;\n\npublic class Bill {\n  public static int total(int... xs) {\n    if (xs.length == 0) return ${empty};\n    int s = 0;\n    for (int x : xs) s += x;\n    return s;\n  }\n}\n`;
    const pom = blocks(text, 'xml')[0];
    const files = {
      ...file(pom),
      ...file(blocks(text, 'java')[0]),
      'spec/invariants.yaml': REGISTRY,
      '.mvn/maven.config': '-o\n',
      '.gitignore': 'target/\n',
      'src/main/java/shop/Bill.java': bill('-1'),
      // The project's own suite, which the property command leaves out.
      'src/test/java/shop/BillUnitTest.java':
        'package shop;\n\nimport org.junit.jupiter.api.Test;\n\nclass BillUnitTest {\n  @Test\n  void fails() {\n    throw new AssertionError("not a property");\n  }\n}\n',
    };
    const repo = tempRepo();
    repo.commit(files, 'start');
    assert.is(repo.pw(['init', '--yes', '--owner-key', ownerKey()]).code, 0);
    const cfg = readFileSync(path.join(repo.dir, '.patchwarden.yml'), 'utf8');
    assert.ok(command && cfg.includes(`\n  command: ${command}\n`), cfg);
    assert.match(cfg, /\n {2}src: \[src\/main\/\*\*\]\n/);
    // jobs: 2 on 2 cores: the check runs the sides at once only where the kernel fences each.
    assert.match(cfg, availableParallelism() > 1 ? /\n {2}jobs: 2\n/ : /^(?![\s\S]*\n {2}jobs:)/);
    repo.git(['add', '-A']);
    repo.git(['commit', '-q', '--no-verify', '-m', 'patchwarden']);
    repo.commit({ 'src/main/java/shop/Bill.java': bill('0') }, 'total: an empty bill is 0');
    const r = repo.json(['revert-check', '--base', 'HEAD~1']);
    assert.is(r.out.status, 'describes_patch', `${r.out.reason}\n${r.stderr}`);
    assert.equal(r.out.failing_on_revert, [ID]);
    // A pom whose test folder is not the property: the command stays a comment naming what the pom needs.
    const plain = tempRepo();
    plain.commit({ ...files, 'pom.xml': pom.replace('${tests}', 'src/test/java') }, 'start');
    assert.is(plain.pw(['init', '--yes', '--owner-key', ownerKey()]).code, 0);
    const plainCfg = readFileSync(path.join(plain.dir, '.patchwarden.yml'), 'utf8');
    assert.ok(plainCfg.includes(`\n  # command: ${command}\n`), plainCfg);
    assert.match(plainCfg, '(pom.xml: <testSourceDirectory>${tests}</testSourceDirectory> in <build>');
  },
);

testUnless(missingUnless('phpunit', ['--version'], ciInstalls('phpunit is not installed (Debian: phpunit)')))(
  'php: the PHPUnit example of revert-check.md, as printed, proves a fix through the gate',
  () => {
    const text = section('PHP, PHPUnit', '### Parent cases');
    const bill = (empty: string) =>
      `<?php\n\nfunction total(array $xs): int\n{\n    return $xs === [] ? ${empty} : array_sum($xs);\n}\n`;
    const files = { ...file(blocks(text, 'php')[0]), 'src/Bill.php': bill('-1') };
    proves(config(text), files, 'src/Bill.php', bill('0'));
  },
);

test.run();
