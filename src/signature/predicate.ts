// The assertion behind a failure: its kind and its predicate, the text the
// assertion library generates from the comparison itself. A user's prose
// (`assert x == y, "tax included"`) is dropped where the runner reports
// both, so rewording a message keeps the signature.

export type Kind =
  | 'equal'
  | 'not_equal'
  | 'approx'
  | 'truthy'
  | 'contains'
  | 'match'
  | 'type'
  | 'raises'
  | 'compare'
  | 'called'
  | 'unknown';

export interface Assertion {
  kind: Kind;
  /** The predicate that stands for the assertion in the signature; null when there is none. */
  predicate: string | null;
}

const NONE: Assertion = { kind: 'unknown', predicate: null };

/** Recognizes the assertion from the exception and its message (and the text, for runners that keep it there). */
export function assertion(exc: string, message: string, text: string): Assertion {
  for (const rule of RULES) {
    const found = rule(exc, message, text);
    if (found) return found;
  }
  return NONE;
}

type Rule = (exc: string, message: string, text: string) => Assertion | null;

// pytest's rewritten assert: `assert 18 == 19` then `+  where 18 = total(1)` lines.
const pytestAssert: Rule = (_exc, message) => {
  const lines = message.split('\n');
  const at = lines.findIndex((l) => /^\s*assert\s/.test(l));
  if (at === -1) return null;
  const where = [];
  for (const l of lines.slice(at + 1)) {
    if (/^\s*\+\s+(?:where|and)\b/.test(l)) where.push(l.trim());
    else break;
  }
  const head = lines[at].trim();
  return { kind: pythonKind(head), predicate: [head, ...where].join('\n') };
};

function pythonKind(expr: string): Kind {
  if (/ ± |approx\(/.test(expr)) return 'approx';
  if (/^assert (?:not )?isinstance\(/.test(expr)) return 'type';
  if (/ (?:not )?in /.test(expr)) return 'contains';
  if (/ != /.test(expr)) return 'not_equal';
  if (/ == /.test(expr)) return 'equal';
  if (/ (?:<=?|>=?) /.test(expr)) return 'compare';
  if (/^assert (?:not )?(?:re\.)?(?:match|search|fullmatch)\(|\.(?:match|search|fullmatch)\(/.test(expr))
    return 'match';
  return 'truthy';
}

// pytest.raises / unittest assertRaises / node:assert.throws / JUnit assertThrows / RSpec raise_error.
const raises: Rule = (_exc, message) => {
  const m =
    /DID NOT RAISE .*|\b\w+ not raised\b.*|Missing expected exception.*|Missing expected rejection.*|Expected [\w.$]+ to be thrown, but nothing was thrown.*|Expected \w+ to be thrown.*|expected [\w:]+ but nothing was raised.*|Expecting code to raise a throwable.*|Failed asserting that exception of type .*? is thrown.*|Assert\.Throws(?:Async)?\(\) Failure.*|Received function did not throw.*|unexpected exception type thrown.*/.exec(
      message,
    );
  return m ? { kind: 'raises', predicate: m[0] } : null;
};

// jest / vitest: `expect(received).toBe(expected) // Object.is equality`.
const expectMatcher: Rule = (_exc, message, text) => {
  const m =
    /expect\((?:received|value|jest\.fn\(\)|spy|mock|actual|promise|function)?\)((?:\.(?:not|resolves|rejects))*)\.(to\w+)\(([^)]*)\)/.exec(
      message,
    ) ?? /expect\((?:received)?\)((?:\.(?:not|resolves|rejects))*)\.(to\w+)\(([^)]*)\)/.exec(text);
  if (!m) return null;
  return { kind: jestKind(m[2], m[1]), predicate: `expect(received)${m[1]}.${m[2]}(${m[3]})` };
};

function jestKind(matcher: string, mods: string): Kind {
  const not = mods.includes('.not');
  if (/^(?:toBe|toEqual|toStrictEqual)$/.test(matcher)) return not ? 'not_equal' : 'equal';
  if (/^toBeCloseTo$/.test(matcher)) return 'approx';
  if (/^toBe(?:Truthy|Falsy|Defined|Undefined|Null|NaN)$/.test(matcher)) return 'truthy';
  if (/^to(?:Contain|ContainEqual|HaveProperty|HaveLength)$/.test(matcher)) return 'contains';
  if (/^to(?:Match|MatchObject|MatchSnapshot|MatchInlineSnapshot)$/.test(matcher)) return 'match';
  if (/^toThrow/.test(matcher) || mods.includes('.rejects')) return 'raises';
  if (/^toBeInstanceOf$/.test(matcher)) return 'type';
  if (/^toBe(?:Greater|Less)Than/.test(matcher)) return 'compare';
  if (/^to(?:HaveBeen|Been)/.test(matcher)) return 'called';
  return 'unknown';
}

// node:assert: the inspected error names the operator; a message is generated or is prose.
const nodeAssert: Rule = (exc, _message, text) => {
  if (!/ERR_ASSERTION/.test(text)) return null;
  const op = /^\s*operator: '([^']*)'/m.exec(text)?.[1];
  if (!op && !/AssertionError/.test(exc)) return null;
  const kinds: Record<string, Kind> = {
    strictEqual: 'equal',
    equal: 'equal',
    deepStrictEqual: 'equal',
    deepEqual: 'equal',
    partialDeepStrictEqual: 'equal',
    notStrictEqual: 'not_equal',
    notEqual: 'not_equal',
    notDeepStrictEqual: 'not_equal',
    notDeepEqual: 'not_equal',
    '==': 'truthy',
    ok: 'truthy',
    fail: 'unknown',
    match: 'match',
    doesNotMatch: 'match',
    throws: 'raises',
    rejects: 'raises',
    doesNotThrow: 'raises',
    doesNotReject: 'raises',
    ifError: 'truthy',
  };
  return { kind: (op && kinds[op]) || 'unknown', predicate: `assert.${op === '==' ? 'ok' : (op ?? 'fail')}` };
};

// chai and jasmine: `expected 18 to equal 19`, prose before it as `tax included: expected ...`.
const chai: Rule = (_exc, message) => {
  const m =
    /\b[Ee]xpected .+? (?:not )?to (not )?(?:be )?(deeply |strictly |loosely )?(equal|eql|include|contain|have (?:property|length|members|keys?|lengthOf)|match|throw|be rejected|be an? |be an instance of|instanceof|be close to|be approximately|be (?:true|false|ok|truthy|falsy|null|undefined|empty|NaN)|be (?:above|below|at least|at most|greater than|less than|within)|be(?= ))[\s\S]*/.exec(
      message,
    );
  if (!m) return null;
  const verb = m[3];
  const kind: Kind = /^(?:equal|eql|be)$/.test(verb)
    ? m[1]
      ? 'not_equal'
      : 'equal'
    : /^(?:include|contain|have)/.test(verb)
      ? 'contains'
      : verb === 'match'
        ? 'match'
        : /^(?:throw|be rejected)/.test(verb)
          ? 'raises'
          : /^(?:be an? |be an instance of|instanceof)/.test(verb)
            ? 'type'
            : /^(?:be close to|be approximately)/.test(verb)
              ? 'approx'
              : /^be (?:above|below|at least|at most|greater|less|within)/.test(verb)
                ? 'compare'
                : 'truthy';
  return { kind, predicate: m[0] };
};

// JUnit 5 / opentest4j `==> expected: <18> but was: <19>`, JUnit 4 `expected:<18> but was:<19>`,
// AssertJ `expected: 19\n but was: 18`, NUnit `Expected: 19\n But was: 18`, MSTest `Expected:<19>. Actual:<18>.`
const expectedButWas: Rule = (_exc, message) => {
  const m =
    /(?:==> )?\bexpected:? ?<([\s\S]*?)>(?:\.)? but was:? ?<([\s\S]*?)>|\bexpected: ([\s\S]*?)\n\s*but was: ([\s\S]*)|Expected: ?<([\s\S]*?)>\. Actual: ?<([\s\S]*?)>\.|\bexpected \[([\s\S]*?)\] but found \[([\s\S]*?)\]/i.exec(
      message,
    );
  if (!m) return null;
  const expected = (m[1] ?? m[3] ?? m[5] ?? m[7] ?? '').trim();
  const kind: Kind = /^(?:true|false)$/.test(expected)
    ? 'truthy'
    : /^not <?null>?$|^null$/.test(expected)
      ? 'truthy'
      : 'equal';
  return { kind, predicate: m[0].replace(/^==> /, '') };
};

// Hamcrest: `Expected: is <19>\n     but: was <18>`.
const hamcrest: Rule = (_exc, message) => {
  const m = /\bExpected: ([^\n]*)\n\s*(?:but|got): ([\s\S]*)/.exec(message);
  if (!m) return null;
  const e = m[1];
  const kind: Kind = /containing|hasItem|contains|has (?:item|entry|key|size)/i.test(e)
    ? 'contains'
    : /instance of|type/i.test(e)
      ? 'type'
      : /within|close to/i.test(e)
        ? 'approx'
        : /matching|matches|pattern/i.test(e)
          ? 'match'
          : /greater|less|than/i.test(e)
            ? 'compare'
            : /^(?:is )?(?:<)?(?:true|false)(?:>)?$/.test(e)
              ? 'truthy'
              : /^not\b|is not\b/.test(e)
                ? 'not_equal'
                : 'equal';
  return { kind, predicate: `Expected: ${e}\nbut: ${m[2]}` };
};

// AssertJ's older `Expecting:\n <x>\nto be equal to:\n <y>` and friends.
const assertj: Rule = (_exc, message) => {
  const m =
    /\bExpecting(?: actual)?:?\s[\s\S]*?\n\s*(to (?:be equal to|contain|be true|be false|match|be an instance of|be close to|be greater|be less|have size|be empty|start with|end with|be null|not be null)[^\n]*)[\s\S]*|\bExpected size: ?<?\d+>? but was: ?<?\d+>?[\s\S]*|\bExpecting value to be (?:true|false)[\s\S]*/.exec(
      message,
    );
  if (!m) return null;
  const verb = m[1] ?? m[0];
  const kind: Kind = /equal to/.test(verb)
    ? 'equal'
    : /contain|size|empty|start|end/i.test(verb)
      ? 'contains'
      : /match/.test(verb)
        ? 'match'
        : /instance/.test(verb)
          ? 'type'
          : /close/.test(verb)
            ? 'approx'
            : /greater|less/.test(verb)
              ? 'compare'
              : 'truthy';
  return { kind, predicate: m[0] };
};

// Go testify: `Error: Not equal: expected: 19 actual: 18`; `Messages:` holds the prose.
const testify: Rule = (_exc, message, text) => {
  const src = /Error Trace:|Error:\s/.test(message) ? message : text;
  const m = /\bError:\s+([\s\S]*?)(?:\n\s*(?:Test|Messages):|$)/.exec(src);
  if (!m || !/Error Trace:/.test(src)) return null;
  const e = m[1];
  const kind: Kind = /^Not equal|^Should be equal|^Error message not equal/.test(e)
    ? 'equal'
    : /^Should not be/.test(e)
      ? 'not_equal'
      : /^Should be (?:true|false)|^Expected (?:nil|value not to be nil)|^Should (?:be|not be) (?:empty|zero)|^Received unexpected error|^An error is expected/.test(
            e,
          )
        ? /error is expected/.test(e)
          ? 'raises'
          : 'truthy'
        : /contain/.test(e)
          ? 'contains'
          : /to match|regexp/i.test(e)
            ? 'match'
            : /Max difference|InDelta|InEpsilon/.test(e)
              ? 'approx'
              : /type|Object expected to be of type/.test(e)
                ? 'type'
                : /(?:greater|less) than/.test(e)
                  ? 'compare'
                  : 'unknown';
  return {
    kind,
    predicate: e
      .split('\n')
      .map((l) => l.trim())
      .join('\n'),
  };
};

// Rust: `assertion `left == right` failed: prose\n  left: 18\n right: 19` (new) and
// `assertion failed: `(left == right)`` (old); `assertion failed: expr` for assert!.
const rustAssert: Rule = (_exc, message, text) => {
  const src = /assertion/.test(message) ? message : text;
  const m = /assertion `left (==|!=) right` failed|assertion failed: `\(left (==|!=) right\)`/.exec(src);
  if (m) {
    const op = m[1] ?? m[2];
    const left = /^\s*left: ?(.*)$/m.exec(src.slice(m.index))?.[1] ?? '';
    const right = /^\s*right: ?(.*)$/m.exec(src.slice(m.index))?.[1] ?? '';
    return {
      kind: op === '==' ? 'equal' : 'not_equal',
      predicate: `assert left ${op} right\nleft: ${left}\nright: ${right}`,
    };
  }
  const t = /assertion failed: (.+)$/m.exec(src);
  return t ? { kind: 'truthy', predicate: `assert ${t[1].trim()}` } : null;
};

// PHPUnit: `Failed asserting that 18 matches expected 19.`, prose on the line before.
const phpunit: Rule = (_exc, message) => {
  const m = /Failed asserting that [\s\S]*/.exec(message);
  if (!m) return null;
  const s = m[0].split('\n')[0];
  const kind: Kind = /matches expected|two (?:strings|arrays|objects) are equal|is identical to|is equal to/.test(s)
    ? 'equal'
    : /is (?:true|false|null|not null|empty)|is not empty/.test(s)
      ? 'truthy'
      : /contains|has (?:the )?key|has (?:an? )?(?:item|element)|count matches/.test(s)
        ? 'contains'
        : /matches PCRE|matches format|matches pattern/.test(s)
          ? 'match'
          : /instance of|is of type/.test(s)
            ? 'type'
            : /(?:greater|less) than/.test(s)
              ? 'compare'
              : 'unknown';
  return { kind, predicate: s };
};

// xUnit.net: `Assert.Equal() Failure`; MSTest `Assert.IsTrue failed.`
const dotnetAssert: Rule = (_exc, message) => {
  const m = /\bAssert\.(\w+)(?:\(\))? (?:Failure|failed)/.exec(message);
  if (!m) return null;
  const a = m[1];
  const kind: Kind = /^(?:Equal|AreEqual|Same|AreSame|Equivalent)$/.test(a)
    ? 'equal'
    : /^(?:NotEqual|AreNotEqual|NotSame)$/.test(a)
      ? 'not_equal'
      : /^(?:True|False|IsTrue|IsFalse|Null|NotNull|IsNull|IsNotNull|Empty|NotEmpty)$/.test(a)
        ? 'truthy'
        : /Contains|DoesNotContain|Single/.test(a)
          ? 'contains'
          : /Matches|DoesNotMatch/.test(a)
            ? 'match'
            : /IsType|IsAssignableFrom|IsInstanceOf/.test(a)
              ? 'type'
              : /InRange/.test(a)
                ? 'compare'
                : 'unknown';
  return { kind, predicate: `Assert.${a}` };
};

// RSpec: `expected: 19\n     got: 18\n\n(compared using ==)`, `expected ... to include ...`.
const rspec: Rule = (_exc, message, text) => {
  const src = /Failure\/Error:/.test(text) ? text : message;
  const eq = /\bexpected: [\s\S]*?\s+got: [\s\S]*?\(compared using (==|eql\?|equal\?)\)/.exec(src);
  if (eq) return { kind: 'equal', predicate: eq[0] };
  const m =
    /\bexpected (?:#<[^>]*>|\S+|".*?"|\[.*?\]) (?:not )?to (include|match|be truthy|be falsey|be falsy|be nil|be true|be false|be a kind of|be an? |be within|be > |be < |be >= |be <= |eq|eql|equal|raise_error|have_received|be empty|start_with|end_with)[\s\S]*/.exec(
      src,
    );
  if (!m) return null;
  const v = m[1];
  const kind: Kind = /^(?:eq|eql|equal)$/.test(v)
    ? 'equal'
    : /include|start_with|end_with|be empty/.test(v)
      ? 'contains'
      : v === 'match'
        ? 'match'
        : /kind of|be an? /.test(v)
          ? 'type'
          : /within/.test(v)
            ? 'approx'
            : /[<>]/.test(v)
              ? 'compare'
              : /raise/.test(v)
                ? 'raises'
                : /received/.test(v)
                  ? 'called'
                  : 'truthy';
  return { kind, predicate: m[0] };
};

// unittest: `18 != 19 : tax included`, `False is not true`, `'a' not found in 'b'`, ...
const unittest: Rule = (exc, message) => {
  if (!/AssertionError$/.test(exc)) return null;
  const first = message.split('\n')[0];
  const body = first.replace(/ : [\s\S]*$/, '');
  const tests: [RegExp, Kind][] = [
    [/^.+ != .+ within .+ (?:places|delta)/, 'approx'],
    [/^.+ == .+ within .+ (?:places|delta)/, 'approx'],
    [/^.+ != .+$/, 'equal'],
    [/^.+ == .+$/, 'not_equal'],
    [
      /^(?:False is not true|True is not false|.+ is not (?:true|false)|unexpectedly None|.+ is not None|.+ is None)$/,
      'truthy',
    ],
    [/^.+ not found in .+|^.+ unexpectedly found in .+/, 'contains'],
    [/^Regex didn't match|^Regex matched/, 'match'],
    [/is not an instance of|is an instance of/, 'type'],
    [/^.+ not (?:less|greater) than(?: or equal to)? .+$/, 'compare'],
  ];
  for (const [re, kind] of tests) if (re.test(body)) return { kind, predicate: body };
  return null;
};

// Minitest: `Expected: 19\n  Actual: 18`.
const minitest: Rule = (_exc, message) => {
  const m = /\bExpected: [^\n]*\n\s*Actual: [^\n]*/.exec(message);
  return m ? { kind: 'equal', predicate: m[0] } : null;
};

// Go's `t.Errorf`/`t.Fatalf` lines, `bill_test.go:12: Total(19, 2) = 39, want 38`: the text is the predicate.
const goTestLog: Rule = (exc, message) => {
  if (exc !== '') return null;
  const lines = message.split('\n');
  if (!/^\S+_test\.go:\d+: /.test(lines[0] ?? '')) return null;
  return { kind: 'unknown', predicate: lines.map((l) => l.replace(/^\S+_test\.go:\d+: /, '')).join('\n') };
};

// Order: the specific libraries first; unittest's loose shapes last.
const RULES: Rule[] = [
  nodeAssert,
  pytestAssert,
  raises,
  expectMatcher,
  testify,
  goTestLog,
  rustAssert,
  expectedButWas,
  hamcrest,
  assertj,
  phpunit,
  dotnetAssert,
  rspec,
  chai,
  minitest,
  unittest,
];
