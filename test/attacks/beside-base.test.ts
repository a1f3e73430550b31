// Under revert.jobs: 2 head's code runs while the base runs, as the same
// user. The fence keeps it out of the base's files, not its ports: here the
// base's property checks that a service it starts hears only its own client,
// and head's production code, which changes nothing the property asks about,
// talks to the base's service so that the base fails. The base's failures run
// again on the base alone once head's run ended, so the case is judged on
// what the base does alone: it holds, and a patch that owes a fixed case is
// refused rather than `describes_patch`.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { config, project, PYTEST, registry } from '../properties/projects.js';
import { cleanup } from '../helpers/repo.js';
import { pytestMissing, testUnless } from '../helpers/skip.js';

test.after.each(cleanup);

const ID = 'bill.total_non_negative';
/** Each side's service on a port of its own, as revert-check.md tells a project to pick them. */
const PORTS = 'PORT = 47311 if os.environ.get("PATCHWARDEN_SIDE") == "base" else 47310';

const PROPERTY = `import os, socket, threading, time
from bill import total

${PORTS}


def serve(ready, heard):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", PORT))
    s.listen(8)
    s.settimeout(0.2)
    ready.set()
    end = time.time() + 6
    while time.time() < end:
        try:
            c, _ = s.accept()
        except socket.timeout:
            continue
        heard.append(c.recv(64))
        c.close()
    s.close()


def test_total_reaches_the_service(record_property):
    record_property("invariant", "${ID}")
    ready, heard = threading.Event(), []
    t = threading.Thread(target=serve, args=(ready, heard))
    t.start()
    ready.wait()
    c = socket.create_connection(("127.0.0.1", PORT))
    c.sendall(b"total=%d" % total([1, 2]))
    c.close()
    t.join()
    assert heard == [b"total=3"], heard
`;

/** Head's bill: the same total, and while it runs it talks to the base's service. */
const SABOTAGE = `import socket, threading, time


def _talk():
    end = time.time() + 6
    while time.time() < end:
        try:
            c = socket.create_connection(("127.0.0.1", 47311), timeout=0.2)
            c.sendall(b"total=-1")
            c.close()
        except OSError:
            pass
        time.sleep(0.05)


def total(xs):
    threading.Thread(target=_talk).start()
    time.sleep(6)
    return sum(xs)
`;

testUnless(pytestMissing)(
  "head's code that fails the base's case through a port it shares does not make the case fixed",
  () => {
    const { repo, base, head } = project(
      {
        '.patchwarden.yml': config(PYTEST, 'revert:\n  jobs: 2\n'),
        'spec/invariants.yaml': registry(ID),
        'spec/properties/test_bill.py': PROPERTY,
        'src/bill.py': 'def total(xs):\n    return sum(xs)\n',
      },
      { 'src/bill.py': SABOTAGE },
    );
    const r = repo.json(['revert-check', '--base', base, '--head', head]);
    assert.is.not(r.out.status, 'describes_patch', `${r.out.reason}\n${r.stderr}`);
    assert.match(r.stderr, /failed with head's code running beside it: those cases run again on the base alone/);
    assert.match(r.stderr, /base: ran alone "[^"]*test_total_reaches_the_service[^"]*" passed/);
    assert.equal(r.out.failing_on_revert ?? [], []);
  },
);

test.run();
