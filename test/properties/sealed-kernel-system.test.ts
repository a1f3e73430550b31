// What a kernel-sealed worker may have of the system, end to end with real
// pytest through revert-check: a /dev/shm of its own (a fresh tmpfs, so
// multiprocessing's semaphores work while other processes' shared memory
// stays out of reach) and a home folder of its own (`~`, empty and
// writable, inside its temporary root). Honest production code using
// multiprocessing.Pool and Queue, or reading and writing under `~`, is
// proven fixed; the worker still reaches neither the machine's /dev/shm
// segments nor the user's home. Under revert.jobs: 2, inside the fence
// (fence.ts), where no /dev/shm can be mounted, the worker writes its side's
// own, and the machine's segments stay out of reach there too.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { landlockProbe } from '../../src/properties/sealed/confine.js';
import { FENCE } from '../helpers/fence.js';
import { cleanup, PROJECT } from '../helpers/repo.js';
import { pytestMissing, testUnless } from '../helpers/skip.js';
import { BUGGY_PY, config, project, PYTEST, pyProperty, registry } from './projects.js';

const ID = 'bill.total_non_negative';
const abi = landlockProbe(readFileSync(path.join(PROJECT, 'src/properties/sealed/confine.py'), 'utf8')).abi;
const py = testUnless(
  (abi > 0 ? null : 'Landlock is not available on this kernel: kernel sealing cannot run') ?? pytestMissing,
);

test.after.each(cleanup);

const files = {
  '.patchwarden.yml': config(PYTEST, '  sealed: kernel\n'),
  'spec/invariants.yaml': registry(ID),
  'spec/properties/test_bill.py': pyProperty(ID),
  'src/bill.py': BUGGY_PY,
};

function proven(src: string, extra = '') {
  const { repo, base, head } = project(
    { ...files, '.patchwarden.yml': files['.patchwarden.yml'] + extra },
    { 'src/bill.py': src },
  );
  const r = repo.json(['revert-check', '--base', base, '--head', head]);
  assert.is(r.out.sealed, 'kernel', r.stderr);
  if (extra) assert.is(r.out.fence, FENCE ? 'landlock' : 'none', r.stderr);
  assert.is(r.code, 0, `${r.out.reason}\n${r.out.output ?? ''}\n${r.stderr}`);
  assert.is(r.out.status, 'describes_patch');
}

const MULTIPROCESSING = `import multiprocessing


def _one(x):
    return x


def total(xs):
    q = multiprocessing.Queue()
    q.put(len(xs))
    assert q.get() == len(xs)
    with multiprocessing.Pool(2) as pool:
        return sum(pool.map(_one, xs))
`;

py('kernel: an honest fix computing through multiprocessing.Pool and Queue is proven fixed', () => {
  proven(MULTIPROCESSING);
});

py('kernel, revert.jobs: 2: inside the fence the same fix is proven, on its side’s own /dev/shm', () => {
  proven(MULTIPROCESSING, 'revert:\n  jobs: 2\n');
});

py("kernel: the worker's /dev/shm is its own: the machine's segments are out of reach", () => {
  const segment = `/dev/shm/pw-sealed-test-${process.pid}`;
  writeFileSync(segment, 'secret');
  try {
    // Honest only where the segment cannot be seen: a worker that saw it would compute one too many.
    proven(`import os


def total(xs):
    seen = os.path.exists(${JSON.stringify(segment)})
    open("/dev/shm/mine", "w").write("x")
    return sum(xs) + (1 if seen else 0)
`);
  } finally {
    rmSync(segment, { force: true });
  }
});

py("kernel: ~ is an empty home of its own: reading and writing under it work, the user's home is unread", () => {
  const marker = path.join(homedir(), `.pw-sealed-test-${process.pid}`);
  writeFileSync(marker, '1');
  try {
    proven(`import os


def total(xs):
    rc = os.path.expanduser("~/.billrc")
    offset = int(open(rc).read()) if os.path.exists(rc) else 0
    cache = os.path.expanduser("~/.cache/bill")
    os.makedirs(cache, exist_ok=True)
    with open(os.path.join(cache, "last"), "w") as f:
        f.write(repr(xs))
    # The user's own home would add one.
    leaked = os.path.exists(${JSON.stringify(marker)})
    return sum(xs) + offset + (1 if leaked else 0)
`);
  } finally {
    rmSync(marker, { force: true });
  }
});

test.run();
