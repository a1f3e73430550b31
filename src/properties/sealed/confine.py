# The sealed worker's kernel confinement: Landlock through ctypes, then exec.
#
#   python3 -I -S confine.py [--shm] --rw DIR ... --ro PATH ... -- CMD ARGS...
#   python3 -I -S confine.py --fence [--shm] --rw DIR ... -- CMD ARGS...
#   python3 -I -S confine.py --probe     (prints the Landlock ABI, 0 when unavailable)
#
# The ruleset handles every file system right the ABI knows; --ro paths get
# read and execute, --rw paths every right. From ABI 4 TCP bind and connect
# are handled with no rule (no TCP at all); from ABI 6 abstract unix sockets
# and signals are scoped to the worker's own domain. no_new_privs, then
# restrict_self, then exec: what CMD starts inherits the domain. Anything
# that keeps the rules from applying exits 125 with its reason on stderr:
# the worker is never run unconfined.
#
# --fence handles the write rights alone (making, removing, renaming,
# writing, truncating): reads, execution and the network stay as they were,
# and only the --rw paths may be written; from ABI 6 signals are scoped to
# the domain too, so neither side can kill or stop the other's processes.
# It fences one side of the revert check from the other while both run at
# once.
#
# --shm gives the worker a /dev/shm of its own (POSIX semaphores and shared
# memory: Python's multiprocessing locks, queues and pools): a fresh tmpfs
# mounted over it in a user and mount namespace, read-write. The machine's
# /dev/shm, where other processes' segments live, is never granted. Where
# user namespaces are not allowed the worker has no /dev/shm, and says so.
# Every capability the namespace gave is dropped before the exec.
#
# With --fence the namespace also makes every mount read-only but the --rw
# paths (bound onto themselves, writable): Landlock's write rights leave out
# a file's metadata (chmod, utimes, extended attributes), so a folder of the
# other side made unreadable and restored meanwhile would fail its run and
# leave no trace. A read-only mount refuses those too (EROFS).
import codecs, ctypes, os, stat, sys

CREATE_RULESET, ADD_RULE, RESTRICT_SELF = 444, 445, 446
CREATE_RULESET_VERSION = 1
RULE_PATH_BENEATH = 1
PR_SET_NO_NEW_PRIVS = 38

EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
REFER, TRUNCATE, IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
# Every right but execute, read and ioctl: remove, make (dir, file, node, link), refer, truncate.
WRITE_RIGHTS = WRITE_FILE | REFER | TRUNCATE | (((1 << 13) - 1) & ~(EXECUTE | READ_FILE | READ_DIR))
# The rights that apply to a file (not a directory) beneath a rule.
FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV
NET_BIND_TCP, NET_CONNECT_TCP = 1 << 0, 1 << 1
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1 << 0, 1 << 1

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


class RulesetAttr(ctypes.Structure):
    _fields_ = [("fs", ctypes.c_uint64), ("net", ctypes.c_uint64), ("scoped", ctypes.c_uint64)]


class PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def fail(why):
    sys.stderr.write("patchwarden confine: %s\n" % why)
    sys.stderr.flush()
    os._exit(125)


def abi():
    n = libc.syscall(CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(CREATE_RULESET_VERSION))
    return n if n > 0 else 0


def fs_rights(v):
    rights = (1 << 13) - 1  # ABI 1: execute .. make_sym
    if v >= 2:
        rights |= REFER
    if v >= 3:
        rights |= TRUNCATE
    if v >= 5:
        rights |= IOCTL_DEV
    return rights


def args(argv):
    rw, ro, shm, fence, i = [], [], False, False, 0
    while i < len(argv) and argv[i] != "--":
        if argv[i] == "--shm":
            shm, i = True, i + 1
        elif argv[i] == "--fence":
            fence, i = True, i + 1
        elif argv[i] in ("--rw", "--ro") and i + 1 < len(argv):
            (rw if argv[i] == "--rw" else ro).append(argv[i + 1])
            i += 2
        else:
            fail("unknown argument %r (usage: confine.py --rw DIR --ro PATH ... -- CMD ARGS...)" % argv[i])
    if i + 1 >= len(argv):
        fail("no command after --")
    return rw, ro, shm, fence, argv[i + 1:]


CLONE_NEWNS, CLONE_NEWUSER = 0x00020000, 0x10000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 1, 2, 4, 8, 32, 4096, 1 << 14, 1 << 18
# statvfs flags and the mount flags a remount must keep (the namespace may not change them): nosuid,
# nodev, noexec, noatime, nodiratime, relatime.
KEPT = ((2, MS_NOSUID), (4, MS_NODEV), (8, MS_NOEXEC), (1024, 1024), (2048, 2048), (4096, 1 << 21))
EINVAL, ENOENT = 22, 2
PR_CAPBSET_DROP, CAPSET, CAP_VERSION_3 = 24, 126, 0x20080522


def private_shm(fence, rw):
    # False (and /dev/shm stays out of reach) where the namespaces are refused.
    uid, gid = os.getuid(), os.getgid()
    if libc.unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0:
        return False
    for name, text in (("setgroups", "deny"), ("uid_map", "%d %d 1" % (uid, uid)), ("gid_map", "%d %d 1" % (gid, gid))):
        with open("/proc/self/" + name, "w") as f:
            f.write(text)
    if libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None) != 0 or \
            libc.mount(b"tmpfs", b"/dev/shm", b"tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, b"mode=1777,size=256m") != 0:
        fail("a private /dev/shm: mount: %s" % os.strerror(ctypes.get_errno()))
    if fence:
        read_only_but(rw + ["/dev/shm"])
    drop_capabilities()
    return True


def remount(path, flags):
    kept = os.statvfs(path).f_flag
    flags |= MS_REMOUNT | MS_BIND | sum(ms for st, ms in KEPT if kept & st)
    return libc.mount(None, os.fsencode(path), None, flags, None) == 0


def read_only_but(rw):
    with open("/proc/self/mountinfo", "rb") as f:
        points = [codecs.escape_decode(line.split()[4])[0] for line in f]  # a space comes as \040
    for p in points:
        # A mount hidden under another one (EINVAL) or out of sight (ENOENT) is out of reach too.
        if not remount(p, MS_RDONLY) and ctypes.get_errno() not in (EINVAL, ENOENT):
            fail("a read-only %s: mount: %s" % (os.fsdecode(p), os.strerror(ctypes.get_errno())))
    for p in rw:
        if not os.path.exists(p):
            continue  # a path missing grants nothing
        if libc.mount(os.fsencode(p), os.fsencode(p), None, MS_BIND | MS_REC, None) != 0 or not remount(p, 0):
            fail("a writable %s: mount: %s" % (p, os.strerror(ctypes.get_errno())))


def drop_capabilities():
    # The namespace's capabilities end here: none bounded, none held, so the
    # exec (as uid 0 too) gains none back.
    cap = 0
    while libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == 0:
        cap += 1
    header = (ctypes.c_uint32 * 2)(CAP_VERSION_3, 0)
    data = (ctypes.c_uint32 * 6)()
    if libc.syscall(CAPSET, ctypes.byref(header), ctypes.byref(data)) != 0:
        fail("capset: %s" % os.strerror(ctypes.get_errno()))


def add(ruleset, path, rights):
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return  # a path this machine lacks grants nothing
    try:
        if not stat.S_ISDIR(os.fstat(fd).st_mode):
            rights &= FILE_RIGHTS
        rule = PathBeneath(rights, fd)
        if libc.syscall(ADD_RULE, ruleset, RULE_PATH_BENEATH, ctypes.byref(rule), ctypes.c_uint32(0)) != 0:
            fail("landlock_add_rule(%s): %s" % (path, os.strerror(ctypes.get_errno())))
    finally:
        os.close(fd)


def confine(rw, ro, fence):
    v = abi()
    if v < 1:
        fail("Landlock is not available on this kernel (landlock_create_ruleset: %s)" % os.strerror(ctypes.get_errno()))
    handled = fs_rights(v) & WRITE_RIGHTS if fence else fs_rights(v)
    scoped = (SCOPE_SIGNAL if fence else SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL) if v >= 6 else 0
    attr = RulesetAttr(handled, NET_BIND_TCP | NET_CONNECT_TCP if v >= 4 and not fence else 0, scoped)
    size = 24 if v >= 6 else 16 if v >= 4 else 8
    ruleset = libc.syscall(CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0))
    if ruleset < 0:
        fail("landlock_create_ruleset: %s" % os.strerror(ctypes.get_errno()))
    for p in ro:
        add(ruleset, p, handled & (EXECUTE | READ_FILE | READ_DIR))
    for p in rw:
        add(ruleset, p, handled)
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        fail("prctl(PR_SET_NO_NEW_PRIVS): %s" % os.strerror(ctypes.get_errno()))
    if libc.syscall(RESTRICT_SELF, ruleset, ctypes.c_uint32(0)) != 0:
        fail("landlock_restrict_self: %s" % os.strerror(ctypes.get_errno()))
    os.close(ruleset)


def main():
    if sys.argv[1:] == ["--probe"]:
        print(abi())
        return
    rw, ro, shm, fence, cmd = args(sys.argv[1:])
    if shm:
        if private_shm(fence, rw):
            rw.append("/dev/shm")
        elif fence:
            sys.stderr.write("patchwarden confine: no mount namespace of its own (user namespaces are not allowed here: %s), "
                             "so no /dev/shm, and chmod and utimes of files outside the writable paths are not refused\n"
                             % os.strerror(ctypes.get_errno()))
        else:
            sys.stderr.write("patchwarden confine: no /dev/shm of its own (user namespaces are not allowed here: %s), so POSIX "
                             "semaphores and shared memory (multiprocessing locks, queues, pools) fail in the worker; "
                             "run such properties with properties.sealed: process\n" % os.strerror(ctypes.get_errno()))
    confine(rw, ro, fence)
    try:
        os.execvp(cmd[0], cmd)
    except OSError as e:
        fail("cannot run %s: %s" % (cmd[0], e.strerror))


main()
