// An error described for the crossing between threads: a worker's error loses its class on the
// way, so it travels as its name, message and stack, and the main thread rebuilds it
// (errors.ts uncaughtError, workerLoopError, workerStartError). A file of its own so that both
// the messages (messages.ts) and the errors name it without importing each other. Any thread.

/** An error described for the crossing (a worker's error loses its class on the way). */
export interface ErrorDescription { name: string; message: string; stack?: string }
