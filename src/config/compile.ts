// What turns a config's text into a judge: the YAML parser and the glob
// compiler, gathered in one module so that a bundle makes them one lazy
// chunk, with the fallback to the last config that parses. Hooks load it
// only on a cache miss, for --config, or where the committed config does not
// parse.
export { fallbackNote, lastValidConfig } from './judging.js';
export { loadConfig } from './load.js';
export { parseConfig } from './parse.js';
export { zoneRules } from './zone-rules.js';
