// A well-formedness pass over a whole report before fast-xml-parser builds
// its tree. The parser itself accepts truncated and mismatched documents
// silently, and its validator costs a second full parse; this scanner jumps
// from `<` to `<` with indexOf and checks what a report's safety depends on:
// every element closed in order, one root, quoted attributes, CDATA and
// comments closed, and no entity reference beyond XML's five predefined ones
// and character references. A DOCTYPE that declares entities is refused; any
// other DOCTYPE is skipped and never loads anything.
import { CannotJudge } from '../common/errors.js';

const NAME = /[A-Za-z_:][-A-Za-z0-9_:.\u00B7-\uFFFF]*/y;
const ATTR = /[ \t\r\n]+([A-Za-z_:][-A-Za-z0-9_:.\u00B7-\uFFFF]*)[ \t\r\n]*=[ \t\r\n]*("[^"<]*"|'[^'<]*')/y;
const TAG_END = /[ \t\r\n]*(\/?)>/y;
const REF = /&(?:(lt|gt|amp|quot|apos)|#([0-9]{1,7})|#x([0-9A-Fa-f]{1,6}));/y;

/** Line and column (both from 1) of an offset. */
export function position(xml: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = xml.indexOf('\n'); i !== -1 && i < offset; i = xml.indexOf('\n', i + 1)) {
    line++;
    start = i + 1;
  }
  return { line, column: offset - start + 1 };
}

/** Judges each start tag by its name and the names of the elements open around it (outermost first); a string refuses it. */
export type StartRule = (name: string, open: readonly string[]) => string | null;

/** Throws CannotJudge naming the file, line and column of the first fault (or of the first tag `rule` refuses). */
export function checkWellFormed(xml: string, file: string, rule?: StartRule): void {
  const fail = (offset: number, what: string): never => {
    const { line, column } = position(xml, offset);
    throw new CannotJudge(`not well-formed XML at line ${line}, column ${column}: ${what}`, { file, line });
  };
  const stack: string[] = [];
  let sawRoot = false;
  let pos = xml.charCodeAt(0) === 0xfeff ? 1 : 0;

  // Text between markup: references must be the allowed ones; outside the root only white space.
  const text = (from: number, to: number) => {
    if (!stack.length) {
      for (let i = from; i < to; i++) {
        const c = xml.charCodeAt(i);
        if (c !== 32 && c !== 9 && c !== 10 && c !== 13)
          fail(i, sawRoot ? 'text after the root element' : 'text before the root element');
      }
      return;
    }
    references(from, to);
  };
  // The next `&` at or after `from` (the file's end when none remain). Ranges
  // come in document order, so a search resumes where the last one stopped
  // and the pass stays linear; searching from every text node to the next `&`
  // made it quadratic in a report with few references.
  let amp = -1;
  const nextAmp = (from: number): number => {
    if (amp < from) {
      amp = xml.indexOf('&', from);
      if (amp === -1) amp = xml.length;
    }
    return amp;
  };
  const references = (from: number, to: number) => {
    for (let i = nextAmp(from); i < to; i = nextAmp(i + 1)) {
      REF.lastIndex = i;
      const m = REF.exec(xml);
      if (!m || REF.lastIndex > to) {
        const named = /^&([A-Za-z_][-A-Za-z0-9_.]*);/.exec(xml.slice(i, i + 64));
        fail(
          i,
          named
            ? `entity &${named[1]}; is not one of XML's five predefined entities (lt, gt, amp, quot, apos) and is never expanded`
            : 'a bare & (write &amp;)',
        );
      }
      const code = m![2] ? Number(m![2]) : m![3] ? parseInt(m![3], 16) : 0x20;
      if (
        !(
          code === 9 ||
          code === 10 ||
          code === 13 ||
          (code >= 0x20 && code <= 0xd7ff) ||
          (code >= 0xe000 && code <= 0xfffd) ||
          (code >= 0x10000 && code <= 0x10ffff)
        )
      ) {
        fail(i, `character reference ${m![0]} is not a character XML allows`);
      }
    }
  };
  const until = (from: number, close: string, what: string): number => {
    const end = xml.indexOf(close, from);
    if (end === -1) fail(from, `${what} is never closed (the file ends first)`);
    return end + close.length;
  };

  for (;;) {
    const lt = xml.indexOf('<', pos);
    text(pos, lt === -1 ? xml.length : lt);
    if (lt === -1) break;
    if (xml.startsWith('<!--', lt)) {
      pos = until(lt + 4, '-->', 'a comment');
    } else if (xml.startsWith('<![CDATA[', lt)) {
      if (!stack.length) fail(lt, 'CDATA outside the root element');
      pos = until(lt + 9, ']]>', 'a CDATA section');
    } else if (xml.startsWith('<?', lt)) {
      pos = until(lt + 2, '?>', 'a processing instruction');
    } else if (xml.startsWith('<!DOCTYPE', lt)) {
      if (sawRoot) fail(lt, 'a DOCTYPE after the root element');
      pos = doctype(lt);
    } else if (xml.charCodeAt(lt + 1) === 47 /* / */) {
      NAME.lastIndex = lt + 2;
      const m = NAME.exec(xml);
      if (!m) fail(lt, 'a closing tag without a name');
      TAG_END.lastIndex = NAME.lastIndex;
      const end = TAG_END.exec(xml);
      if (!end || end[1]) fail(lt, `closing tag </${m![0]}> is not closed with >`);
      const open = stack.pop();
      if (open !== m![0]) fail(lt, open ? `</${m![0]}> closes <${open}>` : `</${m![0]}> closes nothing`);
      pos = TAG_END.lastIndex;
    } else {
      NAME.lastIndex = lt + 1;
      const m = NAME.exec(xml);
      if (!m) fail(lt, 'a < that starts no tag (write &lt;)');
      if (!stack.length && sawRoot) fail(lt, 'a second root element');
      let at = NAME.lastIndex;
      const seen = new Set<string>();
      for (;;) {
        ATTR.lastIndex = at;
        const a = ATTR.exec(xml);
        if (!a) break;
        if (seen.has(a[1])) fail(at, `attribute ${a[1]} repeated on <${m![0]}>`);
        seen.add(a[1]);
        references(ATTR.lastIndex - a[2].length, ATTR.lastIndex);
        at = ATTR.lastIndex;
      }
      TAG_END.lastIndex = at;
      const end = TAG_END.exec(xml);
      if (!end)
        fail(
          at,
          xml.indexOf('>', at) === -1 ? `the file ends inside <${m![0]}>` : `<${m![0]}> has a malformed attribute`,
        );
      sawRoot = true;
      const refused = rule?.(m![0], stack);
      if (refused) fail(lt, refused);
      if (!end![1]) stack.push(m![0]);
      pos = TAG_END.lastIndex;
    }
  }
  if (stack.length) fail(xml.length, `the file ends before <${stack[stack.length - 1]}> is closed (truncated?)`);
  if (!sawRoot) fail(xml.length, 'no root element');

  function doctype(lt: number): number {
    const bracket = xml.indexOf('[', lt);
    const gt = xml.indexOf('>', lt);
    if (gt === -1) fail(lt, 'a DOCTYPE is never closed');
    if (bracket === -1 || bracket > gt) return gt + 1;
    const close = xml.indexOf(']', bracket);
    if (close === -1) fail(lt, 'a DOCTYPE internal subset is never closed');
    const subset = xml.slice(bracket, close);
    const decl = subset.search(/<!ENTITY/);
    if (decl !== -1)
      fail(bracket + decl, 'the DOCTYPE declares entities; a report has no need of them and they are never expanded');
    return until(close, '>', 'a DOCTYPE');
  }
}
