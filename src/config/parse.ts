// Parses and validates `.patchwarden.yml`. Every error is one line naming the
// file, the line and the key, and exits 2: a guard with a wrong config must
// not guess.
import path from 'node:path';
import micromatch from 'micromatch';
import { isMap, isScalar, isSeq, type Node } from 'yaml';
import { readYaml } from '../common/yaml.js';
import { parseDuration } from '../common/duration.js';
import { parseSize } from '../common/size.js';
import { SCHEMA, defaults, type Config, type Kind } from './schema.js';
import type { ZoneName } from '../zones/names.js';

/** A GitHub workflow as gh's --signer-workflow takes it: [HOST/]OWNER/REPO/.github/workflows/FILE. */
export const SIGNER_WORKFLOW = /^(?:[\w.-]+\/)?[\w.-]+\/[\w.-]+\/\.github\/workflows\/[\w.-]+\.ya?ml$/;

function checkAttestation(config: Config, root: Node, fail: (why: string, node: Node | null) => never): void {
  const { attestation, signer_workflow: workflow } = config.freeze;
  if (attestation === 'github' && workflow === null)
    fail(
      'freeze.attestation: github needs freeze.signer_workflow, the workflow that attests the evidence (OWNER/REPO/.github/workflows/FILE.yml)',
      root,
    );
  if (workflow !== null && !SIGNER_WORKFLOW.test(workflow))
    fail(
      `freeze.signer_workflow: ${JSON.stringify(workflow)} is not OWNER/REPO/.github/workflows/FILE.yml (a host may lead it)`,
      root,
    );
}

/** Parses config text; `source` names it in messages. */
export function parseConfig(text: string, source: string): Config {
  const { doc, fail } = readYaml(text, source);
  const root = doc.contents;
  if (!isMap(root)) return fail('the config must be a mapping with at least `version: 1`', root);

  const config = defaults(source);
  config.present = true;
  let sawVersion = false;
  const zoneOrder: ZoneName[] = [];

  for (const pair of root.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : '';
    const value = pair.value as Node | null;
    if (key === 'version') {
      sawVersion = true;
      if (!isScalar(value) || (value.value !== 1 && value.value !== 2))
        fail(
          `version: unknown version ${JSON.stringify(isScalar(value) ? value.value : value?.toJSON())}; this patchwarden reads versions 1 and 2`,
          value ?? (pair.key as Node),
        );
      config.version = (value as { value: 1 | 2 }).value;
      continue;
    }
    const section = Object.hasOwn(SCHEMA, key) ? SCHEMA[key] : undefined;
    if (!section) fail(`unknown key \`${key}\` (known: version, ${Object.keys(SCHEMA).join(', ')})`, pair.key as Node);
    if (value === null || (isScalar(value) && value.value === null)) continue;
    if (!isMap(value)) fail(`${key}: must be a mapping`, value);
    const target = (key === 'zones' ? {} : config[key as keyof Config]) as Record<string, unknown>;
    for (const inner of (value as import('yaml').YAMLMap).items) {
      const name = isScalar(inner.key) ? String(inner.key.value) : '';
      const kind = Object.hasOwn(section!, name) ? section![name] : undefined;
      if (!kind) fail(`unknown key \`${key}.${name}\` (known: ${Object.keys(section!).join(', ')})`, inner.key as Node);
      target[name] = convert(kind!, inner.value as Node | null, `${key}.${name}`, fail);
      if (key === 'zones') zoneOrder.push(name as ZoneName);
    }
    if (key === 'zones') applyZones(config, zoneOrder, target as Record<ZoneName, string[]>);
  }
  if (!sawVersion) fail('missing `version: 1`', root);
  checkAttestation(config, root, fail);
  return config;
}

type Fail = (message: string, node?: Node | null) => never;

function convert(kind: Kind, node: Node | null, key: string, fail: Fail): unknown {
  const scalar = isScalar(node) ? node.value : undefined;
  switch (kind.type) {
    case 'string':
    case 'path':
    case 'command': {
      if (typeof scalar !== 'string' || !scalar.trim()) return fail(`${key}: must be a non-empty string`, node);
      if (kind.type === 'path') checkRelative(scalar, key, node, fail);
      return scalar;
    }
    case 'branch':
      if (typeof scalar !== 'string' || !validBranch(scalar))
        return fail(`${key}: must be a branch name (main, origin/main or refs/heads/main)`, node);
      return scalar;
    case 'bool':
      if (typeof scalar !== 'boolean') return fail(`${key}: must be true or false`, node);
      return scalar;
    case 'int':
      if (typeof scalar !== 'number' || !Number.isInteger(scalar) || scalar < kind.min || scalar > kind.max)
        return fail(`${key}: must be a whole number from ${kind.min} to ${kind.max}`, node);
      return scalar;
    case 'enum':
      if (typeof scalar !== 'string' || !kind.values.includes(scalar))
        return fail(`${key}: must be one of ${kind.values.join(', ')}`, node);
      return scalar;
    case 'duration': {
      const ms = typeof scalar === 'string' ? parseDuration(scalar) : null;
      if (ms === null || ms <= 0) return fail(`${key}: must be a duration such as 30d, 12h or 10m`, node);
      return ms;
    }
    case 'size': {
      const bytes = typeof scalar === 'string' || typeof scalar === 'number' ? parseSize(scalar) : null;
      if (bytes === null || bytes <= 0) return fail(`${key}: must be a size such as 50MB, 512KiB or 2GB`, node);
      return bytes;
    }
    case 'enums': {
      const items = isSeq(node) ? node.items : isScalar(node) ? [node] : null;
      if (!items) return fail(`${key}: must be a list of ${kind.values.join(', ')}`, node);
      return items.map((item) => {
        const v = isScalar(item) ? item.value : undefined;
        if (typeof v !== 'string' || !kind.values.includes(v))
          return fail(`${key}: ${JSON.stringify(v)} is not one of ${kind.values.join(', ')}`, item as Node);
        return v;
      });
    }
    case 'section': {
      if (!isMap(node)) return fail(`${key}: must be a mapping`, node);
      const out = kind.defaults();
      for (const inner of node.items) {
        const name = isScalar(inner.key) ? String(inner.key.value) : '';
        const sub = Object.hasOwn(kind.keys, name) ? kind.keys[name] : undefined;
        if (!sub)
          return fail(
            `unknown key \`${key}.${name}\` (known: ${Object.keys(kind.keys).join(', ')})`,
            inner.key as Node,
          );
        out[name] = convert(sub, inner.value as Node | null, `${key}.${name}`, fail);
      }
      return out;
    }
    case 'env': {
      if (!isMap(node))
        return fail(`${key}: must be a mapping of variable names to values (null leaves the caller's)`, node);
      const out: Record<string, string | null> = {};
      for (const pair of node.items) {
        const name = isScalar(pair.key) ? String(pair.key.value) : '';
        if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
          return fail(`${key}: ${JSON.stringify(name)} is not an environment variable name`, pair.key as Node);
        const v = isScalar(pair.value) ? pair.value.value : undefined;
        if (v !== null && typeof v !== 'string' && typeof v !== 'number')
          return fail(`${key}.${name}: must be a string, or null to leave the caller's value`, pair.value as Node);
        out[name] = v === null ? null : String(v);
      }
      return out;
    }
    case 'globs':
    case 'paths': {
      const items = isSeq(node) ? node.items : isScalar(node) ? [node] : null;
      if (!items) return fail(`${key}: must be a list of ${kind.type === 'globs' ? 'globs' : 'paths'}`, node);
      return items.map((item) => {
        const v = isScalar(item) ? item.value : undefined;
        if (typeof v !== 'string' || !v) return fail(`${key}: every entry must be a non-empty string`, item as Node);
        if (kind.type === 'globs') checkGlob(v, key, item as Node, fail);
        else checkRelative(v, key, item as Node, fail);
        return v;
      });
    }
  }
}

/** A name git accepts as a branch (check-ref-format's rules), optionally with its remote or refs/heads/ in front. */
function validBranch(name: string): boolean {
  return !/[\x00-\x20\x7f~^:?*[\\]|\.\.|@\{|\/\/|^[-/.]|\/\.|\.lock(\/|$)|[/.]$/.test(name) && name !== '@';
}

function checkRelative(p: string, key: string, node: Node | null, fail: Fail) {
  if (path.posix.isAbsolute(p) || p.split('/').includes('..') || p.includes('\0'))
    fail(`${key}: ${JSON.stringify(p)} must be a path relative to the repository root, without ..`, node);
}

/** A glob must stay inside the repository and compile. */
function checkGlob(glob: string, key: string, node: Node, fail: Fail) {
  const bad = (why: string) => fail(`${key}: bad glob ${JSON.stringify(glob)}: ${why}`, node);
  if (glob.startsWith('/') || glob.split('/').includes('..'))
    bad('globs are relative to the repository root, without ..');
  if (glob.startsWith('!')) bad('negated globs are not supported; list what belongs to the zone');
  if (!balanced(glob)) bad('unbalanced brackets or braces');
  try {
    micromatch.makeRe(glob, { strictBrackets: true });
  } catch (err) {
    bad((err as Error).message);
  }
}

function balanced(glob: string): boolean {
  const pairs: Record<string, string> = { ']': '[', '}': '{', ')': '(' };
  const stack: string[] = [];
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '[' || c === '{' || c === '(') stack.push(c);
    else if (c in pairs && stack.pop() !== pairs[c]) return false;
  }
  return stack.length === 0;
}

/** Listed zones come first, in the order written; the rest keep their defaults. */
function applyZones(config: Config, order: ZoneName[], globs: Record<ZoneName, string[]>) {
  const byName = new Map(config.zones.map((z) => [z.name, z.globs]));
  for (const name of order) byName.set(name, globs[name]);
  const names = [...order, ...config.zones.map((z) => z.name).filter((n) => !order.includes(n))];
  config.zones = names.map((name) => ({ name, globs: byName.get(name)! }));
}
