// Writing the ledger: a row added or expired rows dropped, the rest of the
// file (comments, order, other rows) left as the human wrote it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { defaults } from '../../src/config/schema.js';
import { addRow, dropRows, newLedger } from '../../src/freeze/edit.js';
import { parseLedger } from '../../src/freeze/ledger.js';

const NOW = new Date('2026-12-02T00:00:00Z');
const config = defaults();
const parse = (text: string, source = 'freeze/signatures.yaml') => parseLedger(text, source, config, NOW);
const fields = (sig: string) => ({
  sig,
  reason: 'flaky clock',
  owner: 'qa',
  issued: '2026-12-02T00:00:00Z',
  expires: '2026-12-05T00:00:00Z',
});

const LEDGER = `# Freeze ledger, reviewed by qa
version: 1
records:
  # header of the list

  # leap smear hosts
  - sig: 7c1a9e2b44d0af13
    reason: clock skew on leap-smear hosts
    owner: parser-team
    expires: 2026-12-09T00:00:00Z

  # QA-4412: remote runners only
  - sig: 1234567890123456
    reason: "network: sometimes slow"
    owner: infra
    expires: 2026-11-01T00:00:00Z
    seed: 0012

  - sig: abcdefabcdefabcd
    reason: third
    owner: infra
    expires: 2026-12-10T00:00:00Z
# end of ledger
`;

const comments = (text: string) =>
  text
    .split('\n')
    .filter((l) => l.trim().startsWith('#'))
    .map((l) => l.trim());

test('a new ledger has the version it is made with, and takes the row', () => {
  const text = addRow(newLedger(1), false, fields('00000000000000aa'));
  assert.match(text, /^# Freeze ledger/);
  const l = parse(text);
  assert.equal(l.problems, []);
  assert.is(l.rows.length, 1);
  assert.is(l.rows[0].sig, '00000000000000aa');
  assert.match(text, /\nversion: 1\n/);
});

test('adding keeps every comment and row, and appends the new one last', () => {
  const text = addRow(LEDGER, false, { ...fields('00000000000000aa'), seed: '20260917', last_name: 'test_x[a-b]' });
  assert.equal(comments(text), comments(LEDGER));
  const l = parse(text);
  assert.equal(
    l.rows.map((r) => r.sig),
    ['7c1a9e2b44d0af13', '1234567890123456', 'abcdefabcdefabcd', '00000000000000aa'],
  );
  assert.is(l.rows[1].seed, '0012');
  assert.is(l.rows[1].reason, 'network: sometimes slow');
  assert.is(l.rows[3].seed, '20260917');
  assert.is(l.rows[3].last_name, 'test_x[a-b]');
  // The rows above are byte for byte as they were.
  assert.ok(text.startsWith(LEDGER.slice(0, LEDGER.indexOf('# end of ledger'))), text);
});

test('adding to `records: []` or a ledger with no records key writes a block list', () => {
  for (const start of ['version: 1\nrecords: []\n', 'version: 1\n', 'version: 1\nrecords:\n']) {
    const text = addRow(start, false, fields('00000000000000aa'));
    assert.match(text, /records:\n {2}- sig: 00000000000000aa\n/);
    assert.is(parse(text).rows.length, 1);
  }
});

test('dropping a row drops its own comment and keeps the others', () => {
  const text = dropRows(LEDGER, false, new Set([1]));
  assert.not.match(text, /QA-4412|1234567890123456/);
  assert.equal(
    comments(text),
    comments(LEDGER).filter((c) => !c.includes('QA-4412')),
  );
  assert.equal(
    parse(text).rows.map((r) => r.sig),
    ['7c1a9e2b44d0af13', 'abcdefabcdefabcd'],
  );
});

test('dropping the first row keeps the header set apart by a blank line', () => {
  const text = dropRows(LEDGER, false, new Set([0]));
  assert.not.match(text, /leap smear/);
  assert.equal(
    comments(text),
    comments(LEDGER).filter((c) => !c.includes('leap smear')),
  );
  assert.equal(
    parse(text).rows.map((r) => r.sig),
    ['1234567890123456', 'abcdefabcdefabcd'],
  );
});

test('dropping every row leaves an empty ledger that still reads', () => {
  const text = dropRows(LEDGER, false, new Set([0, 1, 2]));
  const l = parse(text);
  assert.equal(l.rows, []);
  assert.equal(l.problems, []);
  assert.ok(comments(text).includes('# header of the list'));
  assert.ok(comments(text).includes('# Freeze ledger, reviewed by qa'));
});

test('a .json ledger stays JSON of the same shape', () => {
  const start = JSON.stringify({ version: 1, records: [fields('7c1a9e2b44d0af13')] });
  const added = addRow(start, true, { ...fields('00000000000000aa'), seed: '42' });
  const data = JSON.parse(added);
  assert.is(data.records.length, 2);
  assert.is(data.records[1].seed, 42);
  assert.is(parse(added, 'l.json').rows.length, 2);
  const dropped = JSON.parse(dropRows(added, true, new Set([0])));
  assert.equal(
    dropped.records.map((r: { sig: string }) => r.sig),
    ['00000000000000aa'],
  );
  assert.is(JSON.parse(addRow(newLedger(1, true), true, fields('00000000000000aa'))).version, 1);
});

test.run();
