// What turns a config's text into a judge: the YAML parser and the glob
// compiler, gathered in one module so that a bundle makes them one lazy
// chunk. Hooks load it only on a cache miss or for --config.
export { loadConfig } from './load.js';
export { parseConfig } from './parse.js';
export { zoneRules } from './zone-rules.js';
