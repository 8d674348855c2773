import { describe, expect, it } from 'vitest';
import {
  DEFAULT_LOCK_SETTINGS,
  DEFAULT_POLICIES,
  type Registry,
} from '../../../../functions/core/registry/model.js';
import { parseRegistry, RegistryError } from '../../../../functions/core/registry/parse.js';
import { formatProblem } from '../../../../functions/core/registry/problems.js';
import { HEADER, problemsOf, registryWithWorkspace, WORKSPACE, yaml } from './helpers.js';

const FULL_REGISTRY = `
version: 1
owners:
  fallback: platform
  teams:
    - id: platform
      destinations: [{ type: chatbot-slack, workspace: T0123, channel: C0456 }]
    - id: payments
      destinations:
        - { type: email, address: payments-oncall@example.com }
        - { type: sqs, queueArn: "arn:aws:sqs:eu-west-1:111111111111:payments-findings", environments: [prod] }
    - id: dba
      destinations: [{ type: https, url: "https://hooks.example.com/driftwatch" }]
workspaces:
  - id: payments-prod
    owner: payments
    environment: prod
    source: { dir: infra/payments }
    backend: { bucket: tfstate-prod, key: payments/terraform.tfstate, region: eu-west-1 }
    roleArn: arn:aws:iam::111111111111:role/driftwatch-read
    externalId: driftwatch-7f3a
    terraformVersion: 1.11.4
    routes:
      - { address: "module.db.*", owner: dba }
      - { tag: { key: Owner, value: dba }, owner: dba }
    env: { TF_VAR_region: eu-west-1 }
    varFiles: [env/prod.tfvars]
    locks: { staleAfter: { apply: 4h } }
  - id: payments-staging
    owner: payments
    environment: staging
    source: { s3: "s3://bundles/payments.tgz", path: infra/ }
    engine: opentofu
    terraformVersion: "~> 1.8.0"
    backend:
      bucket: tfstate-staging
      key: terraform.tfstate
      region: us-gov-west-1
      workspace: staging
      workspaceKeyPrefix: envs
      lockTable: terraform-locks
      requireKms: true
policies:
  noise: { nullVersusEmpty: true, companionAttributes: false }
  ignore:
    - { address: "aws_autoscaling_group.*", path: desired_capacity, reason: "scaled by policy", until: 2027-03-01 }
  severity:
    production: [prod, production]
    overrides: [{ ruleId: drift.update, address: "aws_s3_bucket.logs", environment: staging, severity: low }]
  deletionGuard: { ratio: 0.25 }
  backend: { requireKms: false }
locks: { staleAfter: { plan: 1h, apply: 2h30m, default: 30m }, confirmAfter: 90s }
notifications: { remindEvery: 3d, maxFindingsPerDigest: 25 }
suppressions: { maxDuration: 30d }
schedule: { cron: "0 2 * * ? *", timezone: Europe/Berlin }
`;

describe('parseRegistry: a valid registry', () => {
  it('returns every value, normalised, with defaults filled and durations in milliseconds', () => {
    const expected: Registry = {
      version: 1,
      owners: {
        fallback: 'platform',
        teams: [
          { id: 'platform', destinations: [{ type: 'chatbot-slack', workspace: 'T0123', channel: 'C0456' }] },
          {
            id: 'payments',
            destinations: [
              { type: 'email', address: 'payments-oncall@example.com' },
              {
                type: 'sqs',
                queueArn: 'arn:aws:sqs:eu-west-1:111111111111:payments-findings',
                environments: ['prod'],
              },
            ],
          },
          { id: 'dba', destinations: [{ type: 'https', url: 'https://hooks.example.com/driftwatch' }] },
        ],
      },
      workspaces: [
        {
          id: 'payments-prod',
          owner: 'payments',
          environment: 'prod',
          source: { dir: 'infra/payments' },
          backend: { bucket: 'tfstate-prod', key: 'payments/terraform.tfstate', region: 'eu-west-1' },
          roleArn: 'arn:aws:iam::111111111111:role/driftwatch-read',
          externalId: 'driftwatch-7f3a',
          terraformVersion: '1.11.4',
          routes: [
            { address: 'module.db.*', owner: 'dba' },
            { tag: { key: 'Owner', value: 'dba' }, owner: 'dba' },
          ],
          env: { TF_VAR_region: 'eu-west-1' },
          varFiles: ['env/prod.tfvars'],
          locks: { staleAfterMs: { apply: 4 * 60 * 60_000 } },
        },
        {
          id: 'payments-staging',
          owner: 'payments',
          environment: 'staging',
          source: { s3: 's3://bundles/payments.tgz', path: 'infra/' },
          engine: 'opentofu',
          terraformVersion: '~> 1.8.0',
          backend: {
            bucket: 'tfstate-staging',
            key: 'terraform.tfstate',
            region: 'us-gov-west-1',
            workspace: 'staging',
            workspaceKeyPrefix: 'envs',
            lockTable: 'terraform-locks',
            requireKms: true,
          },
          routes: [],
          env: {},
          varFiles: [],
        },
      ],
      policies: {
        noise: {
          nullVersusEmpty: true,
          companionAttributes: false,
          equivalentJson: true,
          foldTagsAll: true,
          volatileAttributes: true,
          equivalentProtocols: true,
        },
        ignore: [
          {
            address: 'aws_autoscaling_group.*',
            path: 'desired_capacity',
            reason: 'scaled by policy',
            until: '2027-03-01',
          },
        ],
        severity: {
          production: ['prod', 'production'],
          overrides: [
            {
              ruleId: 'drift.update',
              address: 'aws_s3_bucket.logs',
              environment: 'staging',
              severity: 'low',
            },
          ],
        },
        deletionGuard: { ratio: 0.25 },
        backend: { requireKms: false },
      },
      locks: {
        staleAfterMs: { plan: 3_600_000, apply: 9_000_000, default: 1_800_000 },
        confirmAfterMs: 90_000,
      },
      clusters: [],
      notifications: { remindEveryMs: 3 * 24 * 60 * 60_000, maxFindingsPerDigest: 25 },
      suppressions: { maxDurationMs: 30 * 24 * 60 * 60_000 },
      schedule: { cron: '0 2 * * ? *', timezone: 'Europe/Berlin', alertAfterMs: 26 * 3_600_000 },
    };
    expect(parseRegistry(FULL_REGISTRY)).toStrictEqual(expected);
  });

  it('fills routes, env, policies and locks from the defaults when they are left out', () => {
    const registry = parseRegistry(registryWithWorkspace());
    expect(registry.workspaces[0]?.routes).toStrictEqual([]);
    expect(registry.workspaces[0]?.env).toStrictEqual({});
    expect(registry.policies).toStrictEqual(DEFAULT_POLICIES);
    expect(registry.locks).toStrictEqual(DEFAULT_LOCK_SETTINGS);
    expect(registry.schedule).toBeUndefined();
  });

  it('merges partial policies and locks with the defaults key by key', () => {
    const registry = parseRegistry(
      yaml(
        ...HEADER,
        'policies:',
        '  noise: { foldTagsAll: false }',
        '  severity: { production: [live] }',
        'locks: { staleAfter: { apply: 3h } }',
      ),
    );
    expect(registry.policies).toStrictEqual({
      ...DEFAULT_POLICIES,
      noise: { ...DEFAULT_POLICIES.noise, foldTagsAll: false },
      severity: { production: ['live'], overrides: [] },
    });
    expect(registry.locks).toStrictEqual({
      staleAfterMs: { plan: 3_600_000, apply: 10_800_000, default: 1_800_000 },
      confirmAfterMs: 600_000,
    });
  });

  it('hands out copies of the defaults, so changing one registry cannot change the next', () => {
    const first = parseRegistry(yaml(...HEADER));
    first.policies.noise.nullVersusEmpty = false;
    first.policies.severity.production.push('sandbox');
    first.locks.staleAfterMs.plan = 1;
    expect(DEFAULT_POLICIES.noise.nullVersusEmpty).toBe(true);
    expect(DEFAULT_POLICIES.severity.production).toStrictEqual(['prod', 'production']);
    expect(DEFAULT_LOCK_SETTINGS.staleAfterMs.plan).toBe(3_600_000);
    expect(parseRegistry(yaml(...HEADER)).policies).toStrictEqual(DEFAULT_POLICIES);
  });

  it('allows a registry with no workspaces, written as an empty list or left out', () => {
    expect(parseRegistry(yaml(...HEADER)).workspaces).toStrictEqual([]);
    expect(parseRegistry(yaml(...HEADER, 'workspaces: []')).workspaces).toStrictEqual([]);
  });

  it('defaults the schedule time zone to UTC and the scan-missing alert to 26 hours', () => {
    const registry = parseRegistry(yaml(...HEADER, 'schedule: { cron: "30 1 ? * MON-FRI *" }'));
    expect(registry.schedule).toStrictEqual({
      cron: '30 1 ? * MON-FRI *',
      timezone: 'UTC',
      alertAfterMs: 26 * 3_600_000,
    });
    const weekdays = parseRegistry(
      yaml(...HEADER, 'schedule: { cron: "30 1 ? * MON-FRI *", alertAfter: 3d }'),
    );
    expect(weekdays.schedule?.alertAfterMs).toBe(3 * 24 * 3_600_000);
  });
});

describe('parseRegistry: problem reports', () => {
  it('reports all problems together, sorted by line, not just the first', () => {
    const text = yaml(
      'version: 2', // 1
      'owners:', // 2
      '  fallback: nobody', // 3
      '  teams:', // 4
      '    - id: platform', // 5
      '      destinations: [{ type: email, address: platform@example.com }]', // 6
      'workspaces:', // 7
      '  - id: Payments', // 8
      '    owner: platform', // 9
      '    environment: prod', // 10
      '    source: { dir: infra }', // 11
      '    bakend: { bucket: tfstate-prod, key: /x, region: eu-west-1 }', // 12
      'locks: { confirmAfter: soon }', // 13
    );
    expect(problemsOf(text)).toStrictEqual([
      { path: 'version', line: 1, column: 10, message: expect.stringContaining('must be 1') },
      { path: 'owners.fallback', line: 3, column: 13, message: expect.stringContaining("no team 'nobody'") },
      {
        path: 'workspaces[0].id',
        line: 8,
        column: 9,
        message: expect.stringContaining('the value is not a valid id'),
      },
      {
        path: 'workspaces[0].bakend',
        line: 12,
        column: 5,
        message: expect.stringContaining("did you mean 'backend'? ('backend' is required)"),
      },
      {
        path: 'locks.confirmAfter',
        line: 13,
        column: 24,
        message: expect.stringContaining('the value is not a duration'),
      },
    ]);
  });

  it('formats the message as one `<file>:<line>:<col> <path>: <message>` line per problem', () => {
    const text = registryWithWorkspace('    roleArn: nope', '    terraformVersion: latest');
    let caught: unknown;
    try {
      parseRegistry(text, { fileName: 'infra/driftwatch.yaml' });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(RegistryError);
    const error = caught as RegistryError;
    expect(error.name).toBe('RegistryError');
    expect(error.fileName).toBe('infra/driftwatch.yaml');
    expect(error.message.split('\n')).toStrictEqual([
      'infra/driftwatch.yaml:13:14 workspaces[0].roleArn: the value is not an IAM role ARN such as arn:aws:iam::111111111111:role/driftwatch-read',
      "infra/driftwatch.yaml:14:23 workspaces[0].terraformVersion: the value is neither a Terraform version such as 1.11.4 nor a constraint such as '~> 1.11.0' or '>= 1.5, < 2.0'",
    ]);
  });

  it('never quotes the values it read: a .tfvars given as the registry, a secret in a wrong field', () => {
    const secret = 'hunter2-Secret-Value';
    const texts = [
      `db_password = "${secret}"\nregion = "eu-west-1"\n`,
      `{ "db_password": "${secret}" }\n`,
      registryWithWorkspace(`    roleArn: "${secret}"`, `    terraformVersion: "${secret}"`),
      yaml(
        ...HEADER.slice(0, 4),
        '    - id: platform',
        `      destinations: [{ type: email, address: "${secret}" }]`,
      ),
      yaml('version: 1', `owners: "${secret}"`),
    ];
    for (const text of texts) {
      let caught: unknown;
      try {
        parseRegistry(text, { fileName: 'prod.tfvars' });
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(RegistryError);
      expect((caught as Error).message).toMatch(/^prod\.tfvars:\d+:\d+ /);
      expect((caught as Error).message).not.toContain('hunter2');
    }
  });

  it('names driftwatch.yaml when no file name is given', () => {
    expect(() => parseRegistry('version: 1\n')).toThrow(/^driftwatch\.yaml:1:1 owners: required$/);
  });

  it('points a missing key at the mapping that lacks it, in block and in flow style', () => {
    const problems = problemsOf(
      registryWithWorkspace(
        '  - id: second', // 13
        '    owner: platform', // 14
        '    environment: prod', // 15
        '    source: { dir: infra }', // 16
        '    backend:', // 17
        '      key: state.tfstate', // 18
        '      region: eu-west-1', // 19
        '  - id: third', // 20
        '    owner: platform', // 21
        '    environment: prod', // 22
        '    source: { dir: infra }', // 23
        '    backend: { key: state.tfstate, region: eu-west-1 }', // 24
      ),
    );
    expect(problems).toStrictEqual([
      { path: 'workspaces[1].backend.bucket', line: 18, column: 7, message: 'required' },
      { path: 'workspaces[2].backend.bucket', line: 24, column: 14, message: 'required' },
    ]);
  });

  it('reports a value of the wrong type with what was expected and what was found', () => {
    const problems = problemsOf(
      registryWithWorkspace('    terraformVersion: 1.10', '    routes: { owner: platform }'),
    );
    expect(problems).toStrictEqual([
      {
        path: 'workspaces[0].terraformVersion',
        line: 13,
        column: 23,
        message: 'expected text, got the number 1.1 (put the value in quotes to keep it as text)',
      },
      { path: 'workspaces[0].routes', line: 14, column: 13, message: 'expected a list, got a mapping' },
    ]);
  });
});

describe('parseRegistry: documents that are not a registry', () => {
  it.each([
    ['an empty file', ''],
    ['only comments', '# driftwatch registry\n'],
    ['an explicit null', '~\n'],
  ])('rejects %s', (_name, text) => {
    expect(problemsOf(text)).toStrictEqual([
      {
        path: '',
        line: 1,
        column: 1,
        message: 'the document is empty; expected a mapping with version, owners and workspaces',
      },
    ]);
  });

  it.each([
    ['a list', '- version: 1\n', 'a list'],
    ['a scalar', 'hello\n', 'text'],
    ['a number', '42\n', 'the number 42'],
  ])('rejects a document that is %s', (_name, text, found) => {
    expect(problemsOf(text)).toStrictEqual([
      {
        path: '',
        line: 1,
        column: 1,
        message: `expected a mapping with version, owners and workspaces, got ${found}`,
      },
    ]);
  });

  it('rejects text that is not YAML at all', () => {
    const problems = problemsOf('{"version": 1, "owners": [}\n');
    expect(problems.length).toBeGreaterThan(0);
    expect(problems[0]).toMatchObject({ line: 1, message: expect.stringMatching(/^YAML syntax: /) });
  });

  it('rejects an alias whose anchor does not exist, at the alias', () => {
    expect(problemsOf(yaml(...HEADER, 'workspaces: *all'))).toStrictEqual([
      {
        path: 'workspaces',
        line: 7,
        column: 13,
        message: 'alias *all names no anchor: define &all before it',
      },
    ]);
  });
  it('reads merge keys (`<<: *anchor`), as GitLab CI and Compose files use them to share a backend', () => {
    const registry = parseRegistry(
      yaml(
        ...HEADER,
        'workspaces:',
        '  - id: payments-prod',
        '    owner: platform',
        '    environment: prod',
        '    source: { dir: infra/payments }',
        '    backend: &backend { bucket: tfstate-prod, key: payments/prod.tfstate, region: eu-west-1 }',
        '  - id: payments-staging',
        '    owner: platform',
        '    environment: staging',
        '    source: { dir: infra/payments }',
        '    backend: { <<: *backend, key: payments/staging.tfstate }',
      ),
    );
    expect(registry.workspaces[1]?.backend).toMatchObject({
      bucket: 'tfstate-prod',
      key: 'payments/staging.tfstate',
      region: 'eu-west-1',
    });
  });

  it('ignores top-level `x-` extension keys (a place for anchors, as in Compose files), nowhere else', () => {
    const registry = parseRegistry(
      yaml(
        'x-backend: &backend { bucket: tfstate-prod, region: eu-west-1 }',
        ...HEADER,
        'workspaces:',
        '  - id: payments-prod',
        '    owner: platform',
        '    environment: prod',
        '    source: { dir: infra/payments }',
        '    backend: { <<: *backend, key: payments/prod.tfstate }',
      ),
    );
    expect(registry.workspaces[0]?.backend).toMatchObject({
      bucket: 'tfstate-prod',
      key: 'payments/prod.tfstate',
    });
    expect(registry).not.toHaveProperty('x-backend');
    expect(problemsOf(registryWithWorkspace('    x-note: kept out of the workspace'))).toStrictEqual([
      expect.objectContaining({
        path: 'workspaces[0].x-note',
        message: expect.stringContaining("unknown key 'x-note'"),
      }),
    ]);
  });

  it('keeps YAML 1.2 scalars with merge keys on: `no` and `on` stay text', () => {
    const registry = parseRegistry(registryWithWorkspace('    env: { TF_VAR_a: no, TF_VAR_b: on }'));
    expect(registry.workspaces[0]?.env).toEqual({ TF_VAR_a: 'no', TF_VAR_b: 'on' });
  });

  it('rejects a key that is a list or a mapping', () => {
    expect(problemsOf(yaml(...HEADER, '? [a, b]', ': c'))).toStrictEqual([
      { path: '', line: 7, column: 3, message: 'a key must be plain text, not a list or a mapping' },
    ]);
  });

  it('rejects an alias bomb instead of expanding it', () => {
    const bomb = yaml(
      'a: &a [x, x, x, x, x, x, x, x, x, x]',
      'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]',
      'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]',
      'd: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]',
    );
    expect(problemsOf(bomb)).toStrictEqual([
      {
        path: 'b[0]',
        line: 2,
        column: 8,
        message: expect.stringMatching(/^cannot read the YAML: Excessive alias count.*; use fewer aliases$/),
      },
    ]);
  });

  // Each is well-formed YAML no registry can be made of: one problem at its node, never a crash
  // ("Converting circular structure to JSON"), a hang or a problem at 1:1 that names no field.
  it.each([
    {
      name: 'an alias inside the mapping it names',
      rows: [...HEADER.slice(0, 2), '  fallback: &owners', '    nested: *owners'],
      expected: { path: 'owners.fallback.nested', line: 4, column: 13 },
      message: 'alias *owners is inside the node &owners it names: a value cannot contain itself',
    },
    {
      name: 'an alias inside the list it names (a variable value)',
      rows: [...HEADER, 'workspaces:', ...WORKSPACE, '    vars: { x: &v [1, *v] }'],
      expected: { path: 'workspaces[0].vars.x[1]', line: 13, column: 23 },
      message: 'alias *v is inside the node &v it names: a value cannot contain itself',
    },
    {
      name: 'an alias of the whole list of workspaces, inside it',
      rows: [...HEADER, 'workspaces: &all', ...WORKSPACE, '    routes: *all'],
      expected: { path: 'workspaces[0].routes', line: 13, column: 13 },
      message: 'alias *all is inside the node &all it names: a value cannot contain itself',
    },
    {
      name: 'a merge key given a number',
      rows: [...HEADER, 'workspaces:', ...WORKSPACE, '    <<: 5'],
      expected: { path: 'workspaces[0]["<<"]', line: 13, column: 9 },
      message: 'a merge key (<<) takes a mapping, an alias of one (*name) or a list of them',
    },
    {
      name: 'a merge key given a list of text',
      rows: [...HEADER, 'workspaces:', ...WORKSPACE, '    <<: [a, b]'],
      expected: { path: 'workspaces[0]["<<"]', line: 13, column: 9 },
      message: 'a merge key (<<) takes a mapping, an alias of one (*name) or a list of them',
    },
    {
      name: 'a merge key given an alias of a list',
      rows: ['x-list: &list [a]', ...HEADER, 'workspaces:', ...WORKSPACE, '    <<: *list'],
      expected: { path: 'workspaces[0]["<<"]', line: 14, column: 9 },
      message: 'a merge key (<<) takes a mapping, an alias of one (*name) or a list of them',
    },
    {
      name: 'a NUL character in a value (it would become a state key and a terraform argument)',
      rows: [
        ...HEADER,
        'workspaces:',
        ...WORKSPACE.slice(0, 4),
        '    backend: { bucket: tfstate-prod, key: "a\\0b.tfstate", region: eu-west-1 }',
      ],
      expected: { path: 'workspaces[0].backend.key', line: 12, column: 43 },
      message: 'holds a NUL character (\\0): no key, file name or argument can carry one',
    },
    {
      name: 'a NUL character in a key',
      rows: [...HEADER, 'workspaces:', ...WORKSPACE, '    env: { "TF_VAR_a\\0": x }'],
      expected: { path: 'workspaces[0].env["TF_VAR_a\\u0000"]', line: 13, column: 12 },
      message: 'holds a NUL character (\\0): no key, file name or argument can carry one',
    },
  ])('$name', ({ rows, expected, message }) => {
    expect(problemsOf(yaml(...rows))).toStrictEqual([{ ...expected, message }]);
  });

  it.each([
    [
      'mappings',
      (depth: number) => `${'{a: '.repeat(depth)}1${'}'.repeat(depth)}`,
      /^workspaces\[0\]\.vars\.x(\.a)+…\(\d+ levels\)…(\.a)+$/,
    ],
    [
      'lists',
      (depth: number) => `${'['.repeat(depth)}1${']'.repeat(depth)}`,
      /^workspaces\[0\]\.vars\.x(\[0\])+…\(\d+ levels\)…(\[0\])+$/,
    ],
  ])('names YAML nested too deeply to read (%s), on one short line', (_kind, nested, path) => {
    const problems = problemsOf(registryWithWorkspace(`    vars: { x: ${nested(20_000)} }`));
    expect(problems.length).toBeGreaterThan(0);
    for (const problem of problems) {
      expect(problem).toMatchObject({
        line: 13,
        message: 'YAML nested too deeply to read (a registry is a few levels deep): is it the right file?',
      });
      expect(problem.path).toMatch(path);
      expect(problem.path.length).toBeLessThan(120);
    }
  });
});

describe('parseRegistry: YAML syntax errors', () => {
  it('reports bad indentation with its line and column', () => {
    const problems = problemsOf(yaml('version: 1', 'owners:', '  fallback: platform', ' teams: []'));
    expect(problems[0]).toMatchObject({
      line: 4,
      column: 1,
      message: 'YAML syntax: All mapping items must start at the same column',
    });
  });

  it('reports an unclosed quote', () => {
    const problems = problemsOf(yaml('version: 1', 'owners:', '  fallback: "platform', '  teams: []'));
    expect(problems[0]).toMatchObject({
      line: 5,
      column: 1,
      message: expect.stringContaining('Missing closing "quote'),
    });
  });

  it('reports tabs used for indentation and says to use spaces', () => {
    const problems = problemsOf(yaml('version: 1', 'owners:', '\tfallback: platform'));
    expect(problems[0]).toMatchObject({
      line: 3,
      column: 1,
      message: 'YAML syntax: Tabs are not allowed as indentation; indent with spaces',
    });
  });

  it('reports a tab in a workspace entry once, without the errors the parser makes of the lines after it', () => {
    // One tab before `environment:` made six lines: the tab, then "All mapping items must start at
    // the same column" (twice), "A block sequence may not be used as an implicit map key"…
    const text = registryWithWorkspace().replace('    environment: prod', '\tenvironment: prod');
    const problems = problemsOf(text);
    expect(problems).toStrictEqual([
      {
        path: '',
        line: 10,
        column: 1,
        message: 'YAML syntax: Tabs are not allowed as indentation; indent with spaces',
      },
    ]);
  });

  it('reports every tab used as indentation', () => {
    const text = registryWithWorkspace()
      .replace('    environment: prod', '\tenvironment: prod')
      .replace('    owner: platform', '\towner: platform');
    expect(problemsOf(text).map((problem) => [problem.line, problem.message])).toStrictEqual([
      [9, 'YAML syntax: Tabs are not allowed as indentation; indent with spaces'],
      [10, 'YAML syntax: Tabs are not allowed as indentation; indent with spaces'],
    ]);
  });

  it('reports a duplicate mapping key with its path and the line of the first occurrence', () => {
    const problems = problemsOf(registryWithWorkspace('    environment: staging'));
    expect(problems).toStrictEqual([
      {
        path: 'workspaces[0].environment',
        line: 13,
        column: 5,
        message: "duplicate key 'environment' (first at line 10): each key may appear only once in a mapping",
      },
    ]);
  });

  it('reports a duplicate key inside a flow mapping', () => {
    const problems = problemsOf(yaml(...HEADER, 'locks: { confirmAfter: 1m, confirmAfter: 2m }'));
    expect(problems).toStrictEqual([
      {
        path: 'locks.confirmAfter',
        line: 7,
        column: 28,
        message: expect.stringContaining("duplicate key 'confirmAfter'"),
      },
    ]);
  });

  it("rejects a file with several YAML documents, saying what to remove in its words, not the library's", () => {
    const message =
      'a second YAML document starts here (after a `---` line): a registry is one document; remove the `---` or what follows it';
    expect(problemsOf(yaml(...HEADER, '---', 'version: 1'))).toStrictEqual([
      { path: '', line: 7, column: 1, message },
    ]);
    // A trailing `---`, as files cut from a Kubernetes manifest end.
    expect(problemsOf(yaml(...HEADER, '---'))[0]).toMatchObject({ line: 7, message });
  });

  it('rejects tags it does not know instead of ignoring them', () => {
    const problems = problemsOf(yaml(...HEADER, 'workspaces: !Ref AllWorkspaces'));
    expect(problems[0]).toMatchObject({ line: 7, column: 13, message: 'YAML syntax: Unresolved tag: !Ref' });
  });
});

describe('parseRegistry: characters pasted from a web page or chat', () => {
  // The registry sketch copied from a wiki page or a chat message: the no-break spaces, curly
  // quotes and en dashes look right and make YAML read something else.
  const NBSP = '\u00a0';
  const hint = (line: number, column: number, what: string) =>
    `; line ${line} column ${column} holds ${what} (text copied from a web page or chat holds them): type the plain ASCII character there`;
  const noBreakSpace = 'a no-break space (U+00A0), which looks like a space';

  it.each([
    ['an indent of no-break spaces', `${NBSP}${NBSP}fallback: platform`, 1],
    ['a no-break space after the colon', `  fallback:${NBSP}platform`, 12],
  ])('a syntax error from %s names the character and where it is', (_case, row, column) => {
    const problems = problemsOf(yaml('version: 1', 'owners:', row, ...HEADER.slice(3)));
    expect(problems.length).toBeGreaterThan(0);
    for (const problem of problems) {
      expect(problem.message).toMatch(/^YAML syntax: /);
      expect(problem.message.endsWith(hint(3, column, noBreakSpace))).toBe(true);
    }
  });

  it('a no-break space at the end of the line before the error (where the parser notices it)', () => {
    const problems = problemsOf(yaml('version: 1', `owners:${NBSP}`, ...HEADER.slice(2)));
    const later = problems.filter((problem) => problem.line === 3);
    expect(later.length).toBeGreaterThan(0);
    for (const problem of later) expect(problem.message.endsWith(hint(2, 8, noBreakSpace))).toBe(true);
  });

  it("an en dash for a list item's '-'", () => {
    const problems = problemsOf(
      yaml(
        ...HEADER.slice(0, 4),
        '    \u2013 { id: platform, destinations: [{ type: email, address: p@example.com }] }',
      ),
    );
    expect(problems[0]?.message).toContain(hint(5, 5, "an en dash (U+2013), which looks like '-'"));
  });

  it.each([
    ['a trailing no-break space', `platform${NBSP}`, 9, noBreakSpace],
    ['curly quotes', '\u201cplatform\u201d', 1, "a curly quote (U+201C), which looks like '\"'"],
    ['a zero-width space', 'plat\u200bform', 5, 'a zero-width space (U+200B), which is invisible'],
  ])('a value refused for %s says which character, never the value', (_case, value, character, what) => {
    const problems = problemsOf(yaml('version: 1', 'owners:', `  fallback: ${value}`, ...HEADER.slice(3)));
    const fallback = problems.find((problem) => problem.path === 'owners.fallback');
    expect(fallback?.message).toMatch(/^the value is not a valid id: /);
    expect(fallback?.message).toContain(
      `; its character ${character} is ${what} (text copied from a web page or chat holds them): retype it`,
    );
    expect(fallback?.message).not.toContain('platform');
  });

  it('says nothing of look-alikes where YAML and the schema are content with them', () => {
    const registry = parseRegistry(
      registryWithWorkspace(
        'policies:',
        `  ignore: [{ address: "aws_sqs_queue.*", path: tags.x, reason: "set by the \u201cdrain\u201d${NBSP}job" }]`,
      ),
    );
    expect(registry.policies.ignore[0]?.reason).toBe(`set by the \u201cdrain\u201d${NBSP}job`);
  });
});

describe('parseRegistry: keys that do not read as what they hold', () => {
  // A key with an invisible character is another key than the one it looks like: the problem must
  // show the difference (stripped, `owner\u200b` read `unknown key 'owner'; did you mean 'owner'?`).
  const cases = [
    { name: 'a zero-width space', key: 'owner\u200b', shown: 'owner\\u200b' },
    { name: 'an escape sequence', key: 'owner\u001b[31m', shown: 'owner\\u001b[31m' },
    { name: 'a no-break space', key: 'owner\u00a0', shown: 'owner\\u00a0' },
    { name: 'a right-to-left override', key: '\u202eowner', shown: '\\u202eowner' },
    { name: 'a Cyrillic letter that looks Latin', key: 'own\u0435r', shown: 'own\\u0435r' },
  ];
  const quoted = (key: string) => JSON.stringify(key);

  it.each(cases)('an unknown key with $name', ({ key, shown }) => {
    const [problem] = problemsOf(registryWithWorkspace(`    ${quoted(key)}: platform`));
    expect(problem?.message).toMatch(new RegExp(`^unknown key '${escapeRegExp(shown)}'; `));
    expect(problem?.path).toBe(
      `workspaces[0][${quoted(key).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}]`,
    );
  });

  it.each(cases)('an env name, a variable name and a duplicate key with $name', ({ key, shown }) => {
    const messages = problemsOf(
      registryWithWorkspace(
        `    env: { ${quoted(`TF_VAR_${key}`)}: x }`,
        `    vars: { ${quoted(key)}: x }`,
        `    sensitiveVars: { ${quoted(`s${key}`)}: { env: X } }`,
      ),
    ).map((problem) => problem.message);
    expect(messages).toEqual([
      expect.stringContaining(`'TF_VAR_${shown}' is not an environment variable name`),
      expect.stringContaining(`'${shown}' is not a Terraform variable name`),
      expect.stringContaining(`'s${shown}' is not a Terraform variable name`),
    ]);
    const duplicate = registryWithWorkspace(
      `    routes: [{ address: a, owner: platform, ${quoted(key)}: 1, ${quoted(key)}: 2 }]`,
    );
    expect(problemsOf(duplicate)[0]?.message).toContain(`duplicate key '${shown}' (first at line 13)`);
  });

  it('a key 100,000 characters long is shown by its start, on a short line', () => {
    const key = `x${'y'.repeat(100_000)}`;
    // An explicit key (`? …`): YAML limits implicit ones to 1,024 characters.
    const [problem] = problemsOf(registryWithWorkspace(`    ? ${key}`, '    : 1'));
    expect(problem?.message).toMatch(/^unknown key 'xyyy+…'; expected one of: id, owner,/);
    expect(problem?.path).toMatch(/^workspaces\[0\]\["xy{62}…"\]$/);
    expect(formatProblem(problem!).length).toBeLessThan(600);
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

describe('a mistyped choice', () => {
  // Every field that takes one of a fixed set of words: a typo gets the word it was likely meant to
  // be, and the message never repeats what was typed (a value in the wrong file may be a secret).
  const header = (type: string) => [
    'version: 1',
    'owners:',
    '  fallback: platform',
    '  teams:',
    '    - id: platform',
    `      destinations: [{ type: ${type}, address: platform@example.com }]`,
  ];
  it.each([
    [
      'destination type',
      yaml(...header('emial'), 'workspaces:', ...WORKSPACE),
      'owners.teams[0].destinations[0].type',
      'email',
    ],
    [
      'destination type in capitals',
      yaml(...header('Email'), 'workspaces:', ...WORKSPACE),
      'owners.teams[0].destinations[0].type',
      'email',
    ],
    ['runner', registryWithWorkspace('    runner: lamda'), 'workspaces[0].runner', 'lambda'],
    ['engine', registryWithWorkspace('    engine: terrafrom'), 'workspaces[0].engine', 'terraform'],
    ['engine', registryWithWorkspace('    engine: opentfu'), 'workspaces[0].engine', 'opentofu'],
    [
      'severity override',
      registryWithWorkspace(
        'policies:',
        '  severity: { overrides: [{ ruleId: drift.update, severity: hihg }] }',
      ),
      'policies.severity.overrides[0].severity',
      'high',
    ],
  ])('%s: suggests the closest word', (_, text, path, suggestion) => {
    const problem = problemsOf(text).find((candidate) => candidate.path === path);
    expect(problem?.message).toMatch(new RegExp(`; did you mean '${suggestion}'\\?$`));
  });

  it.each([
    ['a word far from every choice', registryWithWorkspace('    runner: kubernetes')],
    [
      'a long secret-looking value',
      registryWithWorkspace(
        '    runner: ghp_CANARYchoiceAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
      ),
    ],
  ])('%s: no suggestion, and the value is not repeated', (_, text) => {
    const problem = problemsOf(text).find((candidate) => candidate.path === 'workspaces[0].runner');
    expect(problem?.message).toBe('expected lambda or codebuild');
  });
});
