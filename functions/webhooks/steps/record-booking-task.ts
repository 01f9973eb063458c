import { config } from '../../../lib/config.ts';
import { clickupTaskTool } from '../../../lib/integrations/clickup-task-tool.ts';
import { vendorPolicy } from '../../../lib/onboarding/stores.ts';
import { recordBookingTask, type BookingStepInput } from '../../../lib/webhooks/steps/record-booking-task.ts';
import { webhookStores } from '../../../lib/webhooks/stores.ts';

const deps = {
  taskTool: config.taskTool && clickupTaskTool(config.taskTool, vendorPolicy),
  ledger: webhookStores.ledger,
  bookingTasks: webhookStores.bookingTasks,
};

export const handler = (input: BookingStepInput) => recordBookingTask(deps, input);
