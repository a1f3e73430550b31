// The command line itself: --help everywhere (for every command the top-level
// help lists), usage errors, exit 2 outside a repository, one JSON object even
// for an error.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CLI, PROJECT, sh } from '../helpers/repo.js';

const pw = (args: string[], cwd = process.cwd()) => sh(process.execPath, [CLI, ...args], { cwd });

// The commands the top-level help lists, each as `  NAME  SUMMARY` under `commands:`.
const HELP = pw(['--help']);
const LINES = (HELP.stdout.split('\ncommands:\n')[1]?.split('\n\n')[0] ?? '').split('\n');
const COMMANDS = LINES.flatMap((line) => line.match(/^ {2}([a-z][a-z-]*) {2,}\S/)?.[1] ?? []);

test('the top-level help lists the commands, each apart from its summary', () => {
  assert.is(HELP.code, 0);
  assert.is(COMMANDS.length, LINES.length, `every line reads "  NAME  SUMMARY":\n${LINES.join('\n')}`);
  assert.ok(COMMANDS.length >= 10, COMMANDS.join(' '));
  for (const name of ['init', 'check', 'pre-commit', 'pre-push', 'pre-receive', 'gate'])
    assert.ok(COMMANDS.includes(name), name);
});

test('every listed command answers --help with its usage and exit 0', () => {
  for (const name of COMMANDS) {
    const r = pw([name, '--help']);
    assert.is(r.code, 0, name);
    assert.match(r.stdout, new RegExp(`^usage: patchwarden ${name}`), name);
  }
});

test("every listed command has a row in the README's command table", () => {
  const readme = readFileSync(path.join(PROJECT, 'README.md'), 'utf8');
  const table = readme.split('\n').filter((line) => line.startsWith('| `'));
  for (const name of COMMANDS)
    assert.ok(
      table.some((row) => new RegExp(`\`${name}[\` ]`).test(row.split(' | ')[0])),
      `README.md lists ${name}`,
    );
});

test('a reader that stops early (| head) gets no crash, and the exit code is still the verdict', () => {
  // Far more output than a pipe holds: the writer is still writing when head closes it.
  const dir = mkdtempSync(path.join(tmpdir(), 'pw-epipe-'));
  try {
    const cases = Array.from(
      { length: 20_000 },
      (_, i) => `not ok ${i + 1} - case ${i}\n  ---\n  error: 'bad ${i}'\n  ...\n`,
    );
    writeFileSync(path.join(dir, 'r.tap'), `TAP version 13\n${cases.join('')}1..20000\n`);
    const r = sh(
      'bash',
      ['-c', '"$0" "$1" signatures r.tap | head -1; echo "exit ${PIPESTATUS[0]}"', process.execPath, CLI],
      {
        cwd: dir,
      },
    );
    assert.is(r.stderr, '', r.stderr);
    assert.match(r.stdout, /^signature .*\nexit 0\n$/s);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--version is the package version', () => {
  const { version } = JSON.parse(readFileSync(path.join(PROJECT, 'package.json'), 'utf8'));
  assert.is(pw(['--version']).stdout, `patchwarden ${version}\n`);
});

test('usage errors exit 2 with one line and a pointer to --help', () => {
  const unknown = pw(['frobnicate']);
  assert.is(unknown.code, 2);
  assert.match(unknown.stderr, /unknown command "frobnicate"/);
  const badFlag = pw(['check', '--nope']);
  assert.is(badFlag.code, 2);
  assert.match(badFlag.stderr, /Unknown option '--nope' \(see --help\)/);
  assert.not.match(badFlag.stderr, /\n\s+at /, 'no stack trace');
  const badFormat = pw(['check', '--format', 'xml']);
  assert.is(badFormat.code, 2);
  assert.match(badFormat.stderr, /--format must be text, json or github/);
});

test('outside a repository: exit 2, and JSON output is still one object', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'pw-norepo-'));
  try {
    const r = sh(process.execPath, [CLI, 'check', '--format', 'json'], {
      cwd: dir,
      env: { ...process.env, GIT_CEILING_DIRECTORIES: path.dirname(dir) },
    });
    assert.is(r.code, 2);
    const out = JSON.parse(r.stdout);
    assert.is(out.ok, false);
    assert.match(out.error, /not a git repository/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
