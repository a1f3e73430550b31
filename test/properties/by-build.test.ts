// Reading a Go build failure, and a JavaScript or TypeScript one: which
// errors name a missing symbol, and which say anything else (each of those
// keeps a reverted run revert_broken); and what a script exports.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { scriptBuildErrors, scriptOwns } from '../../src/properties/by-build-js.js';
import { goBuildErrors, missingSymbol } from '../../src/properties/by-build-go.js';
import { scriptNames } from '../../src/properties/js-exports.js';

test('go build errors are read from go test and gotestsum output, each once', () => {
  const out = `# example.com/shop/spec/properties [example.com/shop/spec/properties.test]
spec/properties/double_test.go:11:11: undefined: bill.Double
./spec/properties/ledger_test.go:14:4: l.Sum undefined (type *bill.Ledger has no field or method Sum)
FAIL\texample.com/shop/spec/properties [build failed]

=== Errors
spec/properties/double_test.go:11:11: undefined: bill.Double
`;
  assert.equal(goBuildErrors(out), [
    { file: 'spec/properties/double_test.go', message: 'undefined: bill.Double' },
    {
      file: 'spec/properties/ledger_test.go',
      message: 'l.Sum undefined (type *bill.Ledger has no field or method Sum)',
    },
  ]);
  // No package failed to build: nothing to read, whatever lines look like errors.
  assert.is(goBuildErrors('spec/a_test.go:1:1: undefined: bill.X\nok  \texample.com/shop\n'), null);
});

test('only undefined names and missing methods name a symbol', () => {
  assert.is(missingSymbol('undefined: bill.Double'), 'bill.Double');
  assert.is(missingSymbol('undefined: Double'), '.Double');
  assert.is(missingSymbol('l.Sum undefined (type bill.Ledger has no field or method Sum)'), 'bill.Ledger.Sum');
  assert.is(
    missingSymbol('l.Sum undefined (type *bill.Ledger[int] has no field or method Sum, but does have method sum)'),
    'bill.Ledger.Sum',
  );
  for (const other of [
    'too many arguments in call to bill.Total',
    'not enough arguments in call to bill.Total',
    'cannot use x (variable of type int) as string value in argument to bill.Name',
    'too many errors',
    '"example.com/shop/bill" imported and not used',
  ])
    assert.is(missingSymbol(other), null, other);
});

test("node's ESM link error is read with the file named above it; tsc's diagnostics in both its formats", () => {
  const node = `file:///tmp/run/tree/spec/properties/double.test.mjs:3
import { double } from '../../src/bill.mjs';
         ^^^^^^
SyntaxError: The requested module '../../src/bill.mjs' does not provide an export named 'double'
    at ModuleJob._instantiate (node:internal/modules/esm/module_job:213:21)
`;
  assert.equal(scriptBuildErrors(node), [
    {
      file: '/tmp/run/tree/spec/properties/double.test.mjs',
      missing: { module: '../../src/bill.mjs', name: 'double' },
    },
  ]);
  const esc = String.fromCharCode(27);
  const tsc = `spec/a.test.ts(1,10): error TS2305: Module '"../src/bill.js"' has no exported member 'double'.
spec/a.test.ts(2,10): error TS2724: '"../src/bill.js"' has no exported member named 'totl'. Did you mean 'total'?
spec/a.test.ts(5,6): error TS2339: Property 'triple' does not exist on type 'typeof import("/tmp/t/src/bill")'.
    spec/a.test.ts:6:14 - error TS2339: Property 'sum' does not exist on type 'Ledger<number>'.
${esc}[96mspec/b.test.ts${esc}[0m:${esc}[93m1${esc}[0m:${esc}[93m10${esc}[0m - ${esc}[91merror${esc}[0m${esc}[90m TS2554: ${esc}[0mExpected 1 arguments, but got 2.
error TS5083: Cannot read file 'tsconfig.json'.
`;
  assert.equal(scriptBuildErrors(tsc), [
    { file: 'spec/a.test.ts', missing: { module: '../src/bill.js', name: 'double' } },
    { file: 'spec/a.test.ts', missing: { module: '../src/bill.js', name: 'totl' } },
    { file: 'spec/a.test.ts', missing: { module: '/tmp/t/src/bill', name: 'triple' } },
    { file: 'spec/a.test.ts', missing: { member: 'Ledger.sum' } },
    { file: 'spec/b.test.ts', missing: null },
    { file: null, missing: null },
  ]);
  // An assertion, or `is not a function` (anything can throw it), is no load error.
  assert.is(scriptBuildErrors('TypeError: double is not a function\nAssertionError [ERR_ASSERTION]: 3 == 4\n'), null);
});

test("a script's property file is an invariant's when it names the id whole", () => {
  const inv = (id: string) => ({ id, status: 'failed' as const, cases: [], outcomes: [], case_count: 0 });
  const source = "test('[invariant:bill.double] doubles', () => {});\nconst other = 'bill.total_x';\n";
  assert.ok(scriptOwns(source, inv('bill.double')));
  assert.not.ok(scriptOwns(source, inv('bill.d')));
  assert.not.ok(scriptOwns(source, inv('bill.total')));
});

test('a script exports its ES, type and CommonJS names; its top-level classes their members', async () => {
  const ts = `export function a() {}\nexport const b = 1, { c, d: [e] } = o;\nexport class K { m() {} p = 1; #q = 2; static s() {} }\nexport type T = 1;\nexport interface I {}\nexport enum E { X }\nconst f = 1;\nexport { f as g, f as 'h' };\nexport * as ns from './x';\nexport * from './y';\nexport default 1;\nclass L { n() {} }\n`;
  const names = await scriptNames('src/a.ts', Buffer.from(ts));
  assert.equal([...names!.exports].sort(), ['E', 'I', 'K', 'T', 'a', 'b', 'c', 'default', 'e', 'g', 'h', 'ns']);
  assert.equal([...names!.members].sort(), ['K.m', 'K.p', 'K.s', 'L.n']);
  const cjs = 'exports.a = 1;\nmodule.exports.b = 2;\nmodule.exports = { c, d: 1, ...rest };\nexports[name] = 3;\n';
  assert.equal([...(await scriptNames('src/a.cjs', Buffer.from(cjs)))!.exports].sort(), ['a', 'b', 'c', 'd']);
  assert.is(await scriptNames('src/a.js', Buffer.from('export const = ;')), null);
  assert.is(await scriptNames('src/a.go', Buffer.from('package a')), null);
});

test.run();
