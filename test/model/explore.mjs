// A deterministic interleaving explorer for the TypeScript twin, in the manner of loom:
// simulated threads are generators (the twin compiled by transform.mjs), a controlled scheduler
// runs one at a time and, before every shared access, chooses who goes on. Each schedule runs
// from scratch on a memory restored from a snapshot.
//
// The memory model (what the twin may rely on):
// - Atomics are sequentially consistent and are the only synchronization: before one runs, the
//   thread's pending plain stores become visible (a release), as in the JS memory model.
// - A plain i32 store goes into the thread's store buffer: invisible to other threads until the
//   thread's next atomic, or until the scheduler chooses to flush that one entry (in any order
//   across addresses). The thread itself reads its own buffer. So a plain store is not a
//   synchronization point and may be observed late, or before an earlier plain store.
// - Plain f64/i64 accesses go straight to memory (after the thread's buffer).
// - Plain accesses to words no two threads race on by construction (the header, the counter
//   lines, the coprimes and G directory, the runtime's M words), and every plain access of a
//   thread holding sched.lock or the heap lock, run without a scheduling point: for accesses
//   free of data races, interleaving at the synchronizing ones covers every outcome.
// - Atomics.wait blocks until a notify; a bounded wait of the lock also ends when every other
//   thread is blocked (its timeout, as a last resort); a wait shorter than 10 us is a yield:
//   switching away from it costs no preemption.
//
// exploreScenario runs every schedule with at most `bound` preemptions (a switch away from a
// thread that could go on, or an early flush), depth first, up to `maxDfs` schedules, then
// `random` random schedules with no bound. Test code only.

export class ModelFailure extends Error {
  constructor(message, trace) {
    super(`${message}\n  last steps: ${trace.slice(-40).join(' ')}`);
    this.name = 'ModelFailure';
  }
}

const BLOCKED = Symbol('blocked');

/** Runs a twin generator to the end without scheduling (set-up and checks). */
export function runDirect(gen) {
  let r = gen.next();
  while (!r.done) r = gen.next(direct(r.value));
  return r.value;
}

function direct(op) {
  const a = op[1];
  switch (op[0]) {
    case 'ld': return a[op[2]];
    case 'st': a[op[2]] = op[3]; return undefined;
    case 'fill': a.fill(op[2], op[3], op[4]); return undefined;
    case 'wait': return Atomics.load(a, op[2]) !== op[3] ? 'not-equal' : 'timed-out';
    case 'notify': return 0;
    default: return Atomics[op[0]](...op.slice(1));
  }
}

/** One shared memory laid down by the variant's init, restored before every schedule. */
export class World {
  constructor(variant, initArgs) {
    const { modules: T, layout: L } = variant;
    this.T = T;
    this.L = L;
    this.memory = new WebAssembly.Memory({ initial: 1, maximum: 64, shared: true });
    const m = new T.mem.Mem(this.memory, true);
    runDirect(T.init.init(m, ...initArgs));
    this.snapshot = new Uint8Array(this.memory.buffer).slice();
    this.i32 = new Int32Array(this.memory.buffer);
    this.mBase = this.i32[(L.HEADER + L.H_MBASE) >> 2];
    this.lockKeys = new Set([L.S_LOCK, L.S_HEAP_LOCK]);
    this.nprocs = this.i32[(L.HEADER + L.H_NPROCS) >> 2];
  }

  /** Runs a twin generator to the end with no scheduling (set-up and final checks). */
  runDirect(gen) {
    return runDirect(gen);
  }

  /** A fresh Mem for one simulated thread. */
  mem() {
    return new this.T.mem.Mem(this.memory, true);
  }

  /** The current i32 view of the whole memory (for checks and flushes). */
  view() {
    if (this.i32.length * 4 !== this.memory.buffer.byteLength) this.i32 = new Int32Array(this.memory.buffer);
    return this.i32;
  }

  reset() {
    const bytes = new Uint8Array(this.memory.buffer);
    bytes.set(this.snapshot);
    if (bytes.length > this.snapshot.length) bytes.fill(0, this.snapshot.length);
  }

  /** May a plain access at byte address `addr` run without a scheduling point? */
  quiet(addr) {
    const L = this.L;
    if (addr >= L.HEADER && addr < L.HEADER + L.LINE) return true;
    if (addr >= L.S_COUNTERS && addr < L.S_COUNTERS + 2 * L.LINE) return true;
    if (addr >= L.COPRIMES && addr < L.PS) return true;
    if (addr >= L.PS && addr < this.mBase) {
      const off = (addr - L.PS) % L.P_SIZE;
      return off >= L.P_COUNTERS && off < L.P_COUNTERS + 2 * L.LINE;
    }
    if (addr >= this.mBase && addr < this.mBase + 64 * L.M_SIZE) return (addr - this.mBase) % L.M_SIZE >= L.M_RT;
    return false;
  }
}

class Thread {
  constructor(id, gen) {
    this.id = id;
    this.gen = gen;
    this.op = null; // the access it stopped before
    this.wake = undefined; // the value a woken wait returns
    this.done = false;
    this.blocked = null; // { key, finite, seq } while in Atomics.wait
    this.yielded = false;
    this.buf = new Map(); // i32 index -> pending plain store
    this.locks = 0; // futex mutexes (sched.lock, the heap lock) this thread holds
    this.result = undefined;
  }
}

function keyOf(a, i) {
  return a.byteOffset + i * a.BYTES_PER_ELEMENT;
}

/** One schedule of a scenario instance; `choose(options)` picks each step. */
class Run {
  constructor(world, inst, choose, maxSteps) {
    this.world = world;
    this.inst = inst;
    this.choose = choose;
    this.maxSteps = maxSteps;
    this.threads = inst.threads.map((g, i) => new Thread(i, g));
    this.trace = [];
    this.seq = 0;
  }

  fail(msg) {
    throw new ModelFailure(msg, this.trace);
  }

  flush(t) {
    if (t.buf.size === 0) return;
    const i32 = this.world.view();
    for (const [i, v] of t.buf) i32[i] = v;
    t.buf.clear();
  }

  exec(t, op) {
    const a = op[1];
    switch (op[0]) {
      case 'ld':
        if (a instanceof Int32Array) {
          const v = t.buf.get(op[2]);
          return v !== undefined ? v : a[op[2]];
        }
        if (!this.world.quiet(keyOf(a, op[2]))) this.flush(t);
        return a[op[2]];
      case 'st':
        if (a instanceof Int32Array) {
          t.buf.delete(op[2]); // re-inserted last: a later store to the word flushes after earlier ones
          t.buf.set(op[2], op[3] | 0);
          return undefined;
        }
        this.flush(t);
        a[op[2]] = op[3];
        return undefined;
      case 'fill':
        this.flush(t);
        a.fill(op[2], op[3], op[4]);
        return undefined;
      case 'wait': {
        this.flush(t);
        if (Atomics.load(a, op[2]) !== op[3]) return 'not-equal';
        const timeout = op[4] === undefined ? Infinity : op[4];
        if (timeout < 0.01) {
          t.yielded = true;
          return 'timed-out';
        }
        t.blocked = { key: keyOf(a, op[2]), finite: Number.isFinite(timeout), seq: this.seq++ };
        return BLOCKED;
      }
      case 'notify': {
        this.flush(t);
        const key = keyOf(a, op[2]);
        let n = op[3] === undefined ? Infinity : op[3];
        const waiters = this.threads.filter((u) => u.blocked !== null && u.blocked.key === key)
          .sort((x, y) => x.blocked.seq - y.blocked.seq);
        let woken = 0;
        for (const u of waiters) {
          if (n-- <= 0) break;
          u.blocked = null;
          u.wake = 'ok';
          woken++;
        }
        return woken;
      }
      default: {
        this.flush(t);
        const v = Atomics[op[0]](...op.slice(1));
        if (this.world.lockKeys.has(keyOf(a, op[2]))) {
          // lockWord takes the word by CAS 0 -> 1 or exchange(2) seeing 0; unlockWord swaps in 0.
          if ((op[0] === 'compareExchange' || op[0] === 'exchange') && v === 0 && op[op.length - 1] !== 0) t.locks++;
          else if (op[0] === 'exchange' && op[3] === 0) t.locks--;
        }
        return v;
      }
    }
  }

  /** Is op a plain access that needs no scheduling point for thread t? */
  quietOp(t, op) {
    const kind = op[0];
    if (kind !== 'ld' && kind !== 'st') return false;
    const a = op[1];
    // Under a lock, a plain access touches what the lock guards: no other thread can see it
    // before the unlock (a data race otherwise, which the twin's comments rule out).
    if (t.locks > 0) return true;
    if (a instanceof Int32Array && (kind === 'st' || t.buf.has(op[2]))) return true;
    return this.world.quiet(keyOf(a, op[2]));
  }

  /** Resumes t with v and runs it to its next scheduling point. */
  advance(t, v) {
    let r;
    try {
      r = t.gen.next(v);
      for (;;) {
        if (r.done) {
          t.done = true;
          t.result = r.value;
          this.flush(t);
          return;
        }
        if (!this.quietOp(t, r.value)) break;
        r = t.gen.next(this.exec(t, r.value));
      }
    } catch (e) {
      if (e instanceof ModelFailure) throw e;
      this.fail(`thread ${t.id} threw: ${e && e.stack ? e.stack.split('\n').slice(0, 3).join(' | ') : e}`);
    }
    t.op = r.value;
  }

  step(t) {
    if (t.wake !== undefined) {
      const v = t.wake;
      t.wake = undefined;
      this.trace.push(`${t.id}:woke`);
      this.advance(t, v);
      return;
    }
    const op = t.op;
    t.op = null;
    t.yielded = false;
    this.trace.push(`${t.id}:${op[0]}@${keyOf(op[1], op[2])}`);
    const v = this.exec(t, op);
    if (v === BLOCKED) return;
    this.advance(t, v);
  }

  go() {
    for (const t of this.threads) this.advance(t, undefined);
    let cur = null;
    let steps = 0;
    for (;;) {
      const enabled = this.threads.filter((t) => !t.done && t.blocked === null);
      if (enabled.length === 0) {
        const timed = this.threads.filter((t) => t.blocked !== null && t.blocked.finite)
          .sort((x, y) => x.blocked.seq - y.blocked.seq);
        if (timed.length === 0) break;
        timed[0].blocked = null; // a bounded wait times out when nothing else can run
        timed[0].wake = 'timed-out';
        continue;
      }
      const curOn = cur !== null && !cur.done && cur.blocked === null;
      const switchCost = curOn && !cur.yielded ? 1 : 0;
      const options = [];
      if (curOn) options.push({ t: cur, key: -1, cost: 0 });
      for (const t of enabled) if (t !== cur) options.push({ t, key: -1, cost: switchCost });
      for (const t of this.threads) for (const k of t.buf.keys()) options.push({ t, key: k, cost: 1 });
      const o = options[this.choose(options)];
      if (o.key >= 0) {
        this.world.view()[o.key] = o.t.buf.get(o.key);
        o.t.buf.delete(o.key);
        this.trace.push(`${o.t.id}:flush@${o.key * 4}`);
      } else {
        cur = o.t;
        this.step(o.t);
      }
      if (++steps > this.maxSteps) this.fail(`no end after ${this.maxSteps} steps (livelock?)`);
      if (this.inst.check) {
        const msg = this.inst.check();
        if (msg) this.fail(`invariant: ${msg}`);
      }
    }
    for (const t of this.threads) if (t.buf.size !== 0) this.fail(`thread ${t.id} ended with buffered stores`);
    const msg = this.inst.final(this.threads);
    if (msg) this.fail(`at the end: ${msg}`);
  }
}

/** xorshift32 for reproducible random schedules. */
function rng(seed) {
  let x = seed | 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 4294967296;
  };
}

/**
 * Explores scenario { name, world, setup(world) -> { threads, check?, final } }: depth first
 * with at most `bound` preemptions (up to maxDfs schedules), then `random` random schedules.
 * Returns the number of schedules run; throws ModelFailure at the first violation.
 */
export function exploreScenario(sc, { bound = 2, maxDfs = 2000, random = 500, seed = 1, maxSteps = 20000 } = {}) {
  let count = 0;
  const stack = [];
  const once = (choose) => {
    sc.world.reset();
    new Run(sc.world, sc.setup(sc.world), choose, maxSteps).go();
    count++;
  };
  try {
    for (;;) {
      let depth = 0;
      once((opts) => {
        if (depth < stack.length) {
          const e = stack[depth++];
          if (e.costs.length !== opts.length) throw new Error(`model: ${sc.name}: nondeterministic scenario`);
          return e.idx;
        }
        const prev = stack[depth - 1];
        const used = prev === undefined ? 0 : prev.used + prev.costs[prev.idx];
        stack.push({ costs: opts.map((o) => o.cost), idx: 0, used });
        depth++;
        return 0;
      });
      while (stack.length !== 0) {
        const e = stack[stack.length - 1];
        let j = e.idx + 1;
        while (j < e.costs.length && e.used + e.costs[j] > bound) j++;
        if (j < e.costs.length) {
          e.idx = j;
          break;
        }
        stack.pop();
      }
      if (stack.length === 0 || count >= maxDfs) break;
    }
    sc.stats = { dfs: count, exhausted: stack.length === 0, bound };
    const rand = rng(seed);
    for (let k = 0; k < random; k++) {
      const pSwitch = 0.05 + 0.5 * rand();
      once((opts) => {
        const flushes = opts.filter((o) => o.key >= 0);
        if (flushes.length !== 0 && rand() < 0.15) return opts.indexOf(flushes[(rand() * flushes.length) | 0]);
        const runs = opts.length - flushes.length;
        if (runs === 1 || rand() >= pSwitch) return 0;
        return 1 + ((rand() * (runs - 1)) | 0);
      });
    }
  } catch (e) {
    if (e instanceof ModelFailure) e.message = `${sc.name}, schedule ${count + 1}: ${e.message}`;
    throw e;
  }
  return count;
}
