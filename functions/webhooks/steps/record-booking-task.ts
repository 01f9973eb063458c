import { recordBookingTask, type BookingStepInput } from '../../../lib/webhooks/steps/record-booking-task.ts';
import { taskTool } from '../../../lib/wiring/adapters.ts';
import { bookingTasks, ledger } from '../../../lib/wiring/stores.ts';

const deps = { taskTool: taskTool(), ledger: ledger(), bookingTasks: bookingTasks() };

export const handler = (input: BookingStepInput) => recordBookingTask(deps, input);
