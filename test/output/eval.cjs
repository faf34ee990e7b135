// piscina's test/fixtures/eval.js.
// eslint-disable-next-line no-eval
module.exports = function (code) { return eval(code); };
