// The Node guard's decisions, in-process: whose code a file and a stack
// frame are, who asked, which paths lead into the guard's folder, which
// calls and setters only the runner may make, which process is jest's, what
// a result must show. Real files in a temporary tree, real call sites
// captured from this Node (this file plays the guard's own), the runners'
// real installed files; no process is started.
import {
  closeSync,
  constants,
  mkdirSync,
  mkdtempSync,
  openSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writesInto } from '../../src/properties/guard/node/files.js';
import { plainData } from '../../src/properties/guard/node/ipc.js';
import { lockMethods, registry, shadows } from '../../src/properties/guard/node/locks.js';
import {
  leadsInto,
  nodeKind,
  opensForWrite,
  pathKind,
  show,
  type Where,
} from '../../src/properties/guard/node/paths.js';
import { always } from '../../src/properties/guard/node/process.js';
import { JEST_FILE, setterVerdict, VITEST_FILE } from '../../src/properties/guard/node/runners/fields.js';
import { circusCallRefused, isJestMain } from '../../src/properties/guard/node/runners/jest.js';
import { isMochaMain } from '../../src/properties/guard/node/runners/mocha.js';
import { mustShowFailed, testName } from '../../src/properties/guard/node/runners/node-test.js';
import { settled } from '../../src/properties/guard/node/runners/vitest.js';
import {
  type Actor,
  actorIn,
  type Frame,
  frameKind,
  judgeOf,
  patchIn,
  vmMakerIn,
} from '../../src/properties/guard/node/stack.js';
import { compiledByPatch, nameOf } from '../../src/properties/guard/node/vm.js';

const SELF = realpathSync(fileURLToPath(import.meta.url));
const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'patchwarden-guard-decisions-')));
const tree = path.join(root, 'tree');
const runtime = path.join(root, 'runtime');
const runDir = path.join(root, 'guard');
const report = path.join(runDir, 'report', 'report.xml');
const CALLER = 'exports.call = (fn) => fn();\nexports.evalCall = (fn) => eval("fn()");\n';
const FILES: Record<string, string> = {
  'src/bill.cjs': CALLER,
  'src/node_modules/evil/index.cjs': CALLER,
  'spec/bill.test.cjs': CALLER,
  'node_modules/fast-check/lib/index.cjs': CALLER,
};
for (const [f, text] of Object.entries(FILES)) {
  mkdirSync(path.dirname(path.join(tree, f)), { recursive: true });
  writeFileSync(path.join(tree, f), text);
}
mkdirSync(runtime);
writeFileSync(path.join(runtime, 'worker.cjs'), CALLER);
mkdirSync(path.dirname(report), { recursive: true });
writeFileSync(report, '<testsuites/>\n');
// A link the patch adds among the installed packages, leading into src.
symlinkSync(path.join(tree, 'src'), path.join(tree, 'node_modules', 'helper'));
// A link in the tree leading into the guard's folder.
symlinkSync(runDir, path.join(tree, 'src', 'out'));

const where: Where = { tree, trusted: new Set(['spec/bill.test.cjs']), runtime, guardFile: SELF };
const judge = judgeOf(where);
const kindOf = (f: Frame) => frameKind(f, judge);
const load = createRequire(import.meta.url);
const caller = (f: string): { call: <T>(fn: () => T) => T; evalCall: <T>(fn: () => T) => T } =>
  load(path.join(tree, f));
const installed = (spec: string) => realpathSync(load.resolve(spec));

/** This stack's frames as the guard reads them, captured where this is called. */
function framesHere(): Frame[] {
  const prepare = Error.prepareStackTrace;
  const limit = Error.stackTraceLimit;
  const holder: { stack?: NodeJS.CallSite[] } = {};
  Error.prepareStackTrace = (_, cs) => cs;
  Error.stackTraceLimit = Infinity;
  try {
    Error.captureStackTrace(holder, framesHere);
    // Read while the hook is in place: V8 formats the stack when it is first read.
    return holder.stack!.map((c) => ({ file: c.getFileName(), line: c.getLineNumber(), evaled: c.isEval() }));
  } finally {
    Error.prepareStackTrace = prepare;
    Error.stackTraceLimit = limit;
  }
}
const who = (a: Actor) => () => a;

test.after(() => rmSync(root, { recursive: true, force: true }));

test('a file is the patch unless it is the base, installed, the runtime or the guard', () => {
  const k = (f: string) => pathKind(path.join(tree, f), where);
  assert.is(k('src/bill.cjs'), 'patch');
  assert.is(k('spec/bill.test.cjs'), 'base');
  assert.is(k('node_modules/fast-check/lib/index.cjs'), 'lib');
  // Installed code only in the root's node_modules: one the patch adds under src is the patch's.
  assert.is(k('src/node_modules/evil/index.cjs'), 'patch');
  // Judged by where a link really leads.
  assert.is(k('node_modules/helper/bill.cjs'), 'patch');
  assert.is(pathKind(pathToFileURL(path.join(tree, 'spec/bill.test.cjs')).href, where), 'base');
  assert.is(pathKind(path.join(runtime, 'worker.cjs'), where), 'lib');
  assert.is(pathKind(SELF, where), 'guard');
  assert.is(pathKind(installed('jest-circus'), where), 'lib');
  // A name that is no file on disk: a data: URL, a name given to vm, a file gone.
  assert.is(pathKind('data:text/javascript,process.exit(0)', where), 'patch');
  assert.is(pathKind('evil.js', where), 'patch');
  assert.is(k('spec/gone.test.cjs'), 'patch');
  assert.is(nodeKind('node:internal/test_runner/runner'), 'framework');
  assert.is(nodeKind('node:test'), 'framework');
  assert.is(nodeKind('node:internal/timers'), 'internal');
  assert.is(show(path.join(tree, 'src', 'bill.cjs'), tree), 'src/bill.cjs');
});

test('a frame of code compiled from a string is production code, whoever compiled it', () => {
  // V8 gives an eval's frame no file name (a `//# sourceURL=` names none either).
  const evalFrom = (f: string) => caller(f).evalCall(framesHere);
  for (const f of ['src/bill.cjs', 'spec/bill.test.cjs', 'node_modules/fast-check/lib/index.cjs']) {
    const frames = evalFrom(f);
    const evaled = frames.find((x) => x.evaled);
    assert.ok(evaled, `eval in ${f} gave an evaled frame`);
    assert.is(kindOf(evaled!), 'patch', f);
    assert.is(actorIn(frames, judge).kind, 'patch', f);
  }
  const plain = caller('spec/bill.test.cjs').call(framesHere);
  assert.is(kindOf(plain.find((x) => x.file?.endsWith('bill.test.cjs'))!), 'base');
});

test('who asked: the first frame past Node and the guard, production code refused', () => {
  const fromSrc = actorIn(caller('src/bill.cjs').call(framesHere), judge);
  assert.equal(
    { kind: fromSrc.kind, file: fromSrc.file, line: fromSrc.line },
    {
      kind: 'patch',
      file: 'src/bill.cjs',
      line: 1,
    },
  );
  assert.ok(always([], who(fromSrc)), 'a spawn from production code is refused');
  const fromSpec = actorIn(caller('spec/bill.test.cjs').call(framesHere), judge);
  assert.is(fromSpec.kind, 'base');
  assert.not.ok(always([], who(fromSpec)), "the base's spawn is allowed");
  const fromLib = actorIn(caller('node_modules/fast-check/lib/index.cjs').call(framesHere), judge);
  assert.is(fromLib.kind, 'lib');
  assert.not.ok(always([], who(fromLib)));
  // An unreadable stack answers as production code.
  assert.is(actorIn(null, judge).kind, 'patch');
});

test('a callback Node runs answers to nobody, and is refused', async () => {
  const frames = await new Promise<Frame[]>((resolve) => setImmediate(() => resolve(framesHere())));
  const a = actorIn(frames, judge);
  assert.is(a.kind, 'none');
  assert.ok(always([], who(a)));
});

test('production code anywhere on the stack, under a library too, is found', () => {
  const lib = caller('node_modules/fast-check/lib/index.cjs');
  const src = caller('src/bill.cjs');
  const under = patchIn(
    lib.call(() => src.call(() => lib.call(framesHere))),
    judge,
  );
  assert.is(under?.kind, 'patch');
  assert.is(under?.file, 'src/bill.cjs');
  assert.is(under?.via, true);
  assert.is(patchIn(lib.call(framesHere), judge), null);
  assert.is(patchIn(caller('spec/bill.test.cjs').call(framesHere), judge), null);
});

test("a path leads into the guard's folder however it is named", () => {
  assert.ok(leadsInto(report, runDir));
  assert.ok(leadsInto(path.join(tree, 'src', 'out', 'report', 'report.xml'), runDir), 'through a link');
  assert.ok(leadsInto(path.join(tree, 'src', 'out', 'report', 'new.xml'), runDir), 'a file not there yet');
  assert.ok(leadsInto(Buffer.from(report), runDir));
  assert.ok(leadsInto(pathToFileURL(report), runDir));
  assert.ok(leadsInto(path.relative(process.cwd(), report), runDir), 'relative');
  const fd = openSync(report, 'r');
  try {
    assert.ok(leadsInto(`/proc/self/fd/${fd}`, runDir), 'a descriptor');
  } finally {
    closeSync(fd);
  }
  assert.not.ok(leadsInto(path.join(tree, 'src', 'bill.cjs'), runDir));
  assert.not.ok(leadsInto(`${runDir}-other/report.xml`, runDir), 'a sibling with the same prefix');
  assert.not.ok(leadsInto(42, runDir));
});

test("a write into the guard's folder is refused to production code and to no one's", () => {
  const patch: Actor = { kind: 'patch', file: 'src/bill.cjs', line: 1 };
  const none: Actor = { kind: 'none', file: '', line: 0 };
  const lib: Actor = { kind: 'lib', file: 'jest-junit', line: 1 };
  let opens = 1;
  const judgeWrite = writesInto(runDir, () => opens-- > 0);
  const writeFile = judgeWrite(1);
  const open = judgeWrite(1, 1);
  const rename = judgeWrite(2);
  assert.ok(writeFile([report, 'x'], who(patch)));
  assert.ok(writeFile([report, 'x'], who(none)));
  assert.not.ok(writeFile([report, 'x'], who(lib)), "the runner's reporter writes it");
  assert.not.ok(writeFile([path.join(tree, 'src', 'x.txt'), 'x'], who(patch)));
  assert.ok(rename([path.join(tree, 'src', 'x.xml'), report], who(patch)), 'the second path counts');
  assert.ok(open([report, 'w'], who(patch)));
  assert.not.ok(open([report, 'r'], who(patch)), 'reading is allowed');
  // A write stream's own open, a tick after the runner made it: let through once.
  assert.not.ok(open([report, 'w'], who(none)));
  assert.ok(open([report, 'w'], who(none)));
});

test('open flags that write', () => {
  for (const f of ['w', 'a', 'r+', 'wx', 'as+', constants.O_WRONLY | constants.O_CREAT, constants.O_RDWR])
    assert.ok(opensForWrite(f), String(f));
  for (const f of ['r', 'rs', constants.O_RDONLY, undefined]) assert.not.ok(opensForWrite(f), String(f));
});

test('which process is jest, and which module is mocha', () => {
  assert.ok(isJestMain(installed('jest/bin/jest')));
  assert.ok(isJestMain(installed('jest-worker')));
  assert.ok(isJestMain('/project/node_modules/.bin/jest'));
  assert.not.ok(isJestMain(installed('mocha/bin/mocha.js')));
  assert.not.ok(isJestMain(installed('vitest/vitest.mjs')));
  assert.not.ok(isJestMain(path.join(tree, 'spec', 'jest.config.cjs')));
  assert.ok(isMochaMain(installed('mocha/lib/mocha.js')));
  assert.not.ok(isMochaMain(installed('mocha/lib/runner.js')));
});

/** A frame in a real installed file. */
const at = (file: string): Frame => ({ file, line: 1, evaled: false });

test("a runner's field is set by the runner's own code, with no production code on the stack", () => {
  const vitest = at(installed('vitest'));
  const chai = at(installed('chai'));
  const base = at(path.join(tree, 'spec', 'bill.test.cjs'));
  const src = at(path.join(tree, 'src', 'bill.cjs'));
  const internal = at('node:internal/util');
  const guard = at(SELF);
  assert.is(setterVerdict([guard, vitest], kindOf, VITEST_FILE, false).refused, null);
  assert.is(setterVerdict([guard, chai, vitest], kindOf, VITEST_FILE, false).refused, 'caller');
  assert.is(setterVerdict([guard, vitest, src], kindOf, VITEST_FILE, false).refused, 'patch');
  assert.is(setterVerdict([guard, internal, vitest], kindOf, VITEST_FILE, false).refused, 'caller');
  // Through a built-in (an array's push calling a Proxy's trap), and the base's.
  assert.is(setterVerdict([guard, internal, vitest], kindOf, VITEST_FILE, true).refused, null);
  assert.is(setterVerdict([guard, internal, base], kindOf, JEST_FILE, true).refused, null);
  assert.is(setterVerdict([guard, base], kindOf, JEST_FILE, false).refused, 'caller');
  // `own` null: any library's or the base's.
  assert.is(setterVerdict([guard, chai], kindOf, null, false).refused, null);
  assert.is(setterVerdict([guard], kindOf, null, false).refused, 'caller');
});

test("one of circus's handlers runs only from circus's dispatch", () => {
  const circus = at(installed('jest-circus'));
  const src = at(path.join(tree, 'src', 'bill.cjs'));
  const guard = at(SELF);
  const showFile = (f: string | null | undefined) => judge.show(f);
  assert.is(circusCallRefused([guard, circus], kindOf, showFile), null);
  assert.equal(circusCallRefused([guard, src, circus], kindOf, showFile), { file: 'src/bill.cjs', line: 1 });
  assert.ok(circusCallRefused([guard, at(installed('jest-worker')), circus], kindOf, showFile));
  assert.ok(circusCallRefused([guard, at('node:internal/timers')], kindOf, showFile), 'no caller');
});

test("code compiled under another file's name: refused when production code is the first caller with a file", () => {
  const src = at(path.join(tree, 'src', 'bill.cjs'));
  const loader = at(installed('jest-circus'));
  const guard = at(SELF);
  const nameless: Frame = { file: undefined, line: null, evaled: false };
  assert.is(compiledByPatch([guard, nameless, src, loader], kindOf), src);
  assert.is(compiledByPatch([guard, loader, src], kindOf), null);
  assert.is(compiledByPatch([guard, at('node:internal/modules/cjs/loader'), src], kindOf), null);
  assert.is(nameOf({ filename: '/x/spec.js' }), '/x/spec.js');
  assert.is(nameOf('/x/spec.js'), '/x/spec.js');
  assert.is(nameOf(undefined), undefined);
});

test('a vm context asked for by vitest itself is a vm pool; one a jsdom environment makes is not', () => {
  const vitest = installed('vitest');
  assert.is(vmMakerIn([at(SELF), at('node:vm'), at(vitest)], judge), vitest);
  assert.is(vmMakerIn([at(SELF), at(installed('jest-circus')), at(vitest)], judge), null);
  assert.is(vmMakerIn([at(SELF)], judge), null);
});

test('a failure the report must show failed', () => {
  const property = 'total [invariant:bill.total_non_negative]';
  const subtests = { error: { failureType: 'subtestsFailed' } };
  assert.ok(mustShowFailed('plain', true, {}, {}));
  assert.not.ok(mustShowFailed('plain', false, subtests, {}), 'a suite of failed subtests');
  assert.not.ok(mustShowFailed('plain', true, {}, { todo: true }), 'a todo');
  // A property's own failure counts under subtests and todo.
  assert.ok(mustShowFailed(property, false, {}, { todo: true }));
  assert.not.ok(mustShowFailed(property, false, subtests, {}));
  assert.not.ok(mustShowFailed(property, true, {}, { skip: true }), 'skipped');
  assert.is(testName('total', undefined, undefined), 'total');
  assert.is(
    testName(function named() {}, undefined, undefined),
    'named',
  );
  assert.is(
    testName('', {}, () => {}),
    '<anonymous>',
  );
  assert.equal(settled({ name: 't', fails: true }, 'pass'), { fails: true, failed: false });
  assert.equal(settled({ name: 't' }, 'fail'), { fails: false, failed: true });
  assert.equal(settled({ name: 't', fails: true }, 'skip'), { fails: false, failed: false });
});

test('a message as JSON reads it, past a toJSON production code put on a built-in prototype', () => {
  const msg = {
    n: 1,
    when: new Date(0),
    bad: new Date(Number.NaN),
    bytes: Buffer.from([1, 2]),
    f: () => 1,
    list: [undefined, 2],
  };
  const own = { toJSON: () => 'own' };
  const B = Buffer.prototype as unknown as { toJSON?: unknown };
  const O = Object.prototype as unknown as { toJSON?: unknown };
  const bufferToJSON = B.toJSON;
  B.toJSON = () => 'rewritten';
  Object.defineProperty(Object.prototype, 'toJSON', { value: () => 'rewritten', configurable: true, writable: true });
  try {
    assert.is(JSON.stringify(msg), '"rewritten"', 'what JSON itself would send');
    const copy = plainData({ ...msg, own }, []);
    assert.is(Object.getPrototypeOf(copy), null);
    assert.is(copy.n, 1);
    assert.is(copy.when, '1970-01-01T00:00:00.000Z');
    assert.is(copy.bad, null);
    assert.equal(Array.from(copy.bytes.data), [1, 2]);
    assert.is(copy.bytes.type, 'Buffer');
    assert.not.ok('f' in copy);
    assert.equal(Array.from(copy.list), [null, 2]);
    assert.is(copy.own, 'own', "the value's own toJSON is called, as JSON would");
  } finally {
    B.toJSON = bufferToJSON;
    delete O.toJSON;
  }
});

test('a name added to a locked object over a method it inherits, an index or a well-known symbol', () => {
  const owners = registry();
  const parent = { m() {} };
  lockMethods(parent, 'parent', false, owners);
  assert.ok(shadows('m', parent, owners));
  assert.ok(shadows('0', parent, owners));
  assert.ok(shadows(Symbol.split, parent, owners));
  assert.not.ok(shadows('fresh', parent, owners));
  assert.not.ok(shadows(Symbol('own'), parent, owners));
});

test.run();
