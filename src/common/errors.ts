// The two ways a check can end other than passing. A refusal is a verdict
// (exit 1); CannotJudge means the inputs could not be read (exit 2).

export interface Where {
  file?: string;
  line?: number;
}

/** Input that could not be read or is not well-formed: exit 2. */
export class CannotJudge extends Error {
  readonly file?: string;
  readonly line?: number;
  constructor(message: string, where: Where = {}) {
    super(message);
    this.name = 'CannotJudge';
    this.file = where.file;
    this.line = where.line;
  }
  /** `file:line: message`, the shape compilers and linters use. */
  describe(): string {
    const at = this.file ? `${this.file}${this.line ? `:${this.line}` : ''}: ` : '';
    return at + this.message;
  }
}

/** Bad command-line usage: exit 2, with a pointer to --help. */
export class UsageError extends CannotJudge {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/**
 * Whether `err` is a CannotJudge (or UsageError) by its name: the CLI entry
 * (dist/main.js, with the pre-commit hook) and the lazily loaded commands are
 * bundled apart, each with its own copy of these classes, so `instanceof`
 * would miss the errors one throws to the other.
 */
export function isCannotJudge(err: unknown): err is CannotJudge {
  return (
    err instanceof Error &&
    (err.name === 'CannotJudge' || err.name === 'UsageError') &&
    typeof (err as CannotJudge).describe === 'function'
  );
}
