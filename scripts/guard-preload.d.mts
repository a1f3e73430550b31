/** The Node runtime guard's preload: its modules bundled into one CommonJS file. */
export function nodeGuardPreload(): Promise<string>;
/** What a guard session is opened with: the Python guard's files and the Node preload, from this checkout. */
export function guardSources(): Promise<{
  sitecustomize: string;
  pythonGuard: string;
  pytestPlugin: string;
  preload: string;
}>;
