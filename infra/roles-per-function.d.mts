export interface Grant {
  service: 'dynamodb' | 'states';
  /** As declared: table/<t>, table/<t>/index/<i>, stateMachine/<m> or execution/<m>. */
  resource: string;
  kind: 'table' | 'index' | 'stateMachine' | 'execution';
  table?: string;
  index?: string;
  machine?: string;
  actions: string[];
}
export interface Stack {
  prefix: string;
  tables: Map<string, { id: string; indexes: Set<string> }>;
  machines: Set<string>;
}
export const ACTIONS: Record<string, string[]>;
export function parseGrant(text: string): Grant;
export function grantsIn(code: string): Grant[];
export function stackOf(resources: Record<string, { Type: string; Properties?: Record<string, any> }>, prefix: string): Stack;
export function roleOf(options: {
  functionKey: string;
  description: string;
  policyName: string;
  logGroupId?: string;
  tracing: boolean;
  grants: Grant[];
  stack: Stack;
}): { Type: 'AWS::IAM::Role'; Properties: Record<string, any> };
export function roleLogicalId(normalizedFunctionName: string): string;
export default class RolesPerFunction {
  constructor(serverless: unknown);
}
