// The Node guard's locks, each by the name docs/tamper.md's table of runner
// versions gives it. Each is installed through install, which takes its
// name from this list: a lock cannot be installed without being listed, and
// test/properties/guard-versions.test.ts checks the list against the table.
export const NODE_LOCKS = [
  'stack traces',
  'process calls',
  'report writes',
  'globals',
  'compiles',
  'node:test exports',
  'v8 serializer',
  'stream prototypes',
  'node:test reporter',
  'node:assert',
  'async scope',
  'processes started',
  'IPC',
  'vitest',
  'built-ins',
  'jest-circus',
] as const;

export type NodeLock = (typeof NODE_LOCKS)[number];

/** Installs the lock named `_lock` (the name is its entry in the list, read by the test). */
export function install(_lock: NodeLock, how: () => void): void {
  how();
}
