// How a test command is run so that nothing it starts outlives it, whatever
// session or process group a process moves to. The strongest mechanism this
// host allows is probed once per process (without blocking), in this order:
//
// - pidns: a PID namespace (util-linux `unshare`, with a user namespace when
//   not root). When the namespace's first process ends, the kernel kills
//   every other one before the command is seen to end; `setpriv --pdeathsig`
//   ends it when patchwarden itself is killed. /proc is mounted
//   anew inside, so the run does not see the processes outside it.
// - cgroup: a cgroup of the run's own (cgroup.ts), where user namespaces are
//   refused (Docker's default seccomp profile, AppArmor on current Ubuntu)
//   but this process may make a child of its own cgroup: v2 ends it with
//   cgroup.kill, v1 (freezer, else pids) by stopping new processes and
//   killing each member. A process of the run that may write the parent
//   cgroup (root, or the owner of a delegated subtree) can move itself out,
//   which a PID namespace does not allow: hence pidns first.
// - subreaper: a python3 launcher that makes itself the child subreaper
//   (prctl PR_SET_CHILD_SUBREAPER through ctypes): every orphan of the run is
//   re-parented to it, and once the command ends (or patchwarden does) it
//   kills what is left and names on fd 3 what it could not kill.
// - group: the command's process group only; a process that moves to
//   another session or group is neither found nor ended.
// - none: Windows, where there are no process groups to end.
import { spawn } from 'node:child_process';
import { type CgroupBase, cgroupBase, inCgroup, makeCgroup, sweepCgroups } from './cgroup.js';
import { python } from './python.js';

export type Contained = 'pidns' | 'cgroup' | 'subreaper' | 'group' | 'none';

/** Weakest last: PATCHWARDEN_CONTAIN names the strongest one to try (to run the fallbacks on purpose). */
export const MECHANISMS: readonly Contained[] = ['pidns', 'cgroup', 'subreaper', 'group', 'none'];

/** What each says in the output. */
export const CONTAINED_WHY: Record<Contained, string> = {
  pidns: 'a PID namespace: every process the run started is ended with it',
  cgroup: 'a cgroup of its own: every process the run started is ended with it',
  subreaper: 'a subreaper launcher: every process the run started is ended with it',
  group: "the command's process group only: a process that moved to another session or group is not found",
  none: 'nothing: processes the run started are not found on this platform',
};

// The pid-1 shell of the namespace runs the command as its child: signals to
// the process group (a timeout's SIGTERM) reach the command, which a pid 1
// without handlers would ignore.
const INIT = 'sh -c "$1"; exit $?';

const LAUNCHER = String.raw`
import ctypes, os, signal, sys, time
libc = ctypes.CDLL(None, use_errno=True)
# PR_SET_CHILD_SUBREAPER; PR_SET_PDEATHSIG, so a killed patchwarden still has the run ended.
if libc.prctl(36, 1, 0, 0, 0) != 0 or libc.prctl(1, signal.SIGTERM, 0, 0, 0) != 0:
    sys.exit(125)
if sys.argv[1:] == ["--probe"]:
    sys.exit(0)
me = os.getpid()
class Stop(Exception):
    pass
def stop(sig, frame):
    raise Stop(sig)
def children():
    kids = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                s = f.read()
        except OSError:
            continue
        if int(s[s.rindex(")") + 2:].split()[1]) == me:
            kids.append(int(d))
    return kids
def reap():
    while True:
        try:
            if os.waitpid(-1, os.WNOHANG)[0] == 0:
                return
        except ChildProcessError:
            return
child = os.fork()
if child == 0:
    for s in (signal.SIGPIPE, signal.SIGXFSZ, signal.SIGINT):
        signal.signal(s, signal.SIG_DFL)
    os.execvp("sh", ["sh", "-c", sys.argv[1]])
for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    signal.signal(s, stop)
status, stopped = None, None
try:
    while status is None:
        pid, st = os.waitpid(-1, 0)
        if pid == child:
            status = st
except Stop as e:
    stopped = e.args[0]
for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    signal.signal(s, signal.SIG_IGN)
until = time.time() + 10
while children() and time.time() < until:
    for k in children():
        try:
            os.kill(k, signal.SIGKILL)
        except OSError:
            pass
    reap()
    time.sleep(0.02)
os.write(3, ("survivors %s\n" % " ".join(map(str, children()))).encode())
sig = stopped or (os.WTERMSIG(status) if os.WIFSIGNALED(status) else 0)
if sig:
    if sig not in (signal.SIGKILL, signal.SIGSTOP):
        signal.signal(sig, signal.SIG_DFL)
    os.kill(me, sig)
sys.exit(os.WEXITSTATUS(status) if status is not None else 1)
`;

/** Isolated: no PYTHON* variable, user site or sitecustomize of the project runs in the launcher. */
const LAUNCH = ['-I', '-S', '-c', LAUNCHER];

/** Whether `file args` exits 0; spawned, so the event loop goes on while it runs. */
function succeeds(file: string, args: string[]): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(file, args, { stdio: 'ignore', timeout: 10_000 });
    child.on('error', () => resolve(false));
    child.on('close', (code) => resolve(code === 0));
  });
}

/** The command line that makes the namespace, or null when this host allows none. */
async function unshareArgs(): Promise<string[] | null> {
  const plain = ['--pid', '--fork', '--kill-child', '--mount-proc'];
  // Root needs no user namespace (and keeps its capabilities); anyone else maps to their own uid, so owners stay as they are.
  const tries =
    process.getuid?.() === 0
      ? [plain, ['--user', '--map-current-user', ...plain]]
      : [['--user', '--map-current-user', ...plain]];
  // setpriv's parent-death signal ends the namespace with patchwarden, even
  // when patchwarden is killed with -9: tried first, so one start answers
  // for both where both work.
  for (const head of [['setpriv', '--pdeathsig', 'KILL', 'unshare'], ['unshare']])
    for (const args of tries)
      if (await succeeds(head[0], [...head.slice(1), ...args, 'true'])) return [...head, ...args];
  return null;
}

interface Probed {
  contained: Contained;
  unshare: string[];
  cgroup?: CgroupBase;
  /** The Python that runs the subreaper launcher. */
  python?: string;
}

let probing: Promise<Probed> | null = null;
let probed: Probed | null = null;

async function probe(): Promise<Probed> {
  if (process.platform === 'win32') return { contained: 'none', unshare: [] };
  const wanted = process.env.PATCHWARDEN_CONTAIN as Contained | undefined;
  const from = wanted && MECHANISMS.includes(wanted) ? MECHANISMS.indexOf(wanted) : 0;
  const allowed = (m: Contained) => MECHANISMS.indexOf(m) >= from;
  if (process.platform === 'linux') {
    const unshare = allowed('pidns') ? await unshareArgs() : null;
    if (unshare) return { contained: 'pidns', unshare };
    const cgroup = allowed('cgroup') ? cgroupBase() : null;
    if (cgroup) {
      sweepCgroups(cgroup);
      return { contained: 'cgroup', unshare: [], cgroup };
    }
    const exe = allowed('subreaper') ? await python() : null;
    if (exe && (await succeeds(exe, [...LAUNCH, '--probe'])))
      return { contained: 'subreaper', unshare: [], python: exe };
  }
  return { contained: allowed('group') ? 'group' : 'none', unshare: [] };
}

/**
 * The mechanism this process runs its test commands under, probed once per
 * process; the first call starts the probe, so a caller that needs it later
 * starts it early and awaits it where it is needed.
 */
export function containment(): Promise<Contained> {
  probing ??= probe().then((p) => (probed = p));
  return probing.then((p) => p.contained);
}

/** The program and arguments that run the shell line `line` contained; `cgroup`, the run's own cgroup to end after it. */
export async function containedSpawn(line: string): Promise<{
  contained: Contained;
  file: string;
  args: string[];
  reportFd: boolean;
  cgroup?: { dir: string; kind: CgroupBase['kind'] };
}> {
  const contained = await containment();
  if (contained === 'cgroup') {
    const dir = makeCgroup(probed!.cgroup!);
    return {
      contained,
      file: 'sh',
      args: inCgroup(dir, line),
      reportFd: false,
      cgroup: { dir, kind: probed!.cgroup!.kind },
    };
  }
  if (contained === 'pidns')
    return {
      contained,
      file: probed!.unshare[0],
      args: [...probed!.unshare.slice(1), 'sh', '-c', INIT, 'sh', line],
      reportFd: false,
    };
  if (contained === 'subreaper') return { contained, file: probed!.python!, args: [...LAUNCH, line], reportFd: true };
  return { contained, file: 'sh', args: ['-c', line], reportFd: false };
}

/** Survivors the launcher named on its report fd, or null when it sent no report (it was killed). */
export function launcherSurvivors(report: string): number[] | null {
  const m = /^survivors ?([\d ]*)$/m.exec(report);
  return m ? m[1].split(' ').filter(Boolean).map(Number) : null;
}

/** What held for the test commands this process ran, or null when it ran none. */
export function containedSoFar(): Contained | null {
  return probed?.contained ?? null;
}

/** The output's line on it, or none when no test command ran. */
export function containedLines(): string[] {
  const c = containedSoFar();
  return c ? [`contained: ${c} (${CONTAINED_WHY[c]})`] : [];
}
