// The revert check against one property run: a pytest project with 200 Hypothesis cases (revert-cost.ts).
import type { Row } from './lib.js';
import { revertCostRows } from './revert-cost.js';

export default async function revertCostPytest(): Promise<Row[]> {
  return revertCostRows('py');
}
