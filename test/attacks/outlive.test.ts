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
// the check can fail. Under `cgroup`, the v1 hierarchies (freezer, then
// pids) are run too, by hiding the unified one (and the freezer) in a mount
// namespace of the test's own, as a host with cgroup v1 only shows them.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cgroupBase } from '../../src/runner/cgroup.js';
import { CLI, cleanup, sh } from '../helpers/repo.js';
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

const cgroup = process.platform === 'linux' ? cgroupBase() : null;
const withCgroup = testUnless(
  cgroup ? null : 'no cgroup this process may make a child of (needs root or a delegated one)',
);
const v1 = (kind: 'freezer' | 'pids') =>
  testUnless(
    !cgroup
      ? 'no cgroup this process may make a child of'
      : spawnSync('unshare', ['--mount', 'true']).status !== 0
        ? 'no mount namespace to hide the other cgroup hierarchies in'
        : spawnSync('test', ['-d', `/sys/fs/cgroup/${kind}`]).status !== 0
          ? `no v1 ${kind} hierarchy here`
          : null,
  );
/** The cgroup mounts to hide so that the v1 `kind` is the one found. */
const hideFor = (kind: 'freezer' | 'pids') =>
  [
    '/sys/fs/cgroup/unified',
    ...(kind === 'pids' ? ['/sys/fs/cgroup/freezer'] : []),
    ...(cgroup?.kind === 'v2' && !cgroup.dir.startsWith('/sys/fs/cgroup/unified') ? ['/sys/fs/cgroup'] : []),
  ].filter((m) => spawnSync('mountpoint', ['-q', m]).status === 0);

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
function spawning(token: string, pids: string, program = 'sh -c "sleep 120; exit"'): string {
  return `import { spawn } from 'node:child_process';
for (let i = 0; i < 3; i++)
  spawn('setsid', ['sh', '-c', ${JSON.stringify(`echo $$ >> "$1"; exec ${program} "$2"`)}, 'sh', ${JSON.stringify(pids)}, '${token}'], { detached: true, stdio: 'ignore' }).unref();
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

/** Runs `args` on a project whose production code starts the sleepers; returns the JSON and the PIDs written. `hide`: cgroup mounts unmounted in a mount namespace of the run's own first. */
function attack(
  args: (base: string, head: string) => string[],
  contain?: string,
  env: NodeJS.ProcessEnv = {},
  hide: string[] = [],
) {
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
  const runEnv = { ...env, ...(contain && { PATCHWARDEN_CONTAIN: contain }) };
  const r = hide.length
    ? hidden(hide, repo.dir, [...args(base, head), '--format', 'json'], { ...repo.env, ...runEnv })
    : repo.json(args(base, head), { env: runEnv });
  const written = readFileSync(pids, 'utf8').trim().split('\n');
  return { r, written };
}

const UNSHARE = sh('sh', ['-c', 'command -v unshare']).stdout.trim() || 'unshare';

/** The CLI run where the cgroup mounts `hide` are unmounted (a private mount namespace), parsed as --format json. */
function hidden(hide: string[], cwd: string, args: string[], env: NodeJS.ProcessEnv) {
  const umounts = hide.map((m) => `umount ${m} || exit 99; `).join('');
  const r = sh(
    UNSHARE,
    ['--mount', '--propagation', 'private', 'sh', '-c', `${umounts}exec "$@"`, 'sh', process.execPath, CLI, ...args],
    { cwd, env },
  );
  try {
    return { code: r.code, out: JSON.parse(r.stdout), stderr: r.stderr };
  } catch {
    throw new Error(`not JSON (exit ${r.code}): ${r.stdout}\n${r.stderr}`);
  }
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

  withCgroup(
    `${name}: three detached sleepers in new sessions are gone once it returns (cgroup, ${cgroup?.kind})`,
    () => {
      const { r, written } = attack(args, 'cgroup');
      assert.ok(written.length >= 3, `the sleepers did not start: ${written}`);
      assert.is(r.out.contained, 'cgroup', r.stderr);
      for (const pid of written.map(Number)) assert.not.ok(running(pid), `process ${pid} alive after ${name}`);
      assert.equal(alive(), [], `alive after ${name}`);
      assert.equal(leftCgroups(), [], 'the run left its cgroup behind');
    },
  );

  for (const kind of ['freezer', 'pids'] as const)
    v1(kind)(`${name}: three detached sleepers in new sessions are gone once it returns (cgroup v1 ${kind})`, () => {
      const { r, written } = attack(args, 'cgroup', {}, hideFor(kind));
      assert.ok(written.length >= 3, `the sleepers did not start: ${written}`);
      assert.is(r.out.contained, 'cgroup', r.stderr);
      for (const pid of written.map(Number)) assert.not.ok(running(pid), `process ${pid} alive after ${name}`);
      assert.equal(alive(), [], `alive after ${name}`);
      assert.equal(leftCgroups(), [], 'the run left its cgroup behind');
    });
}

/** Cgroups named as patchwarden names its runs', left in any hierarchy. */
function leftCgroups(): string[] {
  const r = sh('sh', ['-c', 'find /sys/fs/cgroup -maxdepth 6 -type d -name "patchwarden-*" 2>/dev/null']);
  return r.stdout.split('\n').filter(Boolean);
}

/** A PATH whose unshare fails as the restricted hosts' does (Docker's seccomp, AppArmor); the probe falls back on its own. */
function unshareRefused(): NodeJS.ProcessEnv {
  const bin = path.join(out, 'bin');
  mkdirSync(bin);
  writeFileSync(
    path.join(bin, 'unshare'),
    "#!/bin/sh\necho 'unshare: unshare failed: Operation not permitted' >&2\nexit 1\n",
    { mode: 0o755 },
  );
  return { PATH: `${bin}:${process.env.PATH}` };
}

withCgroup(
  'where no namespace can be made (unshare refused, as under Docker seccomp or AppArmor), a cgroup holds',
  () => {
    const { r, written } = attack(revert, undefined, unshareRefused());
    assert.is(r.out.contained, 'cgroup', r.stderr);
    for (const pid of written.map(Number)) assert.not.ok(running(pid), `process ${pid} alive`);
    assert.equal(alive(), []);
  },
);

withPython('where neither a namespace nor a cgroup can be made, the subreaper holds', () => {
  // Where this host has a cgroup to make, it is hidden: every cgroup mount is taken away in a mount namespace.
  const { r, written } = attack(revert, undefined, unshareRefused(), cgroup ? ['-R /sys/fs/cgroup'] : []);
  assert.is(r.out.contained, 'subreaper', r.stderr);
  for (const pid of written.map(Number)) assert.not.ok(running(pid), `process ${pid} alive`);
  assert.equal(alive(), []);
});

// A set-uid program that makes itself root through and through: a run as another user may not kill it.
const SETUID_SLEEP =
  '#include <unistd.h>\nint main(void) { if (setuid(0) || setgid(0)) return 1; sleep(120); return 0; }\n';
const asNobody = testUnless(
  process.getuid?.() !== 0
    ? 'needs root, to hand a cgroup to another user and make a set-uid program'
    : !cgroup
      ? 'no cgroup here'
      : ['cc', 'setpriv'].find((t) => spawnSync('sh', ['-c', `command -v ${t}`]).status !== 0)
        ? 'needs cc and setpriv'
        : spawnSync('test', ['-d', '/sys/fs/cgroup/freezer']).status !== 0
          ? 'no v1 freezer hierarchy here'
          : null,
);

asNobody('a process the cgroup cannot end (set-uid root, the run as another user) is named, and the run fails', () => {
  // The run as uid 65534 in a freezer cgroup delegated to it; the v2 root is not its to write, so the v1 freezer is found.
  const delegated = path.join('/sys/fs/cgroup/freezer', `pw-delegated-${path.basename(out)}`);
  mkdirSync(delegated);
  try {
    const bin = path.join(out, 'setuid-sleep');
    writeFileSync(`${bin}.c`, SETUID_SLEEP);
    assert.is(spawnSync('cc', ['-o', bin, `${bin}.c`]).status, 0, 'cc');
    spawnSync('chmod', ['4755', bin]);
    const pids = path.join(out, 'pids');
    const { repo, base, head } = project(
      {
        '.patchwarden.yml': config(UNGUARDED, 'tamper:\n  mode: off\n'),
        'spec/invariants.yaml': registry(ID),
        'spec/properties/bill.test.mjs': jsProperty(ID),
        'src/bill.mjs': 'export const total = (xs) => xs.reduce((a, b) => a + b, 0) - 1;\n',
      },
      { 'src/bill.mjs': spawning(path.basename(out), pids, bin) },
    );
    mkdirSync(path.join(out, 'home'));
    for (const d of [repo.dir, path.join(out, 'home'), delegated])
      assert.is(spawnSync('chown', ['-R', '65534:65534', d]).status, 0);
    spawnSync('chmod', ['755', out]);
    writeFileSync(pids, '');
    spawnSync('chown', ['65534:65534', pids]);
    const r = sh(
      'sh',
      [
        '-c',
        'echo $$ > "$1/cgroup.procs" && shift && exec setpriv --reuid=65534 --regid=65534 --clear-groups "$@"',
        'sh',
        delegated,
        process.execPath,
        CLI,
        ...revert(base, head),
      ],
      { cwd: repo.dir, env: { ...repo.env, HOME: path.join(out, 'home'), PATCHWARDEN_CONTAIN: 'cgroup' } },
    );
    const written = readFileSync(pids, 'utf8').trim().split('\n').filter(Boolean);
    assert.ok(written.length >= 3, `the set-uid sleepers did not start: ${r.stdout}${r.stderr}`);
    assert.is(r.code, 2, r.stdout + r.stderr);
    assert.match(r.stderr, 'processes the test command started outlived it and could not be ended');
    for (const pid of written) assert.match(r.stderr, new RegExp(`\\b${pid}\\b`), `process ${pid} is not named`);
  } finally {
    for (const pid of alive()) process.kill(pid, 'SIGKILL');
    spawnSync('sh', ['-c', 'sleep 0.2; find "$1" -depth -type d -exec rmdir {} \\;', 'sh', delegated]);
  }
});

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
