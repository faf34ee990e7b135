// STEALWORK_DEBUG=dumpsignal=SIGUSR2: the task dump on a signal, as Go prints its goroutines on
// SIGQUIT (Go then exits; here the program goes on). Node, Bun: process.on; Deno:
// Deno.addSignalListener; elsewhere (browsers) nothing. A signal listener keeps no process
// alive. Main thread.

/** Calls `dump` on each `signal`; returns what removes the listener (close calls it). A
 *  platform that refuses the signal (an unknown name, Windows) is told once on stderr and
 *  otherwise ignored: a debugging aid must not fail a start. */
export function onDumpSignal(signal: string, dump: () => void): () => void {
  const g = globalThis as {
    process?: { on?(s: string, f: () => void): unknown; off?(s: string, f: () => void): unknown };
    Deno?: { addSignalListener?(s: string, f: () => void): void; removeSignalListener?(s: string, f: () => void): void };
  };
  const listener = (): void => dump();
  try {
    if (g.Deno?.addSignalListener !== undefined) {
      g.Deno.addSignalListener(signal, listener);
      return () => g.Deno!.removeSignalListener?.(signal, listener);
    }
    if (typeof g.process?.on === 'function') {
      g.process.on(signal, listener);
      return () => { g.process!.off?.(signal, listener); };
    }
  } catch (e) {
    console.error(`stealwork: STEALWORK_DEBUG=dumpsignal=${signal}: the platform refused the signal (${String(e)})`);
  }
  return () => undefined;
}
