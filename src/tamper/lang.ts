// Which rules read a file, by its type. A file of no listed type is not
// scanned: the layer reads code, not data. Some types are code a runtime runs
// that no scan can read (compiled, native, a .pth); those are opaque.

export type Lang = 'python' | 'js' | 'go' | 'java';

const BY_EXTENSION: Record<string, Lang> = {
  py: 'python',
  pyw: 'python',
  pyi: 'python',
  js: 'js',
  mjs: 'js',
  cjs: 'js',
  jsx: 'js',
  ts: 'js',
  mts: 'js',
  cts: 'js',
  tsx: 'js',
  go: 'go',
  java: 'java',
};

export function langOf(path: string): Lang | null {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  if (dot <= 0) return null;
  const ext = base.slice(dot + 1).toLowerCase();
  return Object.hasOwn(BY_EXTENSION, ext) ? BY_EXTENSION[ext] : null;
}

/** Python bytecode, native modules and libraries, WebAssembly, and `.pth` files (run by Python at start-up). */
const OPAQUE = /\.(pyc|pyo|so|pyd|dylib|dll|node|wasm|pth)$/i;

export function isOpaque(path: string): boolean {
  return OPAQUE.test(path);
}
