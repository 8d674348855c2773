import { type CfnElement, Stack, Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/**
 * How cdk-nag names a resource of this stack inside an IAM5 finding id: `<LogicalId.Arn>`. Findings
 * are acknowledged one id at a time (cdk-nag v3 has no prefix match), so the id is computed from the
 * construct rather than copied from a synth log, and survives renames.
 */
export function nagRef(resource: IConstruct, attribute = 'Arn'): string {
  return `<${logicalId(resource)}.${attribute}>`;
}

/** The logical id of a construct's CloudFormation resource (its default child's, for an L2). */
export function logicalId(resource: IConstruct): string {
  const element = (resource.node.defaultChild ?? resource) as CfnElement;
  return Stack.of(element).getLogicalId(element);
}

/** Acknowledges one wildcard resource of an IAM policy, with the reason it cannot be narrower. */
export function acknowledgeWildcardResource(scope: IConstruct, resource: string, reason: string): void {
  Validations.of(scope).acknowledge({ id: `AwsSolutions-IAM5[Resource::${resource}]`, reason });
}

/** Acknowledges one wildcard action of an IAM policy, with the reason. */
export function acknowledgeWildcardAction(scope: IConstruct, action: string, reason: string): void {
  Validations.of(scope).acknowledge({ id: `AwsSolutions-IAM5[Action::${action}]`, reason });
}

/**
 * A token-bearing string as cdk-nag prints it in a finding id: resolved by the stack (so a known
 * region or partition is a literal, as in the template), then flattened the way cdk-nag flattens
 * CloudFormation references (`<LogicalId.Attr>`, `<Ref>`, JSON for anything else).
 */
export function nagFlatten(scope: IConstruct, value: string): string {
  return flatten(Stack.of(scope).resolve(value));
}

function flatten(node: unknown): string {
  if (node === undefined) return '';
  if (typeof node === 'string') return node.replace(/\$\{/g, '<').replace(/}/g, '>');
  if (typeof node === 'object' && node !== null) {
    const record = node as Record<string, unknown>;
    if (Array.isArray(record['Fn::Join'])) {
      const [delimiter, items] = record['Fn::Join'] as [string, unknown[]];
      return items.map(flatten).join(delimiter);
    }
    if ('Fn::Sub' in record) return flatten(record['Fn::Sub']);
    if (Array.isArray(record['Fn::GetAtt'])) {
      const [resource, attribute] = record['Fn::GetAtt'] as [unknown, unknown];
      return `<${flatten(resource)}.${flatten(attribute)}>`;
    }
    if ('Fn::ImportValue' in record) return flatten(record['Fn::ImportValue']);
    if ('Ref' in record) return `<${flatten(record.Ref)}>`;
  }
  return JSON.stringify(node);
}
