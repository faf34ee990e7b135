// The shared-memory layout of stealwork: the one source of truth.
//
// This file is compiled twice: by asc into the Wasm core (assembly/) and by tsc into the
// TypeScript twin and the runtime (bindings/). It may therefore hold only `export const NAME =
// <integer expression of literals and other constants>`: no types, no functions, no imports.
// test/layout.test.ts pins every value, so drift between the two sides fails CI.
//
// All addresses are byte offsets into the one shared WebAssembly.Memory. Words written by
// different threads sit on different 128-byte lines (LINE), so a thief's CAS on a victim's
// `head` never invalidates the line holding the owner's `tail`.
//
//   0        LAYOUT_BASE                                                         brk ->
//   +--------+--------+--------+---------+------------+-----+-----+-------+-----------------+
//   | wasm   | header | sched  | coprime |    gdir    | P0  | ... | M0 .. | chunks: G table, |
//   | static | 1 line | 8 lines| 2 lines |  (GDIR_MAX | ... | Pn-1| Mmax-1| value blocks     |
//   | data   |        |        |         |   words)   |     |     |       | (grow memory)    |
//   +--------+--------+--------+---------+------------+-----+-----+-------+-----------------+
//
// Everything left of `brk` is fixed at init(); right of it, chunks are bump-allocated under
// the heap lock and memory grows as needed (docs/DESIGN.md, "Free Gs" and "Value blocks").

export const LINE = 128;
export const PAGE = 65536;

// Identity of the layout, checked by every thread that attaches.
export const MAGIC = 0x4b525753; // 'SWRK' little-endian
export const LAYOUT_VERSION = 5;

// The Wasm module's own static data must end below this address; the core checks
// __heap_base against it at init. Instantiation rewrites static data (see DESIGN.md,
// "Memory layout", rule 1), so no shared state lives below it.
export const LAYOUT_BASE = 65536;

// Go's constants (reference: runtime2.go, proc.go).
export const RUNQ_SIZE = 256; // p.runq [256]guintptr
export const RUNQ_MASK = 255;
export const RUNQ_HALF = 128; // runqputslow moves len(runq)/2 oldest Gs
export const GLOBRUNQ_MAX_BATCH = 128; // globrunqget caps a batch at len(runq)/2
export const STEAL_TRIES = 4; // stealWork: const stealTries = 4
export const GLOBAL_CHECK_TICKS = 61; // findRunnable: schedtick%61 == 0
export const GFREE_LOCAL_MAX = 64; // gfput: move to global when n >= 64 ...
export const GFREE_LOCAL_KEEP = 32; // ... until n < 32; gfget refills to 32
export const MAX_PROCS = 256;
export const MAX_MS = 512;

// Priority classes (DESIGN.md "Priority classes"): the low byte of G_PRIO. A zeroed G is
// normal, so every G gfGet hands out is normal until the runtime writes another class.
export const PRIO_NORMAL = 0; // local rings, runnext, the global queue: Go's path, unchanged
export const PRIO_HIGH = 1; // the high queue, taken before runnext and the ring
export const PRIO_LOW = 2; // the low queue, taken when nothing else is found (any other byte reads as low)
export const PRIO_MASK = 0xff; // G_PRIO & PRIO_MASK: the class byte
// findRunnable takes one low G first when schedtick % LOW_CHECK_TICKS == 0: the anti-starvation
// turn. Rarer than the global queue's 1-in-61, so low work's guaranteed share (1/64 of the
// slices of a P that never runs dry) stays below normal work's; coprime with 61, so the two
// turns fall on the same slice once in 3904; a power of two, so the check is a mask.
export const LOW_CHECK_TICKS = 64;
// High work's budget (DESIGN.md "Priority classes", "High work's budget"): while other work
// waits, high work may take HIGH_RUNTIME_MS of each HIGH_PERIOD_MS of a P's time. Linux's
// default for real-time tasks (sched_rt_runtime_us 950000 of sched_rt_period_us 1000000), at a
// tenth of its period: normal work behind a flood of high work waits about 100 ms, not 1 s.
export const HIGH_PERIOD_MS = 100;
export const HIGH_RUNTIME_MS = 95;
// P_HIGH_STATE: the budget's state on a P.
export const HIGH_OPEN = 0; // high work goes first
export const HIGH_THROTTLED = 1; // budget spent: other work first, high work only when none is found
export const HIGH_FREE = 2; // throttled, and the G running is high work taken because nothing else was: not charged

// G states (runtime2.go: _Gidle = iota ...). Only these five are used.
export const G_IDLE = 0;
export const G_RUNNABLE = 1;
export const G_RUNNING = 2;
export const G_WAITING = 4;
export const G_DEAD = 6;

// P states (runtime2.go: _Pidle = iota ...).
export const P_IDLE = 0;
export const P_RUNNING = 1;

// States of a futex mutex word (S_LOCK, S_HEAP_LOCK; assembly/lock.ts and its twin): Drepper's
// "Futexes Are Tricky" mutex 2. Lock CASes FREE -> HELD, else swaps in CONTENDED until the swap
// returns FREE; unlock swaps in FREE and wakes one sleeper when it took CONTENDED away.
export const LOCK_FREE = 0;
export const LOCK_HELD = 1; // held, nobody sleeps on the word
export const LOCK_CONTENDED = 2; // held, and a thread may sleep on the word: unlock must notify

// What stopM returns when it hands out no G (a G id is > 0): crossbeam's Steal::{Empty, Retry}.
// The runtime's face is `Stop` (bindings/core/core.ts); DESIGN.md "Spin, then park".
export const STOP_SLEEP = 0; // p and m are idle: sleep on M_PARK, then acquireP
export const STOP_RETRY = -1; // m was spinning, the recheck found work and m took an idle P: acquireP, then findRunnable

// What a call that hands out a P or an M index returns when it has none to give (indexes are
// >= 0): pidleGet, mGet, and the face's mTake, pRetire and handoff. Callers test `< 0`.
export const NONE = -1;

// Victim order policies and steal-threshold modes (header FLAGS word).
export const ORDER_RANDOM = 0; // Go's randomOrder: random start, random coprime stride
export const ORDER_ROUND_ROBIN = 1; // p+1, p+2, ... (the seed's comparison baseline)
export const FLAG_ORDER_MASK = 1;
export const FLAG_VICTIM_HINT = 2; // try the last victim that had work first
export const FLAG_THRESHOLD_LOAD = 4; // steal threshold derived from load, not fixed
export const FLAG_GLOBAL_ONLY = 8; // every put goes to the global queue (benchmark baseline)
export const FLAG_DEBUG = 16; // check G state transitions; an illegal one aborts

// ---------------------------------------------------------------------------------------
// Header: one line at LAYOUT_BASE. Written by init(), then read-only except H_GCAP, H_BRK and H_MEMBYTES.
//
//   +0 magic  +4 version  +8 nprocs  +12 maxMs  +16 gcap  +20 gmax  +24 brk  +28 flags
//   +32 stealThreshold  +36 ncoprimes  +40 pBase  +44 mBase  +48 memBytes
export const HEADER = LAYOUT_BASE;
export const H_MAGIC = 0;
export const H_VERSION = 4;
export const H_NPROCS = 8;
export const H_MAXMS = 12;
export const H_GCAP = 16; // Gs with a table slot; grows by G_CHUNK under the heap lock (release store)
export const H_GMAX = 20;
export const H_BRK = 24; // first free byte for chunks; only under the heap lock
export const H_FLAGS = 28;
export const H_STEAL_THRESHOLD = 32; // fixed threshold (>= 1), or the floor of the load-derived one
export const H_NCOPRIMES = 36;
export const H_PBASE = 40;
export const H_MBASE = 44;
export const H_MEMBYTES = 48; // memory size the heap lock holder last grew to

// ---------------------------------------------------------------------------------------
// Scheduler block (Go's schedt): 8 lines after the header.
export const SCHED = HEADER + LINE;

// Line 0: sched.lock and what it guards: the global run queue and the high and low class
// queues (each a FIFO linked through G_SCHEDLINK), the idle-P list and the idle-M list.
export const S_LOCK = SCHED + 0; // LOCK_FREE, LOCK_HELD or LOCK_CONTENDED (futex mutex: lock.ts)
export const S_RUNQ_HEAD = SCHED + 4;
export const S_RUNQ_TAIL = SCHED + 8;
export const S_PIDLE = SCHED + 12; // P index + 1 of the first idle P (0: none); linked via P_LINK
export const S_MIDLE = SCHED + 16; // M index + 1 of the first idle M (0: none); linked via M_LINK
export const S_NMIDLE = SCHED + 20;
export const S_RUNQH_HEAD = SCHED + 24; // high queue (PRIO_HIGH Gs): first G, 0 when empty
export const S_RUNQH_TAIL = SCHED + 28; // its last G (schedlink 0), 0 when empty
export const S_RUNQL_HEAD = SCHED + 32; // low queue (PRIO_LOW Gs): first G, 0 when empty
export const S_RUNQL_TAIL = SCHED + 36; // its last G (schedlink 0), 0 when empty

// Line 1: words read lock-free by every spinning M (written under the lock or by atomics).
export const S_RUNQ_SIZE = SCHED + LINE + 0; // sched.runqsize: written under the lock, read anywhere
export const S_NPIDLE = SCHED + LINE + 4; // sched.npidle
export const S_NMSPINNING = SCHED + LINE + 8; // sched.nmspinning
export const S_NEEDSPINNING = SCHED + LINE + 12; // sched.needspinning
export const S_RUNQH_SIZE = SCHED + LINE + 16; // Gs on the high queue: written under the lock, read anywhere
export const S_RUNQL_SIZE = SCHED + LINE + 20; // Gs on the low queue: written under the lock, read anywhere

// Line 2: the global free-G list, lock-free (Treiber stack). The head is a 64-bit word:
// low 32 bits the first G's id, high 32 bits a version bumped by every successful CAS (ABA).
export const S_GFREE_HEAD = SCHED + 2 * LINE; // i64, 8-aligned
export const S_GFREE_N = SCHED + 2 * LINE + 8; // approximate count (atomic add)

// Line 3: the heap lock (chunk bump allocation, memory growth, size-class lists).
export const S_HEAP_LOCK = SCHED + 3 * LINE; // LOCK_* as S_LOCK
export const S_HEAP_FREE = SCHED + 3 * LINE + 8; // HEAP_CLASSES words: first free block per class
export const HEAP_CLASSES = 27; // block sizes 2^4 .. 2^30 bytes (class c holds 2^(c+4))
export const HEAP_MIN_SHIFT = 4;

// Lines 4-5: scheduler-wide counters, f64 (exact to 2^53). Written under the lock (or by
// atomics where noted); readers tolerate a stale value.
export const S_COUNTERS = SCHED + 4 * LINE;
export const SC_GLOB_PUT = 0; // Gs put on the global queue
export const SC_GLOB_GET = 8; // Gs taken from the global queue
export const SC_LOCK_ACQ = 16; // sched.lock acquisitions
export const SC_GROWS = 24; // G table chunks added
export const SC_HEAP_ALLOCS = 32; // value blocks allocated (heap lock)
export const SC_HEAP_FREES = 40; // value blocks freed (heap lock)
export const SC_HEAP_BYTES = 48; // bytes in live value blocks (heap lock)
export const SC_HIGH_PUT = 56; // Gs put on the high queue (sched.lock); taken: the Ps' PC_HIGH_HITS
export const SC_LOW_PUT = 64; // Gs put on the low queue (sched.lock); taken: the Ps' PC_LOW_HITS
export const SC_COUNT = 9;
// Line 5: gauges, u32, plain racy loads and stores (a lost update only leaves one low).
export const S_NMSPINNING_MAX = S_COUNTERS + LINE; // the most Ms counted spinning at once so far: after each increment of nmspinning, stored when exceeded

// Line 6: the dummy word runqGrab waits on for its 3 us back-off (never notified).
export const S_DUMMY = SCHED + 6 * LINE;

// Line 7: words the main thread and the runtime use; the core's monitor calls (sysmon.ts)
// keep the spare-P reserve here too, away from the hot lines.
export const S_RT = SCHED + 7 * LINE;
export const S_RT_STOP = S_RT + 0; // 1 once close() has drained: Ms exit their loops
export const S_RT_SHARES = S_RT + 4; // SharedArrayBuffers registered so far (bumped before each broadcast)
export const S_RT_CANCEL = S_RT + 8; // address of CANCEL_TOKENS flag bytes (1: that token's tasks are cancelled)
export const S_RT_PRESERVE = S_RT + 12; // P index + 1 of the first reserved spare P (0: none); linked via P_LINK, under sched.lock
export const S_RT_NPRESERVE = S_RT + 16; // reserved spare Ps: changed under sched.lock, read anywhere
export const S_RT_HANDOFFS = S_RT + 20; // spare Ps the monitor handed to an idle M (under sched.lock)
export const S_RT_RETIRES = S_RT + 24; // Ps put back in reserve: idle ones by the monitor, busy ones given back (under sched.lock)
export const S_RT_GIVEBACK = S_RT + 28; // GIVEBACK_*: the monitor's request that the next M that looks (every 64 tasks) give its P back to the reserve
/** S_RT_GIVEBACK: no request (the monitor sets ASKED from here; an M's give-back ends here). */
export const GIVEBACK_NONE = 0;
/** S_RT_GIVEBACK: asked; the first M to CAS it to TAKEN gives its P back, or the monitor CASes it back to NONE. */
export const GIVEBACK_ASKED = 1;
/** S_RT_GIVEBACK: an M is giving its P back (pGiveBack) and stores NONE after; the monitor does nothing meanwhile. */
export const GIVEBACK_TAKEN = 2;
export const S_RT_FORK_SLEEPERS = S_RT + 32; // 1: a fork joiner may sleep on S_RT_FORK_EPOCH (stored by it before its last look; the fork push that sees it swaps it to 0 and wakes all)
export const S_RT_FORK_EPOCH = S_RT + 36; // bumped (and notified) when a sleeping fork joiner may have something to do (DESIGN.md "Fork-join")
export const S_RT_PNOM = S_RT + 40; // P index + 1 of the first P without an M (its thread exited idle, or was never started); linked via P_LINK, under sched.lock
export const S_RT_NPNOM = S_RT + 44; // Ps without an M: changed under sched.lock, read anywhere
export const S_RT_NMLIVE = S_RT + 48; // Ms whose thread runs (mStart counts one in, mExit out): changed under sched.lock, read anywhere
export const S_RT_PDEAD = S_RT + 52; // P index + 1 of the first P out of service (Go's _Pdead: procresize shrank GOMAXPROCS); linked via P_LINK, under sched.lock
export const S_RT_NPDEAD = S_RT + 56; // Ps out of service, those an M is still giving back (pStop) included: changed under sched.lock, read anywhere
export const S_RT_SHRINK = S_RT + 60; // Ps procresize still wants given back by their Ms (pStop, between two Gs): changed under sched.lock, read anywhere
export const S_RT_NPARKSPIN = S_RT + 64; // Ms on the park ladder's poll and short-wait rungs now (bindings/runtime/sleep/parkspin.ts: an M counts itself in while a CPU is free for it)
export const CANCEL_TOKENS = 65536; // cancellation tokens; a G carries one in the high half of G_PRIO

// ---------------------------------------------------------------------------------------
// Steal order: the coprimes of nprocs (randomOrder.reset), up to MAX_PROCS u32 words.
export const COPRIMES = SCHED + 8 * LINE;

// G table directory: GDIR_MAX u32 chunk addresses; G id g lives in chunk g >> G_CHUNK_SHIFT.
export const GDIR = COPRIMES + MAX_PROCS * 4;
export const G_CHUNK_SHIFT = 10;
export const G_CHUNK = 1024; // Gs per chunk
export const G_CHUNK_MASK = 1023;
export const GDIR_MAX = 4096; // at most 4M Gs
export const PS = GDIR + GDIR_MAX * 4; // P0's block; H_PBASE holds the same value

// ---------------------------------------------------------------------------------------
// P block: P_SIZE bytes, one per P (Go's type p).
//
//   line A (+0)   owner writes, others read: tail, status, schedtick, m, rand, hint, gfree
//   line B (+128) head: CAS by the owner and by thieves
//   line C (+256) runnext: set by the owner, CAS to 0 by thieves
//   line D (+384) counters written by thieves (atomic add)
//   line E (+512) owner counters, f64
//   line F (+640) owner: high work's budget (P_HIGH_*)
//   ring (+768)   RUNQ_SIZE u32 G ids
//   line G (+1792) fork deque bottom and its counters: owner writes
//   line H (+1920) fork deque top: CAS by thieves, and by the owner for the last G
//   forkq (+2048) FORKQ_SIZE u32 G ids (DESIGN.md "Fork-join")
export const P_TAIL = 0; // runqtail: only the owner writes (store-release)
export const P_STATUS = 4; // P_IDLE / P_RUNNING
export const P_SCHEDTICK = 8; // bumped per new time slice (execute with !inheritTime)
export const P_M = 12; // M index + 1 holding this P, 0 when idle
export const P_RAND = 16; // xorshift32 state for the victim order (owner only)
export const P_HINT = 20; // victim index + 1 that last had work (owner only), 0: none
export const P_GFREE = 24; // head of the local free-G list (owner only), linked by G_SCHEDLINK
export const P_GFREE_N = 28; // its length (owner writes; schedtrace reads)
export const P_LINK = 32; // next idle P index + 1 on sched.pidle (under the lock)
export const P_ID = 36;
export const P_STEAL_VICTIM = 40; // victim index + 1 of this P's last successful steal (owner writes)
export const P_STEAL_N = 44; // Gs that steal took (owner writes)
export const P_HEAD = LINE; // runqhead
export const P_RUNNEXT = 2 * LINE;
export const P_STOLEN_FROM = 3 * LINE; // u32, tasks stolen from this P (thief atomic add)
export const P_STEAL_FROM_OPS = 3 * LINE + 4; // u32, steal operations against this P
export const P_PARK_PROBES = 3 * LINE + 8; // u32, other Ps' queues read by the M that just gave this P up (stopM's recheck: atomic add, the P has no owner then)
export const P_COUNTERS = 4 * LINE; // f64 counters, owner only, PC_* offsets
export const PC_SPAWNED = 0; // Gs made runnable on this P (ready with p >= 0)
export const PC_EXECUTED = 8; // Gs started by findRunnable on this P
export const PC_RUNNEXT_HITS = 16;
export const PC_LOCAL_HITS = 24;
export const PC_GLOBAL_HITS = 32; // Gs this P ran straight from the global queue
export const PC_STEAL_OPS = 40; // successful steals by this P
export const PC_STOLEN = 48; // tasks this P stole
export const PC_OVERFLOWS = 56; // runqPutSlow batches moved to the global queue
export const PC_SPINS = 64; // times this P's M became spinning
export const PC_PARKS = 72; // times this P was put on the idle list
export const PC_WAKEUPS = 80; // times this P was taken off the idle list to run
export const PC_STEAL_MISSES = 88; // full stealWork passes that found nothing
export const PC_GFREE_MOVES = 96; // batches moved between the local and global free lists
export const PC_HIGH_HITS = 104; // Gs this P ran from the high queue (findRunnable or stopM)
export const PC_LOW_HITS = 112; // Gs this P ran from the low queue (findRunnable or stopM)
export const PC_HIGH_THROTTLES = 120; // findRunnable calls that looked past queued high work (budget spent)
export const PC_COUNT = 16;
// High work's budget, owner only (DESIGN.md "High work's budget"); written by chargeTime,
// read by findRunnable when high work is queued, reset to HIGH_OPEN by acquireP.
export const P_HIGH_PERIOD = 5 * LINE; // f64: start of the current period (ms, the runtime's clock)
export const P_HIGH_USED = 5 * LINE + 8; // f64: high run time charged, less HIGH_RUNTIME_MS per period passed (ms)
export const P_HIGH_STATE = 5 * LINE + 16; // u32: HIGH_OPEN, HIGH_THROTTLED or HIGH_FREE
// The scheduler's own operations on this P, f64, owner only (the rest of line F): what
// bench/scale.mjs prints per task, to show which of them grow with the number of Ps
// (DESIGN.md "Scaling").
export const P_OPS = 5 * LINE + 24;
export const OP_CALLS = 0; // core calls the M holding this P made: the loop's findRunnable, stopM, acquireP, forkHelp, pGiveBack, pStop and the one-call task paths (spawnNew, joinTasks, finishSlot, forkNew, forkPop, forkDone, chargeTime)
export const OP_PROBES = 8; // other Ps' queues read looking for work: stealWork's victims, forkHelp's scan, resetSpinning's and the load threshold's looks (stopM's recheck: P_PARK_PROBES)
export const OP_STEAL_TRIES = 16; // steal attempts: runqSteal and forkSteal calls on a victim with work in sight
export const OP_CAS = 24; // compare-and-swaps (and runnext exchanges) on run-queue and fork-deque words: runnext, head, the fork deque's top
export const OP_CAS_FAILS = 32; // of those, the ones another thread's update made fail
export const OP_RETRIES = 40; // stopM calls that came back with STOP_RETRY (a spinner's recheck found work)
export const OP_HELPS = 48; // forkHelp calls (a joiner waiting for a stolen fork), found or not
export const OP_COUNT = 7;
export const P_RUNQ = 6 * LINE;
export const FORKQ_SIZE = 256; // a fork deque holds this many Gs; a fork past it stays with its forker
export const FORKQ_MASK = 255;
export const P_FORKQ_BOTTOM = 6 * LINE + RUNQ_SIZE * 4; // 1792: free-running u32, owner writes
export const P_FORK_PUSHES = P_FORKQ_BOTTOM + 8; // f64, owner only: Gs pushed on this P's fork deque (forkPush)
export const P_FORK_INLINE = P_FORKQ_BOTTOM + 16; // f64, owner only: forked Gs this P's owner took back to run inline (forkPop)
export const P_FORKQ_TOP = P_FORKQ_BOTTOM + LINE; // free-running u32, CAS by anyone
export const P_FORKQ = P_FORKQ_TOP + LINE; // FORKQ_SIZE u32 G ids
export const P_SIZE = P_FORKQ + FORKQ_SIZE * 4; // 3072

// ---------------------------------------------------------------------------------------
// M block: M_SIZE bytes, one per M slot. M0 is the main thread; workers are M1..
//
//   line A (+0)   park: the futex word (PARK_* bits, 0 when none); nextp; spinning; link
//   line B (+128) inbox: Treiber stack of finished G ids for this M (pushed by any thread)
//   line C (+256) the runtime's per-M words (curg, state, counters); the core touches only the
//                 trace ring's words, on the owner's thread (its execute records task starts)
//   lines D-G (+384) the M's cache of small value blocks (bindings/runtime/memory/blockcache.ts):
//                 BCACHE_MAX block addresses per size class, their counts in line C. In
//                 shared memory, so the recovery of a dead thread frees what it held.
export const M_PARK = 0;
export const M_NEXTP = 4; // P index + 1 handed over by wakep/startm, 0 none
export const M_SPINNING = 8; // 1 while counted in nmspinning
export const M_LINK = 12; // next idle M index + 1 on sched.midle (under the lock)
export const M_INBOX = LINE; // first G id of the stack (0: empty), linked by G_SCHEDLINK; a push also sets PARK_INBOX in M_PARK, which is what the M (or the main thread) waits on
export const M_RT = 2 * LINE;
export const MR_SPAWNED = M_RT + 0; // f64: tasks this M spawned (owner only)
export const MR_FINISHED = M_RT + 8; // f64: tasks this M finished, ok or failed (owner only)
export const MR_CURG = M_RT + 16; // u32: the G this M is running, 0 none (schedtrace reads)
export const MR_ASYNC = M_RT + 20; // u32: async tasks pinned to this M, awaiting
export const MR_KILLABLE = M_RT + 24; // u32: the cancellation token of the kill-armed tree whose own code this M runs right now, 0 while it runs the runtime's (bindings/runtime/tasks/kill.ts); the M stores and exchanges it, the main thread claims it by CAS
/** MR_KILLABLE | KILL_CLAIMED: a kill claimed the thread; it never runs the runtime's code again, and is terminated. Above every token (CANCEL_TOKENS). */
export const KILL_CLAIMED = 0x10000;
export const MR_ASYNC_LIMIT = M_RT + 28; // u32: the async tasks in flight this M keeps before it hands its P off (0xffffffff: no limit), for stats (owner only; runtime threads/admit.ts)
export const MR_TRACE_BUF = M_RT + 32; // u32: address of this M's trace ring (0: tracing off)
export const MR_TRACE_CAP = M_RT + 36; // u32: events the ring holds at least (a power of two; bindings/runtime/observe/trace.ts packs them in 8-byte slots)
export const MR_TRACE_POS = M_RT + 40; // u32: slots written so far. Owner thread only, plain: its two writers, the core's tracePut (assembly/trace.ts) and the runtime's TraceWriter, both run on the M's thread and never interleave (one writes inside a core call, the other between calls); readers elsewhere see MR_TRACE_PUB
export const MR_TRACE_PUB = M_RT + 44; // u32: slots published (the owner stores it with each time slot; readers load)
export const MR_IDLE_MS = M_RT + 48; // f64: time this M spent parked (owner only)
export const MR_YIELDS = M_RT + 56; // f64: turns this M gave its event loop while holding a P (owner only)
export const MR_HIST = M_RT + 64; // u32: address of this M's latency histograms (bindings/runtime/observe/latency.ts)
export const MR_T0 = M_RT + 72; // f64: when this M started (ms since the epoch)
export const MR_STATE = M_RT + 80; // u32: what this M is doing now (MS_* below), for diagnosis; the owner writes, stats reads (plain: a stale value only misreports)
export const MR_TRACE_NEXT = M_RT + 84; // u32: slot count at which the runtime reads the clock next (owner only; the core stores 0 after a steal: read it at once)
export const MR_PARKSPIN = M_RT + 88; // u32: 1 while this M is counted in S_RT_NPARKSPIN (owner only: parkspin.ts)
export const MR_BLOCKED = M_RT + 92; // u32: 1 while this M is blocked at its async limit (core handoffP), on no list (owner only; crash recovery reads it: its successor goes back on the idle list)
export const MR_SPIN_RUNGS = M_RT + 96; // f64: park ladder rungs this M polled or waited 1 us on (owner only; DESIGN.md "Scaling")
export const MR_FORK_SLEEPS = M_RT + 104; // f64: times a fork joiner on this M slept on S_RT_FORK_EPOCH (owner only)
export const MR_BCACHE_N = M_RT + 112; // BCACHE_CLASSES u32s: blocks in this M's cache per size class (owner only; the main thread's recovery empties a dead M's)
// The block cache (bindings/runtime/memory/blockcache.ts): the value blocks of the smallest size
// classes (16 to 128 bytes: every small value's, bindings/codec/small.ts) an M frees wait here
// for its next small value instead of going through the heap lock (DESIGN.md "Small values").
export const BCACHE_CLASSES = 4; // classes 0..3 are cached
export const BCACHE_MAX = 32; // blocks per class: the results of a wide join in flight on one thread
export const M_BCACHE = 3 * LINE; // BCACHE_CLASSES x BCACHE_MAX u32 user addresses, class c's from M_BCACHE + c * BCACHE_MAX * 4 (owner only, as MR_BCACHE_N)

export const M_SIZE = M_BCACHE + BCACHE_CLASSES * BCACHE_MAX * 4; // 896: 7 lines

// States of an M (MR_STATE), written by the runtime's M loop (bindings/runtime/threads/m.ts), named by
// stats (`threads[].state`), so a stall can be diagnosed from outside.
export const MS_NONE = 0; // not started yet
export const MS_SCHEDULE = 1; // running Gs, holding a P
export const MS_YIELD = 2; // holding a P, giving the event loop a turn
export const MS_SHARES = 3; // waiting for a shared buffer's message
export const MS_SLEEP = 4; // parked in Atomics.wait
export const MS_SLEEP_ASYNC = 5; // parked in Atomics.waitAsync (async tasks pending)
export const MS_EXITED = 6; // the loop ended (close)

// The event trace's ring (bindings/runtime/observe/trace.ts has the format, the clock reads and the
// export): a block whose first 8 bytes hold the base time, then slots from the next LINE
// boundary (traceSlot0), two per event of capacity. Every tag is here. The core writes the
// events it makes happen: task starts (execute), spawns (newproc), steals (findRunnable) and ring
// overflows (runqPutSlow); the runtime's writer (TraceWriter) the rest, on the same thread.
export const TR_HEAD = 8; // bytes before the slots' LINE boundary (the base time, f64)
export const TR_SLOT = 8; // bytes per slot: two u32 words, the first's low 4 bits its tag
export const TR_SLOTS_PER_EVENT = 2; // a ring for cap events has cap * 2 slots
export const TR_TAG_MASK = 15; // w0 & TR_TAG_MASK: the slot's tag; w0 >>> 4 its first value
export const TR_EV_START = 1; // core: [TR_EV_START | g << 4, (fn & TR_FN_MASK) | P << 24]
export const TR_EV_SPAWN = 2; // core: [TR_EV_SPAWN | g << 4, parent g]
export const TR_EV_STEAL = 3; // core: [TR_EV_STEAL | victim's M + 1 << 4, thief P << 16 | victim P + 1], then an arg slot: the Gs taken
export const TR_EV_PARK = 4; // runtime: [TR_EV_PARK, P]: this M dropped P and went to sleep; a time slot follows
export const TR_EV_UNPARK = 5; // runtime: [TR_EV_UNPARK, P]: this M woke holding P; a time slot follows
export const TR_EV_SETTLE = 6; // runtime: [TR_EV_SETTLE | g << 4, 1 ok or 0 failed]: async g settled on this M; a time slot follows
export const TR_EV_OVERFLOW = 7; // core: [TR_EV_OVERFLOW, P], then an arg slot: 1 (half the ring went to the global queue)
export const TR_TAG_ARG = 14; // [TR_TAG_ARG, b]: the second value of the event before it
export const TR_TAG_TIME = 15; // runtime: [TR_TAG_TIME | hi << 4, lo]: the event before it happened hi * 2^32 + lo ns after the base time
export const TR_FN_MASK = 0xffffff; // a start keeps the task id's low 24 bits (P takes the top 8)

// Bits of M_PARK. The core's wakep stores PARK_P; the runtime ORs in the others. A sleeping M
// swaps the word to 0 and acts on every bit it saw, so no bit is lost (DESIGN.md "Inboxes").
export const PARK_P = 1; // a P was handed over in M_NEXTP
export const PARK_INBOX = 2; // M_INBOX has finished Gs for this M
export const PARK_STOP = 4; // the scheduler is closing
export const PARK_MSG = 8; // a message (a shared buffer) waits: take a turn of the event loop
export const PARK_ROOM = 16; // a blocked M has room for another async task again: back to the idle list (runtime mstate.ts)

// ---------------------------------------------------------------------------------------
// G entry: G_SIZE bytes in the G table (Go's type g, plus what a task needs).
//
//   +0 status  +4 fn  +8 schedlink  +12 parent  +16 pending  +20 argc  +24 index  +28 join
//   +32 prio/flags  +36 resultTag  +40 result(f64)  +48 argTags[8]  +56 spill  +60 gen
//   +64 args[7] (f64)  +120 spawn time (f64, latency sampling)
export const G_STATUS = 0; // G_* state; transitions by CAS in debug builds
export const G_FN = 4; // task function id
export const G_SCHEDLINK = 8; // next G on a run queue list, free list or inbox
export const G_PARENT = 12; // G id waiting on this one (a join continuation), or PARENT_SPAWNER | M until joined, 0 none
export const G_PENDING = 16; // children still running, for a join continuation
export const G_ARGC = 20;
export const G_INDEX = 24; // this G's argument slot in its parent; for a G a task awaits, the awaiting thread's epoch (runtime tasks/waiters.ts: a result whose waiter died with an earlier thread of the slot is told by it)
export const G_JOIN = 28; // join word: JOIN_* bits | waiter M index + 1 in the low 16 bits
export const G_PRIO = 32; // u8 priority, u8 flags (GF_*), u16 cancellation token (0: none)
export const G_RESULT_TAG = 36;
export const G_RESULT = 40; // f64
export const G_ARG_TAGS = 48; // G_INLINE_ARGS x u8 (+1 spare)
export const G_SPILL = 56; // value-block address holding arguments beyond G_INLINE_ARGS
export const G_GEN = 60; // generation, bumped by gfPut: a stale handle is detectable
export const G_ARGS = 64; // G_INLINE_ARGS x f64
export const G_INLINE_ARGS = 7;
export const G_SPAWN_TIME = 120; // f64: when a sampled G was made runnable (ms since the epoch), 0 if not sampled
export const G_SIZE = 128;

// The join word of a G (G_JOIN).
export const JOIN_WAITER_MASK = 0xffff; // M index + 1 that awaits the result
export const JOIN_DONE = 0x10000; // result (or error) stored
export const JOIN_DETACHED = 0x20000; // nobody will read the result: free it when done
export const JOIN_ERROR = 0x40000; // the result is an error
export const JOIN_PARENT = 0x80000; // G_PARENT/G_INDEX are set: deliver the result to the parent
export const JOIN_FORK = 0x100000; // a forked G's joiner may sleep: its finisher bumps S_RT_FORK_EPOCH

// Flags byte of G_PRIO (bits 8..15 of the word).
export const GF_CONT = 0x100; // a join continuation: its arguments are its children's results
export const GF_SHAPED = 0x200; // a join continuation whose argument 0 is its shape (plain values and arrays beside the children)
export const GF_FORK = 0x400; // a forked G (ctx.fork): joined synchronously by its forker; G_INDEX holds its thief's P + 1
export const G_TOKEN_SHIFT = 16; // G_PRIO >>> 16: the cancellation token inherited from the root
// G_SCHEDLINK of an async task awaiting on its M (on no list then): this bit | the M's index, so
// a crashed M's pinned tasks can be found and failed (DESIGN.md "Crashed workers"). G ids stay
// below 2^31, so no list link has the bit.
export const SCHEDLINK_PINNED = 0x80000000;
// G_PARENT of a child spawned inside a task, until a join links it: this bit | the spawning M's
// index, so the children a crashed M's tasks still held handles to can be detached
// (DESIGN.md "Crashed workers").
export const PARENT_SPAWNER = 0x80000000;

// Value tags (G_RESULT_TAG, G_ARG_TAGS).
export const TAG_UNDEFINED = 0;
export const TAG_NULL = 1;
export const TAG_FALSE = 2;
export const TAG_TRUE = 3;
export const TAG_NUMBER = 4; // payload: the f64
export const TAG_BLOCK = 5; // payload: address of a value block holding the encoded value
export const TAG_TASK = 6; // payload: a child G id (an argument that is a Task handle)
export const TAG_ERROR = 7; // payload: address of a value block holding an encoded error
export const TAG_SHORT = 8; // payload: a string of up to 7 code units below 0x100, its bytes first and its length in byte 7 (the runtime's shortstr.ts)

// Value block header (8 bytes before the user bytes): class, user length.
export const BLOCK_HEADER = 8;
