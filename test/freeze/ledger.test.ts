// The ledger's rules, straight on parseLedger: each break names its row's line,
// and text that is not a ledger at all cannot be judged.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CannotJudge } from '../../src/common/errors.js';
import { defaults, type Config } from '../../src/config/schema.js';
import { parseLedger } from '../../src/freeze/ledger.js';

const NOW = new Date('2026-12-02T00:00:00Z');
const config = defaults();
const SIG = '7c1a9e2b44d0af13';

function ledger(rows: string, cfg: Config = config, source = 'freeze/signatures.yaml') {
  return parseLedger(`version: 1\nrecords:\n${rows}`, source, cfg, NOW);
}
function row(fields: Record<string, string>): string {
  return Object.entries(fields)
    .map(([k, v], i) => `${i ? '    ' : '  - '}${k}: ${v}\n`)
    .join('');
}
const good = { sig: SIG, reason: 'clock skew', owner: 'parser-team', expires: '2026-12-09T00:00:00Z' };
function onlyProblem(text: string, cfg?: Config): string {
  const l = ledger(text, cfg);
  assert.is(l.problems.length, 1, JSON.stringify(l.problems));
  assert.is(l.problems[0].rule, 'ledger');
  assert.equal(l.problems[0].paths, ['freeze/signatures.yaml']);
  return l.problems[0].message;
}
function cannot(text: string, source = 'freeze/signatures.yaml'): CannotJudge {
  try {
    parseLedger(text, source, config, NOW);
  } catch (err) {
    assert.instance(err, CannotJudge);
    return err as CannotJudge;
  }
  throw new Error('expected CannotJudge');
}

test('a sound ledger gives its rows with lines, values as written', () => {
  const l = ledger(
    row(good) +
      row({
        ...good,
        sig: '1234567890123456',
        issued: '2026-12-01T00:00:00Z',
        seed: '0012',
        last_name: 'test_roundtrip',
        fixture: 'a1b2c3d4e5f60789',
      }),
  );
  assert.equal(l.problems, []);
  assert.is(l.rows.length, 2);
  assert.is(l.rows[0].line, 3);
  assert.is(l.rows[1].line, 7);
  assert.is(l.rows[1].sig, '1234567890123456');
  assert.is(l.rows[1].seed, '0012');
  assert.is(l.rows[1].issued!.toISOString(), '2026-12-01T00:00:00.000Z');
  assert.is(l.rows[0].expires.toISOString(), '2026-12-09T00:00:00.000Z');
});

test('an expired row is still a sound row', () => {
  const l = ledger(row({ ...good, expires: '2026-11-01T00:00:00Z' }));
  assert.equal(l.problems, []);
  assert.is(l.rows.length, 1);
});

test('version alone, or records left empty, is a ledger with no rows', () => {
  assert.is(parseLedger('version: 1\n', 'l.yaml', config, NOW).rows.length, 0);
  assert.is(parseLedger('version: 1\nrecords:\n', 'l.yaml', config, NOW).rows.length, 0);
  assert.is(parseLedger('version: 1\nrecords: []\n', 'l.yaml', config, NOW).rows.length, 0);
});

test('a row without sig', () => {
  const { sig: _, ...rest } = good;
  assert.match(onlyProblem(row(rest)), /^freeze\/signatures\.yaml:3: the row has no sig$/);
});

test('a row keyed by a test name or node id alone', () => {
  const { sig: _, ...rest } = good;
  assert.match(
    onlyProblem(row({ name: 'test_roundtrip', ...rest })),
    /:3: the row is keyed by a test name or node id alone \(`name`\)/,
  );
  assert.match(
    onlyProblem(row({ nodeid: 'tests/test_a.py::test_x', ...rest })),
    /keyed by a test name or node id alone \(`nodeid`\)/,
  );
  assert.match(
    onlyProblem(row({ last_name: 'test_roundtrip', ...rest })),
    /keyed by a test name or node id alone \(`last_name`\)/,
  );
});

test('a sig that is a test id, not a signature', () => {
  assert.match(
    onlyProblem(row({ ...good, sig: 'tests/test_a.py::test_x' })),
    /:3: sig "tests\/test_a\.py::test_x" is a test name or node id/,
  );
  assert.match(onlyProblem(row({ ...good, sig: 'test_roundtrip' })), /is a test name or node id/);
});

test('a sig that is not lowercase hex of signature.length', () => {
  assert.match(onlyProblem(row({ ...good, sig: SIG.toUpperCase() })), /sig "7C1A9E2B44D0AF13" must be lowercase/);
  assert.match(
    onlyProblem(row({ ...good, sig: SIG.slice(0, 12) })),
    /must be 16 lowercase hex digits \(signature\.length\)/,
  );
  assert.match(onlyProblem(row({ ...good, sig: SIG.slice(0, 15) + 'z' })), /must be 16 lowercase hex digits/);
  const eight = { ...config, signature: { ...config.signature, length: 8 } };
  assert.is(ledger(row({ ...good, sig: SIG.slice(0, 8) }), eight).problems.length, 0);
  assert.match(onlyProblem(row(good), eight), /must be 8 lowercase hex digits/);
});

test('a test key beside a sig is refused: names are metadata, written as last_name', () => {
  assert.match(onlyProblem(row({ ...good, test: 'test_x' })), /`test` is not a ledger key/);
});

test('missing reason, owner or expires, and empty or null values count as missing', () => {
  for (const key of ['reason', 'owner', 'expires'] as const) {
    const rest: Record<string, string> = { ...good };
    delete rest[key];
    assert.match(onlyProblem(row(rest)), new RegExp(`:3: the row has no ${key}`));
    assert.match(onlyProblem(row({ ...good, [key]: '~' })), new RegExp(`the row has no ${key}`));
    assert.match(onlyProblem(row({ ...good, [key]: '""' })), new RegExp(`the row has no ${key}`));
  }
});

test('times must be ISO 8601 UTC, real dates', () => {
  assert.match(
    onlyProblem(row({ ...good, expires: 'next tuesday' })),
    /expires "next tuesday" is not an ISO 8601 UTC time/,
  );
  assert.match(onlyProblem(row({ ...good, expires: '2026-12-09T00:00:00+02:00' })), /is not an ISO 8601 UTC time/);
  assert.match(onlyProblem(row({ ...good, expires: '2026-02-30' })), /is not an ISO 8601 UTC time/);
  assert.match(onlyProblem(row({ ...good, issued: 'yesterday' })), /issued "yesterday" is not/);
  assert.is(ledger(row({ ...good, expires: '2026-12-09' })).problems.length, 0);
});

test('an expiry further than freeze.max_ttl from issued or from now', () => {
  assert.match(
    onlyProblem(row({ ...good, issued: '2026-10-01T00:00:00Z', expires: '2026-12-03T00:00:00Z' })),
    /:3: expires is further than freeze\.max_ttl \(30d\) from issued/,
  );
  assert.match(
    onlyProblem(row({ ...good, expires: '2027-06-01T00:00:00Z' })),
    /expires is further than freeze\.max_ttl \(30d\) from now/,
  );
  assert.match(onlyProblem(row({ ...good, issued: '2026-12-10T00:00:00Z' })), /expires is before issued/);
  // Exactly max_ttl is allowed.
  assert.is(ledger(row({ ...good, expires: '2027-01-01T00:00:00Z' })).problems.length, 0);
  const short = { ...config, freeze: { ...config.freeze, max_ttl: 3 * 86_400_000 } };
  assert.match(onlyProblem(row(good), short), /max_ttl \(3d\) from now/);
});

test('a repeated sig names both rows', () => {
  const l = ledger(row(good) + row({ ...good, owner: 'other' }));
  assert.is(l.problems.length, 1);
  assert.match(l.problems[0].message, /:7: sig 7c1a9e2b44d0af13 repeats the row at line 3/);
  assert.is(l.rows.length, 1);
});

test('unknown keys, values that are lists, rows that are not mappings, malformed fixture ids', () => {
  assert.match(onlyProblem(row({ ...good, expire: 'x' })), /unknown key `expire` in the row/);
  assert.match(onlyProblem(row({ ...good, owner: '[a, b]' })), /`owner` must be a single value, not a list/);
  assert.match(onlyProblem('  - just a string\n'), /:3: a row must be a mapping/);
  assert.match(
    onlyProblem(row({ ...good, fixture: 'fixtures/input/a.json' })),
    /fixture "fixtures\/input\/a\.json" must be a fixture id/,
  );
});

test('every broken row is reported, each by its own line', () => {
  const l = ledger(
    row({ ...good, owner: '~' }) +
      row({ ...good, sig: 'abc' }) +
      row({ ...good, sig: '0000000000000000', reason: '~' }),
  );
  assert.equal(
    l.problems.map((p) => p.message.split(':')[1]),
    ['3', '7', '11'],
  );
  assert.equal(
    l.problems.map((p) => p.detail![0].note),
    ['line 3', 'line 7', 'line 11'],
  );
});

test('unknown or missing version, unknown top-level keys, records not a list: cannot judge', () => {
  let e = cannot('version: 4\nrecords: []\n');
  assert.match(
    e.describe(),
    /^freeze\/signatures\.yaml:1: unknown version "4"; this patchwarden reads versions 1, 2 and 3$/,
  );
  e = cannot('records: []\n');
  assert.match(e.describe(), /missing `version: 2` \(or 1\)/);
  e = cannot('version: 1\nrows: []\n');
  assert.match(e.describe(), /:2: unknown key `rows`/);
  e = cannot('version: 1\nrecords: nope\n');
  assert.match(e.describe(), /:2: `records` must be a list/);
  e = cannot('');
  assert.match(e.describe(), /must be a mapping/);
});

test('text that is not YAML names file and line', () => {
  const e = cannot('version: 1\nrecords:\n  - sig: "unterminated\n    owner: x\n');
  assert.match(e.describe(), /^freeze\/signatures\.yaml:\d+: not valid YAML: /);
  const dup = cannot(`version: 1\nrecords:\n  - sig: ${SIG}\n    sig: ${SIG}\n`);
  assert.match(dup.describe(), /^freeze\/signatures\.yaml:4: not valid YAML: Map keys must be unique/);
  const tab = cannot('version: 1\nrecords:\n\t- sig: x\n');
  assert.match(tab.describe(), /:3: not valid YAML/);
});

test('a YAML alias bomb is refused before it expands', () => {
  const levels = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  for (let i = 1; i < 9; i++)
    levels.push(
      `${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9)
        .fill('*' + String.fromCharCode(96 + i))
        .join(',')}]`,
    );
  const e = cannot(`version: 1\n${levels.join('\n')}\nrecords: []\n`);
  assert.match(e.describe(), /^freeze\/signatures\.yaml: cannot be read: Excessive alias count/);
});

test('a few plain aliases are fine: an owner written once', () => {
  const l = parseLedger(
    `version: 1\nrecords:\n  - sig: ${SIG}\n    owner: &team parser-team\n    reason: r\n    expires: 2026-12-09T00:00:00Z\n  - sig: ${SIG.replace('7', '8')}\n    owner: *team\n    reason: r\n    expires: 2026-12-09T00:00:00Z\n`,
    'l.yaml',
    config,
    NOW,
  );
  assert.equal(l.problems, []);
  assert.is(l.rows[1].owner, 'parser-team');
});

test('a .json ledger of the same shape, its lines, and JSON that is not JSON', () => {
  const text = JSON.stringify({ version: 1, records: [{ ...good }, { ...good, sig: 'ABC', seed: 12 }] }, null, 2);
  const l = parseLedger(text, 'freeze/signatures.json', config, NOW);
  assert.is(l.rows.length, 1);
  assert.is(l.problems.length, 1);
  assert.match(l.problems[0].message, /^freeze\/signatures\.json:10: sig "ABC" must be 16 lowercase hex/);
  const e = cannot('{\n  "version": 1,\n  "records": [],\n}\n', 'freeze/signatures.json');
  assert.match(e.describe(), /^freeze\/signatures\.json:4: not valid JSON/);
  // YAML that is not JSON is refused in a .json ledger.
  assert.match(cannot('version: 1\nrecords: []\n', 'freeze/signatures.json').describe(), /not valid JSON/);
});

test.run();
