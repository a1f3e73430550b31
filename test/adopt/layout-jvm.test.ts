// Maven and Gradle keep production code in each module's src/main and the
// suite in src/test: the src zone init writes holds the first and never the
// second, for one module, nested modules, and Gradle's Kotlin build files.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { sourceGlobs } from '../../src/adopt/layout.js';
import { cleanup, tempRepo } from '../helpers/repo.js';

test.after.each(cleanup);

function project(files: string[]): string {
  const root = mkdtempSync(path.join(tmpdir(), 'pw-layout-jvm-'));
  for (const f of files) {
    mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
    writeFileSync(path.join(root, f), '');
  }
  return root;
}

test('a Maven module: src/main, not src/test', () => {
  const root = project(['pom.xml', 'src/main/java/shop/Bill.java', 'src/test/java/shop/BillTest.java']);
  assert.equal(sourceGlobs(root), ['src/main/**']);
});

test('nested Maven modules and a Gradle build: each module src/main; build output and tests left out', () => {
  const maven = project([
    'pom.xml',
    'app/pom.xml',
    'app/src/main/java/App.java',
    'app/src/test/java/AppTest.java',
    'libs/core/pom.xml',
    'libs/core/src/main/kotlin/Core.kt',
    'app/target/classes/src/main/Stale.java',
    'node_modules/x/src/main/index.js',
  ]);
  assert.equal(sourceGlobs(maven)?.sort(), ['app/src/main/**', 'libs/core/src/main/**']);
  const gradle = project([
    'settings.gradle.kts',
    'build.gradle.kts',
    'src/main/kotlin/A.kt',
    'api/src/main/java/B.java',
  ]);
  assert.equal(sourceGlobs(gradle)?.sort(), ['api/src/main/**', 'src/main/**']);
});

test('init in a Maven project writes src/main as production code', () => {
  const repo = tempRepo();
  repo.commit(
    {
      'pom.xml': '<project/>\n',
      'src/main/java/shop/Bill.java': 'package shop;\nclass Bill {}\n',
      'src/test/java/shop/BillTest.java': 'package shop;\nclass BillTest {}\n',
    },
    'start',
  );
  const r = repo.pw(['init', '--yes']);
  assert.is(r.code, 0, r.stderr);
  assert.match(readFileSync(path.join(repo.dir, '.patchwarden.yml'), 'utf8'), /\n {2}src: \[src\/main\/\*\*\]\n/);
  assert.match(r.stdout + r.stderr, /src zone: src\/main\/\*\*: 1 file of production code/);
});

test.run();
