// The CommonJS face of stealwork/piscina: what a require of this entry returns is the Piscina
// class itself, as with piscina's own package; its statics carry the rest (Piscina.Piscina,
// .move, .isWorkerThread, .workerData, ...).
import { Piscina } from './index.js';

export default Piscina;
