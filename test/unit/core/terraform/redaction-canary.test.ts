import { describe, expect, it } from 'vitest';
import { SENSITIVE_MARKER } from '../../../../functions/core/redaction/secrets.js';
import { compactPlan, evaluatePlan } from '../../../../functions/core/terraform/index.js';
import {
  context,
  entry,
  hashSensitive,
  plan,
  ssmParameterValues,
  stateResource,
} from '../../../helpers/plan-builders.js';

/**
 * Principle 7: plant one unique canary in every place a plan carries secrets, then prove that neither
 * the CompactPlan nor the findings contain it — while the changes themselves stay visible as hashes.
 */
const CANARY = 'CANARY-7f3e1b9a';
const canary = (where: string) => `${CANARY}-${where}`;
const PEM = `-----BEGIN RSA PRIVATE KEY-----\nMIIE${CANARY}pem\n-----END RSA PRIVATE KEY-----`;

function canaryPlan(formatVersion = '1.2') {
  return plan({
    formatVersion,
    variables: { db_password: { value: canary('variable') } },
    plannedValues: {
      root_module: {
        resources: [{ address: 'aws_db_instance.main', values: { password: canary('planned') } }],
      },
    },
    configuration: {
      root_module: {
        resources: [
          {
            address: 'aws_ssm_parameter.pw',
            expressions: { value: { constant_value: canary('constant-value') } },
          },
        ],
      },
    },
    drift: [
      // masked by Terraform only (the name says nothing)
      entry('aws_lambda_function.api', {
        before: {
          environment: [{ variables: { STAGE: 'prod', DSN: canary('mask-before') } }],
          memory_size: 128,
        },
        after: {
          environment: [{ variables: { STAGE: 'prod', DSN: canary('mask-after') } }],
          memory_size: 256,
        },
        beforeSensitive: { environment: [{ variables: { DSN: true } }] },
        afterSensitive: { environment: [{ variables: { DSN: true } }] },
      }),
      // a whole masked subtree (`true` above the leaves)
      entry('aws_ecs_task_definition.app', {
        before: { secrets_block: { inner: { value: canary('subtree-before') } }, cpu: '256' },
        after: { secrets_block: { inner: { value: canary('subtree-after') } }, cpu: '512' },
        beforeSensitive: { secrets_block: true },
        afterSensitive: { secrets_block: true },
      }),
      // name heuristics, no masks (format 0.x has none)
      entry('aws_db_instance.main', {
        before: {
          master_password: canary('name-before'),
          allocated_storage: 20,
          nested: [{ api_token: canary('nested-name-before') }],
        },
        after: {
          master_password: canary('name-after'),
          allocated_storage: 40,
          nested: [{ api_token: canary('nested-name-after') }],
        },
        beforeSensitive: {},
        afterSensitive: {},
      }),
      // SecureString value without a mask
      entry('aws_ssm_parameter.pw', {
        before: ssmParameterValues(canary('ssm-before')),
        after: ssmParameterValues(canary('ssm-after'), { insecure_value: canary('ssm-insecure') }),
        beforeSensitive: {},
        afterSensitive: {},
      }),
      // Secrets Manager secret_string without a mask
      entry('aws_secretsmanager_secret_version.v', {
        before: {
          secret_id: 'arn:aws:secretsmanager:eu-west-1:1:secret:x',
          secret_string: canary('secret-before'),
        },
        after: {
          secret_id: 'arn:aws:secretsmanager:eu-west-1:1:secret:x',
          secret_string: canary('secret-after'),
        },
      }),
      // a PEM private key under an innocent name, and a container added whole with a secret inside
      entry('tls_self_signed_cert.ca', {
        before: { pem_bundle: null, extra: null },
        after: { pem_bundle: PEM, extra: { label: 'x', client_secret: canary('inside-container') } },
      }),
      // a sensitive tag, and a tag whose key looks secret
      entry('aws_instance.web', {
        before: {
          instance_type: 't3.micro',
          tags: { Team: 'payments', Hidden: canary('tag-mask'), api_key: canary('tag-name') },
        },
        after: {
          instance_type: 't3.small',
          tags: { Team: 'payments', Hidden: canary('tag-mask'), api_key: canary('tag-name') },
        },
        beforeSensitive: { tags: { Hidden: true } },
        afterSensitive: { tags: { Hidden: true } },
      }),
      // a JSON document with a secret-named key inside (diffed inside the document)
      entry('aws_ecs_task_definition.worker', {
        before: {
          container_definitions: JSON.stringify([
            { name: 'w', image: 'a:1', password: canary('json-before') },
          ]),
        },
        after: {
          container_definitions: JSON.stringify([
            { name: 'w', image: 'a:2', password: canary('json-after') },
          ]),
        },
      }),
      // deleted resource: its values never become changes
      entry('aws_iam_access_key.ci', {
        actions: ['delete'],
        before: { id: 'AKIAEXAMPLE', secret: canary('deleted-secret'), user: 'ci' },
        after: null,
      }),
    ],
    changes: [
      entry('aws_db_instance.replica', {
        actions: ['create'],
        after: { password: canary('create-name'), engine: 'postgres', notes: canary('create-mask') },
        afterSensitive: { notes: true },
      }),
    ],
    outputs: {
      db_url: {
        actions: ['update'],
        before: canary('output-before'),
        after: canary('output-after'),
        before_sensitive: true,
        after_sensitive: true,
        after_unknown: false,
      },
      admin_password: {
        actions: ['update'],
        before: canary('output-name-before'),
        after: canary('output-name-after'),
        before_sensitive: false,
        after_sensitive: false,
        after_unknown: false,
      },
    },
    prior: [
      stateResource('aws_db_instance.main', { id: 'db-1', name: 'main', password: canary('prior-state') }),
      stateResource('aws_iam_role.app', { name: canary('prior-masked-name'), id: 'app' }, { name: true }),
      stateResource('aws_ssm_parameter.pw', ssmParameterValues(canary('prior-ssm'))),
    ],
  });
}

describe('redaction canary', () => {
  for (const formatVersion of ['1.2', '0.2']) {
    it(`no canary reaches the CompactPlan or the findings (format ${formatVersion})`, () => {
      const raw = canaryPlan(formatVersion);
      expect(JSON.stringify(raw)).toContain(CANARY); // the plan really holds them
      const compact = compactPlan(raw, { hashSensitive });
      const result = evaluatePlan(raw, { ...context(), hashSensitive });
      expect(JSON.stringify(compact)).not.toContain(CANARY);
      expect(JSON.stringify(result)).not.toContain(CANARY);
      expect(result.findings.length).toBeGreaterThan(8);
    });
  }

  it('keeps each sensitive change visible as a hash at its path', () => {
    const compact = compactPlan(canaryPlan(), { hashSensitive });
    const sensitivePaths = compact.drift.flatMap((change) =>
      change.changes.filter((item) => item.sensitive).map((item) => `${change.address} ${item.path}`),
    );
    expect(sensitivePaths).toEqual([
      'aws_lambda_function.api environment[0].variables.DSN',
      'aws_ecs_task_definition.app secrets_block',
      'aws_db_instance.main master_password',
      'aws_db_instance.main nested[0].api_token',
      'aws_ssm_parameter.pw insecure_value',
      'aws_ssm_parameter.pw value',
      'aws_secretsmanager_secret_version.v secret_string',
      'tls_self_signed_cert.ca pem_bundle',
      'tls_self_signed_cert.ca extra',
      'aws_ecs_task_definition.worker container_definitions[0].password',
    ]);
    for (const change of compact.drift.flatMap((item) => item.changes).filter((item) => item.sensitive)) {
      for (const side of [change.before, change.after])
        if (side !== null) expect(side).toMatch(SENSITIVE_MARKER);
    }
  });

  it('leaves non-sensitive neighbours in plaintext', () => {
    const compact = compactPlan(canaryPlan(), { hashSensitive });
    const plain = compact.drift.flatMap((change) =>
      change.changes
        .filter((item) => !item.sensitive)
        .map((item) => [change.address, item.path, item.before, item.after]),
    );
    expect(plain).toEqual([
      ['aws_lambda_function.api', 'memory_size', 128, 256],
      ['aws_ecs_task_definition.app', 'cpu', '256', '512'],
      ['aws_db_instance.main', 'allocated_storage', 20, 40],
      ['aws_instance.web', 'instance_type', 't3.micro', 't3.small'],
      ['aws_ecs_task_definition.worker', 'container_definitions[0].image', 'a:1', 'a:2'],
    ]);
  });

  it('drops masked and secret-named tags and hashes masked identity attributes', () => {
    const compact = compactPlan(canaryPlan(), { hashSensitive });
    expect(compact.drift.find((change) => change.address === 'aws_instance.web')?.tags).toEqual({
      Team: 'payments',
    });
    expect(
      compact.managedResources.find((resource) => resource.address === 'aws_iam_role.app')?.values,
    ).toEqual({
      name: hashSensitive(canary('prior-masked-name')),
      id: 'app',
    });
  });

  it('hashes sensitive outputs by mask and by name', () => {
    const compact = compactPlan(canaryPlan(), { hashSensitive });
    expect(compact.outputChanges.map((output) => [output.name, output.sensitive, output.changes])).toEqual([
      [
        'db_url',
        true,
        [
          {
            path: '',
            segments: [],
            before: hashSensitive(canary('output-before')),
            after: hashSensitive(canary('output-after')),
            sensitive: true,
          },
        ],
      ],
      [
        'admin_password',
        false,
        [
          {
            path: '',
            segments: [],
            before: hashSensitive(canary('output-name-before')),
            after: hashSensitive(canary('output-name-after')),
            sensitive: true,
          },
        ],
      ],
    ]);
  });
});

describe('a secret used as a map key', () => {
  // A token or a URL with a password as a tag key or an env map key: the path is printed and stored
  // like a value, so the key is hashed at its place and the value under it is hashed too.
  const token = `ghp_${'A1b2C3d4E5'.repeat(3)}abcdef`;
  const url = `https://admin:${canary('key-url')}@db.example.com`;
  const literal = canary('key-variable');

  it('hashes a credential-shaped key and what it holds; its neighbours stay readable', () => {
    const raw = plan({
      drift: [
        entry('aws_instance.web', {
          before: { tags: { [token]: 'a', [url]: 'b', Owner: 'x' } },
          after: { tags: { [token]: 'c', [url]: 'd', Owner: 'y' } },
        }),
      ],
    });
    const compact = compactPlan(raw, { hashSensitive });
    const text = JSON.stringify(compact);
    expect(text).not.toContain(CANARY);
    expect(text).not.toContain(token);
    const changes = compact.drift[0]!.changes;
    expect(changes.map((change) => change.path)).toEqual([
      `tags["${hashSensitive(token)}"]`,
      `tags["${hashSensitive(url)}"]`,
      'tags.Owner',
    ]);
    expect(changes.map((change) => change.sensitive)).toEqual([true, true, false]);
    expect(changes[2]).toMatchObject({ before: 'x', after: 'y' });
  });

  it('hashes it in replace_paths too', () => {
    const raw = plan({
      changes: [
        entry('null_resource.hook', {
          actions: ['delete', 'create'],
          before: { triggers: { [url]: 'a' } },
          after: { triggers: { [url]: 'b' } },
          replacePaths: [['triggers', url]],
        }),
      ],
    });
    const compact = compactPlan(raw, { hashSensitive });
    expect(JSON.stringify(compact)).not.toContain(CANARY);
    expect(compact.changes[0]!.replacePaths).toEqual([`triggers["${hashSensitive(url)}"]`]);
  });

  it("hashes a key equal to a sensitive variable's value", () => {
    const raw = plan({
      variables: { db_password: { value: literal } },
      drift: [
        entry('aws_instance.web', {
          before: { tags: { [literal]: 'a', Owner: 'x' } },
          after: { tags: { [literal]: 'b', Owner: 'x' } },
        }),
      ],
    });
    const compact = compactPlan(raw, { hashSensitive });
    expect(JSON.stringify(compact)).not.toContain(CANARY);
    expect(compact.drift[0]!.changes).toEqual([
      expect.objectContaining({ path: `tags["${hashSensitive(literal)}"]`, sensitive: true }),
    ]);
  });
});

describe('a secret in an instance key', () => {
  // `for_each = toset(var.webhook_urls)`: the address itself carries the secret.
  const webhook = `https://hooks.slack.com/services/T0000/B0000/${canary('address')}`;
  const address = `aws_sns_topic_subscription.slack["${webhook}"]`;
  const moved = `aws_sns_topic_subscription.old["https://ops:${canary('moved-from')}@chat.example.com"]`;

  it('is redacted in every address, the same way in the change and in prior state', () => {
    const raw = plan({
      drift: [
        {
          ...entry('aws_sns_topic_subscription.slack', {
            before: { endpoint_auto_confirms: false },
            after: { endpoint_auto_confirms: true },
          }),
          address,
          previous_address: moved,
        },
      ],
      prior: [{ ...stateResource('aws_sns_topic_subscription.slack', { id: 'sub-1' }), address }],
    });
    expect(JSON.stringify(raw)).toContain(CANARY);
    const compact = compactPlan(raw, { hashSensitive });
    const result = evaluatePlan(raw, { ...context(), hashSensitive });
    expect(JSON.stringify(compact)).not.toContain(CANARY);
    expect(JSON.stringify(result)).not.toContain(CANARY);
    expect(compact.drift[0]!.address).toBe(
      'aws_sns_topic_subscription.slack["https://hooks.slack.com/services/(redacted)"]',
    );
    expect(compact.drift[0]!.previousAddress).toBe(
      'aws_sns_topic_subscription.old["https://ops:(redacted)@chat.example.com"]',
    );
    // Still the same resource as the one in prior state.
    expect(compact.managedResources.map((resource) => resource.address)).toEqual([compact.drift[0]!.address]);
  });
});
