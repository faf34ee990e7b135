// The runtime under Deno: module Workers instead of worker_threads, the same built package.
//   npx deno test --allow-read test/deno/
import { Scheduler, StealworkError } from '../../dist/bindings/index.js';

const tasks = new URL('../fixtures/tasks.mjs', import.meta.url);
const fib = (n: number): number => (n < 2 ? n : fib(n - 1) + fib(n - 2));

function assertEquals(actual: unknown, expected: unknown, what: string): void {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) {
    throw new Error(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
  }
}

function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<never>((_, rej) => { timer = setTimeout(() => rej(new Error(`hang: ${what} did not finish within ${ms} ms`)), ms); }),
  ]);
}

for (const backend of ['wasm', 'js'] as const) {
  Deno.test(`fork-join, async tasks, errors and close (${backend})`, async () => {
    const s = await Scheduler.start({ tasks, procs: 2, backend });
    assertEquals(await within(s.run('fibc', 18), 20000, 'fibc(18)'), fib(18), 'fibc(18)');
    assertEquals(await within(s.run('fib', 12), 20000, 'fib(12)'), fib(12), 'fib(12)');
    assertEquals(await within(s.run('sleep', 5, 'late'), 20000, 'sleep'), 'late', 'sleep');
    const sab = new SharedArrayBuffer(4000 * 4);
    assertEquals(await within(s.run('markTree', sab, 0, 4000), 20000, 'markTree'), 4000, 'markTree leaves');
    const seen = new Int32Array(sab);
    for (let i = 0; i < 4000; i++) if (seen[i] !== 1) throw new Error(`leaf ${i} ran ${seen[i]} times`);
    const err = await s.run('fail', 'boom').catch((e: unknown) => e) as Error;
    assertEquals([err.name, err.message], ['RangeError', 'boom'], 'task error');
    for (let i = 0; i < 100; i++) assertEquals(await within(s.run('add1', i), 20000, `wake ${i}`), i + 1, 'add1');
    await within(s.close(), 10000, 'close');
    const closed = await s.run('add1', 1).catch((e: unknown) => e);
    if (!(closed instanceof StealworkError) || closed.code !== 'ERR_CLOSED') throw new Error('use after close must reject with ERR_CLOSED');
  });
}
