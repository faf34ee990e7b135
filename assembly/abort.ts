// Core aborts: `throw new Error(message)` compiles to the imported `abort(message, file, line,
// column)`, and the message carries the values involved.
//
// Building the message allocates strings from the stub runtime's bump pointer, a per-instance
// global that starts at __heap_base, below LAYOUT_BASE, and never frees. A caller may catch an
// abort and keep using the instance (tests do, on purpose), so each abort first rewinds that
// pointer: however many aborts an instance survives, its messages stay in the few KiB above
// the static data and never reach shared state. Two threads aborting at the same instant may
// garble each other's message text there, nothing else.

/** Rewinds the message scratch space. Call it right before building an abort message. Any thread. */
@inline export function beginAbort(): void {
  __reset();
}
