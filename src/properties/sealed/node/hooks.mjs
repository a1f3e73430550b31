// Module hooks of a sealed run (module.register: they run on the loader's
// thread). An import of a src-zone file loads a proxy module instead: the
// same export names, each bound to what the worker's module exports, as the
// property process's runtime got it across. fast-check's ES module entry
// starts with PROP_SEED as its global seed (runtime.cjs does the same for
// its CommonJS entry).
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

let src = new Set();
let port = null;
let runtimeUrl = '';
let seed = null;
const asked = new Map();
let nextQ = 1;
/** fast-check's entry (lib/esm/ in version 3); ES module or CommonJS, by what the load says. */
const FAST_CHECK = /\/node_modules\/fast-check\/lib\/(?:esm\/)?fast-check\.js$/;

export function initialize(data) {
  src = new Set(data.src);
  runtimeUrl = data.runtime;
  seed = data.seed;
  port = data.port;
  port.on('message', ({ q, names }) => {
    asked.get(q)?.(names);
    asked.delete(q);
    if (asked.size === 0) port.unref();
  });
  port.unref();
}

function srcFile(url) {
  if (!url.startsWith('file:')) return null;
  try {
    const file = fileURLToPath(url);
    if (src.has(file)) return file;
    const real = realpathSync(file);
    return src.has(real) ? real : null;
  } catch {
    return null;
  }
}

/** The names the file's module exports, as the worker imports it (asked of the property's main thread). */
function exportNames(file) {
  return new Promise((resolve) => {
    const q = nextQ++;
    asked.set(q, resolve);
    // Referenced while a question is open: else this thread sleeps until the main thread asks it something.
    port.ref();
    port.postMessage({ q, f: file });
  });
}

/** fast-check's ES module entry, seeded once it has evaluated (a module may import itself). */
async function seeded(url, context, nextLoad) {
  const loaded = await nextLoad(url, context);
  if (loaded.format !== 'module') return loaded;
  const self = JSON.stringify(url);
  const tail = `\nimport * as __pwFastCheck from ${self};\n__pwFastCheck.configureGlobal({ ...__pwFastCheck.readConfigureGlobal(), seed: ${seed} });\n`;
  return { ...loaded, source: String(loaded.source) + tail };
}

export async function load(url, context, nextLoad) {
  if (seed !== null && FAST_CHECK.test(url)) return seeded(url, context, nextLoad);
  const file = srcFile(url);
  // JSON is data: it loads here as it would unsealed.
  if (file === null || context.importAttributes?.type === 'json') return nextLoad(url, context);
  const names = await exportNames(file);
  const lines = [
    `import __sealed from ${JSON.stringify(runtimeUrl)};`,
    `const __ns = await __sealed.runtime().namespace(${JSON.stringify(file)});`,
  ];
  names.forEach((name, i) => {
    lines.push(`const __e${i} = __ns[${JSON.stringify(name)}];`);
    lines.push(`export { __e${i} as ${JSON.stringify(name)} };`);
  });
  return { format: 'module', source: lines.join('\n'), shortCircuit: true };
}
