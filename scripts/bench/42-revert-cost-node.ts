// The revert check against one property run: a node:test project of 200 cases (revert-cost.ts).
import type { Row } from './lib.js';
import { revertCostRows } from './revert-cost.js';

export default async function revertCostNode(): Promise<Row[]> {
  return revertCostRows('node');
}
