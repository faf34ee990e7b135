// The piscina worker file of test/output/piscina.mjs: prints n numbered lines.
export default function (n) {
  for (let i = 0; i < n; i++) console.log(`line ${i}`);
  return n;
}
