import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // ajv's format plugin imports the deprecated punycode module; the warning is noise.
    execArgv: ['--disable-warning=DEP0040'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['tests/**/*.test.ts'],
          exclude: ['tests/e2e/**', 'tests/faults/**', 'tests/burst/**', 'tests/guides/guides.test.ts'],
          setupFiles: ['tests/support/test-settings.ts'],
          // A folder where the files reading the packaged template share one `sls package` (tests/support/packaged.ts).
          globalSetup: ['tests/support/package-setup.ts'],
          // A time limit only catches a hang: it is no speed check (those live in bench/). The unit tests share
          // the machine with two local stacks, and the CPU-bound ones (every time zone against ICU: 3–4 s alone)
          // overran vitest's 5 s default on a loaded CI machine.
          testTimeout: 60_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['tests/e2e/**/*.test.ts'],
          // The whole local stack, started once by the suite itself on free ports.
          globalSetup: ['tests/support/stack-setup.ts'],
          testTimeout: 90_000,
          hookTimeout: 360_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'burst',
          include: ['tests/burst/**/*.test.ts'],
          // A stack of its own whose vendors enforce their published limits (ClickUp's window made shorter): a burst
          // of onboardings sets the pace for everything on that stack, so nothing else shares it.
          globalSetup: ['tests/support/stack-setup.ts'],
          fileParallelism: false,
          testTimeout: 600_000,
          hookTimeout: 360_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'faults',
          include: ['tests/faults/**/*.test.ts'],
          // A stack of its own: its faults hit a whole vendor, so its scenarios run one at a time.
          globalSetup: ['tests/support/stack-setup.ts'],
          fileParallelism: false,
          testTimeout: 180_000,
          hookTimeout: 360_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'guides',
          include: ['tests/guides/guides.test.ts'],
          // The shell blocks of the guides, one after another, each order on a fresh stack of its own with
          // npm start's settings (the test starts them, one at a time).
          fileParallelism: false,
          testTimeout: 600_000,
          hookTimeout: 360_000,
        },
      },
    ],
  },
});
