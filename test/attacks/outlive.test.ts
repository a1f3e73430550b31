// Nothing the run started survives it. Production code loaded by the
// property run starts three processes in new sessions (setsid), detached,
// with no output held open, each told to sleep two minutes. After `gate`
// and after `revert-check` returns, none may be alive, under each mechanism
// this host offers (docs/revert-check.md "Nothing outlives the run"). The
// property command runs node without the runtime guard's preload, as a
// runner the guard does not reach would (a Go or Rust test binary), so the
// processes really start. Each writes its PID to a file outside the tree;
// since a PID namespace numbers its own processes, each also carries a token
// of its own on its command line, which /proc shows from outside. The
// process group alone (`group`) is run too: there they survive, which shows
// the check can fail.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup } from '../helpers/repo.js';
import { testUnless } from '../helpers/skip.js';
import { config, jsProperty, project, registry } from '../properties/projects.js';

const ID = 'bill.total_non_negative';
const UNGUARDED =
  'NODE_OPTIONS= node --test --test-reporter=junit --test-reporter-destination={junit} spec/properties/';
const linux = testUnless(process.platform === 'linux' ? null : 'containment is found on Linux only');
const unshareWorks = spawnSync('unshare', ['--pid', '--fork', '--kill-child', '--mount-proc', 'true']).status === 0;
const withPidns = testUnless(
  process.platform !== 'linux'
    ? 'PID namespaces are Linux only'
    : unshareWorks ||
        spawnSync('unshare', [
          '--user',
          '--map-current-user',
          '--pid',
          '--fork',
          '--kill-child',
          '--mount-proc',
          'true',
        ]).status === 0
      ? null
      : 'unshare cannot make a PID namespace here (user namespaces restricted)',
);
const withPython = testUnless(
  process.platform === 'linux' && spawnSync('python3', ['-c', '']).status === 0
    ? null
    : 'python3 on Linux is needed for the subreaper launcher',
);

let out: string;
test.before.each(() => {
  out = mkdtempSync(path.join(tmpdir(), 'pw-outlive-'));
});
test.after.each(() => {
  for (const pid of alive()) process.kill(pid, 'SIGKILL');
  rmSync(out, { recursive: true, force: true });
  cleanup();
});

/** src/bill.mjs with the bug, starting three detached sleepers in new sessions once per process. */
function spawning(token: string, pids: string): string {
  return `import { spawn } from 'node:child_process';
for (let i = 0; i < 3; i++)
  spawn('setsid', ['sh', '-c', 'echo $$ >> "$1"; exec sh -c "sleep 120; exit" "$2"', 'sh', ${JSON.stringify(pids)}, '${token}'], { detached: true, stdio: 'ignore' }).unref();
export const total = (xs) => xs.reduce((a, b) => a + b, 0) - 1;
`;
}

/** PIDs, as this process sees them, of every process whose command line carries this test's token. */
function alive(): number[] {
  const token = path.basename(out);
  const found: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0').includes(token)) found.push(Number(d));
    } catch {
      /* gone meanwhile */
    }
  }
  return found;
}

/** Runs `args` on a project whose production code starts the sleepers; returns the JSON and the PIDs written. */
function attack(args: (base: string, head: string) => string[], contain?: string, env: NodeJS.ProcessEnv = {}) {
  const pids = path.join(out, 'pids');
  const { repo, base, head } = project(
    {
      '.patchwarden.yml': config(UNGUARDED, `suite:\n  command: ${JSON.stringify(UNGUARDED)}\ntamper:\n  mode: off\n`),
      'spec/invariants.yaml': registry(ID),
      'spec/properties/bill.test.mjs': jsProperty(ID),
      'src/bill.mjs': 'export const total = (xs) => xs.reduce((a, b) => a + b, 0) - 1;\n',
    },
    { 'src/bill.mjs': spawning(path.basename(out), pids) },
  );
  const r = repo.json(args(base, head), { env: { ...env, ...(contain && { PATCHWARDEN_CONTAIN: contain }) } });
  const written = readFileSync(pids, 'utf8').trim().split('\n');
  return { r, written };
}

// The gate judges HEAD, which is the patch; revert-check is told it.
const gate = (base: string) => ['gate', '--base', base];
const revert = (base: string, head: string) => ['revert-check', '--base', base, '--head', head];

for (const [name, args] of [
  ['gate', gate],
  ['revert-check', revert],
] as const) {
  withPidns(`${name}: three detached sleepers in new sessions are gone once it returns (pidns)`, () => {
    const { r, written } = attack(args);
    assert.ok(written.length >= 3, `the sleepers did not start: ${written}`);
    assert.is(r.out.contained, 'pidns', r.stderr);
    assert.equal(alive(), [], `alive after ${name}`);
  });

  withPython(`${name}: three detached sleepers in new sessions are gone once it returns (subreaper)`, () => {
    const { r, written } = attack(args, 'subreaper');
    assert.ok(written.length >= 3, `the sleepers did not start: ${written}`);
    assert.is(r.out.contained, 'subreaper', r.stderr);
    // Outside a PID namespace the PIDs written are this host's: each is gone.
    for (const pid of written.map(Number)) assert.not.ok(running(pid), `process ${pid} alive after ${name}`);
    assert.equal(alive(), [], `alive after ${name}`);
  });
}

withPython(
  'where no namespace can be made (unshare refused, as under Docker seccomp or AppArmor), the subreaper holds',
  () => {
    // An unshare that fails as the restricted hosts' does; the probe falls back on its own.
    const bin = path.join(out, 'bin');
    mkdirSync(bin);
    writeFileSync(
      path.join(bin, 'unshare'),
      "#!/bin/sh\necho 'unshare: unshare failed: Operation not permitted' >&2\nexit 1\n",
      { mode: 0o755 },
    );
    const { r, written } = attack(revert, undefined, { PATH: `${bin}:${process.env.PATH}` });
    assert.is(r.out.contained, 'subreaper', r.stderr);
    for (const pid of written.map(Number)) assert.not.ok(running(pid), `process ${pid} alive`);
    assert.equal(alive(), []);
  },
);

linux('the process group alone does not reach another session, and says so', () => {
  const { r, written } = attack(revert, 'group');
  assert.is(r.out.contained, 'group', r.stderr);
  assert.ok(written.map(Number).every(running), 'a process group kill reached another session');
  assert.is(alive().length, written.length);
});

linux('gate.require: [contained] refuses the process group alone, naming the rule and the config', () => {
  const { r } = attack((base) => [...gate(base), '--require', 'contained'], 'group');
  assert.is(r.code, 1, r.stderr);
  const row = r.out.layers.find((l: { layer: string }) => l.layer === 'contained');
  assert.is(row.status, 'refused');
  assert.match(
    row.violations[0].message,
    /gate\.require names contained, but the test commands ran contained by group only/,
  );
  assert.match(row.violations[0].paths[0], /^[0-9a-f]{40}:\.patchwarden\.yml$/);
});

function running(pid: number): boolean {
  try {
    // A zombie is gone but for its parent's reading of it.
    return !/^\S+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

test.run();
