// The task dump (DESIGN.md "The task dump"): sched.dump() lists every live task of a 10,000-task
// tree, with its state, thread, parent and name, as JSON and as text, read while the threads
// run; STEALWORK_DEBUG=dumpsignal prints it on a signal, in a real child process. Both backends.
import { describe, it, expect } from 'vitest';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Scheduler, type Dump } from '../dist/bindings/index.js';
import { until, within } from './helpers/runtime.js';

const TASKS = new URL('./fixtures/dump-tasks.mjs', import.meta.url);

describe.each(['wasm', 'js'] as const)('sched.dump() (%s backend)', (backend) => {
  it('a dump of a 10,000-task tree lists every live task, each child under its parent', async () => {
    // asyncPerThread: Infinity, so the threads start every leaf (an async task awaiting the gate)
    // rather than leave the mids queued behind their limit: the whole tree comes to exist.
    const s = await Scheduler.start({ tasks: TASKS, procs: 2, backend, asyncPerThread: Infinity });
    const gate = new SharedArrayBuffer(8);
    const a = new Int32Array(gate);
    const mids = 100;
    const leaves = 99; // 1 + 100 + 9,900 = 10,001 tasks, none of which can finish before the gate opens
    const root = s.run('tree', gate, mids, leaves);
    // Every task exists once the root and each mid have spawned their children and joined; the
    // leaves stay live (queued, or awaiting the gate). Wait until the dump shows them all, each
    // mid turned into its join (a dump taken earlier is right too, just smaller, or shows a mid
    // between its last spawn and its join).
    let d!: Dump;
    await until(() => { d = s.dump(); return d.tasks.length >= 1 + mids + mids * leaves && d.counts.joining === 1 + mids; }, 60_000, 'every task spawned and joined');
    expect(d.tasks.length).toBe(1 + mids + mids * leaves);
    expect(new Set(d.tasks.map((t) => t.g)).size).toBe(d.tasks.length); // each G once
    const byG = new Map(d.tasks.map((t) => [t.g, t]));
    const roots = d.tasks.filter((t) => t.root);
    expect(roots.length).toBe(1);
    const r = roots[0];
    expect(r).toMatchObject({ name: 'count', state: 'joining', pending: mids, awaitedBy: 0, parent: null });
    const midTasks = d.tasks.filter((t) => t.parent === r.g);
    expect(midTasks.length).toBe(mids);
    for (const m of midTasks) expect(m).toMatchObject({ name: 'count', state: 'joining', pending: leaves });
    const leafTasks = d.tasks.filter((t) => t.name === 'leaf');
    expect(leafTasks.length).toBe(mids * leaves);
    const perMid = new Map<number, number>();
    for (const l of leafTasks) {
      expect(l.parent).not.toBeNull();
      expect(byG.get(l.parent!)?.parent).toBe(r.g); // a leaf's parent is a mid
      perMid.set(l.parent!, (perMid.get(l.parent!) ?? 0) + 1);
      expect(['queued', 'awaiting', 'running']).toContain(l.state);
      if (l.state === 'awaiting') expect(l.thread).toBeGreaterThanOrEqual(1);
    }
    expect([...perMid.values()].every((n) => n === leaves)).toBe(true);
    expect(d.counts.queued + d.counts.running + d.counts.awaiting + d.counts.joining + d.counts.waiting).toBe(d.tasks.length);
    expect(d.counts.awaiting).toBe(Math.min(Atomics.load(a, 1), d.counts.awaiting)); // started leaves only
    expect(d.tasks.filter((t) => t.torn).length).toBeLessThan(d.tasks.length);

    // As text: a summary line, then one line per task.
    const text = s.dump('text');
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^stealwork dump: 10001 live tasks in \d+ G slots \(queued \d+, running \d+, awaiting \d+, joining 101, waiting \d+\)$/);
    expect(lines.length).toBe(1 + 10001);
    expect(lines.filter((l) => / root awaited-by=M0$/.test(l)).length).toBe(1);
    expect(lines.filter((l) => /^G\d+ \[(queued( P\d+)?|awaiting M\d+|running M\d+)\] leaf parent=G\d+/.test(l)).length).toBe(mids * leaves);
    // As JSON: plain data.
    expect(JSON.parse(JSON.stringify(d))).toEqual(d);

    Atomics.store(a, 0, 1);
    expect(await within(root, 60_000, 'the tree')).toBe(mids * leaves);
    await until(() => s.dump().tasks.length === 0, 30_000, 'no live task after the tree');
    expect(s.dump().counts).toEqual({ queued: 0, running: 0, awaiting: 0, joining: 0, waiting: 0 });
    await within(s.close(), 30_000, 'close');
  }, 180_000);

  it("an async parent awaiting its children (not joining them) is their parent, whichever way they were spawned", async () => {
    const s = await Scheduler.start({ tasks: TASKS, procs: 2, backend, asyncPerThread: Infinity });
    const gate = new SharedArrayBuffer(8);
    const a = new Int32Array(gate);
    const n = 50;
    const viaCodec = s.run('awaitTree', gate, n, false); // the gate argument: the runtime's spawn path
    const ac = new AbortController();
    const viaCore = s.with({ signal: ac.signal }).run('awaitTree', gate, n, true); // numbers only: the core's spawnNew
    let d!: Dump;
    await until(() => { d = s.dump(); return d.tasks.length === 2 * (1 + n); }, 60_000, 'both trees spawned');
    const roots = d.tasks.filter((t) => t.root);
    expect(roots.map((r) => r.name)).toEqual(['awaitTree', 'awaitTree']);
    for (const r of roots) {
      const kids = d.tasks.filter((t) => t.parent === r.g);
      expect(kids.length).toBe(n);
      expect(new Set(kids.map((k) => k.name)).size).toBe(1);
      for (const k of kids) expect(k.spawnedOn).toBeGreaterThanOrEqual(1);
    }
    expect(d.tasks.filter((t) => t.parent === null).length).toBe(2); // only the roots
    Atomics.store(a, 0, 1);
    expect(await within(viaCodec, 60_000, 'the gated tree')).toBe(n);
    ac.abort();
    await viaCore.catch(() => undefined);
    await within(s.close(), 30_000, 'close');
  }, 120_000);

  it('a running task shows its thread; a bad format is a TypeError', async () => {
    const s = await Scheduler.start({ tasks: TASKS, procs: 2, backend });
    const gate = new SharedArrayBuffer(8);
    const a = new Int32Array(gate);
    const t = s.run('spin', gate);
    await until(() => Atomics.load(a, 1) === 1, 30_000, 'the spinner running');
    const d = s.dump();
    expect(d.tasks).toHaveLength(1);
    expect(d.tasks[0]).toMatchObject({ name: 'spin', state: 'running', root: true, awaitedBy: 0 });
    expect(d.tasks[0].thread).toBeGreaterThanOrEqual(1);
    expect(s.dump('text')).toMatch(new RegExp(`^G${d.tasks[0].g} \\[running M${d.tasks[0].thread}\\] spin root awaited-by=M0`, 'm'));
    // @ts-expect-error not a format
    expect(() => s.dump('yaml')).toThrow(TypeError);
    Atomics.store(a, 0, 1);
    Atomics.notify(a, 0);
    expect(await within(t, 30_000, 'spin')).toBe('spun');
    await within(s.close(), 30_000, 'close');
  }, 120_000);
});

describe('STEALWORK_DEBUG=dumpsignal', () => {
  it('SIGUSR2 prints the dump to the logger, and the program goes on and exits', async () => {
    const dist = new URL('../dist/bindings/index.js', import.meta.url).href;
    const src = `import { Scheduler } from ${JSON.stringify(dist)};
let printed; const seen = new Promise((r) => { printed = r; });
const lines = [];
const s = await Scheduler.start({ tasks: new URL(${JSON.stringify(TASKS.href)}), procs: 2,
  logger: (l) => { lines.push(l); if (l.startsWith('stealwork dump')) printed(); } });
const gate = new SharedArrayBuffer(8); const a = new Int32Array(gate);
const t = s.run('spin', gate);
while (Atomics.load(a, 1) === 0) await new Promise((r) => setTimeout(r, 5));
process.kill(process.pid, 'SIGUSR2');
await seen;
Atomics.store(a, 0, 1); Atomics.notify(a, 0);
console.log(await t);
console.log(lines.join('\\n'));`;
    const out = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, ['--input-type=module', '-e', src], {
        cwd: fileURLToPath(new URL('..', import.meta.url)), timeout: 60_000, env: { ...process.env, STEALWORK_DEBUG: 'dumpsignal=SIGUSR2' },
      }, (e, stdout, stderr) => resolve({ code: e === null ? 0 : (e as { code?: number }).code ?? -1, stdout, stderr }));
    });
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toMatch(/^spun\nstealwork dump: 1 live tasks in \d+ G slots \(queued 0, running 1, awaiting 0, joining 0, waiting 0\)\nG\d+ \[running M\d\] spin root awaited-by=M0/);
  }, 90_000);
});
