/** The Node runtime guard's preload: its modules bundled into one CommonJS file. */
export function nodeGuardPreload(): Promise<string>;
