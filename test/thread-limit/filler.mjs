// A thread that does nothing until told to end: it holds one thread of the user's limit.
import { workerData } from 'node:worker_threads';
const word = new Int32Array(workerData);
Atomics.wait(word, 0, 0);
