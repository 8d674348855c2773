import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { buildApp } from '../../infra/app.js';
import { REPO_ROOT } from '../../infra/paths.js';
import { scratchDir } from '../helpers/scratch-dirs.js';

/** The sample registry of the infra tests: every destination type, roles, lock table, a cluster. */
export const SAMPLE_REGISTRY = join(REPO_ROOT, 'test/infra/driftwatch.yaml');

/** The feature flags of cdk.json, so tests synthesize exactly what `cdk synth` does. */
export function cdkJsonContext(): Record<string, unknown> {
  return (
    JSON.parse(readFileSync(join(REPO_ROOT, 'cdk.json'), 'utf8')) as { context: Record<string, unknown> }
  ).context;
}

/** A fresh directory for an app's cloud assembly, removed after the test file. */
export function assemblyDir(prefix = 'driftwatch-cdk-test-'): string {
  return scratchDir(prefix);
}

export interface Synthesized {
  app: App;
  stack: Stack;
  template: Template;
}

/**
 * Builds the app as `cdk synth` does (cdk-nag included) and returns the one stack's template.
 * Lambda bundling is skipped (`aws:cdk:bundling-stacks`: none) to keep the unit project fast:
 * `npm run synth` and the image-context test exercise the real bundling. Synthesis takes seconds:
 * call this once per test file and share the result.
 */
export function synthesize(context: Record<string, unknown> = {}): Synthesized {
  const app = new App({
    outdir: assemblyDir(),
    context: {
      ...cdkJsonContext(),
      registry: SAMPLE_REGISTRY,
      chatbot: 'true',
      'aws:cdk:bundling-stacks': [],
      ...context,
    },
  });
  buildApp(app);
  const stack = app.node.children.find((child): child is Stack => Stack.isStack(child));
  if (!stack) throw new Error('the app has no stack');
  return { app, stack, template: Template.fromStack(stack) };
}

/** Synthesis takes seconds, more on a loaded machine: the time a beforeAll that synthesizes may take. */
export const SYNTH_TIMEOUT_MS = 60_000;

export type PolicyStatement = { Sid?: string; Effect: string; Action: string | string[]; Resource: unknown };
type PolicyResource = {
  Properties: { PolicyDocument: { Statement: PolicyStatement[] }; Roles: Array<{ Ref: string }> };
};

/** Every statement attached to the role whose logical id starts with the given prefix. */
export function statementsOfRole(template: Template, rolePrefix: string): PolicyStatement[] {
  const policies = Object.values(template.findResources('AWS::IAM::Policy')) as PolicyResource[];
  return policies
    .filter((policy) => policy.Properties.Roles.some((role) => role.Ref.startsWith(rolePrefix)))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement);
}
