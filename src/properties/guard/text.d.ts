// The guard's own sources, bundled as text (scripts/build.mjs) and written
// out for each guarded run.
declare module '*.py' {
  const text: string;
  export default text;
}
declare module '*.cjs' {
  const text: string;
  export default text;
}
