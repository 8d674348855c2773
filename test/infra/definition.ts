import type { Template } from 'aws-cdk-lib/assertions';

/** An ASL state as the tests read it (only the fields they look at). */
export interface AslState {
  Type: string;
  Next?: string;
  End?: boolean;
  Resource?: string;
  Parameters?: Record<string, unknown>;
  ResultPath?: string | null;
  Retry?: Array<{
    ErrorEquals: string[];
    IntervalSeconds?: number;
    BackoffRate?: number;
    MaxAttempts?: number;
    MaxDelaySeconds?: number;
    JitterStrategy?: string;
  }>;
  Catch?: Array<{ ErrorEquals: string[]; Next: string; ResultPath?: string }>;
  ItemReader?: {
    Resource: string;
    ReaderConfig?: Record<string, unknown>;
    Parameters: Record<string, unknown>;
  };
  ResultWriter?: { Resource: string; Parameters: Record<string, unknown> };
  ItemProcessor?: {
    ProcessorConfig: Record<string, unknown>;
    StartAt: string;
    States: Record<string, AslState>;
  };
  MaxConcurrency?: number;
  ToleratedFailurePercentage?: number;
  TimestampPath?: string;
}

export interface AslDefinition {
  StartAt: string;
  States: Record<string, AslState>;
  TimeoutSeconds?: number;
}

/**
 * The state machine's definition as JSON: the synthesized DefinitionString is an Fn::Join of text
 * and references; references become plausible literals (function ARNs, bucket names) so that the
 * result is the ASL document Step Functions would receive.
 */
export function definitionOf(template: Template): AslDefinition {
  const machines = template.findResources('AWS::StepFunctions::StateMachine');
  const [machine] = Object.values(machines) as Array<{ Properties: { DefinitionString: unknown } }>;
  if (!machine) throw new Error('no state machine in the template');
  return JSON.parse(resolveReferences(machine.Properties.DefinitionString)) as AslDefinition;
}

function resolveReferences(value: unknown): string {
  if (typeof value === 'string') return value;
  const node = value as Record<string, unknown>;
  if (Array.isArray(node['Fn::Join'])) {
    const [delimiter, parts] = node['Fn::Join'] as [string, unknown[]];
    return parts.map(resolveReferences).join(delimiter);
  }
  if (Array.isArray(node['Fn::GetAtt'])) {
    const [logicalId, attribute] = node['Fn::GetAtt'] as [string, string];
    if (attribute === 'Arn') return `arn:aws:lambda:eu-west-1:111111111111:function:${logicalId}`;
    return `${logicalId}.${attribute}`;
  }
  if (typeof node.Ref === 'string') {
    const pseudo: Record<string, string> = {
      'AWS::Partition': 'aws',
      'AWS::Region': 'eu-west-1',
      'AWS::AccountId': '111111111111',
      'AWS::URLSuffix': 'amazonaws.com',
    };
    return pseudo[node.Ref] ?? node.Ref.toLowerCase();
  }
  throw new Error(`unexpected reference in the definition: ${JSON.stringify(value)}`);
}

/** The top-level states in execution order: from StartAt along Next to the end. */
export function executionPath(definition: AslDefinition): string[] {
  const path: string[] = [];
  let name: string | undefined = definition.StartAt;
  while (name !== undefined) {
    if (path.includes(name)) throw new Error(`loop at ${name}`);
    path.push(name);
    const state: AslState | undefined = definition.States[name];
    if (!state) throw new Error(`Next names a missing state ${name}`);
    name = state.Next;
  }
  return path;
}
