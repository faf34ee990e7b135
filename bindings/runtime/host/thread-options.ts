// What each worker thread is started with besides the scheduler's own messages (the options'
// `workerData`, `resourceLimits`, `env`, `argv`, `execArgv`): the type startThread takes
// (platform.ts) and the options resolve to (options.ts threadOptions). A file of its own so the
// platform names it without importing the options, which import the platform.

/** Node's Worker resourceLimits: each a positive number; one left out keeps Node's default.
 *  @inline */
export interface ResourceLimits {
  /** The most a thread's main heap (V8's old generation) may hold, in MB; a thread that needs
   *  more dies with Node's ERR_WORKER_OUT_OF_MEMORY. */
  maxOldGenerationSizeMb?: number;
  /** The most V8's young generation (recently made objects) may hold, in MB. */
  maxYoungGenerationSizeMb?: number;
  /** The size of the range V8 reserves for the thread's generated code, in MB. */
  codeRangeSizeMb?: number;
  /** The thread's stack size, in MB (Node's default is 4). */
  stackSizeMb?: number;
}

/** What each worker thread is started with, beside the scheduler's own messages. */
export interface ThreadOptions {
  workerData?: unknown;
  resourceLimits?: ResourceLimits;
  env?: Record<string, string | undefined> | symbol;
  argv?: readonly unknown[];
  execArgv?: readonly string[];
}
