import { taskTool } from '../../../lib/adapters.ts';
import { recordBookingTask, type BookingStepInput } from '../../../lib/webhooks/steps/record-booking-task.ts';
import { webhookStores } from '../../../lib/webhooks/stores.ts';

const deps = { taskTool: taskTool(), ledger: webhookStores.ledger, bookingTasks: webhookStores.bookingTasks };

export const handler = (input: BookingStepInput) => recordBookingTask(deps, input);
