import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import { describe, expect, it } from 'vitest';
import { parseRegistry } from '../../functions/core/registry/parse.js';
import { TargetReadAccess } from '../../infra/constructs/target-read-access.js';
import { scratchDir } from '../helpers/scratch-dirs.js';

type Statement = { Sid?: string; Action: string | string[]; Resource: unknown };

/** The statements a scanner role gets for a registry's sources (the construct alone: no synth of the app). */
function sourceStatements(registryText: string): Statement[] {
  const stack = new Stack(new App({ outdir: scratchDir('driftwatch-cdk-test-') }), 'ModuleSecrets', {
    env: { account: '222222222222', region: 'eu-west-1' },
  });
  const role = new iam.Role(stack, 'ScanTerraformRole', {
    assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
  });
  new TargetReadAccess(stack, 'Access', { registry: parseRegistry(registryText), role, reads: ['sources'] });
  const policies = Object.values(Template.fromStack(stack).findResources('AWS::IAM::Policy')) as Array<{
    Properties: { PolicyDocument: { Statement: Statement[] } };
  }>;
  return policies.flatMap((policy) => policy.Properties.PolicyDocument.Statement);
}

describe('ScanTerraform may read the Secrets Manager secrets of private module credentials', () => {
  it('exactly the tokens and keys the registry names (top level and per workspace); env references grant nothing', () => {
    const statements = sourceStatements(
      [
        'version: 1',
        'owners: { fallback: platform, teams: [{ id: platform, destinations: [{ type: email, address: p@example.com }] }] }',
        'moduleSources:',
        '  - { host: git.example.com, https: { token: { secretsManager: modules/git-token } } }',
        '  - { host: git.local, https: { token: { env: LOCAL_GIT_TOKEN } } }',
        'workspaces:',
        '  - id: shared',
        '    owner: platform',
        '    environment: prod',
        '    source: { dir: infra/a }',
        '    backend: { bucket: tfstate-prod, key: a/terraform.tfstate, region: eu-west-1 }',
        '  - id: own',
        '    owner: platform',
        '    environment: prod',
        '    source: { dir: infra/b }',
        '    backend: { bucket: tfstate-prod, key: b/terraform.tfstate, region: eu-west-1 }',
        '    moduleSources:',
        '      - host: github.com',
        '        ssh: { privateKey: { secretsManager: "arn:aws:secretsmanager:eu-west-1:444444444444:secret:deploy-key-AbCdEf" }, knownHosts: "github.com ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl" }',
        '    registries: [{ host: tfe.example.com, token: { secretsManager: modules/tfe-token } }]',
        '',
      ].join('\n'),
    );
    const secrets = statements.find((statement) => statement.Sid === 'ReadTerraformVariableSecrets');
    expect(secrets?.Action).toBe('secretsmanager:GetSecretValue');
    const resources = JSON.stringify([secrets?.Resource ?? []].flat());
    expect(resources).toContain(':secret:modules/git-token-??????');
    expect(resources).toContain(':secret:modules/tfe-token-??????');
    expect(resources).toContain('arn:aws:secretsmanager:eu-west-1:444444444444:secret:deploy-key-AbCdEf');
    expect([secrets?.Resource ?? []].flat()).toHaveLength(3);
    expect(resources).not.toContain('LOCAL_GIT_TOKEN');
  });
});
