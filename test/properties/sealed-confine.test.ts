// The sealed worker's kernel confinement (properties/sealed/confine.py and
// confine.ts), with real confined processes: the worker writes only in its
// own temporary root, reads nothing of the judge's install even inside a
// granted node_modules, opens no TCP connection (ABI 4) and signals no
// process outside its domain (ABI 6), while honest Python and Node programs
// run as they would unconfined.
import { spawn, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { carve, confinePrefix, landlockProbe } from '../../src/properties/sealed/confine.js';
import { PROJECT } from '../helpers/repo.js';
import { testUnless } from '../helpers/skip.js';

const SOURCE = readFileSync(path.join(PROJECT, 'src/properties/sealed/confine.py'), 'utf8');
const probe = landlockProbe(SOURCE);
const landlock = testUnless(
  probe.abi > 0 ? null : 'Landlock is not available on this kernel (or python3 is missing): kernel sealing cannot run',
);
const abi4 = testUnless(probe.abi >= 4 ? null : `Landlock ABI ${probe.abi} handles no TCP (ABI 4 does)`);
const abi6 = testUnless(probe.abi >= 6 ? null : `Landlock ABI ${probe.abi} scopes no signals (ABI 6 does)`);

interface Place {
  root: string;
  tree: string;
  tmp: string;
  runtime: string;
  /** A granted dependency folder holding a judge-like install beside an ordinary package. */
  modules: string;
  judge: string;
  outside: string;
}

let place: Place;

test.before.each(() => {
  const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'pw-confine-')));
  const p = (...s: string[]) => path.join(root, ...s);
  for (const d of ['tree/src', 'tmp', 'runtime', 'outside', 'modules/left-pad', 'modules/patchwarden/dist'])
    mkdirSync(p(d), { recursive: true });
  copyFileSync(path.join(PROJECT, 'src/properties/sealed/confine.py'), p('runtime/confine.py'));
  writeFileSync(p('tree/src/data.txt'), 'tree data\n');
  writeFileSync(p('modules/left-pad/index.js'), 'module.exports = (s) => s;\n');
  writeFileSync(p('modules/patchwarden/dist/main.js'), '// the judge\n');
  mkdirSync(p('modules/.bin'));
  symlinkSync('../patchwarden/dist/main.js', p('modules/.bin/patchwarden'));
  writeFileSync(p('outside/secret.txt'), 'not for the worker\n');
  place = {
    root,
    tree: p('tree'),
    tmp: p('tmp'),
    runtime: p('runtime'),
    modules: p('modules'),
    judge: p('modules/patchwarden/dist'),
    outside: p('outside'),
  };
});

test.after.each(() => rmSync(place.root, { recursive: true, force: true }));

function prefix(): string[] {
  return confinePrefix(
    {
      tree: place.tree,
      linked: [place.modules],
      runtime: place.runtime,
      tmp: place.tmp,
      deny: [place.judge],
      pathVar: process.env.PATH ?? '',
      pythonPath: [],
      fenced: false,
    },
    probe.python!,
  );
}

/** A Python program run confined, in the tree, with TMPDIR the worker's root; its stdout lines. */
function confinedPython(code: string, args: string[] = []) {
  const python = spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).stdout.trim();
  const r = spawnSync(prefix()[0], [...prefix().slice(1), python, '-c', code, ...args], {
    cwd: place.tree,
    encoding: 'utf8',
    env: { ...process.env, TMPDIR: place.tmp },
  });
  return { code: r.status, out: r.stdout.trim().split('\n'), err: r.stderr };
}

const TRY = String.raw`
import sys
def attempt(what, f):
    try:
        f()
        print(what, "ok")
    except OSError as e:
        print(what, e.__class__.__name__, e.errno)
`;

landlock('--probe prints the ABI; a bad argument and a missing command exit 125 with a reason', () => {
  const r = spawnSync(probe.python!, ['-I', '-S', path.join(place.runtime, 'confine.py'), '--probe'], {
    encoding: 'utf8',
  });
  assert.is(r.status, 0);
  assert.is(Number(r.stdout.trim()), probe.abi);
  const bad = spawnSync(
    probe.python!,
    ['-I', '-S', path.join(place.runtime, 'confine.py'), '--rx', '/', '--', 'true'],
    {
      encoding: 'utf8',
    },
  );
  assert.is(bad.status, 125);
  assert.match(bad.stderr, /patchwarden confine: unknown argument '--rx'/);
  const none = spawnSync(probe.python!, ['-I', '-S', path.join(place.runtime, 'confine.py'), '--rw', place.tmp, '--'], {
    encoding: 'utf8',
  });
  assert.is(none.status, 125);
  assert.match(none.stderr, /no command after --/);
});

landlock('writes land in the temporary root only; the tree and everything else are read-only or unreachable', () => {
  const r = confinedPython(
    `${TRY}
attempt("tmp", lambda: open(sys.argv[1] + "/w.txt", "w").write("x"))
attempt("tree-read", lambda: open("src/data.txt").read())
attempt("tree-write", lambda: open("src/data.txt", "a").write("x"))
attempt("tree-new", lambda: open("src/new.txt", "w").write("x"))
attempt("outside-read", lambda: open(sys.argv[2] + "/secret.txt").read())
attempt("outside-write", lambda: open(sys.argv[2] + "/w.txt", "w").write("x"))
attempt("devnull", lambda: open("/dev/null", "w").write("x"))
`,
    [place.tmp, place.outside],
  );
  assert.is(r.code, 0, r.err);
  assert.equal(r.out, [
    'tmp ok',
    'tree-read ok',
    'tree-write PermissionError 13',
    'tree-new PermissionError 13',
    'outside-read PermissionError 13',
    'outside-write PermissionError 13',
    'devnull ok',
  ]);
  assert.ok(existsSync(path.join(place.tmp, 'w.txt')));
  assert.not.ok(existsSync(path.join(place.outside, 'w.txt')));
});

landlock("the judge's install is out of reach inside a granted node_modules, by path and through a link", () => {
  const r = confinedPython(
    `${TRY}
attempt("package", lambda: open(sys.argv[1] + "/left-pad/index.js").read())
attempt("judge", lambda: open(sys.argv[1] + "/patchwarden/dist/main.js").read())
attempt("judge-link", lambda: open(sys.argv[1] + "/.bin/patchwarden").read())
attempt("judge-list", lambda: __import__("os").listdir(sys.argv[1] + "/patchwarden/dist"))
`,
    [place.modules],
  );
  assert.is(r.code, 0, r.err);
  assert.equal(r.out, [
    'package ok',
    'judge PermissionError 13',
    'judge-link PermissionError 13',
    'judge-list PermissionError 13',
  ]);
  // The folder holding the judge is granted entry by entry: the judge's own is left out.
  const granted = carve(place.modules, [place.judge]);
  assert.ok(granted.includes(path.join(place.modules, 'left-pad')));
  assert.not.ok(granted.some((g) => g === place.modules || place.judge.startsWith(`${g}/`) || g === place.judge));
});

abi4('no TCP connection leaves the worker (Landlock ABI 4)', async () => {
  const server = createServer((s) => s.end('hello\n'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  try {
    const code = `${TRY}
import socket
attempt("connect", lambda: socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5))
attempt("bind", lambda: socket.socket().bind(("127.0.0.1", 0)))
`;
    const r = await confinedAsync(code, [String(port)]);
    assert.equal(r, ['connect PermissionError 13', 'bind PermissionError 13']);
  } finally {
    server.close();
  }
});

abi6('no signal reaches a process outside the worker, while its own children are its to end (ABI 6)', () => {
  const outside = spawn('sleep', ['30'], { stdio: 'ignore' });
  try {
    const r = confinedPython(
      `${TRY}
import os, signal, subprocess
attempt("outside", lambda: os.kill(int(sys.argv[1]), signal.SIGKILL))
child = subprocess.Popen(["sleep", "30"])
attempt("own-child", lambda: os.kill(child.pid, signal.SIGKILL))
print("child", child.wait())
`,
      [String(outside.pid)],
    );
    assert.is(r.code, 0, r.err);
    assert.equal(r.out, ['outside PermissionError 1', 'own-child ok', 'child -9']);
    assert.is(outside.exitCode, null, 'the outside process still runs');
  } finally {
    outside.kill('SIGKILL');
  }
});

landlock('an honest Python program runs confined: imports, temp files, threads, logging, a subprocess', () => {
  const r = confinedPython(String.raw`
import json, logging, subprocess, tempfile, threading, decimal, sqlite3
with tempfile.NamedTemporaryFile("w+", delete=False) as f:
    f.write("kept")
out = []
t = threading.Thread(target=lambda: out.append(sum(range(10))))
t.start(); t.join()
logging.basicConfig(level=logging.INFO)
logging.info("logged")
db = sqlite3.connect(":memory:")
print(json.dumps({"tmp": f.name.startswith(tempfile.gettempdir()), "thread": out[0],
    "sub": subprocess.run(["sh", "-c", "echo sub"], capture_output=True, text=True).stdout.strip(),
    "dec": str(decimal.Decimal("1.10") + 1), "db": db.execute("select 2").fetchone()[0]}))
`);
  assert.is(r.code, 0, r.err);
  assert.equal(JSON.parse(r.out.at(-1)!), { tmp: true, thread: 45, sub: 'sub', dec: '2.10', db: 2 });
  assert.match(r.err, /INFO:root:logged/);
});

landlock('an honest Node program runs confined: requires from the linked folder, temp files, a child process', () => {
  const program = path.join(place.tree, 'src', 'main.cjs');
  writeFileSync(
    program,
    `const fs = require('node:fs'); const os = require('node:os'); const path = require('node:path');
const pad = require(process.argv[2] + '/left-pad/index.js');
const f = path.join(os.tmpdir(), 'n.txt'); fs.writeFileSync(f, 'node');
const sub = require('node:child_process').execFileSync('sh', ['-c', 'echo sub'], { encoding: 'utf8' }).trim();
console.log(JSON.stringify({ pad: pad('x'), tmp: fs.readFileSync(f, 'utf8'), sub, data: fs.readFileSync('src/data.txt', 'utf8') }));`,
  );
  const p = prefix();
  const r = spawnSync(p[0], [...p.slice(1), process.execPath, program, place.modules], {
    cwd: place.tree,
    encoding: 'utf8',
    env: { ...process.env, TMPDIR: place.tmp, NODE_OPTIONS: '' },
  });
  assert.is(r.status, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout), { pad: 'x', tmp: 'node', sub: 'sub', data: 'tree data\n' });
});

/** confinedPython without blocking the event loop (the test's own server answers meanwhile). */
function confinedAsync(code: string, args: string[]): Promise<string[]> {
  const python = spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).stdout.trim();
  const p = prefix();
  const child = spawn(p[0], [...p.slice(1), python, '-c', code, ...args], {
    cwd: place.tree,
    env: { ...process.env, TMPDIR: place.tmp },
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  child.stderr.on('data', (d) => {
    err += d;
  });
  return new Promise((resolve, reject) =>
    child.on('close', (c) => (c === 0 ? resolve(out.trim().split('\n')) : reject(new Error(`exit ${c}: ${err}`)))),
  );
}

const SHM = `
import multiprocessing, os, sys
def queue():
    q = multiprocessing.Queue()
    q.put(1)
    assert q.get() == 1
attempt("queue", queue)
print("shm", sorted(os.listdir("/dev/shm")) if os.access("/dev/shm", os.R_OK) else "unreadable")
print("caps", open("/proc/self/status").read().split("CapEff:")[1].split()[0])
`;

landlock(
  "/dev/shm is a fresh one of the worker's own, with no capability left; without user namespaces, none, and stderr says why",
  () => {
    const segment = `/dev/shm/pw-confine-test-${process.pid}`;
    writeFileSync(segment, "another process's segment");
    try {
      const r = confinedPython(`${TRY}${SHM}`);
      assert.is(r.code, 0, r.err);
      assert.equal(r.out, ['queue ok', 'shm []', 'caps 0000000000000000']);
      // A user namespace whose limit is 0 refuses the worker's own: no /dev/shm, and the reason on stderr.
      const python = spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], {
        encoding: 'utf8',
      }).stdout.trim();
      const script = 'echo 0 > /proc/sys/user/max_user_namespaces && exec "$@"';
      const none = spawnSync(
        'unshare',
        ['-U', '-r', 'sh', '-c', script, 'sh', ...prefix(), python, '-c', `${TRY}${SHM}`],
        {
          cwd: place.tree,
          encoding: 'utf8',
        },
      );
      if (none.error || /unshare:/.test(none.stderr)) return; // no user namespaces to nest here: the first half stands
      assert.is(none.stdout.trim().split('\n')[0], 'queue PermissionError 13', none.stderr);
      assert.match(
        none.stderr,
        /patchwarden confine: no \/dev\/shm of its own \(user namespaces are not allowed here: [^)]+\), so POSIX semaphores and shared memory \(multiprocessing locks, queues, pools\) fail in the worker; run such properties with properties\.sealed: process/,
      );
    } finally {
      rmSync(segment, { force: true });
    }
  },
);

test.run();
