// The packaged template against AWS's published CloudFormation resource
// schemas, offline: @aws-cdk/aws-service-spec carries them (the CloudFormation
// registry's resource provider schemas and resource specification, as AWS's
// CDK team imports them every week) as one database of resource types, their
// properties (name, type, required, and allowed values where the schemas
// list them) and attributes. Every
// resource's type must exist, every property be one of its type's, of its
// type (recursively), every required one present; every Ref, Fn::GetAtt and
// Fn::Sub must name a resource, parameter or attribute the template has.
// Values CloudFormation turns into others (a number given as a string) pass,
// as they do on deploy; intrinsic functions pass where a value may stand.
import { loadAwsServiceSpecSync } from '@aws-cdk/aws-service-spec';
import { beforeAll, describe, expect, it } from 'vitest';
import { packaged, type Template } from '../support/packaged.ts';

const db = loadAwsServiceSpecSync();
const specOf = (type: string) => db.lookup('resource', 'cloudFormationType', 'equals', type)[0];
type Spec = NonNullable<ReturnType<typeof specOf>>;
type PropertyType = Spec['properties'][string]['type'];

const INTRINSICS = ['Ref', 'Condition', 'Fn::GetAtt', 'Fn::Join', 'Fn::Sub', 'Fn::If', 'Fn::Select', 'Fn::Split', 'Fn::GetAZs', 'Fn::ImportValue', 'Fn::FindInMap', 'Fn::Base64', 'Fn::Cidr', 'Fn::Equals', 'Fn::Not', 'Fn::And', 'Fn::Or', 'Fn::Length', 'Fn::ToJsonString'];
const PSEUDO = ['AWS::AccountId', 'AWS::NotificationARNs', 'AWS::NoValue', 'AWS::Partition', 'AWS::Region', 'AWS::StackId', 'AWS::StackName', 'AWS::URLSuffix'];
const RESOURCE_KEYS = ['Type', 'Properties', 'DependsOn', 'Condition', 'DeletionPolicy', 'UpdateReplacePolicy', 'Metadata', 'UpdatePolicy', 'CreationPolicy'];

const isIntrinsic = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 1 && INTRINSICS.includes(Object.keys(v)[0]!);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What is wrong with `value` as `type`: nothing ([]) when it fits. */
function misfits(path: string, value: unknown, type: PropertyType): string[] {
  if (isIntrinsic(value)) return [];
  switch (type.type) {
    case 'string':
      if (!['string', 'number', 'boolean'].includes(typeof value)) return [`${path}: a string, not ${JSON.stringify(value)}`];
      return type.allowedValues && !type.allowedValues.includes(String(value)) ? [`${path}: one of ${type.allowedValues.join(', ')}, not ${JSON.stringify(value)}`] : [];
    case 'number':
    case 'integer':
      return typeof value === 'number' || (typeof value === 'string' && value.trim() !== '' && !Number.isNaN(Number(value))) ? [] : [`${path}: a number, not ${JSON.stringify(value)}`];
    case 'boolean':
      return typeof value === 'boolean' || value === 'true' || value === 'false' ? [] : [`${path}: true or false, not ${JSON.stringify(value)}`];
    case 'json':
      return isObject(value) || Array.isArray(value) ? [] : [`${path}: a JSON document, not ${JSON.stringify(value)}`];
    case 'date-time':
      return typeof value === 'string' ? [] : [`${path}: a date-time, not ${JSON.stringify(value)}`];
    case 'null':
      return value === null ? [] : [`${path}: null`];
    case 'tag':
      return isObject(value) && 'Key' in value && 'Value' in value ? [] : [`${path}: a tag { Key, Value }`];
    case 'array':
      return Array.isArray(value) ? value.flatMap((v, i) => misfits(`${path}[${i}]`, v, type.element)) : [`${path}: a list, not ${JSON.stringify(value)}`];
    case 'map':
      return isObject(value) ? Object.entries(value).flatMap(([k, v]) => misfits(`${path}.${k}`, v, type.element)) : [`${path}: a map, not ${JSON.stringify(value)}`];
    case 'ref': {
      const definition = db.get('typeDefinition', type.reference);
      return isObject(value) ? propertyMisfits(path, value, definition.properties) : [`${path}: a ${definition.name} object, not ${JSON.stringify(value)}`];
    }
    case 'union': {
      const tried = type.types.map((t) => misfits(path, value, t));
      return tried.some((m) => m.length === 0) ? [] : [`${path}: none of its types fits (${tried.map((m) => m[0]).join('; ')})`];
    }
    default:
      return [`${path}: a type this check does not know, ${JSON.stringify(type)}`];
  }
}

function propertyMisfits(path: string, value: Record<string, unknown>, properties: Spec['properties']): string[] {
  const problems: string[] = [];
  for (const [name, v] of Object.entries(value)) {
    const property = properties[name];
    if (!property) {
      problems.push(`${path}.${name}: no such property (${Object.keys(properties).join(', ')})`);
      continue;
    }
    // A property that changed type keeps taking its earlier ones.
    const tried = [property.type, ...(property.previousTypes ?? [])].map((t) => misfits(`${path}.${name}`, v, t));
    if (!tried.some((m) => m.length === 0)) problems.push(...tried[0]!);
  }
  for (const [name, property] of Object.entries(properties)) if (property.required && !(name in value)) problems.push(`${path}.${name}: required`);
  return problems;
}

/** What in the template does not fit AWS's resource schemas, or names what the template lacks. */
function schemaProblems(template: { Resources: Record<string, any>; Parameters?: Record<string, unknown>; Conditions?: Record<string, unknown> }): string[] {
  const problems: string[] = [];
  const names = new Set([...Object.keys(template.Resources), ...Object.keys(template.Parameters ?? {}), ...PSEUDO]);
  const attributeOf = (id: string, attribute: string, where: string) => {
    const resource = template.Resources[id];
    if (!resource) return problems.push(`${where}: Fn::GetAtt of ${id}, which the template has not`);
    const spec = specOf(resource.Type);
    if (spec && !(attribute in spec.attributes)) problems.push(`${where}: ${resource.Type} has no attribute ${attribute} (${Object.keys(spec.attributes).join(', ')})`);
  };
  const references = (where: string, value: unknown): void => {
    if (Array.isArray(value)) return value.forEach((v) => references(where, v));
    if (!isObject(value)) return;
    for (const [key, v] of Object.entries(value)) {
      if (key === 'Ref' && typeof v === 'string' && !names.has(v)) problems.push(`${where}: Ref to ${v}, which the template has not`);
      if (key === 'Fn::GetAtt') {
        const [id, ...attribute] = (Array.isArray(v) ? v : String(v).split('.')) as string[];
        if (typeof id === 'string') attributeOf(id, attribute.join('.'), where);
      }
      if (key === 'Fn::Sub') {
        const [text, variables = {}] = (Array.isArray(v) ? v : [v]) as [string, Record<string, unknown>?];
        for (const [, name] of String(text).matchAll(/\$\{([^!}][^}]*)\}/g)) {
          const [id, ...attribute] = name!.split('.');
          if (name! in variables) continue;
          if (attribute.length) attributeOf(id!, attribute.join('.'), where);
          else if (!names.has(id!)) problems.push(`${where}: Fn::Sub names \${${id}}, which the template has not`);
        }
      }
      references(where, v);
    }
  };
  for (const [id, resource] of Object.entries(template.Resources)) {
    for (const key of Object.keys(resource)) if (!RESOURCE_KEYS.includes(key)) problems.push(`${id}: ${key} is not a resource attribute`);
    if (resource.Condition && !(resource.Condition in (template.Conditions ?? {}))) problems.push(`${id}: Condition ${resource.Condition}, which the template has not`);
    for (const dependency of [resource.DependsOn ?? []].flat()) if (!(dependency in template.Resources)) problems.push(`${id}: DependsOn ${dependency}, which the template has not`);
    references(id, resource);
    const spec = specOf(resource.Type);
    if (!spec) {
      problems.push(`${id}: ${resource.Type} is no CloudFormation resource type`);
      continue;
    }
    problems.push(...propertyMisfits(`${id} (${resource.Type})`, resource.Properties ?? {}, spec.properties));
  }
  return problems;
}

let template: Template;
beforeAll(async () => {
  ({ template } = await packaged());
}, 360_000);

describe('the packaged template, against AWS CloudFormation resource schemas', () => {
  it('has only resource types, properties, values and references those schemas allow', () => {
    expect(Object.keys(template.Resources).length).toBeGreaterThan(300);
    expect(schemaProblems(template as never)).toEqual([]);
  });

  it('would be refused with a misspelt or unknown property, a wrong value, a missing one, or a reference to nothing', () => {
    const problems = schemaProblems({
      Resources: {
        Table: { Type: 'AWS::DynamoDB::Table', Properties: { KeySchema: 'id', TableNam: 'x' } },
        Role: { Type: 'AWS::IAM::Role', Properties: { Policies: [{ PolicyName: 'p', PolicyDocument: {} }] } },
        Fn: { Type: 'AWS::Lambda::Function', Properties: { Role: { 'Fn::GetAtt': ['Role', 'Nope'] }, Code: { ZipFile: 'x' }, MemorySize: 'lots', Environment: { Variables: { A: { Ref: 'Missing' } } } } },
        Odd: { Type: 'AWS::Nothing::Here', Properties: {} },
      },
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^Table .*\.TableNam: no such property/),
        expect.stringMatching(/^Table .*\.KeySchema: a list/),
        expect.stringMatching(/^Role .*\.AssumeRolePolicyDocument: required/),
        expect.stringMatching(/^Fn: AWS::IAM::Role has no attribute Nope/),
        expect.stringMatching(/^Fn .*\.MemorySize: a number/),
        expect.stringMatching(/^Fn: Ref to Missing/),
        'Odd: AWS::Nothing::Here is no CloudFormation resource type',
      ]),
    );
  });
});
