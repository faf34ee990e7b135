// The encoder's memory of the objects it has written into the current block, so that an object
// reached a second time (a shared reference, or a cycle back to an ancestor) is written as a
// REF to its first encoding instead of again (docs/DESIGN.md, "Value blocks": identity).
//
// Values that cross threads are mostly small: a few objects. A linear scan over the first
// SEEN_SCAN objects costs less than a Map lookup and an insertion (measured on Node 20: a Map
// get + set is ~25 ns, a scan of 16 identity compares ~5 ns); past SEEN_SCAN objects every one
// goes into a Map as well. The list is kept in both modes, so a failed optional part (an
// error's cause that cannot cross) can be forgotten again by truncate.

/** Objects scanned linearly before the Map takes over. */
const SEEN_SCAN = 32;
/** Past this many objects, clear() drops the lists and the Map instead of emptying them. */
const SEEN_KEEP = 4096;

/** Encoder only; one per Encoder, cleared between values. */
export class Seen {
  private objs: (object | undefined)[] = [];
  private at: number[] = [];
  private map: Map<object, number> | null = null;
  /** Objects remembered. */
  count = 0;

  /** The byte offset at which `o` was first written, or -1 after remembering it at `pos` (a
   *  first meeting). */
  record(o: object, pos: number): number {
    const n = this.count;
    if (n <= SEEN_SCAN) {
      const objs = this.objs;
      for (let i = 0; i < n; i++) if (objs[i] === o) return this.at[i]!;
      if (n === SEEN_SCAN) {
        const map = this.map ??= new Map();
        for (let i = 0; i < n; i++) map.set(objs[i]!, this.at[i]!);
        map.set(o, pos);
      }
    } else {
      const map = this.map!;
      const j = map.get(o);
      if (j !== undefined) return j;
      map.set(o, pos);
    }
    this.objs[n] = o;
    this.at[n] = pos;
    this.count = n + 1;
    return -1;
  }

  /** Forgets every object remembered after the first `count` (their bytes were rewound). */
  truncate(count: number): void {
    const map = this.map;
    for (let i = this.count - 1; i >= count; i--) {
      if (map !== null && this.count > SEEN_SCAN) map.delete(this.objs[i]!);
      this.objs[i] = undefined;
    }
    if (count <= SEEN_SCAN) this.map?.clear();
    this.count = count;
  }

  /** Forgets everything (between values), dropping the references to the caller's objects
   *  (and the lists themselves after a large value, so they do not pin memory). */
  clear(): void {
    if (this.count > SEEN_KEEP) {
      this.objs = [];
      this.at = [];
      this.map = null;
      this.count = 0;
      return;
    }
    this.truncate(0);
  }
}
