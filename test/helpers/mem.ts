// Raw, read-mostly access to the shared layout for tests: the tests' own reading of the bytes,
// independent of either backend, so an assertion never trusts the code it is checking.
//
// Every address comes from assembly/shared/layout.ts. Views are rebuilt whenever the memory has
// grown (a grown shared memory hands out a longer buffer; old views keep the old length).

import * as L from '../../assembly/shared/layout.js';

export class Mem {
  private dv: DataView | null = null;

  constructor(readonly memory: WebAssembly.Memory) {}

  /** A DataView over the whole current memory. */
  get view(): DataView {
    const buf = this.memory.buffer;
    if (this.dv === null || this.dv.byteLength !== buf.byteLength) this.dv = new DataView(buf);
    return this.dv;
  }

  get byteLength(): number {
    return this.memory.buffer.byteLength;
  }

  u8(addr: number): number {
    return this.view.getUint8(addr);
  }
  u32(addr: number): number {
    return this.view.getUint32(addr, true);
  }
  f64(addr: number): number {
    return this.view.getFloat64(addr, true);
  }
  setU32(addr: number, v: number): void {
    this.view.setUint32(addr, v >>> 0, true);
  }
  setF64(addr: number, v: number): void {
    this.view.setFloat64(addr, v, true);
  }
  setU8(addr: number, v: number): void {
    this.view.setUint8(addr, v);
  }
  /** A copy of the bytes [from, to). */
  bytes(from: number, to: number = this.byteLength): Uint8Array {
    return new Uint8Array(this.memory.buffer, from, to - from).slice();
  }

  // ---- header -------------------------------------------------------------------------------
  hdr(off: number): number {
    return this.u32(L.HEADER + off);
  }
  get nprocs(): number {
    return this.hdr(L.H_NPROCS);
  }
  get maxMs(): number {
    return this.hdr(L.H_MAXMS);
  }
  get gcap(): number {
    return this.hdr(L.H_GCAP);
  }
  get gmax(): number {
    return this.hdr(L.H_GMAX);
  }
  get brk(): number {
    return this.hdr(L.H_BRK);
  }
  get flags(): number {
    return this.hdr(L.H_FLAGS);
  }

  // ---- scheduler block ----------------------------------------------------------------------
  get runqSize(): number {
    return this.u32(L.S_RUNQ_SIZE);
  }
  get npidle(): number {
    return this.u32(L.S_NPIDLE);
  }
  get nmspinning(): number {
    return this.u32(L.S_NMSPINNING);
  }
  get needspinning(): number {
    return this.u32(L.S_NEEDSPINNING);
  }
  /** S_RUNQH_SIZE: Gs on the high class queue. */
  get runqhSize(): number {
    return this.u32(L.S_RUNQH_SIZE);
  }
  /** S_RUNQL_SIZE: Gs on the low class queue. */
  get runqlSize(): number {
    return this.u32(L.S_RUNQL_SIZE);
  }
  get nmidle(): number {
    return this.u32(L.S_NMIDLE);
  }
  get lockWord(): number {
    return this.u32(L.S_LOCK);
  }
  /** Scheduler counter SC_* (f64). */
  sc(off: number): number {
    return this.f64(L.S_COUNTERS + off);
  }

  // ---- P, M, G addresses (computed here, not asked of the core) ------------------------------
  pAddr(p: number): number {
    return this.hdr(L.H_PBASE) + p * L.P_SIZE;
  }
  mAddr(m: number): number {
    return this.hdr(L.H_MBASE) + m * L.M_SIZE;
  }
  gAddr(g: number): number {
    const chunk = this.u32(L.GDIR + (g >>> L.G_CHUNK_SHIFT) * 4);
    if (chunk === 0) throw new Error(`Mem.gAddr: no chunk for g=${g} (gcap=${this.gcap})`);
    return chunk + (g & L.G_CHUNK_MASK) * L.G_SIZE;
  }
  p(p: number, off: number): number {
    return this.u32(this.pAddr(p) + off);
  }
  /** P counter PC_* (f64). */
  pc(p: number, off: number): number {
    return this.f64(this.pAddr(p) + L.P_COUNTERS + off);
  }
  /** P operation counter OP_* (f64, DESIGN.md "Scaling"). */
  op(p: number, off: number): number {
    return this.f64(this.pAddr(p) + L.P_OPS + off);
  }
  m(m: number, off: number): number {
    return this.u32(this.mAddr(m) + off);
  }
  setM(m: number, off: number, v: number): void {
    this.setU32(this.mAddr(m) + off, v);
  }
  g(g: number, off: number): number {
    return this.u32(this.gAddr(g) + off);
  }
  setG(g: number, off: number, v: number): void {
    this.setU32(this.gAddr(g) + off, v);
  }
  /** G g's priority class: the low byte of G_PRIO. */
  gClass(g: number): number {
    return this.g(g, L.G_PRIO) & L.PRIO_MASK;
  }
  /** Writes G g's class byte, keeping the flags byte and the token half of G_PRIO. */
  setGClass(g: number, cls: number): void {
    this.setG(g, L.G_PRIO, ((this.g(g, L.G_PRIO) & ~L.PRIO_MASK) | (cls & L.PRIO_MASK)) >>> 0);
  }

  // ---- lists, walked with a cycle guard ----------------------------------------------------------
  /** The ring of P p, oldest first (runnext not included). */
  ring(p: number): number[] {
    const base = this.pAddr(p);
    const h = this.u32(base + L.P_HEAD);
    const t = this.u32(base + L.P_TAIL);
    const n = (t - h) >>> 0;
    if (n > L.RUNQ_SIZE) throw new Error(`Mem.ring: p=${p} holds ${n} (h=${h} t=${t})`);
    const out: number[] = [];
    for (let i = 0; i < n; i++) out.push(this.u32(base + L.P_RUNQ + ((h + i) & L.RUNQ_MASK) * 4));
    return out;
  }
  runnext(p: number): number {
    return this.p(p, L.P_RUNNEXT);
  }
  /** P p's fork deque, oldest (top) first. */
  forkq(p: number): number[] {
    const base = this.pAddr(p);
    const t = this.u32(base + L.P_FORKQ_TOP);
    const b = this.u32(base + L.P_FORKQ_BOTTOM);
    const n = (b - t) >>> 0;
    if (n > L.FORKQ_SIZE) throw new Error(`Mem.forkq: p=${p} holds ${n} (top=${t} bottom=${b})`);
    const out: number[] = [];
    for (let i = 0; i < n; i++) out.push(this.u32(base + L.P_FORKQ + ((t + i) & L.FORKQ_MASK) * 4));
    return out;
  }
  /** The global run queue, head first; checks S_RUNQ_TAIL and S_RUNQ_SIZE agree with the links. */
  globalQueue(): number[] {
    return this.fifo('globalQueue', L.S_RUNQ_HEAD, L.S_RUNQ_TAIL, L.S_RUNQ_SIZE);
  }
  /** The high class queue, head first; checked like globalQueue. */
  highQueue(): number[] {
    return this.fifo('highQueue', L.S_RUNQH_HEAD, L.S_RUNQH_TAIL, L.S_RUNQH_SIZE);
  }
  /** The low class queue, head first; checked like globalQueue. */
  lowQueue(): number[] {
    return this.fifo('lowQueue', L.S_RUNQL_HEAD, L.S_RUNQL_TAIL, L.S_RUNQL_SIZE);
  }
  /** A sched.lock FIFO linked by G_SCHEDLINK: walks size Gs from the head, checks the tail,
   *  the tail's 0 link, and that an empty queue has head = tail = 0. */
  private fifo(what: string, headAt: number, tailAt: number, sizeAt: number): number[] {
    const size = this.u32(sizeAt);
    const out: number[] = [];
    let g = this.u32(headAt);
    while (g !== 0) {
      if (out.length > size) throw new Error(`Mem.${what}: more than size=${size} linked`);
      out.push(g);
      if (out.length === size) break;
      g = this.g(g, L.G_SCHEDLINK);
    }
    if (out.length !== size) throw new Error(`Mem.${what}: ${out.length} linked, size=${size}`);
    const tail = this.u32(tailAt);
    if (size > 0 && tail !== out[size - 1]) {
      throw new Error(`Mem.${what}: tail=${tail} but last linked=${out[size - 1]}`);
    }
    if (size > 0 && this.g(tail, L.G_SCHEDLINK) !== 0) throw new Error(`Mem.${what}: tail ${tail} links on`);
    if (size === 0 && (this.u32(headAt) !== 0 || tail !== 0)) {
      throw new Error(`Mem.${what}: empty but head=${this.u32(headAt)} tail=${tail}`);
    }
    return out;
  }
  /** Idle Ps, in list order. */
  pidle(): number[] {
    const out: number[] = [];
    for (let x = this.u32(L.S_PIDLE); x !== 0; x = this.p(x - 1, L.P_LINK)) {
      if (out.length > L.MAX_PROCS) throw new Error('Mem.pidle: cycle');
      out.push(x - 1);
    }
    return out;
  }
  /** Idle Ms, in list order. */
  midle(): number[] {
    const out: number[] = [];
    for (let x = this.u32(L.S_MIDLE); x !== 0; x = this.m(x - 1, L.M_LINK)) {
      if (out.length > L.MAX_MS) throw new Error('Mem.midle: cycle');
      out.push(x - 1);
    }
    return out;
  }
  /** Global free-G stack (Treiber), top first. */
  gfreeGlobal(): number[] {
    const out: number[] = [];
    const limit = this.gcap;
    for (let g = this.u32(L.S_GFREE_HEAD); g !== 0; g = this.g(g, L.G_SCHEDLINK)) {
      if (out.length >= limit) throw new Error('Mem.gfreeGlobal: cycle');
      out.push(g);
    }
    return out;
  }
  /** Version half of the global free-G head word. */
  gfreeVersion(): number {
    return this.u32(L.S_GFREE_HEAD + 4);
  }
  /** P p's free-G cache, top first; checks P_GFREE_N agrees. */
  gfreeLocal(p: number): number[] {
    const out: number[] = [];
    const limit = this.gcap;
    for (let g = this.p(p, L.P_GFREE); g !== 0; g = this.g(g, L.G_SCHEDLINK)) {
      if (out.length >= limit) throw new Error(`Mem.gfreeLocal: cycle on p=${p}`);
      out.push(g);
    }
    const n = this.p(p, L.P_GFREE_N);
    if (n !== out.length) throw new Error(`Mem.gfreeLocal: p=${p} P_GFREE_N=${n} but ${out.length} linked`);
    return out;
  }
  /** Every free G, anywhere (global stack and every P's cache). */
  allFree(): number[] {
    const out = this.gfreeGlobal();
    for (let p = 0; p < this.nprocs; p++) out.push(...this.gfreeLocal(p));
    return out;
  }
  /** Every queued G, anywhere (rings, runnext slots, global and class queues). */
  allQueued(): number[] {
    const out = [...this.globalQueue(), ...this.highQueue(), ...this.lowQueue()];
    for (let p = 0; p < this.nprocs; p++) {
      out.push(...this.ring(p), ...this.forkq(p));
      const n = this.runnext(p);
      if (n !== 0) out.push(n);
    }
    return out;
  }
}

/** The coprimes of n in [1, n], ascending (n = 1 gives [1]). */
export function coprimesOf(n: number): number[] {
  const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
  const out: number[] = [];
  for (let i = 1; i <= n; i++) if (gcd(i, n) === 1) out.push(i);
  return out;
}

/** Go's globrunqget batch rule (DESIGN.md "Global run queue"). */
export function globBatch(size: number, nprocs: number, max: number): number {
  let n = Math.min(Math.floor(size / nprocs) + 1, size);
  if (max > 0) n = Math.min(n, max);
  return Math.min(n, L.GLOBRUNQ_MAX_BATCH);
}

/** P_RAND's initial value for P p (DESIGN.md "Victim order"). */
export function initialRand(seed: number, p: number): number {
  return ((seed ^ Math.imul(0x9e3779b9, p + 1)) | 1) >>> 0;
}

const exported = L as unknown as Record<string, number>;
const namesAt = (prefix: string, exclude: string[] = []): Map<number, string> => {
  const out = new Map<number, string>();
  for (const [k, v] of Object.entries(exported)) {
    if (k.startsWith(prefix) && !exclude.includes(k) && !out.has(v)) out.set(v, k);
  }
  return out;
};
const S_NAMES = namesAt('S_');
const P_NAMES = namesAt('P_', ['P_SIZE', 'P_IDLE', 'P_RUNNING']);
const PC_NAMES = namesAt('PC_', ['PC_COUNT']);
const M_NAMES = namesAt('M_', ['M_SIZE']);
const G_NAMES = namesAt('G_', ['G_SIZE', 'G_INLINE_ARGS', 'G_CHUNK', 'G_CHUNK_SHIFT', 'G_CHUNK_MASK', 'G_IDLE', 'G_RUNNABLE', 'G_RUNNING', 'G_WAITING', 'G_DEAD']);
const H_NAMES = namesAt('H_');

/** Names the layout field at addr, for failure messages ("P2+128 P_HEAD", "G17+8 G_SCHEDLINK"). */
export function whereIs(mem: Mem, addr: number): string {
  const word = addr & ~3;
  if (addr < L.LAYOUT_BASE) return `static data +${addr}`;
  if (addr < L.SCHED) return `header +${addr - L.HEADER} ${H_NAMES.get(word - L.HEADER) ?? ''}`;
  if (addr < L.COPRIMES) {
    if (addr >= L.S_COUNTERS && addr < L.S_COUNTERS + 2 * L.LINE) return `sched counter SC+${addr - L.S_COUNTERS}`;
    return `sched +${addr - L.SCHED} ${S_NAMES.get(word) ?? ''}`;
  }
  if (addr < L.GDIR) return `coprimes[${(addr - L.COPRIMES) >> 2}]`;
  if (addr < L.PS) return `gdir[${(addr - L.GDIR) >> 2}]`;
  const pBase = mem.hdr(L.H_PBASE);
  const mBase = mem.hdr(L.H_MBASE);
  if (addr < pBase + mem.nprocs * L.P_SIZE) {
    const p = Math.floor((addr - pBase) / L.P_SIZE);
    const off = addr - pBase - p * L.P_SIZE;
    if (off >= L.P_RUNQ) return `P${p} ring slot ${(off - L.P_RUNQ) >> 2}`;
    if (off >= L.P_COUNTERS) return `P${p} counter ${PC_NAMES.get((off - L.P_COUNTERS) & ~7) ?? off}`;
    return `P${p}+${off} ${P_NAMES.get(off & ~3) ?? ''}`;
  }
  if (addr >= mBase && addr < mBase + mem.maxMs * L.M_SIZE) {
    const m = Math.floor((addr - mBase) / L.M_SIZE);
    const off = addr - mBase - m * L.M_SIZE;
    return `M${m}+${off} ${M_NAMES.get(off & ~3) ?? ''}`;
  }
  for (let c = 0; c * L.G_CHUNK < mem.gcap; c++) {
    const base = mem.u32(L.GDIR + 4 * c);
    if (addr >= base && addr < base + L.G_CHUNK * L.G_SIZE) {
      const g = c * L.G_CHUNK + Math.floor((addr - base) / L.G_SIZE);
      const off = (addr - base) % L.G_SIZE;
      return `G${g}+${off} ${G_NAMES.get(off & ~3) ?? ''}`;
    }
  }
  return `heap/unused ${addr} (brk ${mem.brk})`;
}

/** First differing byte address in [from, end) of two memories, or -1; lengths must match. */
export function firstDifference(a: Mem, b: Mem, from: number): number {
  const la = a.byteLength;
  const lb = b.byteLength;
  if (la !== lb) return Math.min(la, lb);
  const wa = new Int32Array(a.memory.buffer, from, (la - from) >> 2);
  const wb = new Int32Array(b.memory.buffer, from, (lb - from) >> 2);
  for (let i = 0; i < wa.length; i++) {
    if (wa[i] !== wb[i]) {
      for (let j = 0; j < 4; j++) {
        const addr = from + 4 * i + j;
        if (a.u8(addr) !== b.u8(addr)) return addr;
      }
    }
  }
  return -1;
}
