import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readPlanStream } from '../../../../functions/adapters/plan-file.js';
import { compactPlan, evaluatePlan } from '../../../../functions/core/terraform/index.js';
import { context, hashSensitive } from '../../../helpers/plan-builders.js';

/**
 * A sensitive variable's value as an instance key: `for_each = toset([nonsensitive(var.tenant_token)])`
 * on a resource and on a module. Terraform then prints the secret in every address of the plan
 * (`address`, `module_address`, `previous_address`, prior_state) and in `index`. The shape below is
 * `terraform show -json` of `terraform plan -refresh-only` (Terraform 1.11.4, AWS provider 5.100.0,
 * moto) after one parameter's value and the module's parameter's tag were changed out of band, trimmed
 * to the members driftwatch reads. The token is a canary: it must not survive compaction anywhere.
 */
const TOKEN = 'CNRYTENANT3k4j5h';
const OTHER = 'CNRYSECOND9x8w7';

function ssmValues(name: string, value: string, version: number, tags: Record<string, string> | null) {
  return {
    arn: `arn:aws:ssm:eu-west-1:123456789012:parameter${name}`,
    data_type: 'text',
    id: name,
    name,
    tags,
    tags_all: tags ?? {},
    tier: 'Standard',
    type: 'String',
    value,
    value_wo: null,
    value_wo_version: null,
    version,
  };
}

const MASK = { tags: {}, tags_all: {}, value: true, value_wo: true };

function tokenPlan() {
  return {
    format_version: '1.2',
    terraform_version: '1.11.4',
    variables: { tenant_token: { value: TOKEN }, second_token: { value: OTHER } },
    resource_drift: [
      {
        address: `aws_ssm_parameter.per_tenant["${TOKEN}"]`,
        // A moved block from an instance keyed by the other secret (`moved { from = x["..."] ... }`).
        previous_address: `aws_ssm_parameter.legacy["${OTHER}"]`,
        mode: 'managed',
        type: 'aws_ssm_parameter',
        name: 'per_tenant',
        index: TOKEN,
        provider_name: 'registry.terraform.io/hashicorp/aws',
        change: {
          actions: ['update'],
          before: ssmValues('/c/58ed62d3', 'v1', 1, null),
          after: ssmValues('/c/58ed62d3', 'v2', 2, {}),
          after_unknown: {},
          before_sensitive: { tags_all: {}, value: true, value_wo: true },
          after_sensitive: MASK,
        },
      },
      {
        address: `module.m["${TOKEN}"].aws_ssm_parameter.p`,
        module_address: `module.m["${TOKEN}"]`,
        mode: 'managed',
        type: 'aws_ssm_parameter',
        name: 'p',
        provider_name: 'registry.terraform.io/hashicorp/aws',
        change: {
          actions: ['update'],
          before: ssmValues('/c/m/c41b0ae0', 'v1', 1, { Owner: 'team' }),
          after: ssmValues('/c/m/c41b0ae0', 'v1', 1, { Owner: 'other' }),
          after_unknown: {},
          before_sensitive: MASK,
          after_sensitive: MASK,
        },
      },
      {
        address: 'aws_ssm_parameter.per_tenant["public"]',
        mode: 'managed',
        type: 'aws_ssm_parameter',
        name: 'per_tenant',
        index: 'public',
        provider_name: 'registry.terraform.io/hashicorp/aws',
        change: {
          actions: ['delete'],
          before: ssmValues('/c/4c9184f3', 'v1', 1, null),
          after: null,
          after_unknown: {},
          before_sensitive: { tags_all: {}, value: true, value_wo: true },
          after_sensitive: false,
        },
      },
    ],
    // A normal plan replacing an instance keyed by the token, for a change under a map key that is
    // the token as well (replace_paths as Terraform writes them: segments).
    resource_changes: [
      {
        address: `aws_ssm_parameter.per_tenant["${TOKEN}"]`,
        mode: 'managed',
        type: 'aws_ssm_parameter',
        name: 'per_tenant',
        index: TOKEN,
        provider_name: 'registry.terraform.io/hashicorp/aws',
        change: {
          actions: ['delete', 'create'],
          before: { name: '/c/58ed62d3', triggers: { [TOKEN]: 'a' } },
          after: { name: '/c/58ed62d4', triggers: { [TOKEN]: 'b' } },
          after_unknown: {},
          before_sensitive: {},
          after_sensitive: {},
          replace_paths: [['name'], ['triggers', TOKEN]],
        },
      },
    ],
    prior_state: {
      format_version: '1.0',
      terraform_version: '1.11.4',
      values: {
        root_module: {
          resources: [
            {
              address: `aws_ssm_parameter.per_tenant["${TOKEN}"]`,
              mode: 'managed',
              type: 'aws_ssm_parameter',
              name: 'per_tenant',
              index: TOKEN,
              values: ssmValues('/c/58ed62d3', 'v2', 2, {}),
              sensitive_values: { tags: {}, tags_all: {}, value: true },
            },
          ],
          child_modules: [
            {
              address: `module.m["${TOKEN}"]`,
              resources: [
                {
                  address: `module.m["${TOKEN}"].aws_ssm_parameter.p`,
                  mode: 'managed',
                  type: 'aws_ssm_parameter',
                  name: 'p',
                  values: ssmValues('/c/m/c41b0ae0', 'v1', 1, { Owner: 'other' }),
                  sensitive_values: { tags: {}, tags_all: {}, value: true },
                },
              ],
            },
          ],
        },
      },
    },
    configuration: {
      root_module: {
        variables: { tenant_token: { sensitive: true }, second_token: { sensitive: true } },
      },
    },
    complete: true,
    errored: false,
  };
}

const hashed = (key: string) => `["${hashSensitive(key)}"]`;

describe('a secret as an instance key', () => {
  it('is hashed in every address, module address and previous address; other keys stay readable', () => {
    const raw = tokenPlan();
    expect(JSON.stringify(raw)).toContain(TOKEN);
    const compact = compactPlan(raw, { hashSensitive });
    expect(JSON.stringify(compact)).not.toContain(TOKEN);
    expect(JSON.stringify(compact)).not.toContain(OTHER);
    expect(compact.drift.map((change) => change.address)).toEqual([
      `aws_ssm_parameter.per_tenant${hashed(TOKEN)}`,
      `module.m${hashed(TOKEN)}.aws_ssm_parameter.p`,
      'aws_ssm_parameter.per_tenant["public"]',
    ]);
    expect(compact.drift[0]!.previousAddress).toBe(`aws_ssm_parameter.legacy${hashed(OTHER)}`);
    expect(compact.drift[1]!.module).toBe(`module.m${hashed(TOKEN)}`);
    // Still the same resources as in prior state (the deletion guard and companions match on them).
    expect(compact.managedResources.map((resource) => resource.address).sort()).toEqual(
      [compact.drift[0]!.address, compact.drift[1]!.address].sort(),
    );
  });

  it('is hashed in replace_paths like in the changes', () => {
    const compact = compactPlan(tokenPlan(), { hashSensitive });
    const change = compact.changes[0]!;
    expect(change.replacePaths).toEqual(['name', `triggers${hashed(TOKEN)}`]);
    expect(change.changes.map((attribute) => attribute.path)).toContain(`triggers${hashed(TOKEN)}`);
  });

  it('reaches no finding: title, detail, remediation and evidence name the hashed address', () => {
    const result = evaluatePlan(tokenPlan(), { ...context(), hashSensitive });
    const text = JSON.stringify(result);
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain(OTHER);
    const addresses = result.findings.map((finding) =>
      finding.resource && 'address' in finding.resource ? finding.resource.address : '',
    );
    expect(addresses).toContain(`module.m${hashed(TOKEN)}.aws_ssm_parameter.p`);
  });

  it('is hashed the same way when the plan is streamed', async () => {
    const text = JSON.stringify(tokenPlan());
    const chunks = [];
    for (let start = 0; start < text.length; start += 97)
      chunks.push(Buffer.from(text.slice(start, start + 97)));
    const streamed = await readPlanStream(Readable.from(chunks), { hashSensitive });
    expect(streamed).toEqual(compactPlan(text, { hashSensitive }));
  });

  it('is hashed for a value the caller knows is secret, even when the variable is not declared sensitive', () => {
    const raw = tokenPlan();
    raw.configuration.root_module.variables = {} as typeof raw.configuration.root_module.variables;
    raw.variables = {} as typeof raw.variables;
    expect(JSON.stringify(compactPlan(raw, { hashSensitive }))).toContain(TOKEN);
    const compact = compactPlan(raw, { hashSensitive, knownSecrets: [TOKEN, OTHER] });
    expect(JSON.stringify(compact)).not.toContain(TOKEN);
    expect(JSON.stringify(compact)).not.toContain(OTHER);
  });
});
