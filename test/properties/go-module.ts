// A Go module for the tests of Go properties: whether go and gotestsum are
// here, the module's go.mod, its config (the spec zone before a src glob of
// every non-test .go file, gotestsum running ./spec/...), the registry, and
// a property of package bill that names its invariant in a t.Run subtest.
import { spawnSync } from 'node:child_process';

export const GO_MISSING = spawnSync('go', ['version']).status !== 0 ? 'go is not installed' : null;
export const GOTESTSUM_MISSING =
  GO_MISSING ?? (spawnSync('gotestsum', ['--version']).status !== 0 ? 'gotestsum is not installed' : null);

export const GO_MOD = 'module example.com/shop\n\ngo 1.19\n';

/** The module's config, with `extra` (whole top-level keys) after it. */
export const goConfig = (extra = '') => `version: 1
zones:
  spec: [spec/**]
  src: ["**/!(*_test).go"]
properties:
  command: gotestsum --junitfile {junit} -- ./spec/...
  invariants: spec/invariants.yaml
${extra}`;

export const goRegistry = (...ids: string[]) =>
  `version: 1\ninvariants:\n${ids.map((id) => `  - id: ${id}\n    description: ${id} holds\n`).join('')}`;

/** A file of spec/properties: the test function `name`, whose subtest for invariant `id` runs `body` against package bill. */
export const goProperty = (name: string, id: string, body: string) =>
  `package properties\n\nimport (\n\t"testing"\n\n\t"example.com/shop/bill"\n)\n\nfunc ${name}(t *testing.T) {\n\tt.Run("[invariant:${id}]", func(t *testing.T) {\n\t\t${body}\n\t})\n}\n`;

/** The body that fails unless bill.Total([1, 2]) is 3. */
export const TOTAL_BODY = 'if bill.Total([]int{1, 2}) != 3 {\n\t\t\tt.Fatal("Total")\n\t\t}';
