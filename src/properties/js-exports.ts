// The names a JavaScript or TypeScript module exports, read from its syntax
// tree (@babel/parser, through js-syntax.ts): ES exports, type exports, and
// CommonJS `exports.x =`, `module.exports.x =`, `module.exports = { x }`;
// with the members of its top-level classes as `Class.member`. What is only
// known at run time (`export * from`, `exports[name] =`) is not read: a
// symbol exported that way is never one the diff adds.
import type { Node } from '@babel/types';
import { parseScript } from './js-syntax.js';

export interface ScriptNames {
  /** The module's export names (`default` for a default export). */
  exports: Set<string>;
  /** `Class.member` for each member of a class declared at the top level. */
  members: Set<string>;
}

type Named = { type: string; name?: string; value?: string };
const nameOf = (n: Named | null | undefined): string | null =>
  n?.type === 'Identifier' ? n.name! : n?.type === 'StringLiteral' ? n.value! : null;

/** Every name a binding pattern binds (`const { a, b: [c] } = …`). */
function bound(n: Node | null | undefined, out: string[]): string[] {
  if (!n) return out;
  if (n.type === 'Identifier') out.push(n.name);
  else if (n.type === 'ObjectPattern')
    for (const p of n.properties) bound(p.type === 'RestElement' ? p.argument : (p.value as Node), out);
  else if (n.type === 'ArrayPattern') for (const e of n.elements) bound(e, out);
  else if (n.type === 'AssignmentPattern') bound(n.left, out);
  else if (n.type === 'RestElement') bound(n.argument, out);
  return out;
}

/** The names a declaration after `export` declares. */
function declared(d: Node): string[] {
  if (d.type === 'VariableDeclaration') return d.declarations.flatMap((v) => bound(v.id, []));
  const id = 'id' in d ? nameOf(d.id as Named) : null;
  return id ? [id] : [];
}

/** `exports.x` or `module.exports.x`: x; `module.exports`: '*'; else null. */
function commonjsTarget(n: Node): string | null {
  if (n.type !== 'MemberExpression' || n.computed) return null;
  const prop = nameOf(n.property as Named);
  const obj = n.object;
  if (obj.type === 'Identifier' && obj.name === 'module' && prop === 'exports') return '*';
  if (obj.type === 'Identifier' && obj.name === 'exports') return prop;
  return commonjsTarget(obj) === '*' ? prop : null;
}

function addMembers(c: Node, members: Set<string>): void {
  if (c.type !== 'ClassDeclaration' || !c.id) return;
  for (const m of c.body.body) {
    const key = 'computed' in m && !m.computed ? nameOf(m.key as Named) : null;
    if (key) members.add(`${c.id.name}.${key}`);
  }
}

function addStatement(s: Node, names: ScriptNames): void {
  const { exports, members } = names;
  if (s.type === 'ExportNamedDeclaration') {
    if (s.declaration) {
      for (const n of declared(s.declaration)) exports.add(n);
      addMembers(s.declaration, members);
    }
    for (const sp of s.specifiers) {
      const n = nameOf(sp.exported as Named);
      if (n) exports.add(n);
    }
  } else if (s.type === 'ExportDefaultDeclaration') {
    exports.add('default');
    addMembers(s.declaration, members);
  } else if (s.type === 'ExportAllDeclaration') {
    const n = nameOf((s as { exported?: Named }).exported);
    if (n) exports.add(n);
  } else if (s.type === 'ClassDeclaration') addMembers(s, members);
  else if (s.type === 'ExpressionStatement' && s.expression.type === 'AssignmentExpression') {
    const target = commonjsTarget(s.expression.left);
    if (target && target !== '*') exports.add(target);
    if (target === '*' && s.expression.right.type === 'ObjectExpression')
      for (const p of s.expression.right.properties) {
        const n = p.type !== 'SpreadElement' && !p.computed ? nameOf(p.key as Named) : null;
        if (n) exports.add(n);
      }
  }
}

/** What the file exports, or null when it is not JavaScript or TypeScript or does not parse. */
export async function scriptNames(file: string, bytes: Buffer): Promise<ScriptNames | null> {
  const program = await parseScript(file, bytes);
  if (!program) return null;
  const names: ScriptNames = { exports: new Set(), members: new Set() };
  for (const s of program.body) addStatement(s as Node, names);
  return names;
}
