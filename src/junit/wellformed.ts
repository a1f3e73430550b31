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
  new Scan(xml, file, rule).run();
}

/** One pass over a report: the open elements, and where the next `&` is. */
class Scan {
  private readonly xml: string;
  private readonly file: string;
  private readonly rule?: StartRule;
  private readonly stack: string[] = [];
  private sawRoot = false;
  // The next `&` at or after a text's start (the file's end when none remain).
  // Ranges come in document order, so a search resumes where the last one
  // stopped and the pass stays linear; searching from every text node to the
  // next `&` made it quadratic in a report with few references.
  private amp = -1;

  constructor(xml: string, file: string, rule?: StartRule) {
    this.xml = xml;
    this.file = file;
    this.rule = rule;
  }

  run(): void {
    const xml = this.xml;
    let pos = xml.charCodeAt(0) === 0xfeff ? 1 : 0;
    for (;;) {
      const lt = xml.indexOf('<', pos);
      this.text(pos, lt === -1 ? xml.length : lt);
      if (lt === -1) break;
      if (xml.startsWith('<!--', lt)) {
        pos = this.until(lt + 4, '-->', 'a comment');
      } else if (xml.startsWith('<![CDATA[', lt)) {
        if (!this.stack.length) this.fail(lt, 'CDATA outside the root element');
        pos = this.until(lt + 9, ']]>', 'a CDATA section');
      } else if (xml.startsWith('<?', lt)) {
        pos = this.until(lt + 2, '?>', 'a processing instruction');
      } else if (xml.startsWith('<!DOCTYPE', lt)) {
        if (this.sawRoot) this.fail(lt, 'a DOCTYPE after the root element');
        pos = this.doctype(lt);
      } else if (xml.charCodeAt(lt + 1) === 47 /* / */) pos = this.closeTag(lt);
      else pos = this.startTag(lt);
    }
    const { stack } = this;
    if (stack.length) this.fail(xml.length, `the file ends before <${stack[stack.length - 1]}> is closed (truncated?)`);
    if (!this.sawRoot) this.fail(xml.length, 'no root element');
  }

  private fail(offset: number, what: string): never {
    const { line, column } = position(this.xml, offset);
    throw new CannotJudge(`not well-formed XML at line ${line}, column ${column}: ${what}`, { file: this.file, line });
  }

  // Text between markup: references must be the allowed ones; outside the root only white space.
  private text(from: number, to: number) {
    if (this.stack.length) {
      this.references(from, to);
      return;
    }
    for (let i = from; i < to; i++) {
      const c = this.xml.charCodeAt(i);
      if (c !== 32 && c !== 9 && c !== 10 && c !== 13)
        this.fail(i, this.sawRoot ? 'text after the root element' : 'text before the root element');
    }
  }

  private nextAmp(from: number): number {
    if (this.amp < from) {
      this.amp = this.xml.indexOf('&', from);
      if (this.amp === -1) this.amp = this.xml.length;
    }
    return this.amp;
  }

  private references(from: number, to: number) {
    const xml = this.xml;
    for (let i = this.nextAmp(from); i < to; i = this.nextAmp(i + 1)) {
      REF.lastIndex = i;
      const m = REF.exec(xml);
      if (!m || REF.lastIndex > to) {
        const named = /^&([A-Za-z_][-A-Za-z0-9_.]*);/.exec(xml.slice(i, i + 64));
        this.fail(
          i,
          named
            ? `entity &${named[1]}; is not one of XML's five predefined entities (lt, gt, amp, quot, apos) and is never expanded`
            : 'a bare & (write &amp;)',
        );
      }
      const code = m[2] ? Number(m[2]) : m[3] ? parseInt(m[3], 16) : 0x20;
      if (!xmlChar(code)) this.fail(i, `character reference ${m[0]} is not a character XML allows`);
    }
  }

  private until(from: number, close: string, what: string): number {
    const end = this.xml.indexOf(close, from);
    if (end === -1) this.fail(from, `${what} is never closed (the file ends first)`);
    return end + close.length;
  }

  /** `</name>` at `lt`: it must close the element open last. */
  private closeTag(lt: number): number {
    NAME.lastIndex = lt + 2;
    const m = NAME.exec(this.xml);
    if (!m) return this.fail(lt, 'a closing tag without a name');
    TAG_END.lastIndex = NAME.lastIndex;
    const end = TAG_END.exec(this.xml);
    if (!end || end[1]) this.fail(lt, `closing tag </${m[0]}> is not closed with >`);
    const open = this.stack.pop();
    if (open !== m[0]) this.fail(lt, open ? `</${m[0]}> closes <${open}>` : `</${m[0]}> closes nothing`);
    return TAG_END.lastIndex;
  }

  /** A start tag at `lt`: its name, each attribute once and quoted, then `>` or `/>`. */
  private startTag(lt: number): number {
    const xml = this.xml;
    NAME.lastIndex = lt + 1;
    const m = NAME.exec(xml);
    if (!m) return this.fail(lt, 'a < that starts no tag (write &lt;)');
    if (!this.stack.length && this.sawRoot) this.fail(lt, 'a second root element');
    let at = NAME.lastIndex;
    const seen = new Set<string>();
    for (;;) {
      ATTR.lastIndex = at;
      const a = ATTR.exec(xml);
      if (!a) break;
      if (seen.has(a[1])) this.fail(at, `attribute ${a[1]} repeated on <${m[0]}>`);
      seen.add(a[1]);
      this.references(ATTR.lastIndex - a[2].length, ATTR.lastIndex);
      at = ATTR.lastIndex;
    }
    TAG_END.lastIndex = at;
    const end = TAG_END.exec(xml);
    if (!end)
      return this.fail(
        at,
        xml.indexOf('>', at) === -1 ? `the file ends inside <${m[0]}>` : `<${m[0]}> has a malformed attribute`,
      );
    this.sawRoot = true;
    const refused = this.rule?.(m[0], this.stack);
    if (refused) this.fail(lt, refused);
    if (!end[1]) this.stack.push(m[0]);
    return TAG_END.lastIndex;
  }

  private doctype(lt: number): number {
    const xml = this.xml;
    const bracket = xml.indexOf('[', lt);
    const gt = xml.indexOf('>', lt);
    if (gt === -1) this.fail(lt, 'a DOCTYPE is never closed');
    if (bracket === -1 || bracket > gt) return gt + 1;
    const close = xml.indexOf(']', bracket);
    if (close === -1) this.fail(lt, 'a DOCTYPE internal subset is never closed');
    const decl = xml.slice(bracket, close).search(/<!ENTITY/);
    if (decl !== -1)
      this.fail(
        bracket + decl,
        'the DOCTYPE declares entities; a report has no need of them and they are never expanded',
      );
    return this.until(close, '>', 'a DOCTYPE');
  }
}

/** Whether a character reference names a character XML allows. */
function xmlChar(code: number): boolean {
  return (
    code === 9 ||
    code === 10 ||
    code === 13 ||
    (code >= 0x20 && code <= 0xd7ff) ||
    (code >= 0xe000 && code <= 0xfffd) ||
    (code >= 0x10000 && code <= 0x10ffff)
  );
}
