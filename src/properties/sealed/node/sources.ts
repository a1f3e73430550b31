// The Node runtime of sealed runs, bundled as text: file name -> text.
export const NODE_SEALED: Record<string, string> = {};
