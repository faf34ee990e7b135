// The default procs is container-aware (Go 1.25's GOMAXPROCS rule): the CPU limit is read from
// fake cgroup trees (v2 and v1, nested, namespaced, broken), the rounding is Go's, and the real
// machine's reading is sane. Then the same reading, served to the real code through a stand-in
// for Node's fs and os, reaches the options, sched.stats(), the first schedtrace line and the
// piscina entry's thread defaults.
import { afterEach, describe, expect, it } from 'vitest';
import { availableParallelism } from 'node:os';
import { cpuLimit, defaultProcs, machineCPULimit, procsDefault, type CPULimit } from '../dist/bindings/runtime/host/cgroup.js';
import { resolveOptions } from '../dist/bindings/runtime/options.js';
import { fillOptions } from '../dist/bindings/piscina/options.js';
import { Scheduler } from '../dist/bindings/index.js';
import { engineOf } from '../dist/bindings/runtime/scheduler.js';
import { FIXTURE_TASKS, until } from './helpers/runtime.js';

type Tree = Record<string, string>;
const reader = (tree: Tree) => (path: string): string | null => (Object.hasOwn(tree, path) ? tree[path] : null);

// mountinfo lines as a kernel writes them (fields: id parent major:minor root mount-point
// options optional... - type source super-options).
const ROOTFS = '22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw';
const PROC = '23 22 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw';
const TMPFS = '31 22 0:28 / /sys/fs/cgroup ro,nosuid,nodev,noexec shared:9 - tmpfs tmpfs ro,mode=755';
const V2 = (root = '/', point = '/sys/fs/cgroup') => `35 22 0:30 ${root} ${point} rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot`;
const V1 = (ctrl: string, root = '/', point = `/sys/fs/cgroup/${ctrl}`) => `4${ctrl.length} 31 0:4${ctrl.length} ${root} ${point} rw,nosuid,nodev,noexec,relatime shared:1${ctrl.length} - cgroup cgroup rw,${ctrl}`;
const lines = (...l: string[]): string => l.join('\n') + '\n';

/** A cgroup v2 process at `path`, the unified hierarchy mounted at /sys/fs/cgroup. */
function v2Tree(path: string, files: Tree, mount = V2()): Tree {
  return { '/proc/self/cgroup': `0::${path}\n`, '/proc/self/mountinfo': lines(ROOTFS, PROC, mount), ...files };
}

/** A cgroup v1 process at `path` in the cpu,cpuacct hierarchy (with an unrelated cpuset one). */
function v1Tree(path: string, files: Tree, mount = V1('cpu,cpuacct')): Tree {
  return {
    '/proc/self/cgroup': lines('12:pids:/', `4:cpu,cpuacct:${path}`, '3:cpuset:/', '0::/'),
    '/proc/self/mountinfo': lines(ROOTFS, PROC, TMPFS, V1('cpuset'), mount, V1('pids'), V2('/', '/sys/fs/cgroup/unified')),
    ...files,
  };
}

const limitOf = (tree: Tree): CPULimit | null => cpuLimit(reader(tree));
const cpusOf = (tree: Tree): number | null => limitOf(tree)?.cpus ?? null;

describe('cgroup v2 cpu.max', () => {
  it('a quota: "200000 100000" is 2 CPUs, from that file', () => {
    const l = limitOf(v2Tree('/', { '/sys/fs/cgroup/cpu.max': '200000 100000\n' }));
    expect(l).toEqual({ cpus: 2, quota: 200000, period: 100000, file: '/sys/fs/cgroup/cpu.max' });
  });

  it('"max 100000" is no limit', () => {
    expect(limitOf(v2Tree('/', { '/sys/fs/cgroup/cpu.max': 'max 100000\n' }))).toBeNull();
  });

  it('nested: a parent tighter than its child sets the limit', () => {
    const tree = v2Tree('/kubepods/pod1/ctr', {
      '/sys/fs/cgroup/kubepods/pod1/ctr/cpu.max': '800000 100000\n',
      '/sys/fs/cgroup/kubepods/pod1/cpu.max': '150000 100000\n',
      '/sys/fs/cgroup/kubepods/cpu.max': 'max 100000\n',
    });
    expect(limitOf(tree)).toEqual({ cpus: 1.5, quota: 150000, period: 100000, file: '/sys/fs/cgroup/kubepods/pod1/cpu.max' });
  });

  it('nested: a child tighter than its parents sets the limit', () => {
    const tree = v2Tree('/kubepods/pod1/ctr', {
      '/sys/fs/cgroup/kubepods/pod1/ctr/cpu.max': '50000 100000\n',
      '/sys/fs/cgroup/kubepods/pod1/cpu.max': '400000 100000\n',
      '/sys/fs/cgroup/kubepods/cpu.max': '300000 100000\n',
    });
    expect(limitOf(tree)?.file).toBe('/sys/fs/cgroup/kubepods/pod1/ctr/cpu.max');
    expect(cpusOf(tree)).toBe(0.5);
  });

  it('nested: the grandparent, two levels up, is read too, and periods may differ', () => {
    const tree = v2Tree('/a/b/c', {
      '/sys/fs/cgroup/a/b/c/cpu.max': 'max 100000\n',
      '/sys/fs/cgroup/a/cpu.max': '300000 200000\n', // 1.5
      '/sys/fs/cgroup/a/b/cpu.max': '200000 100000\n', // 2
    });
    expect(limitOf(tree)?.file).toBe('/sys/fs/cgroup/a/cpu.max');
    expect(cpusOf(tree)).toBe(1.5);
  });

  it('a process in the root cgroup (no cpu.max there) has no limit; one cpu.max below it is not its own', () => {
    expect(limitOf(v2Tree('/', { '/sys/fs/cgroup/other/cpu.max': '100000 100000\n' }))).toBeNull();
  });

  it('a level without cpu.max (the controller not enabled there) is skipped', () => {
    expect(cpusOf(v2Tree('/a/b', { '/sys/fs/cgroup/a/cpu.max': '250000 100000\n' }))).toBe(2.5);
  });
});

describe('cgroup v1 cpu.cfs_quota_us / cpu.cfs_period_us', () => {
  it('quota over period, in the cpu,cpuacct hierarchy', () => {
    const tree = v1Tree('/batch/job', {
      '/sys/fs/cgroup/cpu,cpuacct/batch/job/cpu.cfs_quota_us': '150000\n',
      '/sys/fs/cgroup/cpu,cpuacct/batch/job/cpu.cfs_period_us': '100000\n',
      '/sys/fs/cgroup/cpu,cpuacct/batch/cpu.cfs_quota_us': '-1\n',
      '/sys/fs/cgroup/cpu,cpuacct/batch/cpu.cfs_period_us': '100000\n',
    });
    expect(limitOf(tree)).toEqual({ cpus: 1.5, quota: 150000, period: 100000, file: '/sys/fs/cgroup/cpu,cpuacct/batch/job/cpu.cfs_quota_us' });
  });

  it('quota -1 at every level is no limit', () => {
    const tree = v1Tree('/batch', {
      '/sys/fs/cgroup/cpu,cpuacct/batch/cpu.cfs_quota_us': '-1\n',
      '/sys/fs/cgroup/cpu,cpuacct/batch/cpu.cfs_period_us': '100000\n',
      '/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us': '-1\n',
      '/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us': '100000\n',
    });
    expect(limitOf(tree)).toBeNull();
  });

  it('nested: the parent\'s quota is read when the child has none', () => {
    const tree = v1Tree('/batch/job', {
      '/sys/fs/cgroup/cpu,cpuacct/batch/job/cpu.cfs_quota_us': '-1\n',
      '/sys/fs/cgroup/cpu,cpuacct/batch/job/cpu.cfs_period_us': '100000\n',
      '/sys/fs/cgroup/cpu,cpuacct/batch/cpu.cfs_quota_us': '300000\n',
      '/sys/fs/cgroup/cpu,cpuacct/batch/cpu.cfs_period_us': '100000\n',
    });
    expect(cpusOf(tree)).toBe(3);
  });

  it('a "cpu" hierarchy of its own (cpu and cpuacct apart) is found; "cpuacct" alone is not the cpu controller', () => {
    const tree: Tree = {
      '/proc/self/cgroup': lines('3:cpuacct:/wrong', '2:cpu:/right', '0::/'),
      '/proc/self/mountinfo': lines(ROOTFS, TMPFS, V1('cpuacct'), V1('cpu')),
      '/sys/fs/cgroup/cpuacct/wrong/cpu.cfs_quota_us': '100000\n',
      '/sys/fs/cgroup/cpuacct/wrong/cpu.cfs_period_us': '100000\n',
      '/sys/fs/cgroup/cpu/right/cpu.cfs_quota_us': '400000\n',
      '/sys/fs/cgroup/cpu/right/cpu.cfs_period_us': '100000\n',
    };
    expect(limitOf(tree)?.file).toBe('/sys/fs/cgroup/cpu/right/cpu.cfs_quota_us');
  });

  it('a v1 cpu controller wins over the v2 hierarchy of a hybrid system', () => {
    const tree = v1Tree('/job', {
      '/sys/fs/cgroup/cpu,cpuacct/job/cpu.cfs_quota_us': '400000\n',
      '/sys/fs/cgroup/cpu,cpuacct/job/cpu.cfs_period_us': '100000\n',
      '/sys/fs/cgroup/unified/cpu.max': '100000 100000\n', // not the cpu controller's hierarchy here
    });
    expect(cpusOf(tree)).toBe(4);
  });

  it('this machine\'s shape: cpu at the root with quota -1 is no limit', () => {
    const tree: Tree = {
      '/proc/self/cgroup': lines('2:cpuacct:/', '1:cpu:/', '0::/'),
      // As a kernel writes them with no optional fields before the ' - '.
      '/proc/self/mountinfo': lines(
        '31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755',
        '32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu',
        '33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct',
        '41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw'),
      '/sys/fs/cgroup/cpu/cpu.cfs_quota_us': '-1\n',
      '/sys/fs/cgroup/cpu/cpu.cfs_period_us': '100000\n',
    };
    expect(limitOf(tree)).toBeNull();
    tree['/sys/fs/cgroup/cpu/cpu.cfs_quota_us'] = '200000\n';
    expect(cpusOf(tree)).toBe(2);
  });
});

describe('mountinfo: where the cgroup is mounted', () => {
  it('a container with a cgroup namespace: 0::/ and the mount\'s root /', () => {
    expect(cpusOf(v2Tree('/', { '/sys/fs/cgroup/cpu.max': '300000 100000\n' }))).toBe(3);
  });

  it('a container without one: the mount shows its own cgroup as root, so its path is the mount point', () => {
    const own = '/kubepods/burstable/pod1/ctr';
    const tree = v2Tree(own, {
      '/sys/fs/cgroup/cpu.max': '300000 100000\n',
      // What a mount point + full path join would read instead:
      [`/sys/fs/cgroup${own}/cpu.max`]: '100000 100000\n',
    }, V2(own));
    expect(limitOf(tree)?.file).toBe('/sys/fs/cgroup/cpu.max');
  });

  it('a cgroup below the mount\'s root: only the levels up to the mount point are read', () => {
    const tree = v2Tree('/kubepods/pod1/ctr/sub', {
      '/sys/fs/cgroup/sub/cpu.max': 'max 100000\n',
      '/sys/fs/cgroup/cpu.max': '250000 100000\n',
    }, V2('/kubepods/pod1/ctr'));
    expect(cpusOf(tree)).toBe(2.5);
  });

  it('v1 in a container without a cgroup namespace', () => {
    const tree = v1Tree('/docker/0123abcd', {
      '/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us': '50000\n',
      '/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us': '100000\n',
    }, V1('cpu,cpuacct', '/docker/0123abcd'));
    expect(cpusOf(tree)).toBe(0.5);
  });

  it('an unusual mount point, with mountinfo\'s octal escapes undone', () => {
    const tree = v2Tree('/job', { '/mnt/my cgroups/job/cpu.max': '120000 100000\n' }, V2('/', '/mnt/my\\040cgroups'));
    expect(cpusOf(tree)).toBe(1.2);
  });

  it('of two cgroup2 mounts, the one whose root holds the process\'s cgroup', () => {
    const tree: Tree = {
      '/proc/self/cgroup': '0::/pods/a/ctr\n',
      '/proc/self/mountinfo': lines(ROOTFS, V2('/pods/b', '/sys/fs/cgroup'), V2('/pods/a', '/host/cgroup')),
      '/sys/fs/cgroup/ctr/cpu.max': '100000 100000\n',
      '/host/cgroup/ctr/cpu.max': '600000 100000\n',
    };
    expect(cpusOf(tree)).toBe(6);
  });

  it('of two mounts that both hold it, the one that shows more ancestors', () => {
    const tree: Tree = {
      '/proc/self/cgroup': '0::/pods/a/ctr\n',
      '/proc/self/mountinfo': lines(ROOTFS, V2('/pods/a', '/host/cgroup'), V2('/', '/sys/fs/cgroup')),
      '/host/cgroup/ctr/cpu.max': 'max 100000\n',
      '/sys/fs/cgroup/pods/a/ctr/cpu.max': 'max 100000\n',
      '/sys/fs/cgroup/pods/cpu.max': '100000 100000\n', // seen only through the second mount
    };
    expect(limitOf(tree)?.file).toBe('/sys/fs/cgroup/pods/cpu.max');
  });

  it('a cgroup outside every mount (a namespace shows /..) has no limit visible', () => {
    expect(limitOf(v2Tree('/../elsewhere', { '/sys/fs/cgroup/cpu.max': '100000 100000\n' }))).toBeNull();
    expect(limitOf(v2Tree('/other', { '/sys/fs/cgroup/cpu.max': '100000 100000\n' }, V2('/pods/a')))).toBeNull();
    expect(limitOf(v2Tree('/pods/ab', { '/sys/fs/cgroup/cpu.max': '100000 100000\n' }, V2('/pods/a')))).toBeNull(); // by segments, not characters
  });
});

describe('missing files and garbage fall back (no limit), never throw', () => {
  const good = (): Tree => v2Tree('/a', { '/sys/fs/cgroup/a/cpu.max': '200000 100000\n' });

  it('the good tree has a limit (so each case below fails only by its one change)', () => {
    expect(cpusOf(good())).toBe(2);
  });

  it.each([
    ['no /proc/self/cgroup', '/proc/self/cgroup', null],
    ['no /proc/self/mountinfo', '/proc/self/mountinfo', null],
    ['no cpu.max', '/sys/fs/cgroup/a/cpu.max', null],
    ['cpu.max garbage', '/sys/fs/cgroup/a/cpu.max', 'banana\n'],
    ['cpu.max without a period', '/sys/fs/cgroup/a/cpu.max', '200000\n'],
    ['cpu.max "max" alone', '/sys/fs/cgroup/a/cpu.max', 'max\n'],
    ['cpu.max negative', '/sys/fs/cgroup/a/cpu.max', '-200000 100000\n'],
    ['cpu.max quota 0', '/sys/fs/cgroup/a/cpu.max', '0 100000\n'],
    ['cpu.max period 0', '/sys/fs/cgroup/a/cpu.max', '200000 0\n'],
    ['cpu.max fractional', '/sys/fs/cgroup/a/cpu.max', '2.5 1\n'],
    ['cpu.max empty', '/sys/fs/cgroup/a/cpu.max', ''],
    ['a parent\'s cpu.max garbage', '/sys/fs/cgroup/cpu.max', 'x y\n'],
    ['/proc/self/cgroup garbage', '/proc/self/cgroup', 'not a cgroup file\n'],
    ['/proc/self/cgroup with no v2 line and no cpu', '/proc/self/cgroup', '4:memory:/a\n'],
    ['/proc/self/cgroup a relative path', '/proc/self/cgroup', '0::a\n'],
    ['/proc/self/mountinfo garbage', '/proc/self/mountinfo', 'garbage\n'],
    ['/proc/self/mountinfo without a cgroup2 mount', '/proc/self/mountinfo', lines(ROOTFS, PROC)],
    ['/proc/self/mountinfo a bad escape', '/proc/self/mountinfo', lines(V2('/', '/sys/fs/cg\\9'))],
  ] as Array<[string, string, string | null]>)('%s', (_, path, contents) => {
    const tree = good();
    if (contents === null) delete tree[path];
    else tree[path] = contents;
    expect(() => limitOf(tree)).not.toThrow();
    expect(limitOf(tree)).toBeNull();
  });

  it('v1: garbage quota, garbage period, or a quota without its period', () => {
    const base = (): Tree => v1Tree('/', {
      '/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us': '200000\n',
      '/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us': '100000\n',
    });
    expect(cpusOf(base())).toBe(2);
    expect(limitOf({ ...base(), '/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us': 'lots\n' })).toBeNull();
    expect(limitOf({ ...base(), '/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us': '1e5\n' })).toBeNull();
    expect(limitOf({ ...base(), '/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us': '-2\n' })).toBeNull();
    const noPeriod = base();
    delete noPeriod['/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us'];
    expect(limitOf(noPeriod)).toBeNull();
  });
});

describe('defaultProcs: Go 1.25\'s min(ncpu, max(2, ceil(limit)))', () => {
  const lim = (quota: number, period = 100000): CPULimit => ({ cpus: quota / period, quota, period, file: '/f' });

  it('no limit: the CPU count', () => {
    expect(defaultProcs(64, null)).toEqual({ procs: 64, source: 'cpus', ncpu: 64, limit: null });
  });

  it('a limit below the CPU count lowers it', () => {
    expect(defaultProcs(64, lim(200000))).toMatchObject({ procs: 2, source: 'cgroup' });
    expect(defaultProcs(64, lim(800000))).toMatchObject({ procs: 8, source: 'cgroup' });
  });

  it('fractions round up: 1.5 -> 2, 2.5 -> 3, 2.01 -> 3', () => {
    expect(defaultProcs(64, lim(150000)).procs).toBe(2);
    expect(defaultProcs(64, lim(250000)).procs).toBe(3);
    expect(defaultProcs(64, lim(201000)).procs).toBe(3);
    expect(defaultProcs(64, lim(300000, 200000)).procs).toBe(2);
    expect(defaultProcs(2 ** 40, lim(3 * 999_983 + 1, 999_983)).procs).toBe(4); // 3.000001
  });

  it('below 2 CPUs still 2 where there are 2 CPUs (0.5 -> 2, 1 -> 2), 1 on one CPU', () => {
    expect(defaultProcs(64, lim(50000))).toMatchObject({ procs: 2, source: 'cgroup' });
    expect(defaultProcs(64, lim(100000)).procs).toBe(2);
    expect(defaultProcs(1, lim(50000))).toMatchObject({ procs: 1, source: 'cpus' });
  });

  it('a limit at or above the CPU count leaves the CPU count, and is still reported', () => {
    expect(defaultProcs(4, lim(800000))).toEqual({ procs: 4, source: 'cpus', ncpu: 4, limit: lim(800000) });
    expect(defaultProcs(4, lim(400000))).toMatchObject({ procs: 4, source: 'cpus' });
    expect(defaultProcs(4, lim(350000))).toMatchObject({ procs: 4, source: 'cpus' }); // ceil(3.5) = 4
  });
});

describe('this machine', () => {
  it('reading the real files does not throw and gives 1..availableParallelism()', () => {
    expect(() => machineCPULimit()).not.toThrow();
    const d = procsDefault();
    expect(d.ncpu).toBe(availableParallelism());
    expect(d.procs).toBeGreaterThanOrEqual(1);
    expect(d.procs).toBeLessThanOrEqual(availableParallelism());
    expect(Number.isInteger(d.procs)).toBe(true);
    if (d.limit === null) expect(d).toMatchObject({ procs: availableParallelism(), source: 'cpus' });
    else expect(d.limit.cpus).toBeGreaterThan(0);
  });
});

/**
 * Serves `tree` for the cgroup files and `ncpu` as the CPU count to the real code, through the
 * process.getBuiltinModule it loads node:fs and node:os with; other files and modules pass
 * through. Returns the undo.
 */
function fakeMachine(tree: Tree, ncpu: number): () => void {
  const proc = process as unknown as { getBuiltinModule(id: string): unknown };
  const real = proc.getBuiltinModule;
  const fs = real.call(process, 'node:fs') as typeof import('node:fs');
  const os = real.call(process, 'node:os') as typeof import('node:os');
  const ours = (p: unknown): boolean => typeof p === 'string' && (p.startsWith('/proc/self/') || p.startsWith('/sys/fs/cgroup'));
  const fakeFs = {
    ...fs,
    readFileSync: (p: unknown, ...rest: unknown[]): unknown => {
      if (!ours(p)) return (fs.readFileSync as (...a: unknown[]) => unknown)(p, ...rest);
      if (Object.hasOwn(tree, p as string)) return tree[p as string];
      throw Object.assign(new Error(`ENOENT: ${String(p)}`), { code: 'ENOENT' });
    },
  };
  const fakeOs = { ...os, availableParallelism: () => ncpu };
  proc.getBuiltinModule = (id: string): unknown => (id === 'node:fs' ? fakeFs : id === 'node:os' ? fakeOs : real.call(process, id));
  return () => { proc.getBuiltinModule = real; };
}

// Linux only: elsewhere machineCPULimit reads nothing, by design.
describe.runIf(process.platform === 'linux')('the reading reaches the options, stats, schedtrace and the piscina entry', () => {
  // A 64-CPU node, the pod limited to 1.5 CPUs.
  const POD = v2Tree('/', { '/sys/fs/cgroup/cpu.max': '150000 100000\n' });
  let undo: (() => void) | null = null;
  afterEach(() => { undo?.(); undo = null; });

  it('the stand-in works: procsDefault() reads it', () => {
    undo = fakeMachine(POD, 64);
    expect(procsDefault()).toMatchObject({ procs: 2, source: 'cgroup', ncpu: 64 });
  });

  it('options: procs defaults to the limit, says so, and yieldLimit follows it', () => {
    undo = fakeMachine(POD, 64);
    const r = resolveOptions({ tasks: FIXTURE_TASKS });
    expect(r).toMatchObject({ procs: 2, procsSource: 'cgroup', cpuLimit: 1.5, yieldLimit: 16 });
    const o = resolveOptions({ tasks: FIXTURE_TASKS, procs: 8 });
    expect(o).toMatchObject({ procs: 8, procsSource: 'option', cpuLimit: 1.5 });
  });

  it('options: no limit, the CPU count', () => {
    undo = fakeMachine(v2Tree('/', { '/sys/fs/cgroup/cpu.max': 'max 100000\n' }), 64);
    expect(resolveOptions({ tasks: FIXTURE_TASKS })).toMatchObject({ procs: 64, procsSource: 'cpus', cpuLimit: null, yieldLimit: 512 });
  });

  it('piscina\'s thread defaults count the CPUs the limit allows', () => {
    undo = fakeMachine(POD, 64);
    expect(fillOptions({})).toMatchObject({ minThreads: 1, maxThreads: 3 });
    undo();
    undo = fakeMachine({}, 64);
    expect(fillOptions({})).toMatchObject({ minThreads: 32, maxThreads: 96 });
  });

  it('a pod resized in place: the default procs is followed (Go 1.25), within maxProcs, until sched.resize', async () => {
    undo = fakeMachine(POD, 64);
    const s = await Scheduler.start({ tasks: FIXTURE_TASKS, maxProcs: 4 });
    try {
      expect(s.procs).toBe(2);
      const e = engineOf(s);
      expect(e.maxprocs?.running).toBe(true);
      // The limit raised to 3 CPUs: the once-a-second reading resizes by itself.
      undo();
      undo = fakeMachine(v2Tree('/', { '/sys/fs/cgroup/cpu.max': '300000 100000\n' }), 64);
      await until(() => s.procs === 3, 20_000, 'procs to follow the new limit');
      expect(s.stats().sched).toMatchObject({ gomaxprocs: 3, procsSource: 'cgroup', cpuLimit: 3 });
      expect(await Promise.all([s.run('fibc', 18), s.run('fib', 20)])).toEqual([2584, 6765]);
      // No limit: the CPU count, 64, within maxProcs.
      undo();
      undo = fakeMachine(v2Tree('/', { '/sys/fs/cgroup/cpu.max': 'max 100000\n' }), 64);
      e.maxprocs!.check();
      expect(s.procs).toBe(4);
      expect(s.stats().sched).toMatchObject({ procsSource: 'cpus', cpuLimit: null });
      // Down to half a CPU: Go's floor of 2.
      undo();
      undo = fakeMachine(v2Tree('/', { '/sys/fs/cgroup/cpu.max': '50000 100000\n' }), 64);
      e.maxprocs!.check();
      expect(s.procs).toBe(2);
      expect(await s.run('fibc', 18)).toBe(2584);
      // The user sets procs: the default is not followed any more.
      await s.resize(3);
      expect(e.maxprocs).toBeNull();
      expect(s.stats().sched).toMatchObject({ gomaxprocs: 3, procsSource: 'option' });
      expect(await s.run('fibc', 18)).toBe(2584);
    } finally {
      await s.close();
    }
    // procs given: nothing to follow.
    const o = await Scheduler.start({ tasks: FIXTURE_TASKS, procs: 2 });
    try {
      expect(engineOf(o).maxprocs).toBeNull();
    } finally {
      await o.close();
    }
  });

  it('sched.stats() and the first schedtrace line say where procs came from', async () => {
    undo = fakeMachine(POD, 64);
    const lines: string[] = [];
    const s = await Scheduler.start({ tasks: FIXTURE_TASKS, schedtrace: 1000, logger: (l: string) => lines.push(l) });
    try {
      expect(s.procs).toBe(2);
      expect(s.stats().sched).toMatchObject({ procsSource: 'cgroup', cpuLimit: 1.5 });
      expect(lines[0]).toMatch(/^SCHED 0ms: gomaxprocs=2 .*\] ncpu=64 cpulimit=1\.5$/);
    } finally {
      await s.close();
    }
    const o = await Scheduler.start({ tasks: FIXTURE_TASKS, procs: 1 });
    try {
      expect(o.stats().sched).toMatchObject({ procsSource: 'option', cpuLimit: 1.5 });
    } finally {
      await o.close();
    }
  });
});
