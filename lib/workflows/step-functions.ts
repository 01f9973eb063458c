import { SFNClient } from '@aws-sdk/client-sfn';
import { Sha256 } from '../sha256.ts';

/**
 * Create it once per Lambda instance; AWS_ENDPOINT_URL_SFN points it at the
 * local endpoint. It signs with our Sha256 (lib/sha256.ts says why), and
 * keeps each command's resolved middleware (`cacheMiddleware`) instead of
 * building the stack again on every call: we never add middleware after the
 * first call, nor send with per-call options.
 */
export const createStepFunctionsClient = () => new SFNClient({ sha256: Sha256, cacheMiddleware: true });
