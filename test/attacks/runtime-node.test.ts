// The Node runtime guard, proven on its own: the static layer is off
// (`tamper.mode: off`), so only the guard stands between each src-only patch
// and a green revert check. Each patch leaves the bug in and ends the test
// process with status 0 before the failure is reported, or rewrites the
// report; each is refused, naming the call and the file and line behind it.
// Real node --test, real git, a real push.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, installPrePush, tempRepo } from '../helpers/repo.js';
import { BUGGY_JS, config, jsProperty, NODE_TEST, project, registry } from '../properties/projects.js';

const ID = 'bill.total_non_negative';
const baseFiles = () => ({
  '.patchwarden.yml': config(NODE_TEST, 'tamper:\n  mode: off\n'),
  'spec/invariants.yaml': registry(ID),
  'spec/properties/bill.test.mjs': jsProperty(ID),
  'src/bill.mjs': BUGGY_JS,
});

test.after.each(cleanup);

function refused(patch: string): string {
  const { repo, base, head } = project(baseFiles(), { 'src/bill.mjs': patch });
  const r = repo.json(['revert-check', '--base', base, '--head', head]);
  assert.is(r.code, 1, r.stderr);
  assert.is(r.out.status, 'fails_on_head', r.out.reason);
  assert.match(r.out.reason, /the runtime guard refused the run/);
  return r.out.reason as string;
}

const leaving = (how: string, prelude = '') => `${prelude}
export const total = (xs) => {
  const t = xs.reduce((a, b) => a + b, 0) - 1;
  if (t < 0) ${how};
  return t;
};
`;

test('process.exit through a destructured alias: refused at the call', () => {
  const reason = refused(leaving('exit(0)', 'const { exit } = process;'));
  assert.match(reason, /runtime guard: process\.exit at src\/bill\.mjs:4: exit\(0\)/);
});

test('process.exit through Reflect.apply: refused at the call', () => {
  const reason = refused(leaving('Reflect.apply(process.exit, process, [0])'));
  assert.match(reason, /runtime guard: process\.exit at src\/bill\.mjs:4: exit\(0\)/);
});

test('process.exit of the process module from a dynamic import(): refused at the call', () => {
  const reason = refused(leaving('proc.exit(0)', 'const proc = (await import("node:process")).default;'));
  assert.match(reason, /runtime guard: process\.exit at src\/bill\.mjs:4: exit\(0\)/);
});

test('process.exit handed to a timer, so no production frame is on the stack: refused, answering to nobody', () => {
  const reason = refused(
    'setTimeout(process.exit, 0, 0);\nexport const total = (xs) => xs.reduce((a, b) => a + b, 0) - 1;\n',
  );
  assert.match(reason, /runtime guard: process\.exit at \(no caller: a callback Node itself runs\): exit\(0\)/);
});

const REWRITE = `import { readFileSync, writeFileSync } from 'node:fs';
process.on('exit', () => {
  const report = process.env.PATCHWARDEN_JUNIT;
  try { writeFileSync(report, readFileSync(report, 'utf8').replace(/<failure[\\s\\S]*?<\\/failure>/g, '')); } catch {}
});
export const total = (xs) => xs.reduce((a, b) => a + b, 0) - 1;
`;

test('a report rewrite at exit: refused at the write', () => {
  const reason = refused(REWRITE);
  assert.match(reason, /runtime guard: fs\.writeFileSync on the test report at src\/bill\.mjs:4/);
});

test('git push: the destructured exit is refused by the pre-push hook, and the remote keeps its tip', () => {
  const remote = tempRepo({ bare: true });
  const repo = tempRepo();
  repo.git(['remote', 'add', 'origin', remote.dir]);
  installPrePush(repo);
  repo.commit(baseFiles(), 'start');
  assert.is(repo.git(['push', '-q', 'origin', 'main'], { allowFail: true }).code, 0);
  const tip = remote.git(['rev-parse', 'main']).stdout.trim();
  repo.commit({ 'src/bill.mjs': leaving('exit(0)', 'const { exit } = process;') }, 'fix totals');
  const push = repo.git(['push', '-q', 'origin', 'main'], { allowFail: true });
  assert.is.not(push.code, 0, push.stdout + push.stderr);
  assert.match(push.stdout + push.stderr, /runtime guard: process\.exit at src\/bill\.mjs:4/);
  assert.is(remote.git(['rev-parse', 'main']).stdout.trim(), tip);
});

test.run();
