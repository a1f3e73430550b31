// The same small shop project for each real runner: five bugs, each in its
// own test — `total` and `discount` return wrong values (one compared
// directly, one through a local variable), `parse` does not raise, `checkout`
// throws two project frames deep, and `load` fails with a temp path, a
// timestamp and an address in its message. A Variant renames, moves and
// shifts the tests (cosmetic) or changes the failure itself (real).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { ciInstalls, type Missing, missingUnless, pytestMissing } from '../helpers/skip.js';

export interface Variant {
  /** Appended to every test's name. */
  suffix: string;
  /** The test file goes to another folder and name. */
  moved: boolean;
  /** Comment lines inserted at the top of the test and project files. */
  inserted: number;
  /** The exception `checkout` throws. */
  exc: 'InventoryError' | 'StockError';
  /** The project function it is thrown from. */
  origin: 'reserve' | 'allocate';
  /** How `total` is checked: equality, or an ordering (another assertion kind). */
  kind: 'equal' | 'compare';
}

export const BASE: Variant = {
  suffix: '',
  moved: false,
  inserted: 0,
  exc: 'InventoryError',
  origin: 'reserve',
  kind: 'equal',
};
export const BUGS = ['total', 'discount', 'parse', 'checkout', 'load'] as const;

export interface Runner {
  name: string;
  /** Why it cannot run here, or null. */
  unavailable: () => Missing | null;
  files: (v: Variant) => Record<string, string>;
  /** The command that writes its JUnit report to `junit` (absolute), run in the project. */
  command: (junit: string) => { cmd: string; args: string[]; env?: NodeJS.ProcessEnv };
  /** For runners that cannot choose the report's path: where it lands. */
  report?: string;
}

const lines = (n: number, comment: string) =>
  Array.from({ length: n }, (_, i) => `${comment} inserted ${i}\n`).join('');
const has = (cmd: string, args: string[]) => spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;

// ---------------------------------------------------------------- Python

const pyProject = (v: Variant) => `${lines(v.inserted, '#')}import os
import tempfile
import time


class ${v.exc}(Exception):
    pass


def total(price, qty):
    return price * qty + 1


def discount(amount):
    return amount - 11


def parse(text):
    return text


def ${v.origin}(item):
    raise ${v.exc}(f"no stock for {item}")


def checkout(item):
    return ${v.origin}(item)


def load():
    path = os.path.join(tempfile.mkdtemp(), "cart.json")
    raise RuntimeError(f"cannot open {path} at {time.strftime('%Y-%m-%dT%H:%M:%S')} (cart at {hex(id(path))})")
`;

const pyTests = (v: Variant) => `${lines(v.inserted, '#')}import pytest
from shop import total, discount, parse, checkout, load


def test_total${v.suffix}():
    assert total(19, 2) ${v.kind === 'equal' ? '== 38' : '< 39'}


def test_discount${v.suffix}():
    got = discount(100)
    assert got == 90


def test_parse${v.suffix}():
    with pytest.raises(ValueError):
        parse("x")


def test_checkout${v.suffix}():
    checkout("pen")


def test_load${v.suffix}():
    load()
`;

export const pytest = (tb: string): Runner => ({
  name: `pytest --tb=${tb}`,
  unavailable: () => pytestMissing,
  files: (v) => ({
    'pytest.ini': '[pytest]\npythonpath = src\n',
    'src/shop/__init__.py': pyProject(v),
    [v.moved ? 'tests/unit/test_moved.py' : 'tests/test_shop.py']: pyTests(v),
  }),
  command: (junit) => ({
    cmd: 'python3',
    args: ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', `--tb=${tb}`, 'tests', `--junitxml=${junit}`],
    env: { PYTHONDONTWRITEBYTECODE: '1', PY_COLORS: '0' },
  }),
});

// ---------------------------------------------------------------- JavaScript

const jsProject = (
  v: Variant,
  esm: boolean,
) => `${lines(v.inserted, '//')}${esm ? "import fs from 'node:fs';\nimport os from 'node:os';\nimport path from 'node:path';" : "const fs = require('node:fs');\nconst os = require('node:os');\nconst path = require('node:path');"}

class ${v.exc} extends Error {
  constructor(message) {
    super(message);
    this.name = '${v.exc}';
  }
}

function total(price, qty) {
  return price * qty + 1;
}

function discount(amount) {
  return amount - 11;
}

function parse(text) {
  return text;
}

function ${v.origin}(item) {
  throw new ${v.exc}(\`no stock for \${item}\`);
}

function checkout(item) {
  return ${v.origin}(item);
}

function load() {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'cart-')), 'cart.json');
  const at = Math.floor(Math.random() * 2 ** 40).toString(16);
  throw new Error(\`cannot open \${file} at \${new Date().toISOString()} (cart at 0x\${at})\`);
}

${esm ? 'export' : 'module.exports ='} { total, discount, parse, checkout, load }${esm ? ';' : ';'}
`;

interface JsStyle {
  head: (from: string) => string;
  test: string;
  equal: (actual: string, n: number) => string;
  less: (actual: string, n: number) => string;
  throws: (fn: string) => string;
}

const jsTests = (v: Variant, s: JsStyle) => {
  const from = v.moved ? '../../src/shop.js' : '../src/shop.js';
  return `${lines(v.inserted, '//')}${s.head(from)}

${s.test}('total${v.suffix}', () => {
  ${v.kind === 'equal' ? s.equal('total(19, 2)', 38) : s.less('total(19, 2)', 39)};
});

${s.test}('discount${v.suffix}', () => {
  const got = discount(100);
  ${s.equal('got', 90)};
});

${s.test}('parse${v.suffix}', () => {
  ${s.throws("() => parse('x')")};
});

${s.test}('checkout${v.suffix}', () => {
  checkout('pen');
});

${s.test}('load${v.suffix}', () => {
  load();
});
`;
};

const expectStyle = (head: (from: string) => string): JsStyle => ({
  head,
  test: 'test',
  equal: (a, n) => `expect(${a}).toBe(${n})`,
  less: (a, n) => `expect(${a}).toBeLessThan(${n})`,
  throws: (fn) => `expect(${fn}).toThrow(TypeError)`,
});

const jsTestFile = (v: Variant, ext = 'js') => (v.moved ? `test/unit/moved.test.${ext}` : `test/shop.test.${ext}`);

export const nodeTest: Runner = {
  name: 'node:test',
  unavailable: () => null,
  files: (v) => ({
    'package.json': '{"type":"module"}\n',
    'src/shop.js': jsProject(v, true),
    [jsTestFile(v)]: jsTests(v, {
      head: (from) =>
        `import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { total, discount, parse, checkout, load } from '${from}';`,
      test: 'test',
      equal: (a, n) => `assert.strictEqual(${a}, ${n})`,
      less: (a, n) => `assert.ok(${a} < ${n})`,
      throws: (fn) => `assert.throws(${fn}, TypeError)`,
    }),
  }),
  command: (junit) => ({
    cmd: process.execPath,
    args: ['--test', '--test-reporter=junit', `--test-reporter-destination=${junit}`, 'test/'],
  }),
};

/** The JS runners and their reporters: the project's own devDependencies. */
export const npmModules = (): string => fileURLToPath(new URL('../../node_modules', import.meta.url));

const npmNote = () =>
  ['jest', 'jest-junit', 'vitest', 'mocha', 'mocha-junit-reporter', 'chai'].every((m) =>
    existsSync(path.join(npmModules(), m, 'package.json')),
  )
    ? null
    : "jest, vitest or mocha is missing from the project's node_modules (run npm ci)";

export const jest: Runner = {
  name: 'jest + jest-junit',
  unavailable: npmNote,
  files: (v) => ({
    'package.json': '{"name":"shop","private":true}\n',
    'src/shop.js': jsProject(v, false),
    [jsTestFile(v)]: jsTests(
      v,
      expectStyle(
        (from) => `const { total, discount, parse, checkout, load } = require('${from.replace(/\.js$/, '')}');`,
      ),
    ),
  }),
  command: (junit) => ({
    cmd: process.execPath,
    args: [path.join(npmModules(), 'jest/bin/jest.js'), '--ci', '--reporters=jest-junit', '--rootDir', '.'],
    env: { JEST_JUNIT_OUTPUT_FILE: junit },
  }),
};

export const vitest: Runner = {
  name: 'vitest',
  unavailable: npmNote,
  files: (v) => ({
    'package.json': '{"type":"module"}\n',
    'src/shop.js': jsProject(v, true),
    [jsTestFile(v)]: jsTests(
      v,
      expectStyle(
        (from) =>
          `import { test, expect } from 'vitest';\nimport { total, discount, parse, checkout, load } from '${from}';`,
      ),
    ),
  }),
  command: (junit) => ({
    cmd: process.execPath,
    args: [path.join(npmModules(), 'vitest/vitest.mjs'), 'run', '--reporter=junit', `--outputFile=${junit}`],
  }),
};

export const mocha: Runner = {
  name: 'mocha + chai + mocha-junit-reporter',
  unavailable: npmNote,
  files: (v) => ({
    'package.json': '{"name":"shop","private":true}\n',
    'src/shop.js': jsProject(v, false),
    [jsTestFile(v)]: jsTests(v, {
      head: (from) =>
        `const { expect } = require('chai');\nconst { total, discount, parse, checkout, load } = require('${from.replace(/\.js$/, '')}');`,
      test: 'it',
      equal: (a, n) => `expect(${a}).to.equal(${n})`,
      less: (a, n) => `expect(${a}).to.be.below(${n})`,
      throws: (fn) => `expect(${fn}).to.throw(TypeError)`,
    }),
  }),
  command: (junit) => ({
    cmd: process.execPath,
    args: [
      path.join(npmModules(), 'mocha/bin/mocha.js'),
      '--recursive',
      '--reporter',
      'mocha-junit-reporter',
      '--reporter-options',
      `mochaFile=${junit}`,
      'test',
    ],
  }),
};

// ---------------------------------------------------------------- Go

const goProject = (v: Variant) => `${lines(v.inserted, '//')}package shop

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

type ${v.exc} struct{ Item string }

func (e *${v.exc}) Error() string { return "no stock for " + e.Item }

func Total(price, qty int) int { return price*qty + 1 }

func Discount(amount int) int { return amount - 11 }

func Parse(text string) (string, error) { return text, nil }

func ${v.origin}(item string) { panic(&${v.exc}{item}) }

func Checkout(item string) { ${v.origin}(item) }

func Load() error {
	dir, _ := os.MkdirTemp("", "cart-")
	c := &struct{ n int }{}
	return fmt.Errorf("cannot open %s at %s (cart at %p)", filepath.Join(dir, "cart.json"), time.Now().Format(time.RFC3339Nano), c)
}
`;

const Cap = (s: string) => s.replace(/^_?(.)/, (_, c: string) => c.toUpperCase());

// A panic ends the test binary: checkout's test comes last.
const goTests = (v: Variant) => `${lines(v.inserted, '//')}package shop

import "testing"

func TestTotal${Cap(v.suffix)}(t *testing.T) {
	${v.kind === 'equal' ? 'if got := Total(19, 2); got != 38 {\n\t\tt.Errorf("Total(19, 2) = %d, want 38", got)' : 'if got := Total(19, 2); got >= 39 {\n\t\tt.Errorf("Total(19, 2) = %d, not below 39", got)'}
	}
}

func TestDiscount${Cap(v.suffix)}(t *testing.T) {
	if got := Discount(100); got != 90 {
		t.Errorf("Discount(100) = %d, want 90", got)
	}
}

func TestParse${Cap(v.suffix)}(t *testing.T) {
	if _, err := Parse("x"); err == nil {
		t.Errorf("Parse(%q) returned no error", "x")
	}
}

func TestLoad${Cap(v.suffix)}(t *testing.T) {
	if err := Load(); err != nil {
		t.Fatal(err)
	}
}

func TestCheckout${Cap(v.suffix)}(t *testing.T) {
	Checkout("pen")
}
`;

export const gotestsum: Runner = {
  name: 'go + gotestsum',
  unavailable: () =>
    has('go', ['version']) && has('gotestsum', ['--version'])
      ? null
      : ciInstalls('go or gotestsum is not installed (Debian: golang-go gotestsum)'),
  files: (v) => ({
    'go.mod': 'module example.com/shop\n\ngo 1.19\n',
    '.patchwarden.yml': 'version: 1\nsignature:\n  project: ["shop/**"]\n',
    'shop/shop.go': goProject(v),
    [v.moved ? 'shop/moved_test.go' : 'shop/shop_test.go']: goTests(v),
  }),
  command: (junit) => ({ cmd: 'gotestsum', args: ['--junitfile', junit, './...'] }),
};

// ---------------------------------------------------------------- PHP

const phpProject = (v: Variant) => `<?php
${lines(v.inserted, '//')}
namespace Shop;

class ${v.exc} extends \\RuntimeException
{
}

class Bill
{
    public static function total(int $price, int $qty): int
    {
        return $price * $qty + 1;
    }

    public static function discount(int $amount): int
    {
        return $amount - 11;
    }

    public static function parse(string $text): string
    {
        return $text;
    }

    private static function ${v.origin}(string $item): void
    {
        throw new ${v.exc}("no stock for $item");
    }

    public static function checkout(string $item): void
    {
        self::${v.origin}($item);
    }

    public static function load(): void
    {
        $dir = sys_get_temp_dir() . '/cart-' . bin2hex(random_bytes(4));
        throw new \\RuntimeException("cannot open $dir/cart.json at " . date('c') . ' (cart at 0x' . dechex(random_int(1 << 20, 1 << 40)) . ')');
    }
}
`;

const phpTests = (v: Variant, cls: string, up: string) => `<?php
${lines(v.inserted, '//')}
use PHPUnit\\Framework\\TestCase;
use Shop\\Bill;

require_once __DIR__ . '${up}/src/Bill.php';

class ${cls} extends TestCase
{
    public function testTotal${Cap(v.suffix)}(): void
    {
        ${v.kind === 'equal' ? '$this->assertSame(38, Bill::total(19, 2));' : '$this->assertLessThan(39, Bill::total(19, 2));'}
    }

    public function testDiscount${Cap(v.suffix)}(): void
    {
        $got = Bill::discount(100);
        $this->assertSame(90, $got);
    }

    public function testParse${Cap(v.suffix)}(): void
    {
        $this->expectException(\\InvalidArgumentException::class);
        Bill::parse('x');
    }

    public function testCheckout${Cap(v.suffix)}(): void
    {
        Bill::checkout('pen');
    }

    public function testLoad${Cap(v.suffix)}(): void
    {
        Bill::load();
    }
}
`;

export const phpunit: Runner = {
  name: 'phpunit',
  unavailable: () => missingUnless('phpunit', ['--version'], ciInstalls('phpunit is not installed (Debian: phpunit)')),
  files: (v): Record<string, string> =>
    v.moved
      ? { 'src/Bill.php': phpProject(v), 'tests/Unit/MovedTest.php': phpTests(v, 'MovedTest', '/../..') }
      : { 'src/Bill.php': phpProject(v), 'tests/BillTest.php': phpTests(v, 'BillTest', '/..') },
  command: (junit) => ({ cmd: 'phpunit', args: ['--log-junit', junit, 'tests'] }),
};

// ---------------------------------------------------------------- Java (Maven Surefire, offline)

const POM = `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>com.acme</groupId>
  <artifactId>shop</artifactId>
  <version>1</version>
  <properties>
    <maven.compiler.release>17</maven.compiler.release>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
  </properties>
  <dependencies>
    <dependency><groupId>org.junit.jupiter</groupId><artifactId>junit-jupiter</artifactId><version>5.10.2</version><scope>test</scope></dependency>
  </dependencies>
</project>
`;

const javaProject = (v: Variant) => `${lines(v.inserted, '//')}package com.acme;

public class Bill {
    public static class ${v.exc} extends RuntimeException {
        public ${v.exc}(String m) { super(m); }
    }

    public static int total(int price, int qty) { return price * qty + 1; }

    public static int discount(int amount) { return amount - 11; }

    public static String parse(String text) { return text; }

    private static void ${v.origin}(String item) { throw new ${v.exc}("no stock for " + item); }

    public static void checkout(String item) { ${v.origin}(item); }

    public static void load() {
        Object cart = new Object();
        String dir = System.getProperty("java.io.tmpdir") + "/cart-" + System.nanoTime();
        throw new IllegalStateException("cannot open " + dir + "/cart.json at " + java.time.Instant.now() + " (" + cart + ")");
    }
}
`;

const javaTests = (v: Variant, pkg: string, cls: string) => `${lines(v.inserted, '//')}package ${pkg};

import static org.junit.jupiter.api.Assertions.*;

import com.acme.Bill;
import org.junit.jupiter.api.Test;

class ${cls} {
    @Test
    void total${Cap(v.suffix)}() {
        ${v.kind === 'equal' ? 'assertEquals(38, Bill.total(19, 2));' : 'assertTrue(Bill.total(19, 2) < 39);'}
    }

    @Test
    void discount${Cap(v.suffix)}() {
        int got = Bill.discount(100);
        assertEquals(90, got);
    }

    @Test
    void parse${Cap(v.suffix)}() {
        assertThrows(IllegalArgumentException.class, () -> Bill.parse("x"));
    }

    @Test
    void checkout${Cap(v.suffix)}() {
        Bill.checkout("pen");
    }

    @Test
    void load${Cap(v.suffix)}() {
        Bill.load();
    }
}
`;

const MVN = (p: string) => `org.apache.maven.plugins:${p}`;

export const maven: Runner = {
  name: 'maven surefire + junit 5',
  unavailable: () => {
    if (!has('mvn', ['-v'])) return 'mvn is not installed';
    const repo = path.join(process.env.HOME ?? '', '.m2/repository');
    const needs = [
      'org/apache/maven/plugins/maven-surefire-plugin/3.2.5',
      'org/apache/maven/plugins/maven-compiler-plugin/3.13.0',
      'org/junit/jupiter/junit-jupiter/5.10.2',
    ];
    const missing = needs.find((n) => !existsSync(path.join(repo, n)));
    return missing ? `${missing} is not in the local Maven repository (the test runs offline)` : null;
  },
  files: (v) => ({
    'pom.xml': POM,
    '.gitignore': 'target/\n',
    'src/main/java/com/acme/Bill.java': javaProject(v),
    ...(v.moved
      ? { 'src/test/java/com/acme/billing/MovedTest.java': javaTests(v, 'com.acme.billing', 'MovedTest') }
      : { 'src/test/java/com/acme/BillTest.java': javaTests(v, 'com.acme', 'BillTest') }),
  }),
  // The default lifecycle would resolve plugins the offline repository may lack: the three goals by their coordinates.
  command: () => ({
    cmd: 'mvn',
    args: [
      '-o',
      '-q',
      `${MVN('maven-compiler-plugin')}:3.13.0:compile`,
      `${MVN('maven-compiler-plugin')}:3.13.0:testCompile`,
      `${MVN('maven-surefire-plugin')}:3.2.5:test`,
      '-Dsurefire.failIfNoSpecifiedTests=false',
      '-Dmaven.test.failure.ignore=true',
    ],
  }),
  report: 'target/surefire-reports',
};

/** Writes a project's files into `dir`. */
export function writeProject(dir: string, files: Record<string, string>): void {
  for (const [f, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    writeFileSync(path.join(dir, f), text);
  }
}
