// Facts read once: each is a promise kept by name, made when first asked for
// or when a point starts it, so what a rule needs is read while the point
// does other work and never twice.
export class Memo {
  private readonly kept = new Map<string, Promise<unknown>>();

  /** The fact `name`, made by `make` the first time; its error is thrown where it is awaited, never unhandled before. */
  protected once<T>(name: string, make: () => Promise<T>): Promise<T> {
    let p = this.kept.get(name) as Promise<T> | undefined;
    if (!p) {
      p = (async () => make())();
      p.catch(() => {});
      this.kept.set(name, p);
    }
    return p;
  }
}
