// package.json's version, put in by the build (scripts/build.mjs); the
// sources run unbundled (tests through tsx) say so instead.
declare const PATCHWARDEN_VERSION: string;

export const VERSION = typeof PATCHWARDEN_VERSION === 'string' ? PATCHWARDEN_VERSION : 'unbundled';
