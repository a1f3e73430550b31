// `npm run demo`: every layer refusing and passing, with real git, in
// throwaway repositories. Each file in demo/ named NN-*.ts is one layer.
import { readdirSync } from 'node:fs';
import { cleanup } from './demo/lib.js';

const steps = readdirSync(new URL('./demo/', import.meta.url))
  .filter((f) => /^\d\d-.*\.ts$/.test(f))
  .sort();
let failed = false;
try {
  for (const file of steps) {
    const step = (await import(`./demo/${file}`)) as { default: () => Promise<void> | void };
    await step.default();
  }
  console.log('\ndemo: every step turned out as shown.');
} catch (err) {
  console.error(`\ndemo: ${(err as Error).message}`);
  failed = true;
} finally {
  cleanup();
}
process.exitCode = failed ? 1 : 0;
