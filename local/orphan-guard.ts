// Preloaded (node --import) into the serverless-offline process that the local
// stack starts in a process group of its own (local/stack.ts). When the process
// that started it ends without stopping it (a test run killed, a crash), the
// group would go on, holding ports and half a gigabyte, and slowing whatever
// runs next on the machine (a bench, for one). Once its parent is gone, it
// stops its whole group, as the stack's own stop does. The stack passes its
// pid (LOCAL_STACK_PARENT_PID), so a parent killed in the moment between the
// spawn and this check is seen too.
import { stopWhenOrphaned } from './orphan.ts';

const parent = Number(process.env.LOCAL_STACK_PARENT_PID) || process.ppid;
stopWhenOrphaned(
  () => {
    try {
      process.kill(-process.pid, 'SIGTERM');
    } catch {
      process.exit(0);
    }
  },
  1000,
  parent,
);
