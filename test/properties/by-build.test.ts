// Reading a Go build failure: which errors name a missing symbol, and which
// say anything else (each of those keeps a reverted run revert_broken).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { goBuildErrors, missingSymbol } from '../../src/properties/by-build.js';

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

test.run();
