import { SFNClient } from '@aws-sdk/client-sfn';

/** Create it once per Lambda instance; AWS_ENDPOINT_URL_SFN points it at the local endpoint. */
export const createStepFunctionsClient = () => new SFNClient({});
