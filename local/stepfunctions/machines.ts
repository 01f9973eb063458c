// Turns the AWS::StepFunctions::StateMachine resources of serverless.yml into
// runnable local machines: each `${XArn}` substitution that points at one of
// our functions becomes that function's name (the local Lambda endpoint
// invokes by name only).
import { functionLogicalId, functionName, resourcesOfType, type ResolvedService } from '../serverless-config.ts';
import type { MachineDefinition } from './engine.ts';

export const LOCAL_ACCOUNT = '000000000000';

export function localMachines(svc: ResolvedService): MachineDefinition[] {
  const byLogicalId = new Map(Object.keys(svc.functions).map((key) => [functionLogicalId(key), functionName(svc, key)]));
  return resourcesOfType(svc, 'AWS::StepFunctions::StateMachine').map(([logicalId, resource]) => {
    const p = resource.Properties;
    const name = String(p.StateMachineName);
    const functionArns: Record<string, string> = {};
    let text = JSON.stringify(p.Definition);
    for (const [key, value] of Object.entries((p.DefinitionSubstitutions ?? {}) as Record<string, unknown>)) {
      const target = (value as { 'Fn::GetAtt'?: [string, string] })['Fn::GetAtt']?.[0];
      const fn = target ? byLogicalId.get(target) : typeof value === 'string' ? value : undefined;
      if (!fn) throw new Error(`State machine ${logicalId}: cannot resolve substitution ${key}`);
      functionArns[fn] = `arn:aws:lambda:${svc.region}:${LOCAL_ACCOUNT}:function:${fn}`;
      text = text.split(`\${${key}}`).join(fn);
    }
    return {
      arn: `arn:aws:states:${svc.region}:${LOCAL_ACCOUNT}:stateMachine:${name}`,
      name,
      definition: JSON.parse(text),
      functionArns,
      roleArn: `arn:aws:iam::${LOCAL_ACCOUNT}:role/${name}-role`,
      creationDate: Date.now(),
    };
  });
}
