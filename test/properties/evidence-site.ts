// A guarded project for the evidence flows: a bare server with the installed
// hook, a clone with the pre-push hook, and real pytest (or node --test)
// properties. `total` holds on the base; `discount` is the bug an owner's
// property describes (price 150 gives a negative discount).
import { chmodSync, copyFileSync } from 'node:fs';
import path from 'node:path';
import * as assert from 'uvu/assert';
import { site, type Site } from '../attacks/range-site.js';
import { advice, follow, ownerEnv } from '../helpers/advice.js';
import { PROJECT, type Run, type TempRepo } from '../helpers/repo.js';
import { NODE_TEST, PYTEST } from './projects.js';

export const TOTAL = 'bill.total_non_negative';
export const DISCOUNT = 'bill.discount_non_negative';
export const AGENT = 'coder[bot]@agents.example.com';
export const TODAY = new Date().toISOString().slice(0, 10);

export const BILL = 'def total(xs):\n    return sum(xs)\n\n\ndef discount(price):\n    return 100 - price\n';
export const BILL_FIXED = BILL.replace('return 100 - price', 'return max(0, 100 - price)');

const ids = (id: string, names: string[]) => JSON.stringify(names.map((n) => `[invariant:${id}]-${n}`));

export const PY_TOTAL = `import pytest\nfrom bill import total\n\n\n@pytest.mark.parametrize('xs', [[], [1, 2], [0, 5]], ids=${ids(TOTAL, ['empty', 'two', 'zero'])})\ndef test_total(xs):\n    assert total(xs) >= 0\n`;
export const PY_DISCOUNT = `import pytest\nfrom bill import discount\n\n\n@pytest.mark.parametrize('price', [0, 50, 150], ids=${ids(DISCOUNT, ['0', '50', '150'])})\ndef test_discount(price):\n    assert discount(price) >= 0\n`;

export const JS_BILL =
  'export const total = (xs) => xs.reduce((a, b) => a + b, 0);\nexport const discount = (price) => 100 - price;\n';
export const JS_BILL_FIXED = JS_BILL.replace('100 - price', 'Math.max(0, 100 - price)');
export const JS_TOTAL = `import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { total } from '../../src/bill.mjs';\n\nfor (const xs of [[], [1, 2]]) test(\`total of \${xs.length} [invariant:${TOTAL}]\`, () => assert.ok(total(xs) >= 0));\n`;
export const JS_DISCOUNT = `import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { discount } from '../../src/bill.mjs';\n\nfor (const price of [0, 50, 150]) test(\`discount at \${price} [invariant:${DISCOUNT}]\`, () => assert.ok(discount(price) >= 0));\n`;

export interface Row {
  id: string;
  pending?: { since?: string; owner: string; reason: string };
}

export function registryOf(rows: Row[]): string {
  return `version: 1\ninvariants:\n${rows.map((r) => `  - id: ${r.id}\n    description: ${r.id} holds\n${r.pending ? `    pending: {since: ${r.pending.since ?? TODAY}, owner: ${r.pending.owner}, reason: ${r.pending.reason}}\n` : ''}`).join('')}`;
}

export const MARK = { owner: 'Dana Owner', reason: 'discounts above the price go negative' };

export type Lang = 'py' | 'js';

export function configFor(lang: Lang, extra = ''): string {
  const command = lang === 'py' ? PYTEST : NODE_TEST;
  return `version: 1\nproperties:\n  command: ${JSON.stringify(command)}\n  invariants: spec/invariants.yaml\n${extra}`;
}

/** The project's files on main: `total` registered; `discount` too when `pending` (marked, red on the base). */
export function projectFiles(lang: Lang, opts: { pending?: boolean } = {}): Record<string, string> {
  const rows: Row[] = [{ id: TOTAL }, ...(opts.pending ? [{ id: DISCOUNT, pending: MARK }] : [])];
  const common = { '.gitignore': '__pycache__/\n*.pyc\n.pytest_cache/\n', 'spec/invariants.yaml': registryOf(rows) };
  if (lang === 'py') {
    return {
      ...common,
      'pytest.ini': '[pytest]\npythonpath = src\n',
      'src/bill.py': BILL,
      'spec/properties/test_total.py': PY_TOTAL,
      ...(opts.pending ? { 'spec/properties/test_discount.py': PY_DISCOUNT } : {}),
    };
  }
  return {
    ...common,
    'src/bill.mjs': JS_BILL,
    'spec/properties/total.test.mjs': JS_TOTAL,
    ...(opts.pending ? { 'spec/properties/discount.test.mjs': JS_DISCOUNT } : {}),
  };
}

export const SRC = (lang: Lang) => (lang === 'py' ? 'src/bill.py' : 'src/bill.mjs');

/** A site whose main holds the project; the site's own sample files are left out of the property run. */
export function evidenceSite(
  lang: Lang,
  opts: { pending?: boolean; config?: string; files?: Record<string, string> } = {},
): Site {
  return site(opts.config ?? configFor(lang), { ...projectFiles(lang, opts), ...opts.files });
}

/** `gate --base origin/main --format json` after a fetch, with each layer by name. */
export function gate(
  work: TempRepo,
  env: NodeJS.ProcessEnv = {},
): { code: number; layers: Record<string, any>; out: Record<string, any>; stderr: string } {
  work.git(['fetch', '-q', 'origin']);
  const r = work.json(['gate', '--base', 'origin/main'], { env });
  return { ...r, layers: Object.fromEntries(r.out.layers.map((l: any) => [l.layer, l])) };
}

/** A commit with the given author and committer address, hooks skipped. */
export function commitBy(work: TempRepo, email: string, files: Record<string, string>, message: string): string {
  for (const [f, c] of Object.entries(files)) work.write(f, c);
  work.git(['add', '-A']);
  work.git(['commit', '-q', '--no-verify', '-m', message], {
    env: { GIT_AUTHOR_EMAIL: email, GIT_COMMITTER_EMAIL: email, GIT_AUTHOR_NAME: 'Coder', GIT_COMMITTER_NAME: 'Coder' },
  });
  return work.head();
}

/**
 * A new function and its property in one commit, on a branch `double` off
 * origin/main: pre-commit refuses it with the split advice, which is run as
 * printed with the owner's key (`ownerKey`, for owner@example.com). The gate
 * after it: the compiled languages' new-API tests assert what it proves.
 */
export function splitAsAdvised(
  work: TempRepo,
  ownerKey: string,
  files: Record<string, string>,
): ReturnType<typeof gate> {
  const hook = path.join(work.dir, '.git/hooks/pre-commit');
  copyFileSync(path.join(PROJECT, 'hooks/pre-commit'), hook);
  chmodSync(hook, 0o755);
  work.git(['switch', '-q', '-C', 'double', 'origin/main']);
  for (const [f, c] of Object.entries(files)) work.write(f, c);
  work.git(['add', '-A']);
  const r = work.git(['commit', '-q', '-m', 'double, with its property'], { allowFail: true });
  assert.is(r.code, 1, r.stdout + r.stderr);
  assert.match(r.stderr, 'split it: an owner signs the oracle commit');
  follow(work.dir, ownerEnv(work.env, 'owner@example.com', ownerKey), advice(r.stderr));
  return gate(work);
}

export function ok(r: Run): void {
  assert.is(r.code, 0, r.stdout + r.stderr);
}
