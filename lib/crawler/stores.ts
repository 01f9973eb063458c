// The crawler's DynamoDB records, created once per Lambda instance.
import { db, tables } from '../store/dynamodb.ts';
import { dynamodbCrawlRecords } from './dynamodb-records.ts';

export const crawlRecords = dynamodbCrawlRecords({ db, tables });
