// Placeholder until this command's layer lands.
import { CannotJudge } from '../common/errors.js';

export const help = 'not available yet';

export async function run(_args: string[]): Promise<number> {
  throw new CannotJudge('this command is not available yet');
}
