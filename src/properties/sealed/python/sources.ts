// The Python runtime of sealed runs, bundled as text: file name -> text.
export const PYTHON_SEALED: Record<string, string> = {};
