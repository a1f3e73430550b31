// The sealed runtime's ES module files, bundled as text (scripts/build.mjs);
// `*.cjs` is declared with the guard's (../../guard/text.d.ts).
declare module '*.mjs' {
  const text: string;
  export default text;
}
