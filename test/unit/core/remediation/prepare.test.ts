import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import type { Finding, FindingDraft } from '../../../../functions/core/findings/model.js';
import { applicationSchema } from '../../../../functions/core/gitops/argo-api.js';
import { managedResourceFindings } from '../../../../functions/core/gitops/argo-findings.js';
import { createClusterFindingBuilder } from '../../../../functions/core/gitops/cluster-findings.js';
import { createSensitiveHasher } from '../../../../functions/core/redaction/secrets.js';
import { type ClusterConfig, DEFAULT_POLICIES } from '../../../../functions/core/registry/model.js';
import { findModuleSource, findResourceBlock } from '../../../../functions/core/remediation/locate.js';
import type {
  AdoptSnippet,
  NotApplicable,
  RevertPlan,
} from '../../../../functions/core/remediation/model.js';
import { prepareRemediation } from '../../../../functions/core/remediation/prepare.js';
import { readArgoFixture, resourceDiff } from '../../../helpers/fake-argocd.js';
import { driftDraft, storedFinding } from '../../../helpers/findings.js';

const finding = (draft: Partial<FindingDraft>, overrides: Partial<Finding> = {}) =>
  storedFinding(overrides, driftDraft(draft));
const adopt = (subject: Finding, context = {}) =>
  prepareRemediation(subject, 'adopt', context) as AdoptSnippet;
const revert = (subject: Finding, context = {}) =>
  prepareRemediation(subject, 'revert', context) as RevertPlan;

describe('adopt: HCL with the live values of the changed attributes', () => {
  it('a changed tag: only that key, in a resource block, with where to edit it', () => {
    const snippet = adopt(
      finding({
        resource: { address: 'aws_s3_bucket.data', type: 'aws_s3_bucket' },
        drift: {
          action: 'update',
          changes: [{ path: 'tags.Team', before: 'ledger', after: 'treasury', sensitive: false }],
        },
      }),
      { rootDir: 'infra', location: { found: true, file: 'infra/main.tf', line: 20 } },
    );
    expect(snippet.text).toBe(
      [
        '# aws_s3_bucket.data: the live values of the changed attributes (adopt = the configuration takes them).',
        '# Set them in the resource "aws_s3_bucket" "data" block at infra/main.tf:20.',
        'resource "aws_s3_bucket" "data" {',
        '  tags = {',
        '    # only the changed keys: keep the other keys of tags as they are',
        '    Team = "treasury"',
        '  }',
        '}',
        '',
      ].join('\n'),
    );
    expect(snippet).toMatchObject({ file: 'infra/main.tf', line: 20, variables: [] });
  });

  it('nested blocks: changed arguments of a set element, a whole new element, and list elements said in comments', () => {
    const snippet = adopt(
      finding({
        resource: { address: 'aws_security_group.db', type: 'aws_security_group' },
        drift: {
          action: 'update',
          changes: [
            { path: 'ingress[0].cidr_blocks[1]', before: null, after: '0.0.0.0/0', sensitive: false },
            // biome-ignore lint/suspicious/noTemplateCurlyInString: HCL template syntax in data, not a JS template
            { path: 'ingress[0].description', before: 'db', after: 'db ${x}', sensitive: false },
            {
              path: 'ingress[1]',
              before: null,
              after: { cidr_blocks: ['0.0.0.0/0'], from_port: 22, protocol: 'tcp', self: false, to_port: 22 },
              sensitive: false,
            },
          ],
        },
      }),
    );
    expect(snippet.text).toContain(
      '    # ingress[0].cidr_blocks[1]: the live list has "0.0.0.0/0" that the configuration lacks: add it to cidr_blocks; keep the other elements (only this one changed).\n    description = "db $${x}"\n',
    );
    expect(snippet.text).toContain(
      [
        '  ingress {',
        '    # ingress[1]: a whole ingress that exists live and not in the configuration: add this block',
        '    cidr_blocks = ["0.0.0.0/0"]',
        '    from_port   = 22',
        '    protocol    = "tcp"',
        '    self        = false',
        '    to_port     = 22',
        '  }',
      ].join('\n'),
    );
    expect(snippet.notes.join(' ')).toContain('pass --config');
  });

  it('sensitive values become a variable with a comment; the hashes never become values', () => {
    const snippet = adopt(
      finding({
        resource: { address: 'aws_db_instance.main', type: 'aws_db_instance' },
        drift: {
          action: 'update',
          changes: [
            {
              path: 'password',
              before: '(sensitive:0badf00d)',
              after: '(sensitive:1234abcd)',
              sensitive: true,
            },
            { path: 'tags["(sensitive:99999999)"]', before: null, after: 'x', sensitive: true },
            {
              path: 'env[0].value',
              before: '(sensitive:aaaaaaaa)',
              after: '(sensitive:bbbbbbbb)',
              sensitive: true,
            },
            {
              path: 'hosts[1]',
              before: '(sensitive:cccccccc)',
              after: '(sensitive:dddddddd)',
              sensitive: true,
            },
          ],
        },
      }),
    );
    expect(snippet.variables).toEqual(['main_password', 'main_env_0_value']);
    expect(snippet.text).toMatch(/ {2}env \{\n(?: {4}#.*\n)+ {4}value = var\.main_env_0_value\n {2}\}/);
    expect(snippet.text).toContain('  password = var.main_password\n');
    expect(snippet.text).toContain('variable "main_password" {\n  sensitive = true\n}\n');
    expect(snippet.text).toContain('# password is sensitive: driftwatch does not show its value');
    expect(snippet.text).toContain('a key in this path is itself a secret');
    expect(snippet.text).toContain('(sensitive, not shown)');
    for (const hash of ['1234abcd', '0badf00d', 'aaaaaaaa', 'bbbbbbbb', 'cccccccc', 'dddddddd'])
      expect(snippet.text).not.toContain(hash);
  });

  it('a number beyond 2^53 is written as read, with a comment that its last digits may differ', () => {
    // The plan printed random_integer.seed's result whole; JSON.parse kept the nearest double.
    const live = 2 ** 53 + 2;
    const snippet = adopt(
      finding({
        resource: { address: 'aws_ssm_parameter.seed', type: 'aws_ssm_parameter' },
        drift: {
          action: 'update',
          changes: [
            { path: 'tier', before: 'Standard', after: 'Advanced', sensitive: false },
            { path: 'seeds', before: [1], after: [1, live], sensitive: false },
          ],
        },
      }),
    );
    const lines = snippet.text.split('\n');
    expect(lines).toContain('  seeds = [1, 9007199254740994]');
    const warned = lines.filter((line) => line.includes('beyond the integers a double holds exactly'));
    expect(warned).toHaveLength(1);
    expect(warned[0]).toMatch(/^ {2}# seeds: 9007199254740994 is beyond .* terraform state show/);
  });

  it('a value inside a JSON document is explained, not written as an attribute', () => {
    const snippet = adopt(
      finding({
        resource: { address: 'aws_iam_role.app', type: 'aws_iam_role' },
        drift: {
          action: 'update',
          changes: [
            {
              path: 'assume_role_policy.Statement[0].Action',
              before: 'a',
              after: ['sts:AssumeRole'],
              sensitive: false,
            },
          ],
        },
      }),
    );
    expect(snippet.text).toContain(
      '# assume_role_policy holds a JSON document: in it, set Statement[0].Action to ["sts:AssumeRole"]',
    );
    expect(snippet.text).not.toMatch(/^\s+assume_role_policy\s*=/m);
  });

  it('a deletion is adopted with a removed block; an instance key is called out', () => {
    const deleted = adopt(
      finding({
        ruleId: 'drift.delete',
        resource: { address: 'module.logs.aws_s3_bucket.logs["eu"]', type: 'aws_s3_bucket' },
        drift: { action: 'delete', changes: [] },
      }),
    );
    expect(deleted.text).toContain(
      'removed {\n  from = module.logs.aws_s3_bucket.logs\n  lifecycle {\n    destroy = false\n  }\n}\n',
    );
    expect(deleted.text).toContain('take its key out of count/for_each instead');
  });

  it('pending changes: adopt keeps what is applied (the before side)', () => {
    const pending = adopt(
      finding({
        kind: 'pending-change',
        ruleId: 'pending.update',
        resource: { address: 'aws_sqs_queue.jobs', type: 'aws_sqs_queue' },
        drift: {
          action: 'update',
          changes: [{ path: 'visibility_timeout_seconds', before: 30, after: 60, sensitive: false }],
        },
      }),
    );
    expect(pending.text).toContain('visibility_timeout_seconds = 30');
    expect(pending.text).toContain('the applied values');
    const created = adopt(
      finding({
        kind: 'pending-change',
        ruleId: 'pending.create',
        resource: { address: 'aws_sqs_queue.jobs', type: 'aws_sqs_queue' },
        drift: { action: 'create', changes: [] },
      }),
    );
    expect(created.text).toContain('remove its resource "aws_sqs_queue" "jobs" block');
  });
});

describe('revert: the targeted plan and the changes it proposes', () => {
  const tag = finding({
    resource: { address: 'module.net["a b"].aws_s3_bucket.data', type: 'aws_s3_bucket' },
    drift: {
      action: 'update',
      changes: [{ path: 'tags.Team', before: 'ledger', after: 'treasury', sensitive: false }],
    },
  });

  it('runs in the root with the registry’s var files, vars and backend; proposes live → configured', () => {
    const plan = revert(tag, {
      rootDir: 'infra/payments',
      varFiles: ['env/prod.tfvars'],
      vars: { region: 'eu-west-1', note: "it's" },
      sensitiveVars: ['db_password'],
      backend: { bucket: 'tfstate', key: 'payments/terraform.tfstate', region: 'eu-west-1' },
    });
    expect(plan.command).toBe(
      `terraform plan -input=false -target='module.net["a b"].aws_s3_bucket.data' -var-file=env/prod.tfvars -var region=eu-west-1 -var 'note=it'\\''s' -out=driftwatch-revert.tfplan`,
    );
    expect(plan.commands).toEqual([
      'terraform init -input=false -backend-config=bucket=tfstate -backend-config=key=payments/terraform.tfstate -backend-config=region=eu-west-1',
      plan.command,
      'terraform show driftwatch-revert.tfplan',
    ]);
    expect(plan.cwd).toBe('infra/payments');
    expect(plan.changes).toEqual([{ path: 'tags.Team', from: 'treasury', to: 'ledger', sensitive: false }]);
    expect(plan.notes.join(' ')).toContain('TF_VAR_db_password');
    expect(plan.notes.join(' ')).toContain('never runs terraform apply');
    expect(revert(tag, { engine: 'opentofu' }).command).toMatch(/^tofu plan /);
  });

  it('says what the plan does: recreate a deletion, replace, update in place, apply a pending change', () => {
    const effect = (draft: Partial<FindingDraft>) => revert(finding(draft)).effect;
    expect(effect({ ruleId: 'drift.delete', drift: { action: 'delete', changes: [] } })).toMatch(
      /recreates it \(\+ create\)/,
    );
    expect(effect({ ruleId: 'drift.replace', drift: { action: 'replace', changes: [] } })).toMatch(
      /destroy and then create/,
    );
    expect(effect({})).toMatch(/updates .* in place/);
    expect(effect({ kind: 'pending-change', ruleId: 'pending.update' })).toMatch(
      /Revert of a pending change means applying the existing configuration/,
    );
    expect(
      effect({ kind: 'pending-change', ruleId: 'pending.delete', drift: { action: 'delete', changes: [] } }),
    ).toMatch(/destroys/);
  });

  it('an output is not targeted: its revert is the whole plan, and adopt does not apply', () => {
    const output = finding({ resource: { address: 'output.url', type: 'output' } });
    expect(revert(output).command).toBe('terraform plan -input=false -out=driftwatch-revert.tfplan');
    expect((prepareRemediation(output, 'adopt') as NotApplicable).notApplicable).toMatch(/output/);
  });
});

describe('findings --revert/--adopt does not apply to', () => {
  it.each([
    [
      {
        kind: 'backend-policy',
        ruleId: 'backend.versioning',
        resource: { bucket: 'tfstate' },
        drift: undefined,
      },
      /not to backend-policy/,
    ],
    [
      {
        kind: 'stale-lock',
        ruleId: 'lock.stale',
        resource: { bucket: 'tfstate', lockId: 'x' },
        drift: undefined,
      },
      /not to stale-lock/,
    ],
    [{ kind: 'scan-failed', ruleId: 'scan.plan-errored', drift: undefined }, /not to scan-failed/],
    [{ ruleId: 'drift.moved', drift: undefined }, /refactor/],
    [{ ruleId: 'drift.ignored-changes' }, /ignore_changes/],
  ] as const)('%j', (draft, reason) => {
    const subject = finding(draft as Partial<FindingDraft>);
    for (const mode of ['revert', 'adopt'] as const) {
      const result = prepareRemediation(subject, mode) as NotApplicable;
      expect(result.notApplicable).toMatch(reason);
      expect(result.notApplicable).toContain(`--${mode}`);
      expect(result.steps).toEqual(subject.remediation.steps);
    }
  });
});

describe('cluster drift: kubectl/argocd diff for revert, YAML of the live fields for adopt', () => {
  const cluster: ClusterConfig = {
    id: 'prod-eu',
    owner: 'platform',
    environment: 'prod',
    argocd: { url: 'https://argocd.example.com', token: { env: 'T' } },
    applications: [],
    workspaces: [],
    policies: { outOfSyncAfterMs: 60 * 60_000 },
  };
  const builder = createClusterFindingBuilder(cluster, DEFAULT_POLICIES);
  const hashSensitive = createSensitiveHasher('remediate-cluster-test-salt');
  // Git's version is the live object as last synced; then someone edits the live one.
  const target = readArgoFixture('service-live.yaml') as {
    metadata: { labels: Record<string, string> };
    spec: { ports: { targetPort: number }[] };
  };
  const live = structuredClone(target);
  live.spec.ports[0]!.targetPort = 9000;
  live.metadata.labels['team.example.com/owner'] = 'payments';
  const planted = 'canary-secret-ZX81-never-print';
  const secretTarget = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'db', namespace: 'httpbin' },
    data: { password: 'b2xk' },
  };
  const secretLive = {
    ...secretTarget,
    data: { password: Buffer.from(planted).toString('base64'), token: planted },
  };
  const status = {
    sync: { status: 'OutOfSync' },
    resources: [
      { kind: 'Service', namespace: 'httpbin', name: 'httpbin-svc', status: 'OutOfSync' },
      { kind: 'Secret', namespace: 'httpbin', name: 'db', status: 'OutOfSync' },
    ],
  };
  const application = applicationSchema.parse({
    metadata: { name: 'httpbin', namespace: 'argocd' },
    spec: { project: 'default', source: { repoURL: 'https://git.example.com/apps.git', path: 'httpbin' } },
    status,
  });
  const drafts = managedResourceFindings(
    application,
    [
      // Git's objects here are complete server objects (the live ones as last synced), so they are
      // also what Argo CD predicts a sync would leave.
      resourceDiff({
        kind: 'Service',
        namespace: 'httpbin',
        name: 'httpbin-svc',
        target,
        live,
        predicted: target,
      }),
      resourceDiff({
        kind: 'Secret',
        namespace: 'httpbin',
        name: 'db',
        target: secretTarget,
        live: secretLive,
        predicted: secretTarget,
      }),
    ] as never,
    { builder, hashSensitive },
  ).drafts;
  const service = storedFinding(
    {},
    drafts.find((draft) => draft.resource && 'kind' in draft.resource && draft.resource.kind === 'Service')!,
  );
  const secret = storedFinding(
    {},
    drafts.find((draft) => draft.resource && 'kind' in draft.resource && draft.resource.kind === 'Secret')!,
  );

  it('premise: real cluster-drift findings of the changed fields', () => {
    expect(service).toMatchObject({ kind: 'cluster-drift', ruleId: 'cluster.drift' });
    expect(service.drift?.changes.map((change) => change.path).sort()).toEqual([
      'metadata.labels["team.example.com/owner"]',
      'spec.ports[0].targetPort',
    ]);
  });

  it('adopt is YAML that parses and holds the live values at the changed paths', () => {
    const snippet = adopt(service);
    expect(snippet.language).toBe('yaml');
    const document = parseYaml(snippet.text);
    expect(document).toEqual({
      kind: 'Service',
      metadata: {
        name: 'httpbin-svc',
        namespace: 'httpbin',
        labels: { 'team.example.com/owner': 'payments' },
      },
      spec: { ports: [{ targetPort: 9000 }] },
    });
    expect(snippet.text).toContain('# spec.ports[0].targetPort: list positions are those of the manifest');
  });

  it('revert is argocd app diff, then a sync of that object through the usual process', () => {
    const plan = revert(service);
    expect(plan.commands).toEqual([
      'argocd app diff httpbin',
      'argocd app sync httpbin --resource :Service:httpbin/httpbin-svc',
    ]);
    expect(plan.command).toBe('argocd app diff httpbin');
    expect(plan.changes).toContainEqual({
      path: 'spec.ports[0].targetPort',
      from: 9000,
      to: 8000,
      sensitive: false,
    });
    expect(plan.notes.join(' ')).toContain('never runs kubectl apply');
  });

  it('a directly compared object gets kubectl diff of its kustomize overlay', () => {
    const direct = storedFinding(
      {},
      {
        ...service,
        resource: { group: '', kind: 'Service', name: 'x' },
        evidence: { source: 'kustomize overlays/prod' },
      },
    );
    expect(revert(direct).commands).toEqual(['kubectl diff -k overlays/prod']);
  });

  it('canary: a secret’s planted values appear in neither mode', () => {
    expect(secret.drift?.changes.every((change) => change.sensitive)).toBe(true);
    const texts = [JSON.stringify(adopt(secret)), JSON.stringify(revert(secret))];
    for (const text of texts) {
      expect(text).not.toContain(planted);
      expect(text).not.toContain(Buffer.from(planted).toString('base64'));
    }
    expect(adopt(secret).text).toContain('a secret value (not shown)');
    expect(parseYaml(adopt(secret).text)).toEqual({
      kind: 'Secret',
      metadata: { name: 'db', namespace: 'httpbin' },
    });
  });

  it('hostile strings come out as escapes that parse back to the same value', () => {
    const hostile = 'a\u202eb\u001b[31mc\nd';
    const subject = storedFinding(
      {},
      {
        ...service,
        drift: {
          action: 'update',
          changes: [{ path: 'metadata.annotations.note', before: 'x', after: hostile, sensitive: false }],
        },
      },
    );
    const text = adopt(subject).text;
    expect(text).not.toContain('\u001b');
    expect(text).not.toContain('\u202e');
    expect(parseYaml(text).metadata.annotations.note).toBe(hostile);
  });

  it('strings read as strings by YAML 1.1 readers (kubectl, Argo CD, Helm) and 1.2 ones alike', () => {
    // The yaml package writes YAML 1.2, where `on`, `yes`, `no`, `1_000`, `1:20` and `2026-12-05` are
    // plain strings; the Kubernetes tools read manifests as YAML 1.1 (go-yaml), where they are a
    // boolean, numbers and a timestamp, and `<<` as a key merges a map. An unquoted `yes` annotation
    // is refused by kubectl (annotations are strings); a string port name `1_000` would become 1000.
    const tricky = ['on', 'yes', 'No', 'y', 'OFF', '1_000', '1:20', '2026-12-05', '0o17', '0755', '<<', '~'];
    const subject = storedFinding(
      {},
      {
        ...service,
        drift: {
          action: 'update',
          changes: tricky.map((value) => ({
            path: `metadata.annotations["${value}"]`,
            before: 'x',
            after: value,
            sensitive: false,
          })),
        },
      },
    );
    const text = adopt(subject).text;
    const expected = Object.fromEntries(tricky.map((value) => [value, value]));
    for (const version of ['1.1', '1.2'] as const)
      expect(parseYaml(text, { version, merge: version === '1.1' }).metadata.annotations, version).toEqual(
        expected,
      );
  });
});

describe('locating the resource block in .tf files', () => {
  const main = [
    '# resource "aws_s3_bucket" "data" { in a comment',
    '/* resource "aws_s3_bucket" "data" {',
    '*/',
    'locals {',
    '  text = <<-EOT',
    '    resource "aws_s3_bucket" "data" {',
    '    EOT',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: HCL template syntax in data, not a JS template
    '  s = "resource \\"aws_s3_bucket\\" \\"data\\" { ${jsonencode({ a = "}" })}"',
    '}',
    'module "net" {',
    '  source  = "./modules/net"',
    '  version = "1.0"',
    '}',
    'resource "aws_s3_bucket" "data" {',
    '  bucket = "x"',
    '}',
  ].join('\n');

  it('skips comments, heredocs and strings, and finds the header line', () => {
    expect(findResourceBlock([{ path: 'main.tf', text: main }], 'aws_s3_bucket', 'data')).toEqual({
      file: 'main.tf',
      line: 14,
    });
    expect(findResourceBlock([{ path: 'main.tf', text: main }], 'aws_s3_bucket', 'other')).toBeUndefined();
    expect(findModuleSource([{ path: 'main.tf', text: main }], 'net')).toBe('./modules/net');
  });

  it('reads .tf.json configuration too', () => {
    const json = JSON.stringify({ resource: { aws_s3_bucket: { data: { bucket: 'x' } } } }, null, 2);
    expect(findResourceBlock([{ path: 'main.tf.json', text: json }], 'aws_s3_bucket', 'data')).toEqual({
      file: 'main.tf.json',
      line: 4,
    });
  });
});
