// The CommonJS face of stealwork/piscina: `require('stealwork/piscina')` is the Piscina class
// itself, as `require('piscina')` is; its statics carry the rest (Piscina.Piscina, .move,
// .isWorkerThread, .workerData, ...).
import { Piscina } from './index.js';

export default Piscina;
