// A typed task module for the type tests.
import type { TaskContext } from '../../dist/bindings/index.js';

export function add(_ctx: TaskContext, a: number, b: number): number {
  return a + b;
}

export async function greet(_ctx: TaskContext, name: string): Promise<string> {
  return `hello ${name}`;
}

export function fibc(ctx: TaskContext, n: number) {
  if (n < 2) return ctx.join<number>('sum', ctx.spawn('fibc', n - 1));
  return ctx.join<number>('sum', ctx.spawn('fibc', n - 1), ctx.spawn('fibc', n - 2));
}

export function sum(_ctx: TaskContext, ...xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}

export const notATask = 42;
