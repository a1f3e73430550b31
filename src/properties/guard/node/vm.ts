// Code compiled by the run: production code's keeps production code's name,
// jest's test contexts are locked before production code is compiled in
// them, vitest's vm pools are refused, and a loader hook is the runner's.
// biome-ignore-all lint/suspicious/noExplicitAny: vm's and the module loader's own arguments, passed on
import Module from 'node:module';
import path from 'node:path';
import vm from 'node:vm';
import { lockIntrinsics } from './builtins.js';
import { fixBindings, FRAMEWORK_GLOBALS } from './globals.js';
import { install } from './lock-list.js';
import { guarded, type Owners, registry } from './locks.js';
import { always } from './process.js';
import { refuse } from './record.js';
import { lockCircus } from './runners/jest.js';
import { inVitestWorker, lockVitest } from './runners/vitest.js';
import { type Frame, kind, kindOfFrame, nested, prepareByPatch, show, sites, UNREADABLE, vmMaker } from './stack.js';
import type { Kind } from './paths.js';
import { apply, define, getOwnPropertyDescriptor } from './taken.js';

const SEP = path.sep;

/**
 * Test code compiled into a vm context: jest's test environments compile
 * each module with vm.compileFunction (ES modules: vm.SourceTextModule).
 * Before a file of production code is compiled there, the context's process
 * and the framework globals it has by then are made read-only, so the test
 * file sees jest's own (the base's setup files, compiled earlier, may still
 * set them).
 */
const locked = new WeakMap<object, { g: any; done: Set<string>; owners: Owners }>();
function lockContext(ctx: vm.Context, file: string): void {
  if (kind(file) !== 'patch') return;
  let state = locked.get(ctx);
  if (!state) {
    locked.set(ctx, (state = { g: vm.runInContext('globalThis', ctx), done: new Set(), owners: registry() }));
    const fresh = state;
    install('built-ins', () => lockIntrinsics(fresh.g, fresh.owners));
    install('jest-circus', () => lockCircus(fresh.g, fresh.owners));
    install('globals', () => fixBindings(fresh.g));
  }
  const { g, done } = state;
  for (const name of ['process', 'Promise', ...FRAMEWORK_GLOBALS]) {
    if (done.has(name)) continue;
    const d = getOwnPropertyDescriptor(g, name);
    if (!d || !('value' in d) || d.value === undefined) continue;
    Object.defineProperty(g, name, {
      value: d.value,
      writable: false,
      configurable: false,
      enumerable: d.enumerable,
    });
    done.add(name);
  }
}

/**
 * Whose code compiles code under a name that is not production code's: the
 * first caller with a file (Node's loader, a library, production code) is
 * asked. Returns the frame of production code that did, or null.
 */
export function compiledByPatch(cs: Frame[], frameKind: (f: Frame) => Kind): Frame | null {
  for (let i = 0; i < cs.length; i++) {
    if (!cs[i].file) continue;
    const k = frameKind(cs[i]);
    if (k === 'guard') continue;
    return k === 'patch' ? cs[i] : null;
  }
  return null;
}

/** The file name vm is given: its options' filename, or the options themselves as a string. */
export const nameOf = (options: any): unknown => (typeof options === 'string' ? options : options?.filename);

/**
 * Code compiled by production code keeps production code's name: vm and the
 * module loader compile code under any file name they are given, and its
 * frames would answer as that file's (a library's, the spec's). Only a few
 * frames are read, as every module load passes here.
 */
function ownName(call: string, name: unknown): void {
  if (typeof name !== 'string') return;
  if (kind(name) === 'patch') {
    // A file of the tree (vite's own modules have names that are no file).
    if (inVitestWorker() && name.startsWith(treeRoot + SEP)) install('vitest', lockVitest);
    return;
  }
  const cs = sites(8);
  if (!cs) {
    // A module a library's stack trace hook loads as it runs.
    if (nested && !prepareByPatch) return;
    refuse("code compiled under another file's name", call, UNREADABLE);
  }
  const by = compiledByPatch(cs, kindOfFrame);
  if (by)
    refuse("code compiled under another file's name", `${call}(…, ${show(name)})`, {
      file: show(by.file),
      line: by.line ?? 0,
    });
}

let treeRoot = '';

export function guardCompiles(tree: string): void {
  treeRoot = tree;
  const realCompile = vm.compileFunction;
  (vm as any).compileFunction = function compileFunction(this: unknown, ...args: any[]) {
    const options = args[2];
    ownName('vm.compileFunction', options?.filename);
    const ctx = options?.parsingContext;
    if (ctx && typeof options.filename === 'string' && vm.isContext(ctx)) lockContext(ctx, options.filename);
    return Reflect.apply(realCompile, this, args);
  };
  const RealSourceTextModule = (vm as any).SourceTextModule;
  if (typeof RealSourceTextModule === 'function')
    (vm as any).SourceTextModule = class SourceTextModule extends RealSourceTextModule {
      constructor(code: string, options: any) {
        ownName('vm.SourceTextModule', options?.identifier);
        const ctx = options?.context;
        if (ctx && typeof options.identifier === 'string' && vm.isContext(ctx)) lockContext(ctx, options.identifier);
        super(code, options);
      }
    };
  for (const name of ['runInThisContext', 'runInContext', 'runInNewContext']) {
    const real = (vm as any)[name];
    const at = name === 'runInThisContext' ? 1 : 2;
    (vm as any)[name] = {
      [name](this: unknown, ...args: any[]) {
        ownName(`vm.${name}`, nameOf(args[at]));
        return apply(real, this, args);
      },
    }[name];
  }
  const RealScript = vm.Script;
  const Script: typeof vm.Script = new Proxy(RealScript, {
    construct(target, args, newTarget) {
      ownName('vm.Script', nameOf(args[1]));
      return Reflect.construct(target, args, newTarget === Script ? target : newTarget);
    },
  });
  (vm as any).Script = Script;
  define(RealScript.prototype, 'constructor', {
    value: Script,
    writable: false,
    configurable: false,
    enumerable: false,
  });
  const proto = (Module as any).prototype;
  const moduleCompile = proto._compile;
  proto._compile = function _compile(this: unknown, content: string, filename: string, ...rest: unknown[]) {
    ownName('Module.prototype._compile', filename);
    return apply(moduleCompile, this, [content, filename, ...rest]);
  };
  // A loader hook (module.register) could hand any file's URL code of its own.
  guarded(Module, 'register', 'module.register', always);
  // Contexts vitest's vm pools make are refused: they run modules the guard does not lock.
  const realCreateContext = vm.createContext;
  (vm as any).createContext = function createContext(this: unknown, ...args: unknown[]) {
    const a = vmMaker();
    if (a)
      refuse(
        'vitest vm pool',
        "vitest's vm pools (vmThreads, vmForks) run tests in vm contexts the guard does not reach; pass --pool=forks (or --pool=threads) to vitest in properties.command, an owner's change on the base side",
        { file: a, line: 0 },
      );
    return Reflect.apply(realCreateContext, this, args);
  };
}
