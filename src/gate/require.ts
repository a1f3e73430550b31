// `gate.require` / `--require`: the method's "if any of the three is
// missing, the patch is unproven". A required layer that is not configured
// is refused instead of skipped. `contained` asks that the test commands ran
// where every process they started was ended with them.
import { GATE_REQUIREMENTS, type Config, type GateRequirement } from '../config/schema.js';
import { UsageError } from '../common/errors.js';
import { CONTAINED_WHY, type Contained } from '../runner/contain.js';
import { type LayerResult, passed, skipped } from './layer.js';

/** `--require properties,fixtures`, joined to the config's list: the command line can only add. */
export function requirements(config: Config, flag: string | undefined): GateRequirement[] {
  const given =
    flag === undefined
      ? []
      : flag
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean);
  for (const g of given)
    if (!(GATE_REQUIREMENTS as readonly string[]).includes(g))
      throw new UsageError(`--require takes ${GATE_REQUIREMENTS.join(', ')}, not ${JSON.stringify(g)}`);
  return [...new Set([...config.gate.require, ...(given as GateRequirement[])])];
}

const SETUP: Record<Exclude<GateRequirement, 'contained'>, string> = {
  properties: 'set properties.command and list invariants in properties.invariants (docs/revert-check.md)',
  fixtures:
    'pin the failing inputs under fixtures.inputs and commit the lock (patchwarden fixtures add, patchwarden fixtures lock)',
  freeze: 'set suite.command, so every failure of the suite is judged by the ledger',
};

/** Whether a layer's result shows its oracle is missing rather than judged. */
function missing(req: GateRequirement, l: LayerResult): boolean {
  if (req === 'fixtures')
    return l.layer === 'fixtures' && l.ok && (l.details as { lockMissing?: boolean } | undefined)?.lockMissing === true;
  if (req === 'freeze') return l.layer === 'suite' && l.status === 'skipped';
  // The revert layer is also skipped when there is no production change, and both when a cheaper layer
  // refused first: only an unconfigured properties layer is missing.
  return l.layer === 'properties' && l.status === 'skipped' && !l.details?.not_run;
}

/** The layers with every required one that is missing turned into a refusal. */
export function enforceRequired(layers: LayerResult[], required: GateRequirement[], source: string): LayerResult[] {
  return layers.map((l) => {
    const req = required.find((r): r is keyof typeof SETUP => r !== 'contained' && missing(r, l));
    if (!req) return l;
    const message = `unproven: gate.require names ${req}, but ${l.summary}`;
    return {
      ...l,
      ok: false,
      status: 'refused',
      summary: `unproven: ${l.summary}`,
      violations: [
        {
          rule: 'unproven',
          paths: [source],
          message,
          fix: `${SETUP[req]}, in a commit of its own; or drop ${req} from gate.require in ${source}`,
        },
      ],
    };
  });
}

/** The `contained` row under gate.require: refused when a test command ran without a mechanism that ends all it started. */
export function containedLayer(
  required: GateRequirement[],
  contained: Contained | null,
  source: string,
): LayerResult[] {
  if (!required.includes('contained')) return [];
  if (!contained) return [skipped('contained', 'no test command ran')];
  if (contained === 'pidns' || contained === 'cgroup' || contained === 'subreaper')
    return [passed('contained', `${contained}: ${CONTAINED_WHY[contained]}`)];
  const message = `unproven: gate.require names contained, but the test commands ran contained by ${contained} only (${CONTAINED_WHY[contained]})`;
  return [
    {
      layer: 'contained',
      ok: false,
      status: 'refused',
      summary: `unproven: ${contained} only`,
      violations: [
        {
          rule: 'unproven',
          paths: [source],
          message,
          fix: `run the gate where unprivileged user namespaces are allowed (unshare --user --pid works there) or as root with CAP_SYS_ADMIN, or where it may make a child of its own cgroup, or with python3 on PATH on Linux (the subreaper launcher); docs/revert-check.md "Nothing outlives the run"; or drop contained from gate.require in ${source}`,
        },
      ],
    },
  ];
}
