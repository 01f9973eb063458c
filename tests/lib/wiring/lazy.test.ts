// The composition root's lazy ports: nothing is imported until a method is
// called, the import happens once, and a failed import is tried again.
import { describe, expect, it } from 'vitest';
import { onFirstCall } from '../../../lib/wiring/lazy.ts';

interface Greeter {
  readonly polite: boolean;
  greet(name: string): Promise<string>;
  shout(name: string): Promise<string>;
}

const greeter = (): Greeter => ({ polite: true, greet: async (n) => `hello ${n}`, shout: async (n) => `HEY ${n.toUpperCase()}` });

describe('a port loaded on its first call', () => {
  it('loads nothing when built, and loads once for any number of calls', async () => {
    let loads = 0;
    const port = onFirstCall<Greeter>(async () => {
      loads += 1;
      return greeter();
    });
    expect(loads).toBe(0);
    expect(await Promise.all([port.greet('ann'), port.shout('bob'), port.greet('cy')])).toEqual(['hello ann', 'HEY BOB', 'hello cy']);
    expect(loads).toBe(1);
  });

  it('answers fixed members from settings alone, without loading', () => {
    let loads = 0;
    const port = onFirstCall<Greeter>(
      async () => {
        loads += 1;
        return greeter();
      },
      { polite: false },
    );
    expect(port.polite).toBe(false);
    expect(loads).toBe(0);
  });

  it('tries a failed load again on the next call', async () => {
    let loads = 0;
    const port = onFirstCall<Greeter>(async () => {
      loads += 1;
      if (loads === 1) throw new Error('module not found');
      return greeter();
    });
    await expect(port.greet('ann')).rejects.toThrow('module not found');
    expect(await port.greet('ann')).toBe('hello ann');
    expect(loads).toBe(2);
  });

  it('is not mistaken for a promise when an async function returns it', async () => {
    const port = onFirstCall<Greeter>(async () => greeter());
    const returned = await (async () => port)();
    expect(returned).toBe(port);
  });
});
