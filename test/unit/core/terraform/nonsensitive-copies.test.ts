import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readPlanStream } from '../../../../functions/adapters/plan-file.js';
import { compactPlan, evaluatePlan, secretLiteralsOf } from '../../../../functions/core/terraform/index.js';
import { context, hashSensitive } from '../../../helpers/plan-builders.js';

/**
 * A secret that Terraform marks sensitive in one place, copied in plaintext to another with
 * `nonsensitive()`: `tags = { FromData = nonsensitive(data.aws_secretsmanager_secret_version.read.secret_string),
 * FromManaged = nonsensitive(aws_secretsmanager_secret_version.plain.secret_string) }`. The shape is
 * `terraform show -json` of `terraform plan -refresh-only` (Terraform 1.11.4, AWS provider 5.100.0,
 * moto) after the parameter's `Team` tag was changed out of band, trimmed to what driftwatch reads.
 * The secrets are masked only where they came from (prior_state of the data source and of the secret
 * version); on the parameter they are plain tags, which every finding of it carries as evidence.
 */
const FROM_DATA = 'CNRYOOBPLAINSM22';
const FROM_MANAGED = 'CNRYSMPLAIN5x1';
const FROM_SECURE_STRING = 'CNRYDBPW1a2b3c';
const ARN = 'arn:aws:ssm:eu-west-1:123456789012:parameter/tag/from-data';

function parameterValues(tags: Record<string, string>) {
  return {
    arn: ARN,
    data_type: 'text',
    id: '/tag/from-data',
    name: '/tag/from-data',
    tags,
    tags_all: tags,
    tier: 'Standard',
    type: 'String',
    // A String parameter's value is masked by the provider too, but it is no secret: a region here
    // must not hash every ARN of the plan.
    value: 'eu-west-1',
    value_wo: null,
    version: 1,
  };
}
const parameterMask = { tags: {}, tags_all: {}, value: true, value_wo: true };

function copiedSecretPlan(after: Record<string, string>) {
  const before = { FromData: FROM_DATA, FromManaged: FROM_MANAGED, Copied: FROM_SECURE_STRING, Team: 'a' };
  return {
    format_version: '1.2',
    terraform_version: '1.11.4',
    resource_drift: [
      {
        address: 'aws_ssm_parameter.tag_from_data',
        mode: 'managed',
        type: 'aws_ssm_parameter',
        name: 'tag_from_data',
        provider_name: 'registry.terraform.io/hashicorp/aws',
        change: {
          actions: ['update'],
          before: parameterValues(before),
          after: parameterValues({ ...before, ...after }),
          after_unknown: {},
          before_sensitive: parameterMask,
          after_sensitive: parameterMask,
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
              address: 'data.aws_secretsmanager_secret_version.read',
              mode: 'data',
              type: 'aws_secretsmanager_secret_version',
              name: 'read',
              values: {
                arn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:plain-secret-yHlnrb',
                id: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:plain-secret-yHlnrb|AWSCURRENT',
                secret_binary: '',
                secret_string: FROM_DATA,
                version_stages: ['AWSCURRENT'],
              },
              sensitive_values: { secret_binary: true, secret_string: true, version_stages: [false] },
            },
            {
              address: 'data.aws_ssm_parameter.read',
              mode: 'data',
              type: 'aws_ssm_parameter',
              name: 'read',
              values: {
                arn: 'arn:aws:ssm:eu-west-1:123456789012:parameter/secure/param',
                id: '/secure/param',
                insecure_value: '',
                name: '/secure/param',
                type: 'SecureString',
                value: FROM_SECURE_STRING,
                version: 3,
              },
              sensitive_values: { value: true },
            },
            {
              address: 'aws_secretsmanager_secret_version.plain',
              mode: 'managed',
              type: 'aws_secretsmanager_secret_version',
              name: 'plain',
              values: {
                arn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:plain-secret-yHlnrb',
                secret_binary: '',
                secret_string: FROM_MANAGED,
                secret_string_wo: null,
                version_stages: ['AWSPREVIOUS'],
              },
              sensitive_values: {
                secret_binary: true,
                secret_string: true,
                secret_string_wo: true,
                version_stages: [false],
              },
            },
            {
              address: 'aws_ssm_parameter.tag_from_data',
              mode: 'managed',
              type: 'aws_ssm_parameter',
              name: 'tag_from_data',
              values: parameterValues({ ...before, ...after }),
              sensitive_values: parameterMask,
            },
          ],
        },
      },
    },
    configuration: { root_module: {} },
    complete: true,
    errored: false,
  };
}

const SECRETS = [FROM_DATA, FROM_MANAGED, FROM_SECURE_STRING];

describe('a sensitive value copied elsewhere with nonsensitive()', () => {
  it('is left out of the evidence tags when something else on the resource drifts', () => {
    const result = evaluatePlan(copiedSecretPlan({ Team: 'b' }), { ...context(), hashSensitive });
    const text = JSON.stringify(result);
    for (const secret of SECRETS) expect(text).not.toContain(secret);
    const [finding] = result.findings;
    expect(finding?.drift?.changes).toEqual([
      { path: 'tags.Team', before: 'a', after: 'b', sensitive: false },
    ]);
    // The applied side names the resource (resource-entry.ts extractTags).
    expect(finding?.evidence.tags).toEqual({ Team: 'a' });
  });

  it('is hashed when the copy itself drifts, and stays known to redact diagnostics', () => {
    const raw = copiedSecretPlan({ FromData: 'rotated-by-hand', Copied: 'rotated-too' });
    const compact = compactPlan(raw, { hashSensitive });
    for (const secret of SECRETS) expect(JSON.stringify(compact)).not.toContain(secret);
    const changes = compact.drift[0]!.changes;
    // tags_all repeats tags here; the evaluation folds it (fold-tags-all).
    expect(changes.map((change) => change.path).sort()).toEqual([
      'tags.Copied',
      'tags.FromData',
      'tags_all.Copied',
      'tags_all.FromData',
    ]);
    expect(changes.every((change) => change.sensitive)).toBe(true);
    expect(changes.find((change) => change.path === 'tags.FromData')?.before).toBe(hashSensitive(FROM_DATA));
    expect(changes.find((change) => change.path === 'tags.Copied')?.before).toBe(
      hashSensitive(FROM_SECURE_STRING),
    );
    expect([...secretLiteralsOf(compact)].sort()).toEqual([...SECRETS].sort());
  });

  it('masked values that are no secrets by name or type (a String parameter) do not hash what contains them', () => {
    const compact = compactPlan(copiedSecretPlan({ Team: 'b' }), { hashSensitive });
    expect(secretLiteralsOf(compact)).not.toContain('eu-west-1');
    expect(compact.drift[0]!.identity).toMatchObject({ id: '/tag/from-data', name: '/tag/from-data' });
  });

  it('a masked attribute of any name holding a credential (a sensitive startup script) is known whole as a secret', async () => {
    // Marked sensitive by the configuration (`sensitive()`), under a name no rule knows: recognised by
    // the credential in it, read from the whole prior_state entry, so a diagnostic or a copy quoting
    // the script is redacted whole, not only the token inside it.
    const script = `#!/bin/sh\nexport GITHUB_TOKEN=ghp_${'a1B2c3D4e5'.repeat(3)}f6G7h8\n`;
    const raw = copiedSecretPlan({ Team: 'b' });
    raw.prior_state.values.root_module.resources.push({
      address: 'google_compute_instance.runner',
      mode: 'managed',
      type: 'google_compute_instance',
      name: 'runner',
      values: { id: 'runner', metadata_startup_script: script, machine_type: 'e2-small' },
      sensitive_values: { metadata_startup_script: true },
    } as never);
    const text = JSON.stringify(raw);
    const whole = compactPlan(text, { hashSensitive });
    const streamed = await readPlanStream(Readable.from([Buffer.from(text)]), { hashSensitive });
    expect(secretLiteralsOf(whole)).toContain(script);
    expect(secretLiteralsOf(streamed)).toEqual(secretLiteralsOf(whole));
    // The machine type beside it is masked nowhere and no credential: not a secret.
    expect(secretLiteralsOf(whole)).not.toContain('e2-small');
  });

  it('is found among thousands of secrets wherever it sits in a text, and near misses are left alone', () => {
    // Literals that share their first characters, non-ASCII ones, and tags holding one at the start,
    // in the middle and at the end of a text; texts that only begin like a secret stay readable.
    const secrets = Array.from(
      { length: 3000 },
      (_, index) => `Sx${index.toString(36).padStart(4, '0')}-é-${index}`,
    );
    const raw = copiedSecretPlan({
      Team: 'b',
      AtStart: `${secrets[7]} was copied`,
      InMiddle: `db password (${secrets[1234]}) in a tag`,
      AtEnd: `token=${secrets[2999]}`,
      NearMiss: `${secrets[5]!.slice(0, -1)}?`,
    });
    raw.prior_state.values.root_module.resources.push(
      ...secrets.map(
        (secret, index) =>
          ({
            address: `aws_ssm_parameter.secret_${index}`,
            mode: 'managed',
            type: 'aws_ssm_parameter',
            name: `secret_${index}`,
            values: { id: `/p/${index}`, name: `/p/${index}`, type: 'SecureString', value: secret },
            sensitive_values: { value: true },
          }) as never,
      ),
    );
    const changes = compactPlan(raw, { hashSensitive }).drift[0]!.changes;
    const tag = (name: string) => changes.find((change) => change.path === `tags.${name}`);
    for (const name of ['AtStart', 'InMiddle', 'AtEnd'])
      expect(tag(name), name).toMatchObject({ sensitive: true });
    expect(tag('NearMiss')).toMatchObject({ sensitive: false, after: `${secrets[5]!.slice(0, -1)}?` });
    expect(tag('Team')).toMatchObject({ sensitive: false, after: 'b' });
  });

  it('is found the same way when the plan is streamed', async () => {
    const text = JSON.stringify(copiedSecretPlan({ FromData: 'rotated-by-hand', Team: 'b' }));
    const chunks = [];
    for (let start = 0; start < text.length; start += 89)
      chunks.push(Buffer.from(text.slice(start, start + 89)));
    const streamed = await readPlanStream(Readable.from(chunks), { hashSensitive });
    const whole = compactPlan(text, { hashSensitive });
    expect(streamed).toEqual(whole);
    expect([...secretLiteralsOf(streamed)].sort()).toEqual([...secretLiteralsOf(whole)].sort());
  });
});

/**
 * The secret of a type named as one, under a plain attribute name: `random_password.db.result`,
 * `kubernetes_secret_v1.app.data`, `data.vault_generic_secret.v.data`. Masked in prior_state, copied
 * into a tag with `nonsensitive()`: the tag was printed, because `result` and `data` are no secret
 * names and only names and two AWS types counted.
 */
describe('a masked value of a secret-named type copied in plaintext', () => {
  const typed = [
    ['random_password.db', 'managed', { result: 'CNRYRANDOMPW8x', length: 24 }, { result: true }],
    ['kubernetes_secret_v1.app', 'managed', { data: { api: 'CNRYK8SDATA2q', env: 'prod' } }, { data: true }],
    ['data.vault_generic_secret.v', 'data', { data: { x: 'CNRYVAULTDATA4w' } }, { data: true }],
  ] as const;
  const prior = typed.map(([address, mode, values, sensitive_values]) => ({
    address,
    mode,
    type: address.split('.').at(-2),
    name: address.split('.').at(-1),
    values,
    sensitive_values,
  }));
  const copies = { Password: 'CNRYRANDOMPW8x', Api: 'CNRYK8SDATA2q', Vault: 'CNRYVAULTDATA4w', Env: 'prod' };
  const raw = {
    format_version: '1.2',
    resource_changes: [
      {
        address: 'aws_sqs_queue.q',
        mode: 'managed',
        type: 'aws_sqs_queue',
        name: 'q',
        change: {
          actions: ['update'],
          before: { tags: {} },
          after: { tags: copies },
          before_sensitive: { tags: {} },
          after_sensitive: { tags: {} },
        },
      },
    ],
    prior_state: { values: { root_module: { resources: prior } } },
  };

  it('is hashed wherever it reappears; a short masked value (a word) is not collected', () => {
    const changes = compactPlan(raw, { hashSensitive }).changes[0]!.changes;
    expect(JSON.stringify(changes)).not.toMatch(/CNRY/);
    const tag = (name: string) => changes.find((change) => change.path === `tags.${name}`);
    for (const name of ['Password', 'Api', 'Vault'])
      expect(tag(name), name).toMatchObject({ sensitive: true });
    expect(tag('Env')).toMatchObject({ sensitive: false, after: 'prod' });
  });
});

/**
 * A secret that exists only in the plan: a password set from configuration for a database about to
 * be created (or changed), masked in resource_changes, and copied into a tag of another resource; a
 * sensitive output's new value copied the same way. Only prior_state, drift, variables and
 * planned_values outputs were searched for such values, so the copies were printed.
 */
describe('a value masked only in resource_changes or output_changes, copied in plaintext', () => {
  const queue = (address: string, tag: string) => ({
    address,
    mode: 'managed',
    type: 'aws_sqs_queue',
    name: address.split('.')[1],
    change: {
      actions: ['update'],
      before: { tags: { Init: 'x' } },
      after: { tags: { Init: tag } },
      before_sensitive: { tags: {} },
      after_sensitive: { tags: {} },
    },
  });
  const raw = {
    format_version: '1.2',
    resource_changes: [
      {
        address: 'aws_db_instance.created',
        mode: 'managed',
        type: 'aws_db_instance',
        name: 'created',
        change: {
          actions: ['create'],
          before: null,
          after: { identifier: 'a', password: 'CNRYPLANNEDPW1' },
          after_sensitive: { password: true },
        },
      },
      {
        address: 'aws_db_instance.updated',
        mode: 'managed',
        type: 'aws_db_instance',
        name: 'updated',
        change: {
          actions: ['update'],
          before: { identifier: 'b', password: 'old-password' },
          after: { identifier: 'b', password: 'CNRYCHANGEDPW2' },
          before_sensitive: { password: true },
          after_sensitive: { password: true },
        },
      },
      queue('aws_sqs_queue.a', 'CNRYPLANNEDPW1'),
      queue('aws_sqs_queue.b', 'CNRYCHANGEDPW2'),
      queue('aws_sqs_queue.c', 'CNRYOUTPUT3'),
    ],
    output_changes: {
      conn: { actions: ['create'], before: null, after: 'CNRYOUTPUT3', after_sensitive: true },
    },
  };

  it('is hashed wherever it reappears', () => {
    const compact = compactPlan(raw, { hashSensitive });
    expect(JSON.stringify(compact)).not.toMatch(/CNRY/);
    const tags = compact.changes.flatMap((change) => change.changes.filter((c) => c.path === 'tags.Init'));
    expect(tags).toHaveLength(3);
    for (const tag of tags) expect(tag.sensitive).toBe(true);
  });
});

/**
 * A variable or output that is not sensitive as a whole, whose members are secrets by name:
 * `db = {host, password}`, `env = [{name = "API_TOKEN", value = …}]`. Terraform marks nothing, and a
 * copy of a member elsewhere (`tags = {Pw = var.db.password}`) was printed.
 */
describe('a secret member of a variable or output not declared sensitive, copied in plaintext', () => {
  const queue = (name: string, tag: string) => ({
    address: `aws_sqs_queue.${name}`,
    mode: 'managed',
    type: 'aws_sqs_queue',
    name,
    change: {
      actions: ['update'],
      before: { tags: { Note: 'x' } },
      after: { tags: { Note: tag } },
      before_sensitive: { tags: {} },
      after_sensitive: { tags: {} },
    },
  });
  const raw = {
    format_version: '1.2',
    variables: {
      db: { value: { host: 'db.internal', password: 'CNRYVARMEMBER1' } },
      env: { value: [{ name: 'API_TOKEN', value: 'CNRYVARPAIR2' }] },
    },
    planned_values: {
      outputs: { app: { sensitive: false, value: { url: 'https://app', client_secret: 'CNRYOUTMEMBER3' } } },
    },
    resource_changes: [
      queue('a', 'CNRYVARMEMBER1'),
      queue('b', 'CNRYVARPAIR2'),
      queue('c', 'CNRYOUTMEMBER3'),
      queue('d', 'db.internal'),
    ],
    configuration: { root_module: { variables: { db: {}, env: {} } } },
  };

  it('is hashed wherever it reappears; the members not named as secrets are not', () => {
    const compact = compactPlan(raw, { hashSensitive });
    expect(JSON.stringify(compact)).not.toMatch(/CNRY/);
    const note = (address: string) =>
      compact.changes
        .find((change) => change.address === address)
        ?.changes.find((c) => c.path === 'tags.Note');
    for (const name of ['a', 'b', 'c'])
      expect(note(`aws_sqs_queue.${name}`), name).toMatchObject({ sensitive: true });
    expect(note('aws_sqs_queue.d')).toMatchObject({ sensitive: false, after: 'db.internal' });
  });
});
