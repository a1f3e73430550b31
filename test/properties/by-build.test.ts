// Reading a Go build failure, and a JavaScript or TypeScript one: which
// errors name a missing symbol, and which say anything else (each of those
// keeps a reverted run revert_broken); and what a script exports.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { scriptBuildErrors, scriptOwns } from '../../src/properties/by-build-js.js';
import { goBuildErrors, missingSymbol } from '../../src/properties/by-build-go.js';
import { rustBuildErrors, rustMissing, rustNames, rustOwns } from '../../src/properties/by-build-rust.js';
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

test('cargo build errors are read with the file of their --> line, only where cargo says the build failed', () => {
  const out = `   Compiling shop v0.1.0 (/tmp/t/tree)
error[E0432]: unresolved import \`shop::bill::double\`
 --> spec/properties.rs:1:5
  |
1 | use shop::bill::double;
  |     ^^^^^^^^^^^^^^^^^^ no \`double\` in \`bill\`

warning: unused import: \`shop::bill\`
 --> spec/properties.rs:2:5
error[E0599]: no method named \`sum\` found for struct \`shop::bill::Ledger\` in the current scope
  --> spec/properties.rs:8:47
error: linking with \`cc\` failed: exit status: 1
error: could not compile \`shop\` (test "properties") due to 3 previous errors; 1 warning emitted
`;
  assert.equal(rustBuildErrors(out), [
    { file: 'spec/properties.rs', line: 1, message: '[E0432]unresolved import `shop::bill::double`' },
    {
      file: 'spec/properties.rs',
      line: 8,
      message: '[E0599]no method named `sum` found for struct `shop::bill::Ledger` in the current scope',
    },
    { file: null, line: null, message: 'linking with `cc` failed: exit status: 1' },
  ]);
  // Tests that ran and failed are no build failure.
  assert.is(rustBuildErrors('error: test failed, to rerun pass `--test properties`\n'), null);
});

test('only missing names, imports, methods and associated items name a Rust symbol', () => {
  const cases: [string, string | null][] = [
    ['[E0425]cannot find function `double` in module `shop::bill`', 'double'],
    ['[E0425]cannot find function `double` in crate `shop`', 'double'],
    ['[E0425]cannot find type `Money` in this scope', 'Money'],
    ['[E0412]cannot find type `Money` in this scope', 'Money'],
    ['[E0422]cannot find struct, variant or union type `Wallet` in module `shop::bill`', 'Wallet'],
    ['[E0432]unresolved import `crate::bill::double`', 'double'],
    ['[E0433]cannot find `cart` in `shop`', 'cart'],
    ['[E0433]failed to resolve: use of undeclared type `Ledger`', 'Ledger'],
    ['[E0599]no method named `sum` found for struct `shop::bill::Ledger<i64>` in the current scope', 'Ledger.sum'],
    [
      '[E0599]no function or associated item named `empty` found for struct `Ledger` in the current scope',
      'Ledger.empty',
    ],
    ['[E0599]`Ledger` is not an iterator', null],
    ['[E0061]this function takes 1 argument but 2 arguments were supplied', null],
    ['[E0308]mismatched types', null],
    ['[E0609]no field `ys` on type `shop::bill::Ledger`', null],
    ['linking with `cc` failed: exit status: 1', null],
  ];
  for (const [message, symbol] of cases) assert.is(rustMissing(message), symbol, message);
});

test("a Rust source's public names: pub items, an inherent impl's pub fns, a trait impl's fns; comments and strings are no code", () => {
  const src = `pub mod bill {
    pub fn total(xs: &[i64]) -> i64 { xs.iter().sum() }
    fn private() {}
    pub(crate) const LIMIT: i64 = 3;
    pub struct Ledger<T> { pub xs: Vec<T> }
    impl<T: Clone> Ledger<T> where T: Copy {
        pub fn new() -> Self { let s = "}"; Ledger { xs: vec![] } }
        fn hidden(&self) { fn inner() {} }
        pub async unsafe fn later(&self) {}
    }
    impl std::fmt::Display for Ledger<i64> { fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result { Ok(()) } }
    // pub fn commented() {}
    /* pub fn blocked() {} */
    pub fn iter() -> impl Iterator<Item = u8> { let c = '{'; std::iter::empty() }
    pub trait Scale { fn scale(&self) -> i64; }
}
`;
  assert.equal([...rustNames(src)].sort(), [
    'LIMIT',
    'Ledger',
    'Ledger.fmt',
    'Ledger.later',
    'Ledger.new',
    'Scale',
    'bill',
    'iter',
    'total',
  ]);
});

test("a Rust property file is an invariant's when it declares its cases' module or names its token", () => {
  const inv = (id: string, ...names: string[]) => ({
    id,
    status: 'failed' as const,
    cases: names,
    outcomes: names.map((name) => ({ key: name, name, outcome: 'passed' as const })),
    case_count: 0,
  });
  const src =
    'use shop::bill;\nmod invariant_bill__double {\n    #[test]\n    fn doubles() {}\n}\n// mod invariant_bill__total {\n';
  const double = inv('bill.double', 'invariant_bill__double::doubles');
  assert.ok(rustOwns(src, double, 4));
  assert.not.ok(rustOwns(src, double, 1), "a use at the top is no invariant's");
  assert.not.ok(rustOwns(src, double, 6));
  assert.not.ok(rustOwns(src, inv('bill.total', 'invariant_bill__total::sums'), 6));
  assert.ok(rustOwns('fn doubles() {}\n', double, 1, 'spec/invariant_bill__double.rs'));
  assert.ok(rustOwns('fn doubles() {}\n', double, 1, 'spec/invariant_bill__double/mod.rs'));
  assert.not.ok(rustOwns('fn doubles() {}\n', double, 1, 'spec/x_invariant_bill__double.rs'));
  assert.ok(rustOwns('Trial::test("[invariant:bill.total]", f)', inv('bill.total', '[invariant:bill.total]')));
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
