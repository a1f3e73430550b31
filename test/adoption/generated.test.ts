// No generated junk committed: in a Python project, installing patchwarden
// makes a package.json and node_modules/; init ignores the latter, and
// pre-commit refuses it staged, with a fix that works as printed.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Project, removeProjects } from './project.js';

test.after.each(removeProjects);

const PYTHON = {
  '.gitignore': '__pycache__/\n',
  'pyproject.toml': '[project]\nname = "slugify"\n',
  'slugify/__init__.py': '',
  'slugify/slug.py': 'def slug(s):\n    return s\n',
};

test("init adds node_modules/ to .gitignore, so the README's git add -A commits none of it", () => {
  const p = new Project(PYTHON);
  p.npmInstall();
  const init = p.pw('init', '--yes');
  assert.is(init.code, 0, init.stderr);
  assert.match(init.stdout, 'patchwarden: .gitignore: added node_modules/');
  assert.is(readFileSync(path.join(p.dir, '.gitignore'), 'utf8'), '__pycache__/\nnode_modules/\n');
  p.ok('git', ['add', '-A']);
  p.ok('git', ['commit', '-q', '-m', 'patchwarden']);
  assert.is(p.ok('git', ['ls-files', 'node_modules']).stdout, '');
  // Run again (as "prepare" does on every install), it adds nothing.
  p.ok(path.join(p.dir, 'node_modules/.bin/patchwarden'), ['init', '--yes']);
  assert.is(readFileSync(path.join(p.dir, '.gitignore'), 'utf8'), '__pycache__/\nnode_modules/\n');
});

test('pre-commit refuses a staged node_modules/, and its fix works as printed', () => {
  const p = new Project(PYTHON);
  p.npmInstall();
  p.ok(path.join(p.dir, 'node_modules/.bin/patchwarden'), ['init', '--yes']);
  writeFileSync(path.join(p.dir, '.gitignore'), '__pycache__/\n'); // as it was before init
  p.ok('git', ['add', '-A']);
  const r = p.run('git', ['commit', '-q', '-m', 'patchwarden']);
  assert.is(r.code, 1);
  const said = r.stdout + r.stderr;
  assert.match(
    said,
    /refused \[node_modules\] \d+ files of node_modules are staged: npm's install folder is generated/,
  );
  const fix = /git rm -r -q --cached -- node_modules && .*/.exec(said)?.[0];
  assert.ok(fix, said);
  p.ok('sh', ['-c', fix!]);
  p.ok('git', ['commit', '-q', '-m', 'patchwarden']);
  assert.is(p.ok('git', ['ls-files', 'node_modules']).stdout, '');
  assert.match(p.ok('git', ['show', 'HEAD:.gitignore']).stdout, /^node_modules\/$/m);
});

test.run();
