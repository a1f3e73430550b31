// Whether two versions of Python files parse to the same syntax tree, by
// Python's own parser. python3 runs isolated (-I: no PYTHON* variables, no
// user site, no script folder on sys.path; -S: no site module) in an empty
// folder, with this module's script, so no file of the repository (an ast.py
// at its root) can stand in for the standard library. One process compares
// every pair.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { python } from '../runner/python.js';
import { piped } from './piped.js';

/**
 * Reads a header line (1 to ignore docstrings, then each pair's two lengths),
 * then the sources' bytes back to back; prints one line per pair: `=` when
 * the trees match, else why not. Trees are compared node by node (the
 * fields ast.dump prints, without positions), through the built-in `_ast`.
 * A comment a tool acts on (DIRECTIVE) is kept with the statement it sits on
 * or before; `re` and `tokenize` load only for a source that may hold one.
 * Equal trees still differ when the file reads its own source at run time
 * (READERS, and `__doc__` where docstrings are ignored): its comments are data.
 */
const SCRIPT = String.raw`
import _ast, sys
AST = _ast.AST
HAS_DOC = (_ast.Module, _ast.ClassDef, _ast.FunctionDef, _ast.AsyncFunctionDef)
HINTS = (b"coding", b"#!", b"-*-", b"type:", b"pragma", b"mypy:", b"pyright:", b"pyre-", b"nosec", b"vim:", b"vi:")
def flat(node, out):
    out.append(node.__class__)
    for name in node._fields:
        v = getattr(node, name, None)
        if isinstance(v, AST):
            flat(v, out)
        elif v.__class__ is list:
            out.append(len(v))
            for x in v:
                if isinstance(x, AST):
                    flat(x, out)
                else:
                    out.append(repr(x))
        else:
            out.append(repr(v))
    return out
def statements(node, out):
    for name in node._fields:
        v = getattr(node, name, None)
        for child in (v if v.__class__ is list else [v]):
            if isinstance(child, AST):
                if isinstance(child, _ast.stmt):
                    out.append(child)
                statements(child, out)
    return out
def directives(src, tree):
    import re, io, tokenize
    directive = re.compile(r"coding[:=]|^(?:!|-\*-|type:|pragma\b|mypy:|pyright:|pyre-|nosec\b|vim?:)")
    aside = re.compile(r"^(?:noqa\b|pylint:|ruff:|flake8:|fmt:|isort:|yapf:)")
    stmts = statements(tree, [])
    marks = []
    for tok in tokenize.tokenize(io.BytesIO(src).readline):
        if tok.type != tokenize.COMMENT:
            continue
        text = tok.string[1:].strip()
        if not directive.search(text) or aside.match(text):
            continue
        line = tok.start[0]
        if tok.line[:tok.start[1]].strip():
            where = max((i for i, s in enumerate(stmts) if s.lineno <= line <= s.end_lineno), key=lambda i: stmts[i].lineno, default=-1)
            marks.append((text, "on", where))
        else:
            marks.append((text, "before", next((i for i, s in enumerate(stmts) if s.lineno > line), len(stmts))))
    return marks
# Names through which a module reads its own source at run time: a comment
# or a docstring in it is then data. __file__ counts unless it only finds the
# folder (os.path.dirname(__file__), Path(__file__).parent).
READERS = {"getsource", "getsourcelines", "getcomments", "findsource", "getsourcefile", "getfile", "linecache", "getline", "getlines", "get_source", "__loader__"}
DOC_READERS = {"__doc__", "getdoc"}
def folder_only(node, parents):
    up = parents.get(id(node))
    while isinstance(up, _ast.Call) and isinstance(up.func, (_ast.Name, _ast.Attribute)) and getattr(up.func, "id", getattr(up.func, "attr", "")) in ("Path", "PurePath", "abspath", "realpath", "resolve", "absolute"):
        up = parents.get(id(up))
    if isinstance(up, _ast.Attribute) and up.attr in ("parent", "parents", "resolve", "absolute"):
        nxt = parents.get(id(up))
        if up.attr in ("parent", "parents"):
            return True
        return isinstance(nxt, _ast.Call) and folder_only(nxt, parents)
    return isinstance(up, _ast.Call) and getattr(up.func, "attr", getattr(up.func, "id", "")) == "dirname"
def self_reader(tree, docstrings):
    import ast
    parents = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
    for node in ast.walk(tree):
        names = []
        if isinstance(node, _ast.Name):
            names = [node.id]
        elif isinstance(node, _ast.Attribute):
            names = [node.attr]
        elif isinstance(node, _ast.Import):
            names = [a.name.split(".")[0] for a in node.names]
        elif isinstance(node, _ast.ImportFrom):
            names = [a.name for a in node.names] + [(node.module or "").split(".")[0]]
        for n in names:
            if n in READERS or (not docstrings and n in DOC_READERS):
                return n
            if n == "__file__" and not folder_only(node, parents):
                return n
    return None
def side(src, docstrings):
    tree = compile(src, "<source>", "exec", _ast.PyCF_ONLY_AST)
    if not docstrings:
        for node in [tree] + statements(tree, []):
            if isinstance(node, HAS_DOC) and node.body and isinstance(node.body[0], _ast.Expr) and isinstance(node.body[0].value, _ast.Constant) and isinstance(node.body[0].value.value, str):
                node.body = node.body[1:]
    hinted = any(h in src for h in HINTS)
    return flat(tree, []), directives(src, tree) if hinted else []
def compare(old, new, docstrings):
    try:
        a = side(old, docstrings)
    except Exception as e:
        return "the base side does not parse: %s" % e
    try:
        b = side(new, docstrings)
    except Exception as e:
        return "does not parse: %s" % e
    if a[0] != b[0]:
        return "the syntax tree differs"
    if a[1] != b[1]:
        n = max(len(a[1]), len(b[1]))
        x, y = next((x, y) for x, y in zip(a[1] + [None] * n, b[1] + [None] * n) if x != y)
        return "a comment tools act on is added, removed or moved: # %s" % (x or y)[0]
    hinted = any(n.encode() in new for n in READERS | DOC_READERS | {"__file__"})
    reader = hinted and self_reader(compile(new, "<source>", "exec", _ast.PyCF_ONLY_AST), docstrings)
    if reader:
        return "the file reads its own source at run time (%s), so its comments%s are data" % (reader, "" if docstrings else " and docstrings")
    return None
data = sys.stdin.buffer.read()
cut = data.index(b"\n")
head = [int(n) for n in data[:cut].split()]
docstrings, at = head[0] == 0, cut + 1
for i in range(1, len(head), 2):
    old, new = data[at:at + head[i]], data[at + head[i]:at + head[i] + head[i + 1]]
    at += head[i] + head[i + 1]
    why = compare(old, new, docstrings)
    sys.stdout.write("=\n" if why is None else " ".join(str(why).split()) + "\n")
`;

export interface SourcePair {
  old: Buffer;
  new: Buffer;
}

/** Per pair, null when both sides parse to the same tree, else why not. */
export async function comparePython(pairs: SourcePair[], ignoreDocstrings: boolean): Promise<(string | null)[]> {
  if (!pairs.length) return [];
  const header = Buffer.from(
    `${[ignoreDocstrings ? 1 : 0, ...pairs.flatMap((p) => [p.old.length, p.new.length])].join(' ')}\n`,
  );
  const input = Buffer.concat([header, ...pairs.flatMap((p) => [p.old, p.new])]);
  const empty = mkdtempSync(path.join(tmpdir(), 'patchwarden-python-'));
  try {
    const exe = await python();
    if (!exe) return pairs.map(() => 'python3 could not compare it (no python3 on PATH answered)');
    const { code, stdout, stderr } = await piped(exe, ['-I', '-S', '-c', SCRIPT], empty, input);
    const lines = stdout.split('\n').slice(0, -1);
    if (code !== 0 || lines.length !== pairs.length) {
      const why =
        code !== 0
          ? `exit ${code}: ${stderr.trim().split('\n').pop() ?? ''}`
          : `it answered for ${lines.length} of ${pairs.length} files`;
      return pairs.map(() => `python3 could not compare it (${why})`);
    }
    return lines.map((l) => (l === '=' ? null : l));
  } catch (err) {
    return pairs.map(() => `python3 could not compare it (${(err as Error).message})`);
  } finally {
    rmSync(empty, { recursive: true, force: true });
  }
}
