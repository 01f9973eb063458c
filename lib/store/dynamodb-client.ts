import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { Sha256 } from '../sha256.ts';

/**
 * The low-level DynamoDB client, as every function and the bench's fixed-SDK
 * floor make it: configured from the environment (AWS_ENDPOINT_URL_DYNAMODB
 * points it at the local endpoint), signing with our Sha256 (lib/sha256.ts
 * says why).
 */
export const createDynamoDBClient = () => new DynamoDBClient({ sha256: Sha256 });
