// `gate.require` / `--require`: the method's "if any of the three is
// missing, the patch is unproven". A required layer that is not configured
// is refused instead of skipped. `contained` asks that the test commands ran
// where every process they started was ended with them; `kernel`, that the
// properties ran sealed with the worker confined by the kernel.
import { GATE_REQUIREMENTS, type Config, type GateRequirement } from '../config/schema.js';
import { UsageError } from '../common/errors.js';
import { CONTAINED_WHY, type Contained } from '../runner/contain.js';
import { type SealedMode, sealedWhy } from '../properties/sealed/env.js';
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

/** The requirements on how the runs ran, each with a row of its own. */
type RunRequirement = 'contained' | 'kernel';

const SETUP: Record<Exclude<GateRequirement, RunRequirement>, string> = {
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
    const req = required.find((r): r is keyof typeof SETUP => r in SETUP && missing(r, l));
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

/** The `kernel` row under gate.require: refused when a property run was not sealed in a kernel-confined worker. */
export function kernelLayer(
  required: GateRequirement[],
  sealed: SealedMode | null,
  wanted: SealedMode,
  source: string,
): LayerResult[] {
  if (!required.includes('kernel')) return [];
  if (!sealed) return [skipped('kernel', 'no property ran')];
  if (sealed === 'kernel') return [passed('kernel', `sealed: kernel: ${sealedWhy('kernel', wanted)}`)];
  const fix =
    wanted === 'kernel'
      ? 'run the gate on Linux 5.13 or newer with Landlock enabled (`patchwarden doctor` says whether this machine can: it needs "landlock" in /sys/kernel/security/lsm and python3 on PATH)'
      : `set properties.sealed: kernel in ${source}, in a commit of its own`;
  return [
    {
      layer: 'kernel',
      ok: false,
      status: 'refused',
      summary: `unproven: sealed: ${sealed}`,
      violations: [
        {
          rule: 'unproven',
          paths: [source],
          message: `unproven: gate.require names kernel, but the properties ran sealed: ${sealed} (${sealedWhy(sealed, wanted)})`,
          fix: `${fix}; docs/revert-check.md "Sealed runs"; or drop kernel from gate.require in ${source}`,
        },
      ],
    },
  ];
}
