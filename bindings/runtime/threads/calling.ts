// How the worker calls the task module's functions (the `calling` of the init message).

/**
 * How the worker calls the task module's functions. 'context' is stealwork's `(ctx, ...args)`;
 * 'piscina' wraps each `(task) => result` (the stealwork/piscina entry sets it, with the shared
 * words its wrapper reads; bindings/piscina/worker-side.ts).
 */
export type TaskCalling = { kind: 'context' } | { kind: 'piscina'; shared: SharedArrayBuffer };
